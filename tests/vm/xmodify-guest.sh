#!/bin/sh
# Cross-modifying code under the rig's multi-threaded TCG (--smp 2 or more):
#
#   tests/vm/run --cpu lam --smp 4 -- tests/vm/xmodify-guest.sh SECONDS
#
# For SECONDS, CPU 0 switches three scheduler features (debugfs
# sched/features) and the tagged_addr_untag event on and off; each switch
# rewrites static-branch sites with text_poke_bp() (an INT3 first, then
# the rest, then the first byte, each step followed by an IPI that
# serializes every CPU). Meanwhile every other CPU runs through those
# sites: a tagged uname() storm (the untag site in the uaccess path) and a
# task that sleeps 1 ms in a loop beside it (wakeups and context
# switches: TTWU_QUEUE, WAKEUP_PREEMPTION, NEXT_BUDDY). A vCPU that keeps
# a translation of bytes text_poke_bp() has since replaced runs an INT3
# nobody claims, and the rig reports the guest's "Oops: int3" (exit 250).
# QEMU 7.2 without tests/vm/qemu/0010 did so in most runs: see the README.
# Prints one TAP line.
secs=${1:?usage: xmodify-guest.sh SECONDS}
T=/sys/kernel/tracing
D=/sys/kernel/debug
[ -d $T/events ] || mount -t tracefs tracefs $T || exit 1
[ -d $D/sched ] || mount -t debugfs debugfs $D || exit 1
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "not ok - xmodify needs --smp 2 or more"; exit 1; }

F=$D/sched/features
feats="TTWU_QUEUE WAKEUP_PREEMPTION NEXT_BUDDY"
for f in $feats; do
	grep -qw "$f\|NO_$f" $F || { echo "not ok - no sched feature $f"; exit 1; }
done
E=$T/events/tagged_addr/tagged_addr_untag/enable
[ -f $E ] || { echo "not ok - no event tagged_addr_untag"; exit 1; }
# The event writes into a ring buffer nobody reads: keep it small.
echo 64 > $T/buffer_size_kb

pids=
cpu=1
while [ $cpu -lt "$ncpu" ]; do
	taskset -c $cpu build/vm/storm 1000000000 > /dev/null &
	pids="$pids $!"
	# A second task on the CPU, so that it also sleeps, wakes and switches.
	taskset -c $cpu sh -c 'while :; do sleep 0.001; done' &
	pids="$pids $!"
	cpu=$((cpu + 1))
done

# flip N: N rounds of switching each feature off and on again.
flip()
{
	local n=0
	while [ $n -lt "$1" ]; do
		for f in $feats; do
			echo "NO_$f" > $F
			echo "$f" > $F
			flips=$((flips + 2))
		done
		n=$((n + 1))
	done
}

t0=$(date +%s)
flips=0 events=0
while [ $(($(date +%s) - t0)) -lt "$secs" ]; do
	echo 1 > $E; flip 50
	echo 0 > $E; flip 50
	events=$((events + 2))
done
echo 0 > $E
# shellcheck disable=SC2086
kill $pids
wait 2> /dev/null
echo "ok - $flips sched feature and $events event switches in $secs s" \
	"with $((ncpu - 1)) CPUs running through the sites"
