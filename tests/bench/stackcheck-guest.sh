#!/bin/sh
# stackcheck-guest.sh [micro]: in the guest, for tests/bench/stackcheck.sh.
# Builds and runs tests/bench/stackloop.c (the cost of a stack reference
# as a ratio to register-only work, measured in turns so that host load
# falls on both alike); then, unless "micro", a fixed workload of
# ordinary user and kernel code, each phase's wall time in ms. Prints
# key=value lines; fails if any step fails.
dir=$(dirname "$0")
now() { date +%s%N; }
ms() { echo $((($2 - $1) / 1000000)); }

# Also reads gcc, cc1 and as over 9p, so that the timed compile does not.
gcc -O2 -o /tmp/stackloop "$dir/stackloop.c" || exit 1
/tmp/stackloop || exit 1
[ "$1" = micro ] && exit 0

t0=$(now)
gcc -O2 -c "$dir/../vm/emul-paths.c" -o /tmp/cc.o || exit 1
t1=$(now)
i=0
while [ $i -lt 100 ]; do
	/bin/true || exit 1
	i=$((i + 1))
done
t2=$(now)
perf bench sched messaging -g 2 -l 50 > /dev/null || exit 1
t3=$(now)
echo "cc_ms=$(ms "$t0" "$t1")"
echo "exec_ms=$(ms "$t1" "$t2")"
echo "sched_ms=$(ms "$t2" "$t3")"
