#!/bin/sh
# Guest side of tests/bench/tool-bench.sh: tagtrace and bpftrace 0.17
# against the floor (tests/bench/floor.c). Prints "key=value" lines and
# "# ..." progress; a "check=FAIL ..." line when a drop count is wrong.
#   tool-guest.sh [--fake-mismatch] startup TRIALS
#       exec to "attached" and to the first event printed, each tool;
#       then one tagtrace -v start-up, its libbpf log timed line by line
#   tool-guest.sh [--fake-mismatch] cost N TRIALS
#       N/4 then N tagged calls under each configuration, TRIALS rounds;
#       tracer memory; records printed + reported drops checked
#   tool-guest.sh [--fake-mismatch] rate SECONDS
#       the highest paced rate each tool streams to a pipe with nothing
#       lost: doubling, then bisection to within 10%, 3 trials a rate
#   tool-guest.sh distro TRIALS
#       on Debian's kernel (its BTF): tagtrace top's and trace | cat's
#       resident and peak memory once started, default buffers
# --fake-mismatch adds one to every drop count tagtrace reports, to show
# that the check fails the bench.
TT=build/tool/tagtrace
S=build/vm/storm
FLOOR="build/vm/floor build/vm/floor.bpf.o"
BT="bpftrace --unsafe"	# system() in BEGIN says "attached" on stderr
OUT=/tmp/bench.out
ERR=/tmp/bench.err
FIFO=/tmp/bench.fifo
fake=0
if [ "$1" = --fake-mismatch ]; then
	fake=1
	shift
fi
mode=$1
shift
rm -f $FIFO
mkfifo $FIFO || exit 1

# start NAME: the configuration NAME in the background, once attached
# (pid in $p, the pipe's reader, if any, in $reader). Its stdout goes to
# /dev/null or, for *_pipe, through a pipe to cat, into $OUT; its stderr
# into $ERR, where each tracer says it is attached: tagtrace "Ctrl-C",
# floor "floor: attached", the bpftrace scripts "bench:ready" (their
# BEGIN probe, which bpftrace fires after attaching every other probe).
start()
{
	: > $OUT
	: > $ERR
	reader=
	out=/dev/null
	case $1 in
	*_pipe)
		cat $FIFO > $OUT &
		reader=$!
		out=$FIFO
		;;
	esac
	case $1 in
	none)		p=; return ;;
	floor_*)	set -- floor "${1#floor_}" $FLOOR "${1#floor_}" ;;
	tt_top)		set -- Ctrl-C $TT top -i 1 ;;
	tt_trace_*)	set -- Ctrl-C $TT trace -e untag $TTBUF ;;
	tt_json_*)	set -- Ctrl-C $TT trace -e untag --json $TTBUF ;;
	tt_every_*)	set -- Ctrl-C $TT trace $TTBUF ;;	# every event it can
	bt_count)	set -- bench:ready $BT tests/bench/count.bt ;;
	bt_print_*)	set -- bench:ready $BT tests/bench/stream.bt ;;
	bt_json_*)	set -- bench:ready $BT -f json tests/bench/stream.bt ;;
	esac
	[ "$1" = floor ] && shift 2 && set -- "floor: attached" "$@"
	marker=$1
	shift
	"$@" > $out 2> $ERR &
	p=$!
	while ! grep -q "$marker" $ERR; do
		kill -0 $p 2> /dev/null || { cat $ERR >&2; exit 1; }
		sleep 0.1
	done
}

# settle: until the pipe's output stops growing (bpftrace prints what its
# perf buffers still hold after a storm, and may lose it at SIGINT).
settle()
{
	size=-1
	while [ "$size" != "$(wc -c < $OUT)" ]; do
		size=$(wc -c < $OUT)
		sleep 0.3
	done
}

stop()
{
	[ -n "$p" ] || return 0
	kill -INT $p
	wait $p
	[ -z "$reader" ] || wait $reader
}

# records: untag records in $OUT (text or JSON, either tool).
records()
{
	grep -c 'untag' $OUT
}

# said: "EVENTS DROPPED" as tagtrace or floor reported them at exit.
said()
{
	sed -n 's/.* \([0-9]*\) events, \([0-9]*\) dropped.*/\1 \2/p' $ERR |
		awk -v f=$fake '{ print $1, $2 + f }'
}

