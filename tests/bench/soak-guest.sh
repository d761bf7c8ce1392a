#!/bin/sh
# Guest side of tests/bench/soak.sh: SECONDS of tagged-pointer storms and
# short-lived tagged processes under `tagtrace top` (with --openmetrics)
# and `tagtrace trace`; samples their memory, then stops them with
# SIGTERM. Prints "key=value" lines.
TT=build/tool/tagtrace
secs=${1:-600}
d=$(mktemp -d /tmp/soak.XXXXXX)

$TT top --json -i 10 --openmetrics $d/tagtrace.prom > $d/top.json 2> $d/top.err &
top=$!
$TT trace -e untag,ctrl > /dev/null 2> $d/trace.err &
trace=$!
while ! grep -q Ctrl-C $d/top.err || ! grep -q Ctrl-C $d/trace.err; do sleep 0.1; done

# The load: paced storms and a stream of new tagged processes.
(
	end=$(( $(date +%s) + secs ))
	while [ "$(date +%s)" -lt $end ]; do
		build/vm/storm 20000 10000 > /dev/null
		build/vm/tagged_workload 2 20 20 2 1 > /dev/null
	done
) &
load=$!
i=0
while kill -0 $load 2> /dev/null; do
	echo "sample_$i=$(awk '/VmRSS/ {print $2}' /proc/$top/status),$(awk '/VmRSS/ {print $2}' /proc/$trace/status)"
	i=$((i + 1))
	sleep 30
done
wait $load
kill -TERM $top $trace
wait $top; echo "top_exit=$?"
wait $trace; echo "trace_exit=$?"
echo "trace_summary=$(tail -1 $d/trace.err | tr ' ' '_')"
echo "top_reports=$(wc -l < $d/top.json)"
echo "top_processes_last=$(tail -1 $d/top.json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["processes"]))')"
echo "prom_bytes=$(wc -c < $d/tagtrace.prom)"
