#!/bin/sh
# Guest side of tests/bench/tool-bench.sh: tagtrace against the equivalent
# bpftrace 0.17 scripts. Prints "key=value" lines.
#   tool-guest.sh startup       exec to first event printed, best of 3
#   tool-guest.sh cost N        N tagged calls: none, tagtrace, bpftrace;
#                               tracer memory and BPF map memory
#   tool-guest.sh rate R...     for each rate R (calls/s, 2 s each): the
#                               records each tracer lost
TT=build/tool/tagtrace
S=build/vm/storm
U=build/vm/until
mode=$1
shift

startup()
{
	# A paced storm keeps producing untag events to be seen.
	$S 100000000 2000 > /dev/null &
	gen=$!
	for i in 1 2 3; do
		$U 300 "untag  0x" $TT trace -e untag | sed -n "s/until_s=/tt_startup_$i=/p"
		$U 300 "untag 0x" bpftrace tests/bench/stream.bt | sed -n "s/until_s=/bt_startup_$i=/p"
	done
	kill $gen
	wait $gen 2> /dev/null || true
}

# start MARKER CMD...: CMD in the background (pid in $p), once its output
# shows MARKER, which each tracer prints once its probes are attached
# (tagtrace: "Ctrl-C to stop"; the bpftrace scripts: their BEGIN probe,
# which bpftrace fires after attaching every other probe).
start()
{
	marker=$1
	shift
	"$@" > /tmp/bench.out 2>&1 &
	p=$!
	while ! grep -q "$marker" /tmp/bench.out; do sleep 0.1; done
}

# settle: until the tracer's output stops growing (bpftrace prints what
# its perf buffers still hold after the storm, and may lose it at SIGINT).
settle()
{
	n=-1
	while [ "$n" != "$(wc -c < /tmp/bench.out)" ]; do
		n=$(wc -c < /tmp/bench.out)
		sleep 0.3
	done
}

stop()
{
	kill -INT $p
	wait $p
}

# rss NAME: resident and peak memory of the running tracer $p.
rss()
{
	echo "${1}_rss_kb=$(awk '/VmRSS/ {print $2}' /proc/$p/status)"
	echo "${1}_hwm_kb=$(awk '/VmHWM/ {print $2}' /proc/$p/status)"
}

cost()
{
	n=$1
	$S "$n" | sed -n "s/.*ns_per_call=/none_ns_per_call=/p"
	for t in "tt_top Ctrl-C $TT top -i 1" \
		 "bt_count bench:ready bpftrace tests/bench/count.bt" \
		 "tt_trace Ctrl-C $TT trace -e untag" \
		 "bt_stream bench:ready bpftrace tests/bench/stream.bt"; do
		set -- $t
		name=$1
		shift
		start "$@"
		$S "$n" | sed -n "s/.*ns_per_call=/${name}_ns_per_call=/p"
		rss $name
		[ $name = tt_top ] && bpftool map show -j > /tmp/maps.json
		stop
		grep -i 'lost\|dropped' /tmp/bench.out | sed "s/^/# $name: /"
	done
	python3 -c '
import json
maps = json.load(open("/tmp/maps.json"))
print("tt_top_maps_kb=%d" % (sum(m.get("bytes_memlock", 0) for m in maps) // 1024))
print("# maps: " + " ".join("%s=%dK" % (m.get("name", "?"), m.get("bytes_memlock", 0) // 1024) for m in maps))'
}

# delivered: untag records the last tracer printed.
delivered()
{
	grep -c 'untag.*0x' /tmp/bench.out
}

# For each rate: 2 s of paced calls under each tracer; what it printed of
# them (bpftrace does not always say when it loses records: count them).
rate()
{
	for r in "$@"; do
		n=$((r * 2))
		start Ctrl-C $TT trace -e untag
		got=$($S $n "$r" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
		stop	# tagtrace prints what is queued before it exits
		echo "tt_rate_${r}=$got tt_lost_${r}=$((n - $(delivered))) tt_said_${r}=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' /tmp/bench.out)"
		start bench:ready bpftrace tests/bench/stream.bt
		got=$($S $n "$r" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
		settle
		stop
		echo "bt_rate_${r}=$got bt_lost_${r}=$((n - $(delivered)))"
	done
}

$mode "$@"