# check NAME N: tagtrace's (or floor's) events + drops must be the N calls
# made, and, on a pipe, the events must be the records that came through.
check()
{
	set -- "$1" "$2" $(said)
	[ $# = 4 ] || { echo "check=FAIL $1: no drop count reported"; return; }
	got=$3
	[ -n "$reader" ] && got=$(records)
	if [ $(($3 + $4)) != "$2" ] || [ "$got" != "$3" ]; then
		echo "check=FAIL $1: $2 calls, $got records, tool said $3 events + $4 dropped"
	else
		echo "check=ok $1"
	fi
	echo "${1}_dropped_$trial=$4"
}

startup()
{
	# A paced storm keeps producing untag events to be seen.
	$S 100000000 2000 > /dev/null &
	gen=$!
	U="build/vm/until 300"
	for trial in $(seq "$1"); do
		echo "# start-up trial $trial"
		$U "Ctrl-C|untag  0x" $TT trace -e untag |
			sed -n "s/mark1_s=/tt_attached_$trial=/p; s/mark2_s=/tt_first_$trial=/p"
		$U "bench:ready|untag 0x" $BT tests/bench/stream.bt |
			sed -n "s/mark1_s=/bt_attached_$trial=/p; s/mark2_s=/bt_first_$trial=/p"
	done
	# Where tagtrace's start-up goes, from libbpf's log: ELF and kernel
	# BTF parsed by "loading kernel BTF", CO-RE relocation by the last
	# relocation line; program load and attach after it (tagtrace -v
	# times them itself). The log itself slows this start-up.
	UNTIL_LOG=/tmp/v.log $U "probe+open" $TT trace -v -e untag > /dev/null
	awk '/loading object/ && !o { o = $1 }
	     /loading kernel BTF/ && !b { b = $1; pb = prev }
	     /CO-RE relocating|relo #/ { r = $1 }
	     /probe\+open/ { a = $1; line = $0 }
	     { prev = $1 }
	     END {
		printf "v_open_s=%s\nv_prebtf_s=%s\nv_btf_s=%s\n", o, pb, b
		printf "v_core_s=%s\nv_attached_s=%s\n", r, a
		sub(/^[0-9.]* tagtrace: /, "", line)
		print "# tagtrace -v: " line
	     }' /tmp/v.log
	kill $gen
	wait $gen 2> /dev/null || true
}

# rss NAME: resident and peak memory of the running tracer $p.
rss()
{
	echo "${1}_rss_kb_$trial=$(awk '/VmRSS/ {print $2}' /proc/$p/status)"
	echo "${1}_hwm_kb_$trial=$(awk '/VmHWM/ {print $2}' /proc/$p/status)"
}

COST=${COST:-"none floor_empty floor_count floor_ringbuf tt_top tt_trace_null
	tt_trace_pipe tt_json_null tt_json_pipe bt_count bt_print_null
	bt_print_pipe bt_json_null bt_json_pipe"}

# Each round runs every configuration once, so slow drift touches all.
# Unpaced storms; where records are consumed, timed until the consumer
# (and cat) have taken every record (storm's PID arguments): each event's
# whole cost. The figure is the slope between a storm of N/4 calls and one
# of N in the same tracer, after 100 calls that take the first event's
# costs (bpftrace reads kallsyms for ksym()): what does not grow with the
# calls (a consumer's wake-up latency, the drain's detection, storm's
# start) drops out.
# bpftrace's missing records are counted on a pipe. The buffers
# are large enough for the whole storm (16 MiB each: tagtrace
# --ringbuf-size, bpftrace's BPFTRACE_PERF_RB_PAGES, the floor's), so
# every event is printed. Memory is taken with the defaults:
# top here, trace in the rate search.
cost()
{
	n=$1
	echo "cost_calls=$n"
	TTBUF="--ringbuf-size 16M"
	export BPFTRACE_PERF_RB_PAGES=4096
	for trial in $(seq "$2"); do
		for c in $COST; do
			echo "# cost round $trial: $c"
			start $c
			consumers=
			case $c in *_null|*_pipe|floor_ringbuf) consumers="$p $reader" ;; esac
			$S 100 0 $consumers > /dev/null	# first-event costs
			a=$($S $((n / 4)) 0 $consumers | sed -n 's/.*ns_per_call=//p')
			b=$($S "$n" 0 $consumers | sed -n 's/.*ns_per_call=//p')
			echo "${c}_ns_$trial=$(awk -v a="$a" -v b="$b" -v n=$n 'BEGIN {
				printf "%.0f", (b * n - a * (n / 4)) / (n - n / 4) }')"
			case $c in tt_top|bt_count) rss $c ;; esac
			stop
			case $c in
			tt_trace_*|tt_json_*)
				check $c $((100 + n / 4 + n)) ;;
			floor_count|floor_ringbuf)
				# Every untag event, tagged pointer or not.
				said | sed "s/^\([0-9]*\) \([0-9]*\)/${c}_events_$trial=\1 ${c}_dropped_$trial=\2/" ;;
			bt_*_pipe)
				echo "${c}_dropped_$trial=$((100 + n / 4 + n - $(records)))"
			esac
		done
	done
}

