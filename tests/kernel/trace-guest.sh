#!/bin/sh
# Guest side of tests/kernel/test-trace.sh: run tagged_workload with the
# tagged_addr events on in tracefs and check each count against what the
# workload did. Prints TAP (unnumbered).
#   trace-guest.sh ENABLES SYSCALLS SWITCHES FAULTS GPS STACK SSES
# STACK tagged loads through %rbp of which SSES raise #SS (all on UAI,
# none on LAM). Exits non-zero on any failure (tests/lib/guest-tap.sh).
. tests/lib/guest-tap.sh
T=/sys/kernel/tracing
E=$T/events/tagged_addr
N=$1 M=$2 K=$3 F=$4 G=$5 S=$6 SS=$7
out=/tmp/tagged_workload.out
trace=/tmp/trace.txt

if [ ! -d "$E" ]; then
	echo "not ok - $E exists (kernel without the tagged_addr tracepoints)"
	exit 1
fi
# events 0|1: the tagged_addr events, and the scheduler's own events the
# mode switches are predicted from (sched_switch; sched_process_fork names
# the kernel threads kthreadd starts during the run).
events()
{
	for e in ctrl untag mode_switch fault gp; do
		echo $1 > $E/tagged_addr_$e/enable
	done
	echo $1 > $T/events/sched/sched_switch/enable
	echo $1 > $T/events/sched/sched_process_fork/enable
	echo $1 > $T/events/sched/sched_process_exit/enable
}
echo 0 > $T/tracing_on
echo > $T/trace
echo 16384 > $T/buffer_size_kb
events 1
echo 1 > $T/tracing_on
TAGGED_STACK_DEREFS=$S build/vm/tagged_workload "$N" "$M" "$K" "$F" "$G" > $out
rc=$?
echo 0 > $T/tracing_on
cat $T/trace > $trace
events 0
. $out

