#!/bin/sh
# storm-guest.sh M: M tagged system calls while `tagtrace trace` has a 4 KiB
# ring buffer (room for about 40 records) and `tagtrace top` counts: trace
# must report drops, top must still count every untag. Prints TAP.
. tests/tool/lib-guest.sh
M=$1

$TT trace --json --ringbuf-size 4096 -e untag > $d/trace.json 2> $d/trace.err &
tp=$!
$TT top --json -i 1 > $d/top.json 2> $d/top.err &
pp=$!
started $d/trace.err "Ctrl-C" && started $d/top.err "Ctrl-C"
$W 0 "$M" 0 0 0 > $d/workload.out
rc=$?
sleep 0.3
stop $tp $pp
src=$?
sed 's/^/# /' $d/trace.err
[ $rc = 0 ] && echo "ok - storm of $M tagged uname() calls ran" || echo "not ok - storm ran: $rc"
[ $src = 0 ] && echo "ok - tagtrace exits 0 on SIGINT after drops" ||
	echo "not ok - tagtrace exits 0 on SIGINT after drops: $src"
python3 tests/tool/check_counts.py storm $d "$M"
