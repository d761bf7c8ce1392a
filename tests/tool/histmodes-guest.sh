#!/bin/sh
# histmodes-guest.sh ATTACH MODE N M K F G [arch]: `tagtrace hist -A ATTACH
# -c tagged_workload` per mode transition. In total it equals a tracefs
# kprobe count of switch_mm_irqs_off with the same comm filter; each
# transition that changes the mode equals the tagged_addr_mode_switch
# events between two mms (where the kernel has them), and, on every
# kernel, the calls tracefs records (a kprobe) whose modes its events
# give (MODE -> none and none -> MODE: the ping-pong's K rounds, the
# enablers' exits and exec).
# With "arch" the workload runs on upstream LAM. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
A=$1 MODE=$2
shift 2

grep -qw cpu_tlbstate /proc/kallsyms && echo cpu_tlbstate > $d/outgoing_mm ||
	echo last_switch > $d/outgoing_mm
tracefs_reset
echo 'p:tt_switch_mm switch_mm_irqs_off' > $T/kprobe_events
echo 'comm == "tagged_workload"' > $T/events/kprobes/tt_switch_mm/filter
echo 1 > $T/events/kprobes/tt_switch_mm/enable
if [ -d $E ]; then
	echo 'comm == "tagged_workload"' > $E/tagged_addr_mode_switch/filter
	echo 1 > $E/tagged_addr_mode_switch/enable
	# The enables through prctl(), for the checker's model.
	echo 1 > $E/tagged_addr_ctrl/enable
	touch $d/tagged_addr
fi
tracefs_sched 1
tracefs_fallback 1
echo 1 > $T/tracing_on

$TT hist --json -A "$A" -c tagged_workload -i 1 > $d/hist.json 2> $d/hist.err &
hp=$!
started $d/hist.err "Ctrl-C" || exit 1
$W "$@" > $d/workload.out
rc=$?
sleep 0.3
stop $hp
src=$?
echo 0 > $T/tracing_on
tracefs_stop $d/tracefs.txt
grep -c 'tt_switch_mm:' $d/tracefs.txt > $d/kprobes
grep -q 'LOST EVENTS' $d/tracefs.txt && lost=1 || lost=0
[ -d $E ] && echo 0 > $E/tagged_addr_mode_switch/filter
echo 0 > $T/events/kprobes/tt_switch_mm/enable
echo > $T/kprobe_events
sed 's/^/# /' $d/hist.err
[ $rc = 0 ] && echo "ok - workload ran ($*)" || echo "not ok - workload ran ($*): $rc"
[ $src = 0 ] && echo "ok - tagtrace hist exits 0 on SIGINT" ||
	echo "not ok - tagtrace hist exits 0 on SIGINT: $src"
[ $lost = 0 ] && echo "ok - tracefs lost no events" || echo "not ok - tracefs lost no events"
python3 tests/tool/check_counts.py hist $d "$3" "$MODE" "$A"
