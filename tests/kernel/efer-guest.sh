#!/bin/bash
# In the guest (tests/kernel/test-hotplug.sh), on UAI with one CPU: the
# switch_order test module's check of each publication of loaded_mm
# (tests/kernel/switch_order.c), and EFER.UAI written only when the mode
# changes (kernel/series: the UAI backend), counted by the msr:write_msr
# events of EFER beside the tagged_addr_mode_switch and sched_switch
# events:
# - a UAI and an untagged process ping-pong ROUNDS times: EFER is written
#   at every switch between them (at least 2 * ROUNDS writes), and the
#   writes equal the mode_switch events to or from UAI;
# - two UAI processes ping-pong ROUNDS times (switch_order --both): at
#   least ROUNDS switches straight from one to the other (2 * ROUNDS
#   hand-offs, a few through another task), fewer EFER writes than those,
#   and again the writes equal the mode_switch events to or from UAI (the
#   switches to and from other tasks).
#
#   efer-guest.sh SITE-ARGS ROUNDS
#
# SITE-ARGS are switch_order.ko's parameters (func=... offset=...
# tlbstate=...), one word. Prints TAP: switch_order's own, numbered and
# with its plans, and this script's results unnumbered between them.
. tests/lib/guest-tap.sh
site=$1 rounds=$2
T=/sys/kernel/tracing
failed=0

ok()
{
	if [ "$1" -eq 0 ]; then
		echo "ok - $2"
	else
		echo "not ok - $2"
		failed=$((failed + 1))
	fi
}

# traced CMD...: run CMD with the three events on; the trace in $d/trace.
d=$(mktemp -d)
traced()
{
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 4096 > $T/buffer_size_kb
	echo 'msr == 0xc0000080' > $T/events/msr/write_msr/filter
	for e in msr/write_msr tagged_addr/tagged_addr_mode_switch \
		 sched/sched_switch; do
		echo 1 > $T/events/$e/enable
	done
	echo 1 > $T/tracing_on
	"$@" > $d/out
	echo 0 > $T/tracing_on
	cat $d/out
	for e in msr/write_msr tagged_addr/tagged_addr_mode_switch \
		 sched/sched_switch; do
		echo 0 > $T/events/$e/enable
	done
	cat $T/trace > $d/trace
	grep -q '^overrun: 0$' $T/per_cpu/cpu0/stats
	ok $? "the trace lost no event"
}

# efer_counts: W, the EFER writes, and M, the mode switches to or from
# UAI, in $d/trace.
efer_counts()
{
	W=$(grep -c 'write_msr: c0000080,' $d/trace)
	M=$(grep 'tagged_addr_mode_switch:' $d/trace |
		grep -c -E 'prev_mode=uai next_mode=(none|lam_u57|lam_u48) |prev_mode=(none|lam_u57|lam_u48) next_mode=uai ')
}

insmod build/vm/modules/switch_order.ko $site
ok $? "switch_order loads ($site)"
traced build/vm/switch_order "$rounds"
efer_counts
echo "# EFER writes $W, mode switches to or from UAI $M"
ok $((W < 2 * rounds)) "a UAI and an untagged process: EFER written $W times (at least $((2 * rounds)))"
ok $((W != M)) "... once for each of the $M mode switches to or from UAI"

traced build/vm/switch_order --both "$rounds"
set -- $(sed -n 's/^# pids=//p' $d/out)
[ $# -eq 2 ]
ok $? "switch_order --both names its two processes: $*"
S=$(grep -c -E "sched_switch: .* prev_pid=($1|$2) .* next_pid=($1|$2) " $d/trace)
efer_counts
echo "# switches between $1 and $2: $S, EFER writes $W, mode switches to or from UAI $M"
ok $((S < rounds)) "two UAI processes: $S switches between them (at least $rounds)"
ok $((W >= S)) "... and EFER written fewer times: $W"
ok $((W != M)) "... once for each of the $M mode switches to or from UAI"
rmmod switch_order
ok $? "switch_order unloads"
rm -rf $d

[ "$failed" -eq 0 ]
