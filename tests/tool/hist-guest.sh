#!/bin/sh
# hist-guest.sh N M K F G: `tagtrace hist -c tagged_workload` counts every
# switch_mm_irqs_off call the workload's tasks make, as a tracefs kprobe
# event with the same comm filter counts them; `tagtrace top --openmetrics`
# in the same run (with --tag-values) writes strict OpenMetrics equal to
# its --json. TAP.
. tests/tool/lib-guest.sh

tracefs_reset
echo 'p:tt_switch_mm switch_mm_irqs_off' > $T/kprobe_events
echo 'comm == "tagged_workload"' > $T/events/kprobes/tt_switch_mm/filter
echo 1 > $T/events/kprobes/tt_switch_mm/enable
echo 1 > $T/tracing_on

$TT hist --json -c tagged_workload -i 1 > $d/hist.json 2> $d/hist.err &
hp=$!
$TT top --json -i 1 --openmetrics $d/tagtrace.prom --tag-values --histograms > $d/top.json 2> $d/top.err &
tp=$!
started $d/hist.err "Ctrl-C" && started $d/top.err "Ctrl-C"
$W "$@" > $d/workload.out
rc=$?
sleep 0.3
stop $hp $tp
src=$?
echo 0 > $T/tracing_on
kprobes=$(grep -c 'tt_switch_mm:' $T/trace)
grep -q 'LOST EVENTS' $T/trace && lost=1 || lost=0
echo 0 > $T/events/kprobes/tt_switch_mm/enable
echo > $T/kprobe_events
sed 's/^/# /' $d/hist.err $d/top.err
[ $rc = 0 ] && echo "ok - workload ran ($*)" || echo "not ok - workload ran ($*): $rc"
[ $src = 0 ] && echo "ok - tagtrace hist and top exit 0 on SIGINT" ||
	echo "not ok - tagtrace hist and top exit 0 on SIGINT: $src"
[ $lost = 0 ] && echo "ok - tracefs lost no kprobe events" || echo "not ok - tracefs lost no kprobe events"
total=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    for h in r["histograms"]:
        assert h["unit"] == "ns" and h["count"] == sum(b["count"] for b in h["buckets"])
        assert all(b["low"] <= b["high"] for b in h["buckets"])
        n += h["count"]
print(n)' $d/hist.json) || total="unparsable"
if [ "$total" = "$kprobes" ] && [ "$kprobes" -gt 0 ]; then
	echo "ok - hist: $total switch_mm calls, as many as the kprobe event counted"
else
	echo "not ok - hist: $total switch_mm calls, the kprobe event counted $kprobes"
fi
python3 tests/tool/check_openmetrics.py $d/tagtrace.prom $d/top.json --tag-values --histograms