# trial TOOL RATE: one storm of $secs s at RATE; sets $achieved and $lost.
# One lifecycle for both tools: started afresh for the trial, warmed by
# 100 calls it must take and print, the storm, then its output left to
# settle (nothing more reaching the pipe for 0.3 s: bpftrace, line-buffered
# by stdbuf -oL, prints what its perf buffers still hold, and may lose it
# at SIGINT), then SIGINT and the wait for it and cat. Lost is the calls
# made less the records in the pipe, for both; tagtrace's own count
# (records + reported drops == calls) is checked besides.
trial()
{
	case $1 in
	tt) name=tt_trace ;;
	bt) name=bt_print ;;
	esac
	n=$(($2 * secs))
	start ${name}_pipe
	$S 100 0 $p $reader > /dev/null
	achieved=$($S $n "$2" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
	rss ${name}_rate_$2
	settle
	stop
	[ $1 = tt ] && check tt_rate_$2 $((n + 100))
	[ $1 = bt ] && grep -i 'lost' $ERR | sed 's/^/# bpftrace: /'
	lost=$((n + 100 - $(records)))
	echo "${1}_trial_$2_$trial=$achieved lost=$lost"
}

# passes TOOL RATE: 3 trials at RATE lose nothing (stops at the first
# loss); $got is the lowest rate achieved.
passes()
{
	got=
	for trial in 1 2 3; do
		trial $1 $2
		[ -z "$got" ] || [ "$achieved" -lt "$got" ] && got=$achieved
		[ $lost = 0 ] || return 1
	done
}

# search TOOL FIRST: doubling from FIRST while a rate passes, halving
# while it fails, then bisection until the bounds are within 10%. When
# the storm falls 10% short of a passing rate, that is the search's end:
# the generator's limit, not the tool's.
search()
{
	lo=0 hi=0 best=0 r=$2 limit=
	while [ $hi = 0 ] || [ $lo = 0 ]; do
		echo "# $1: rate $r/s"
		if passes $1 $r; then
			lo=$r best=$got
			[ $((got * 10)) -lt $((r * 9)) ] && { limit=1; break; }
			[ $hi = 0 ] && r=$((r * 2))
		else
			hi=$r
			[ $lo = 0 ] && r=$((r / 2))
			[ $r -lt 100 ] && break
		fi
		[ $lo != 0 ] && [ $hi != 0 ] && break
	done
	while [ -z "$limit" ] && [ $lo != 0 ] && [ $(((hi - lo) * 10)) -gt $lo ]; do
		r=$(((lo + hi) / 2))
		echo "# $1: rate $r/s (between $lo and $hi)"
		if passes $1 $r; then
			lo=$r best=$got
		else
			hi=$r
		fi
	done
	echo "${1}_zero_loss=$best ${1}_zero_loss_target=$lo ${1}_first_loss=$hi ${1}_generator_limit=${limit:-0}"
}

# Both searches start at the same rate, by the same rule (search, passes).
rate()
{
	secs=$1
	BT="stdbuf -oL $BT"
	search tt 5000
	search bt 5000
}

# The peak is reached at start-up, while libbpf parses the kernel's BTF:
# each tool is measured once attached, on its fallbacks there (untag has
# none: trace takes every event it can).
distro()
{
	for trial in $(seq "$1"); do
		echo "# distro trial $trial"
		start tt_top
		sleep 1
		rss tt_distro_top
		stop
		start tt_every_pipe
		sleep 1
		rss tt_distro_trace
		stop
	done
}

$mode "$@"
