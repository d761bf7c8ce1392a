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

# tracefs_events 0|1: switch every tagged_addr event off or on.
tracefs_events()
{
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

# tracefs_sched 0|1: the scheduler's events a checker predicts mode
# switches from (check_counts.py): sched_switch, sched_process_fork, which
# names the kernel threads kthreadd starts, and sched_process_exit.
tracefs_sched()
{
	echo "$1" > $T/events/sched/sched_switch/enable
	echo "$1" > $T/events/sched/sched_process_fork/enable
	echo "$1" > $T/events/sched/sched_process_exit/enable
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

# tracefs_stop FILE: the trace into FILE, and the kernel threads' pids
# (PF_KTHREAD in /proc/PID/stat's flags) into FILE.kthreads.
tracefs_stop()
{
	echo 0 > $T/tracing_on
	cat $T/trace > "$1"
	tracefs_events 0
	tracefs_sched 0
	for f in /proc/[0-9]*/stat; do cat "$f" 2> /dev/null; echo; done |
		awk '{ pid = $1; sub(/^.*\) /, ""); if (int($7 / 2097152) % 2) print pid }' > "$1.kthreads"
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
