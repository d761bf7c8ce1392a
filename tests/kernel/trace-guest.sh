#!/bin/sh
# Guest side of tests/kernel/test-trace.sh: run tagged_workload with the
# tagged_addr events on in tracefs and check each count against what the
# workload did. Prints TAP (unnumbered).
#   trace-guest.sh ENABLES SYSCALLS SWITCHES FAULTS GPS STACK SSES
# STACK tagged loads through %rbp of which SSES raise #SS (all on UAI,
# none on LAM).
T=/sys/kernel/tracing
E=$T/events/tagged_addr
N=$1 M=$2 K=$3 F=$4 G=$5 S=$6 SS=$7
out=/tmp/tagged_workload.out
trace=/tmp/trace.txt

if [ ! -d "$E" ]; then
	echo "not ok - $E exists (kernel without the tagged_addr tracepoints)"
	exit 1
fi
echo 0 > $T/tracing_on
echo > $T/trace
echo 8192 > $T/buffer_size_kb
for e in ctrl untag mode_switch fault gp; do
	echo 1 > $E/tagged_addr_$e/enable
done
echo 1 > $T/tracing_on
TAGGED_STACK_DEREFS=$S build/vm/tagged_workload "$N" "$M" "$K" "$F" "$G" > $out
rc=$?
echo 0 > $T/tracing_on
cat $T/trace > $trace
for e in ctrl untag mode_switch fault gp; do
	echo 0 > $E/tagged_addr_$e/enable
done
. $out

check()	# check GOT WANT DESCRIPTION
{
	if [ "$1" = "$2" ]; then echo "ok - $3"; else echo "not ok - $3 (got $1, want $2)"; fi
}

