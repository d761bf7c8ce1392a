#!/bin/sh
# u48-guest.sh: tagtrace on LAM_U48's 15 tag bits. Under
# tracefs, `tagtrace tags --json`, `top --json` and `trace --json`:
# tagloop 300 --u48 0 (uname() through tags 1-300: the dense 1-63 and 237
# wide values), tagloop 4 --u48 20000 --pages (faults through tags
# 20001-20004), then tagloop 17000 --u48 1000 (17000 distinct wide
# values, more than the wide_tags map's 16384 entries hold).
# `trace -A fallback -e ctrl` beside them reports the enables from
# do_arch_prctl_64's return, whose offset comes from the untag mask.
# check_u48.py compares. Needs a kernel that grants U48 (--cpu lam).
# Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

tracefs_start
$TT tags --json -i 60 > $d/tags.json 2> $d/tags.err &
gp=$!
$TT top --json -i 60 > $d/top.json 2> $d/top.err &
tp=$!
$TT trace --json -e ctrl,untag,fault > $d/trace.json 2> $d/trace.err &
rp=$!
$TT trace --json -A fallback -e ctrl > $d/fallback.json 2> $d/fallback.err &
fp=$!
started $d/tags.err "Ctrl-C" && started $d/top.err "Ctrl-C" &&
	started $d/trace.err "Ctrl-C" && started $d/fallback.err "Ctrl-C"
rc=0
build/vm/tagloop 300 --u48 0 > $d/small.out || rc=small
build/vm/tagloop 4 --u48 20000 --pages > $d/pages.out || rc=pages
build/vm/tagloop 17000 --u48 1000 > $d/many.out || rc=many
sleep 0.3
stop $gp $tp $rp $fp
src=$?
tracefs_stop $d/tracefs.txt
sed 's/^/# /' $d/tags.err $d/top.err $d/trace.err $d/fallback.err
[ $rc = 0 ] && echo "ok - the three tagloop runs with 15-bit tags ran" ||
	echo "not ok - the three tagloop runs with 15-bit tags ran: $rc"
[ $src = 0 ] && echo "ok - tagtrace tags, top and both traces exit 0 on SIGINT" ||
	echo "not ok - tagtrace tags, top and both traces exit 0 on SIGINT: $src"
python3 tests/tool/check_u48.py $d
