#!/bin/sh
# batch-guest.sh: when `tagtrace trace` prints what BPF queued (tagtrace(8):
# a record into an empty buffer wakes trace at once, at most once a
# millisecond; the others when 64 are queued; none waits more than 0.1 s).
# Needs --smp 2, and --icount: guest time counts instructions, so that a
# loaded host cannot stretch a millisecond (see check_batches.py's bounds).
# tests/tool/batches.c makes tagged uname() calls (one untag
# record each) in bursts and pauses as SCHED_FIFO on CPU 0; trace's output
# goes through a FIFO to a reader that stamps each read with the monotonic
# clock, BPF's clock. tracefs, on the same clock, records each record's
# wake-up flag as BPF passed it to bpf_ringbuf_submit() (a kprobe) and
# trace's wake-ups (sched_wakeup). Two runs:
# - trace on CPU 0 too: during a burst it cannot run, so what BPF decides
#   is known record by record: singles, 63 and 200 after pauses; and in
#   the pauses trace wakes on its 0.1 s timer alone;
# - trace on CPU 1: pairs of records 0.3 to 0.95 ms apart, the second
#   queued within the millisecond after the first woke trace, so it wakes
#   nobody: read with the first if trace is still awake, else printed by
#   its next 0.1 s poll.
# check_batches.py judges both. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

# measure DIR CPU STEP...: trace pinned to CPU, batches STEP... beside it.
measure()
{
	o=$1 cpu=$2
	shift 2
	mkdir -p $o
	tracefs_reset
	echo mono > $T/trace_clock
	echo 'p:tt_rb_output bpf_ringbuf_submit flags=%si' > $T/kprobe_events
	echo 'comm == "batches"' > $T/events/kprobes/tt_rb_output/filter
	echo 1 > $T/events/kprobes/tt_rb_output/enable
	mkfifo $o/out
	python3 tests/tool/check_batches.py read $o/out $o/arrivals 2> $o/reader.err &
	rp=$!
	started $o/reader.err ready || return 1
	taskset -c $cpu $TT trace --json -e untag -c batches > $o/out 2> $o/trace.err &
	tp=$!
	started $o/trace.err "Ctrl-C" || return 1
	echo "pid == $tp" > $T/events/sched/sched_wakeup/filter
	echo 1 > $T/events/sched/sched_wakeup/enable
	echo 1 > $T/tracing_on
	build/vm/batches "$@" > $o/batches.out
	rc=$?
	sleep 0.3
	echo 0 > $T/tracing_on
	stop $tp
	src=$?
	wait $rp
	cat $T/trace > $o/tracefs.txt
	echo 0 > $T/events/sched/sched_wakeup/enable
	echo 0 > $T/events/sched/sched_wakeup/filter
	echo 0 > $T/events/kprobes/tt_rb_output/enable
	echo > $T/kprobe_events
	echo local > $T/trace_clock
	sed 's/^/# /' $o/trace.err
	[ $rc = 0 ] && echo "ok - batches ran on CPU 0, trace on CPU $cpu" ||
		echo "not ok - batches ran on CPU 0, trace on CPU $cpu: $rc"
	[ $src = 0 ] && echo "ok - trace exits 0 on SIGINT" ||
		echo "not ok - trace exits 0 on SIGINT: $src"
	grep -q 'LOST EVENTS' $o/tracefs.txt && echo "not ok - tracefs lost no events" ||
		echo "ok - tracefs lost no events"
}

if [ "$(nproc)" -lt 2 ]; then
	echo "not ok - batch-guest.sh needs two CPUs (--smp 2)"
	exit 1
fi
# Pauses of 150 to 250 ms, none a multiple of the poll's 0.1 s: a single
# that waited for the poll would be printed anywhere up to 0.1 s late.
singles=$(for i in 1 2 3 4 5 6 7 8 9 10; do
	printf 's%d 1 ' $((150 + i * 37 % 100)); done)
measure $d/same 0 $singles s300 63 s300 63 s300 63 s300 200 s300 200 s300
pairs=$(for us in $(seq 300 50 950); do printf 's300 p%s ' $us; done)
measure $d/other 1 $pairs s300
python3 tests/tool/check_batches.py check $d/same $d/other
