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
# QEMU 7.2 without tests/vm/qemu/0014 ("close the window in which a
# translation outlives a code store") did so in most runs: see doc/emulation.md.
# Prints TAP: every write to sched/features and to the event's enable
# succeeded, every round made all of its writes (the count the loop's
# structure dictates), the storms fired untag events while it was on, each
# sleeper switched in and out, and every storm and sleeper lived to the
# end; exits non-zero on a failure (tests/lib/guest-tap.sh).
. tests/lib/guest-tap.sh
secs=${1:?usage: xmodify-guest.sh SECONDS}
T=/sys/kernel/tracing
D=/sys/kernel/debug
[ -d $T/events ] || mount -t tracefs tracefs $T || exit 1
[ -d $D/sched ] || mount -t debugfs debugfs $D || exit 1
yes_no() { if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }
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

echo > $T/trace
pids= sleepers=
cpu=1
while [ $cpu -lt "$ncpu" ]; do
	taskset -c $cpu build/vm/storm 1000000000 > /dev/null &
	pids="$pids $!"
	# A second task on the CPU, so that it also sleeps, wakes and switches.
	taskset -c $cpu sh -c 'while :; do sleep 0.001; done' &
	pids="$pids $!" sleepers="$sleepers $!"
	cpu=$((cpu + 1))
done

# put VALUE FILE: write, counting the writes and the failed ones.
put()
{
	if echo "$1" > "$2"; then
		writes=$((writes + 1))
	else
		failed=$((failed + 1))
		[ $failed -le 3 ] && echo "# writing $1 to $2 failed"
	fi
}

# flip N: N rounds of switching each feature off and on again.
flip()
{
	local n=0
	while [ $n -lt "$1" ]; do
		for f in $feats; do
			put "NO_$f" $F
			put "$f" $F
		done
		n=$((n + 1))
	done
}

# switches PID: the voluntary and involuntary context switches of PID.
switches()
{
	awk '/ctxt_switches/ { n += $2 } END { print n + 0 }' /proc/$1/status 2> /dev/null
}

t0=$(date +%s)
writes=0 failed=0 rounds=0
while [ $(($(date +%s) - t0)) -lt "$secs" ]; do
	put 1 $E; flip 50
	put 0 $E; flip 50
	rounds=$((rounds + 1))
done
put 0 $E
# Every untag event written, kept or overwritten in the small buffer.
fired=$(cat $T/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ { n += $2 } END { print n + 0 }')
dead=
for p in $pids; do
	kill -0 $p 2> /dev/null || dead="$dead $p"
done
low=
for p in $sleepers; do
	[ "$(switches $p)" -ge 100 ] || low="$low $p:$(switches $p)"
done
# shellcheck disable=SC2086
kill $pids
wait 2> /dev/null
[ $failed = 0 ] && [ $writes -gt 0 ]
yes_no $? "$writes writes to sched/features and the event's enable, $failed failed"
# A round is 2 flip 50 (each a write of NO_f and of f for every feature,
# 50 times) and 2 writes to the event's enable; one more write ends it.
nfeats=0
for f in $feats; do nfeats=$((nfeats + 1)); done
per_round=$((2 * 50 * 2 * nfeats + 2))
[ $rounds -ge 1 ] && [ $writes = $((rounds * per_round + 1)) ]
yes_no $? "each of $rounds rounds in $secs s made its $((per_round - 2)) sched feature writes and 2 event switches ($writes writes, $((rounds * per_round + 1)) due)"
[ "$fired" -gt 0 ]
yes_no $? "the storms fired untag events while the event was on ($fired)"
[ -z "$low" ]
yes_no $? "each sleeper switched at least 100 times${low:+ (not:$low)}"
[ -z "$dead" ]
yes_no $? "$((ncpu - 1)) storms and sleepers ran through the sites to the end${dead:+ (ended early:$dead)}"