# count PID EVENT [AWK-CONDITION]: events of one process in the trace.
count()
{
	awk -v pid="$1" -v ev="$2:" "
		\$0 ~ /^#/ { next }
		{ task = \$1; sub(/.*-/, \"\", task) }
		task == pid && \$5 == ev ${3:+&& ($3)} { n++ }
		END { print n + 0 }" $trace
}


check $rc 0 "the workload ran ($N enables, $M syscalls, $K rounds, $F faults, $G #GPs)"
if grep -q "LOST EVENTS" $trace; then echo "not ok - no events lost"; else echo "ok - no events lost"; fi

enables=$(awk '/tagged_addr_ctrl:/ && /op=enable/ && /ret=0/' $trace | wc -l)
check "$enables" $((N + 2)) "tagged_addr_ctrl: one enable event per enable ($N + the 2 tagged workers)"
queries=$(awk '/tagged_addr_ctrl:/ && /op=query/ && /interface=prctl/' $trace | wc -l)
check "$queries" "$N" "tagged_addr_ctrl: one query event per PR_GET_TAGGED_ADDR_CTRL"
resets=$(awk '/tagged_addr_ctrl:/ && /interface=exec/ && /op=reset/' $trace | wc -l)
check "$resets" 1 "tagged_addr_ctrl: one reset event for the tagged process that exec'd"
check "$(count $tagged_pid tagged_addr_untag)" "$M" \
	"tagged_addr_untag: one per uname() with a tagged buffer"
check "$(count $untagged_pid tagged_addr_untag)" 0 \
	"tagged_addr_untag: none for an untagged process making the same calls"
# The event names the check's code, in the function that made it: uname()
# copies out through _copy_to_user(). (The thunk is called from out of
# line, at the end of the section; the site is the jump back's target.)
check "$(count $tagged_pid tagged_addr_untag '/caller=_copy_to_user\+/')" "$M" \
	"tagged_addr_untag: every uname() event's caller is _copy_to_user"
faults=0
for a in $(awk -v pid=$tagged_pid '/tagged_addr_fault:/ {
		task = $1; sub(/.*-/, "", task)
		if (task != pid) next
		match($0, /untagged=0x[0-9a-f]+/)
		print substr($0, RSTART + 9, RLENGTH - 9) }' $trace); do
	[ $((a)) -ge $region_start ] && [ $((a)) -lt $region_end ] &&
		faults=$((faults + 1))
done
check $faults "$F" "tagged_addr_fault: one per fresh page touched through a tagged pointer"
check "$(count $untagged_pid tagged_addr_gp '/trap=gp/')" "$G" \
	"tagged_addr_gp: one trap=gp per tagged dereference without tagging"
check "${stack_sigbus:-x}" "$SS" \
	"the CPU raised #SS (SIGBUS) for $SS of $S tagged loads through %rbp"
check "$(count $tagged_pid tagged_addr_gp '/trap=ss/')" "$SS" \
	"tagged_addr_gp: one trap=ss per tagged load through %rbp that faulted"
check "$(count $tagged_pid tagged_addr_gp)" "$SS" \
	"tagged_addr_gp: nothing else for the tagged process"
# Count by the tagged worker's mm, not its pid: a switch that passes
# through a kernel thread (lazy TLB) is logged with the kthread as prev_pid.
mm=$(awk -v pid=$pingpong_pid '/tagged_addr_mode_switch:/ && $0 ~ "next_pid=" pid " " {
	match($0, /next_mm=[0-9]+/); print substr($0, RSTART + 8, RLENGTH - 8); exit }' $trace)
into=$(awk -v mm="${mm:-none}" '/tagged_addr_mode_switch:/ && $0 ~ "next_mm=" mm " "' $trace | wc -l)
out_of=$(awk -v mm="${mm:-none}" '/tagged_addr_mode_switch:/ && $0 ~ "prev_mm=" mm " " &&
	$0 !~ "next_mm=" mm " "' $trace | wc -l)
# A round switches into the worker's mm once and out of it once; the
# enable adds one, fork and exit a pair each. Kernel threads running in
# between (lazy TLB) shift a few either way, and on two CPUs a migration
# switches into the mm once more: the slower the kernel, the more of
# them (the debug kernel gave 304 to 313 for 300 rounds). So allow 2%
# fewer and 5% more, plus those; an event fired twice per switch, or
# missing, is still far outside.
lo=$((K - K / 50)) hi=$((K + K / 20 + 6))
if [ "$into" -ge $lo ] && [ "$into" -le $hi ]; then
	echo "ok - tagged_addr_mode_switch: $into switches into the tagged mm for $K rounds"
else
	echo "not ok - tagged_addr_mode_switch: $into switches into the tagged mm for $K rounds (want $lo..$hi)"
fi
check "$out_of" "$into" "tagged_addr_mode_switch: as many switches out of the tagged mm as into it"

# The same workload seen by tp_btf programs (tests/kernel/tp_btf_count*).
bpf=/tmp/tp_btf.out
if TAGGED_STACK_DEREFS=$S build/vm/tp_btf_count build/vm/tp_btf_count.bpf.o \
	build/vm/tagged_workload "$N" "$M" "$K" "$F" "$G" > $bpf; then
	echo "ok - tp_btf programs load and run the workload"
else
	echo "not ok - tp_btf programs load and run the workload"
fi
. $bpf
check "${attached:-0}" 5 "tp_btf: all five tagged_addr events attach"
check "${ctrl:-x}" $((N + 2)) "tp_btf: tagged_addr_ctrl saw every successful enable"
check "${untag:-x}" "$M" "tp_btf: tagged_addr_untag saw every tagged uname()"
check "${gp:-x}" "$((G + SS))" "tp_btf: tagged_addr_gp saw every tagged #GP and #SS"
[ "${fault:-0}" -ge "$F" ]
check $? 0 "tp_btf: tagged_addr_fault saw at least the $F tagged faults ($fault)"
[ "${mode_switch:-0}" -ge $((2 * lo)) ]
check $? 0 "tp_btf: tagged_addr_mode_switch saw about 2 a round ($mode_switch)"

# Exactly one tagged_addr_untag a tagged pointer a call was given, on each
# uaccess path (tests/kernel/untag_paths.c): one event with each tagged
# value per user-limit check the path runs (its table says which), and
# none for the same calls untagged.
P=${UNTAG_PATH_CALLS:-20}
echo > $T/trace
echo 1 > $E/tagged_addr_untag/enable
echo 1 > $T/tracing_on
build/vm/untag_paths $P > /tmp/untag_paths.out
rc=$?
echo 0 > $T/tracing_on
echo 0 > $E/tagged_addr_untag/enable
cat $T/trace > $trace
check $rc 0 "untag_paths: $P tagged and $P untagged calls on each path"
while read -r what path pid a b; do
	case $what in
	untag) check "$(count $pid tagged_addr_untag "\$6 == \"tagged=$a\"")" "$b" \
		"tagged_addr_untag: $path: one per check given $a" ;;
	untag_total) check "$(count $pid tagged_addr_untag)" "$a" \
		"tagged_addr_untag: $path: no other event (untagged calls, __get_user/__put_user)" ;;
	esac
done < /tmp/untag_paths.out
