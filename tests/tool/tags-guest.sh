#!/bin/sh
# tags-guest.sh N W U P: HWASan under tagtrace. hwasan_prog runs twice
# (N allocations each written W times to /dev/null, U uname() calls, P
# fresh pages; the second run ends in a use-after-free), then tagloop
# writes P fresh pages through one tagged pointer, and has read() fill P
# fresh pages through untagged pointers while %rbx holds a tagged one. tracefs records the
# tagged_addr events and every system call entry meanwhile; `tagtrace tags
# --json` and `tagtrace trace --json` watch. check_tags.py compares them.
# Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
H=build/vm/hwasan_prog
SE=$T/events/raw_syscalls/sys_enter/enable

tracefs_start
echo 1 > $SE
$TT tags --json -i 60 > $d/tags.json 2> $d/tags.err &
gp=$!
$TT trace --json -e ctrl,untag,fault > $d/trace.json 2> $d/trace.err &
tp=$!
started $d/tags.err "Ctrl-C" && started $d/trace.err "Ctrl-C"
$H "$@" > $d/workload.out 2> $d/workload.err
rc=$?
$H "$@" --uaf > $d/uaf.out 2> $d/uaf.err
urc=$?
build/vm/tagloop "$4" --pages > $d/tagloop.out
lrc=$?
build/vm/tagloop "$4" --reads > $d/reads.out || lrc=reads
sleep 0.3
stop $gp $tp
src=$?
echo 0 > $SE
tracefs_stop $d/tracefs.txt
sed 's/^/# /' $d/tags.err $d/trace.err
[ $rc = 0 ] && echo "ok - hwasan_prog ran ($*)" ||
	{ echo "not ok - hwasan_prog ran ($*): $rc"; sed 's/^/#   /' $d/workload.err; }
[ $urc != 0 ] && echo "ok - hwasan_prog --uaf was aborted by HWASan ($urc)" ||
	echo "not ok - hwasan_prog --uaf was aborted by HWASan: exit 0"
[ $lrc = 0 ] && echo "ok - tagloop $4 --pages and --reads ran" ||
	echo "not ok - tagloop $4 --pages and --reads ran: $lrc"
[ $src = 0 ] && echo "ok - tagtrace tags and trace exit 0 on SIGINT" ||
	echo "not ok - tagtrace tags and trace exit 0 on SIGINT: $src"
python3 tests/tool/check_tags.py $d "$@"
