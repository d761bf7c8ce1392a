# Guest-side helpers for tests/tool/*-guest.sh (sourced; POSIX sh).
# The script's exit status is every result's (tests/lib/guest-tap.sh).
. tests/lib/guest-tap.sh
# TAGTRACE: another build to test (e.g. an older one, to see a test fail).
TT=${TAGTRACE:-build/tool/tagtrace}
W=build/vm/tagged_workload
T=/sys/kernel/tracing
E=$T/events/tagged_addr
d=$(mktemp -d /tmp/tagtrace-test.XXXXXX)

# started FILE WORD: wait (up to 60 s) until tagtrace wrote WORD to FILE.
started()
{
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			echo "# tagtrace did not start:"; sed 's/^/#   /' "$1"
			return 1
		fi
		sleep 0.1
	done
}

# wait_for FILE PATTERN: until grep finds PATTERN in FILE; 1 after 300 s,
# a hang guard only (what is awaited comes within a second or two).
wait_for()
{
	i=0
	while ! grep -q "$2" "$1" 2> /dev/null; do
		i=$((i + 1))
		[ $i -gt 3000 ] && return 1
		sleep 0.1
	done
}

# tracefs_events 0|1: switch every tagged_addr event off or on.
tracefs_events()
{
	[ -d $E ] || return 0
	for e in ctrl untag mode_switch fault gp; do
		echo "$1" > $E/tagged_addr_$e/enable
	done
}

# tracefs_reset: tracing off, the buffer empty and large enough.
tracefs_reset()
{
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 8192 > $T/buffer_size_kb
}

# tracefs_sched 0|1: the events a checker predicts mode switches from
# (tracefs_run() in check_counts.py): every switch_mm_irqs_off() call
# (tt_mm, a kprobe with its next mm and task arguments), sched_switch,
# which names a context switch's next task, sched_process_fork,
# sched_process_exec, sched_process_exit and task_rename.
tracefs_sched()
{
	if [ "$1" = 1 ]; then
		echo 'p:tt_mm switch_mm_irqs_off next=%si:x64 tsk=%dx:x64' >> $T/kprobe_events
		echo 1 > $T/events/kprobes/tt_mm/enable
	elif [ -d $T/events/kprobes/tt_mm ]; then
		echo 0 > $T/events/kprobes/tt_mm/enable
		echo '-:tt_mm' >> $T/kprobe_events
	fi
	for e in switch process_fork process_exec process_exit; do
		echo "$1" > $T/events/sched/sched_$e/enable
	done
	echo "$1" > $T/events/task/task_rename/enable
}

# tracefs_fallback 0|1: what a kernel without the tagged_addr events
# still says about tagging, for the checkers to predict the fallbacks
# from: arch_prctl() calls and their results (the enables), and
# exceptions:page_fault_user (every user-mode fault).
tracefs_fallback()
{
	echo "$1" > $T/events/syscalls/sys_enter_arch_prctl/enable
	echo "$1" > $T/events/syscalls/sys_exit_arch_prctl/enable
	echo "$1" > $T/events/exceptions/page_fault_user/enable
}

# tracefs_start: record every tagged_addr event, and the scheduler's,
# from now on.
tracefs_start()
{
	tracefs_reset
	tracefs_events 1
	tracefs_sched 1
	echo 1 > $T/tracing_on
}

# tracefs_stop FILE: the trace into FILE.
tracefs_stop()
{
	echo 0 > $T/tracing_on
	cat $T/trace > "$1"
	tracefs_events 0
	tracefs_sched 0
	tracefs_fallback 0
}

# stop PID...: SIGINT, as a user's Ctrl-C; the exit statuses must be 0.
stop()
{
	kill -INT "$@"
	st=0
	for p in "$@"; do
		wait "$p" || st=$?
	done
	return $st
}

# stop_reference PID NAME: stop a reference tracer (bpftrace) whose output
# the test has already read: SIGINT, then SIGKILL if it is still running a
# minute later. bpftrace 0.17 now and then stays in its poll loop after
# SIGINT (seen in stack-guest.sh: 3 runs of 15 on a loaded host, the
# guest otherwise idle). What a test checks is tagtrace's exit, never the
# reference's: this is a hang guard, not a measure.
stop_reference()
{
	kill -INT "$1" 2> /dev/null
	i=0
	while [ -r /proc/$1/stat ] && [ "$(cut -d' ' -f3 /proc/$1/stat)" != Z ] &&
	      [ $i -lt 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	if [ $i -ge 600 ]; then
		echo "# $2 still running a minute after SIGINT: killed"
		kill -KILL "$1" 2> /dev/null
	fi
	wait "$1" 2> /dev/null
	return 0
}
