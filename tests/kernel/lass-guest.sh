#!/bin/sh
# lass-guest.sh lass|nolass|emulate: in the guest, LASS as the kernel runs
# it. With lass (--cpu lam): the kernel says it turned LASS on and lists it
# in /proc/cpuinfo; with nolass (--cpu lam --no-lass) or emulate
# (vsyscall=emulate on --cpu lam) it does not. Then the kernel's own
# patching of its text, through the user-half mapping text_poke() writes
# with, while it runs: a trace event's static keys, a kprobe's INT3 and its
# removal, BPF programs JITed and freed (text_poke_copy(), text_poke_set());
# and what a user process sees (tests/kernel/lass_user.c). Prints TAP (unnumbered); exits non-zero
# on any failure (tests/lib/guest-tap.sh).
. tests/lib/guest-tap.sh
mode=$1
T=/sys/kernel/tracing

yes_no() { if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }

dmesg | grep -q 'x86/cpu: LASS on: '
on=$?
grep -qw lass /proc/cpuinfo
listed=$?
# The host says which it booted (lass, nolass, emulate); the kernel's word
# and /proc/cpuinfo must both agree with it, and lass_user below checks
# the behaviour (a #GP or a #PF for a user load from the kernel half).
case $mode in
lass)
	yes_no $on "the kernel turned LASS on"
	yes_no $listed "/proc/cpuinfo lists lass" ;;
nolass|emulate)
	yes_no $((on == 0)) "the kernel does not say it turned LASS on"
	yes_no $((listed == 0)) "/proc/cpuinfo does not list lass" ;;
*)
	echo "not ok - lass-guest.sh: mode lass, nolass or emulate, not '$mode'"
	exit 2 ;;
esac

# Static keys: enabling an event patches its sites, disabling unpatches.
echo > $T/trace
echo 1 > $T/events/syscalls/sys_enter_getppid/enable
for i in 1 2 3; do cat /proc/self/stat > /dev/null; sh -c ':'; done
echo 0 > $T/events/syscalls/sys_enter_getppid/enable
n=$(grep -c 'sys_getppid' $T/trace)
yes_no $((n == 0)) "a trace event turned on under text patching ($n events)"
# Off again: the sites patched back, nothing more logged.
for i in 1 2 3; do cat /proc/self/stat > /dev/null; sh -c ':'; done
m=$(grep -c 'sys_getppid' $T/trace)
yes_no $((m != n)) "and off: no events once it is disabled ($((m - n)) more)"

# A kprobe: an INT3 written into kernel text and taken out again.
echo 'p:lassprobe __x64_sys_getppid' > $T/kprobe_events
echo 1 > $T/events/kprobes/lassprobe/enable
sh -c ':'; sh -c ':'
echo 0 > $T/events/kprobes/lassprobe/enable
n=$(grep -c 'lassprobe:' $T/trace)
sh -c ':'; sh -c ':'
m=$(grep -c 'lassprobe:' $T/trace)
yes_no $((m != n)) "the kprobe disabled: no hits after ($((m - n)) more)"
echo '-:lassprobe' >> $T/kprobe_events
yes_no $((n == 0)) "a kprobe inserted and hit ($n hits)"
yes_no $(grep -c lassprobe $T/kprobe_events) "the kprobe removed"

# BPF's JIT writes programs with text_poke_copy() and fills a freed one's
# space with text_poke_set(), one call per program, once an RCU grace
# period has passed, from a workqueue: count the calls until all 16 freed
# programs have had theirs. The limit, 60 s, only turns a wait that would
# never end into a failure.
echo > $T/trace
echo 'p:lasspokeset text_poke_set' > $T/kprobe_events
echo 1 > $T/events/kprobes/lasspokeset/enable
build/vm/lass_user bpf
read -r t0 _ < /proc/uptime
looks=1
while n=$(grep -c 'lasspokeset:' $T/trace); [ "$n" -lt 16 ]; do
	read -r t _ < /proc/uptime
	[ "${t%.*}" -lt $((${t0%.*} + 60)) ] || break
	sleep 0.2
	looks=$((looks + 1))
done
echo 0 > $T/events/kprobes/lasspokeset/enable
echo '-:lasspokeset' >> $T/kprobe_events
echo "# $n text_poke_set() calls at look $looks, 0.2 s apart"
[ "$n" -lt 16 ] && echo "# the hang guard ended the wait: 60 s"
yes_no $((n < 16)) "freed BPF programs: text_poke_set() filled the space of each of the 16 ($n calls)"

build/vm/lass_user "$mode"
