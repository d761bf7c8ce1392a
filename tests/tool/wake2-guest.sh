#!/bin/sh
# wake2-guest.sh M RATE: two storms of M tagged uname() calls at RATE a second (0: unpaced), one on each CPU
# (--smp 2), into one `tagtrace trace -v` that prints to /dev/null: so
# fast a reader that it drains the buffer and sleeps again and again, and
# each time several CPUs may bring the unread records to the wake-up mark
# at once. trace -v counts its polls that timed out with more than two
# marks of records waiting: a wake-up BPF owed and never sent, which
# leaves trace asleep until its 0.1 s timer while the buffer fills. The
# count must be 0; no clock judges it. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
M=$1 RATE=$2

if [ "$(nproc)" -lt 2 ]; then
	echo "not ok - wake2-guest.sh needs two CPUs (--smp 2)"
	exit 1
fi
$TT trace -v --json -e untag -c storm > /dev/null 2> $d/trace.err &
tp=$!
started $d/trace.err "Ctrl-C"
taskset -c 0 build/vm/storm "$M" "${RATE:-0}" > $d/storm0.out &
s0=$!
taskset -c 1 build/vm/storm "$M" "${RATE:-0}" > $d/storm1.out &
s1=$!
wait $s0
r0=$?
wait $s1
r1=$?
sleep 0.3
stop $tp
src=$?
grep -v "libbpf\|^tagtrace: probe" $d/trace.err | sed 's/^/# /'
[ $r0 = 0 ] && [ $r1 = 0 ] && echo "ok - two storms of $M calls ran, one per CPU" ||
	echo "not ok - two storms of $M calls ran, one per CPU: $r0 $r1"
[ $src = 0 ] && echo "ok - trace exits 0 on SIGINT" ||
	echo "not ok - trace exits 0 on SIGINT: $src"
late=$(sed -n 's/.*; \([0-9]*\) timeouts found more than.*/\1/p' $d/trace.err)
woken=$(sed -n 's/.*woken \([0-9]*\) times;.*/\1/p' $d/trace.err)
[ -n "$late" ] && [ "$late" = 0 ] &&
	echo "ok - no wake-up lost: trace woken $woken times, no timeout found two marks of records waiting" ||
	echo "not ok - no wake-up lost: ${late:-no count} timeouts found more than two marks of records waiting (woken ${woken:-?} times)"
events=$(sed -n 's/^tagtrace: \([0-9]*\) events, \([0-9]*\) dropped.*/\1 \2/p' $d/trace.err)
set -- $events
[ -n "$events" ] && [ $(($1 + $2)) = $((2 * M)) ] &&
	echo "ok - printed + dropped == the $((2 * M)) untags made ($1 + $2)" ||
	echo "not ok - printed + dropped == the $((2 * M)) untags made: ${events:-no totals}"