# Kernel threads (PF_KTHREAD, 0x00200000 in /proc/PID/stat's flags), the
# idle tasks (pid 0) among them: switching to one keeps the mm loaded (lazy
# TLB), so it is no mode switch.
kthreads=$(for f in /proc/[0-9]*/stat; do cat "$f" 2> /dev/null; echo; done |
	awk '{ pid = $1; sub(/^.*\) /, ""); if (int($7 / 2097152) % 2) printf "%s ", pid }')

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
# copies out through _copy_to_user(). (The caller is the site's UD1, in
# the block the compiler lays out for the static branch, inside the
# function.)
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
# What the scheduler says, event by event (each from its own tracepoint):
# - the worker's enable (tagged_addr_ctrl) loads its mode on the CPU it
#   runs on: one switch into its mm (the fork's first run, before it, is
#   untagged to untagged: none);
# - after that, each sched_switch to the worker on a CPU whose last user
#   mm was another's is one switch into its mm, and each sched_switch from
#   it to another user task one out of it. A kernel thread or idle between
#   (lazy TLB: the mm stays loaded) switches neither way; kernel threads
#   are the PF_KTHREAD tasks and those kthreadd forks (sched_process_fork);
# - its exit (sched_process_exit) has already switched its CPU to init_mm:
#   one out of it, and the switch to the next task changes nothing.
# Each round the parent writes and blocks, and the worker must run to read:
# one switch into its mm a round (from the parent, directly or through a
# kernel thread, which keeps the parent's mm loaded). Round 1's is its
# enable when fork returned to the parent first: the worker's first run,
# before its enable, is untagged. So at least K switches into its mm,
# its enable included, and more where the parent's wake-up preempts it.
# tracefs's events must be this sum exactly.
set -- $(awk -v W=$pingpong_pid -v K="$kthreads" '
	BEGIN { n = split(K, a, " "); for (i = 1; i <= n; i++) kt[a[i]] = 1; kt[0] = 1 }
	/^#/ { next }
	/sched_process_fork:/ && / pid=2 child_comm=/ {
		match($0, /child_pid=[0-9]+/); kt[substr($0, RSTART + 10, RLENGTH - 10)] = 1; next }
	/tagged_addr_ctrl:/ && /op=enable/ && / ret=0/ {
		task = $1; sub(/.*-/, "", task)
		if (task == W && !on) { on = 1; into++; enable++; loaded[$2] = W }
		next }
	/sched_process_exit:/ && $0 ~ " pid=" W " " {
		if (on && loaded[$2] == W) { out++; exits++; loaded[$2] = "init" }
		next }
	/sched_switch:/ {
		cpu = $2
		match($0, /next_pid=[0-9]+/); nx = substr($0, RSTART + 9, RLENGTH - 9)
		if (nx in kt) next
		if (on && nx == W && loaded[cpu] != W) { into++; to++ }
		if (on && nx != W && loaded[cpu] == W) { out++; from++ }
		loaded[cpu] = nx
	}
	END { print into + 0, out + 0, enable + 0, to + 0, from + 0, exits + 0 }' $trace)
echo "# sched_switch predicts $1 switches into the worker's mm ($3 at its enable," \
	"$4 at a switch to it) and $2 out of it ($5 at a switch from it, $6 at its exit);" \
	"tracefs has $into and $out_of"
check "$into" "$1" "tagged_addr_mode_switch: $into switches into the tagged mm for $K rounds, as the scheduler's events predict"
check "$out_of" "$2" "tagged_addr_mode_switch: $out_of switches out of it, as the scheduler's events predict"
[ "$3" = 1 ] && [ "$6" = 1 ] && [ "$1" -ge "$K" ]
check $? 0 "the worker enabled once, exited once, and its mm was switched into at least once a round ($1 for $K rounds)"

# The same workload seen by tp_btf programs (tests/kernel/tp_btf_count*),
# with tracefs recording the same events at the same time: each program
# must count exactly the events tracefs logged.
bpf=/tmp/tp_btf.out
echo > $T/trace
for e in ctrl untag mode_switch fault gp; do
	echo 1 > $E/tagged_addr_$e/enable
done
echo 1 > $T/tracing_on
if TAGGED_STACK_DEREFS=$S build/vm/tp_btf_count build/vm/tp_btf_count.bpf.o \
	build/vm/tagged_workload "$N" "$M" "$K" "$F" "$G" > $bpf; then
	echo "ok - tp_btf programs load and run the workload"
else
	echo "not ok - tp_btf programs load and run the workload"
fi
echo 0 > $T/tracing_on
cat $T/trace > $trace
for e in ctrl untag mode_switch fault gp; do
	echo 0 > $E/tagged_addr_$e/enable
done
. $bpf
if grep -q "LOST EVENTS" $trace; then echo "not ok - tracefs lost no events beside tp_btf"; else echo "ok - tracefs lost no events beside tp_btf"; fi
tfs_fault=$(grep -c 'tagged_addr_fault:' $trace)
tfs_switch=$(grep -c 'tagged_addr_mode_switch:' $trace)
check "${attached:-0}" 5 "tp_btf: all five tagged_addr events attach"
check "${ctrl:-x}" $((N + 2)) "tp_btf: tagged_addr_ctrl saw every successful enable"
check "${untag:-x}" "$M" "tp_btf: tagged_addr_untag saw every tagged uname()"
check "${gp:-x}" "$((G + SS))" "tp_btf: tagged_addr_gp saw every tagged #GP and #SS"
# Faults and mode switches are not the workload's alone (a tagged
# process's every fault, every CPU's switches): the first run above
# checks tracefs's against the workload; here the programs against it.
check "${fault:-x}" "$tfs_fault" "tp_btf: tagged_addr_fault saw every fault tracefs logged"
check "${mode_switch:-x}" "$tfs_switch" "tp_btf: tagged_addr_mode_switch saw every switch tracefs logged"

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
# io_uring's recvmsg checks the iovec between user_access_begin() and
# user_access_end(): the event still fires there, from that function,
# and the call still works (tests/lib/uaccess_paths.h).
read -r _ _ pid a b <<EOF
$(grep "^untag io_uring_recvmsg .* [1-9][0-9]*\$" /tmp/untag_paths.out)
EOF
check "$(count "${pid:-none}" tagged_addr_untag '/caller=io_msg_copy_hdr/')" "${b:-x}" \
	"tagged_addr_untag: io_uring recvmsg: each from io_msg_copy_hdr(), with user access on"
