#!/bin/sh
# fallback-guest.sh ATTACH N K F G: on a kernel without the tagged_addr events
# (upstream 6.12 LAM), tagtrace falls back to fexit/fentry and the page
# fault tracepoint, and says untag and gp are unavailable. The workload
# enables through arch_prctl only and makes no tagged system calls, which
# upstream LAM rejects. ATTACH is tagtrace's -A: auto (fexit, fentry,
# tp_btf) or raw (kprobes, raw_tp). top runs with --tag-values: fault tags
# are guessed from registers here, so its OpenMetrics file must put the
# faults' places in a family of their own. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
A=$1 N=$2 K=$3 F=$4 G=$5

if [ -d $E ]; then
	echo "not ok - kernel without the tagged_addr events (found $E)"
	exit 1
fi
# The upstream kernel here is built without CONFIG_KALLSYMS_ALL: every
# fallback must load without data symbols such as cpu_tlbstate.
grep -qw cpu_tlbstate /proc/kallsyms && echo cpu_tlbstate > $d/outgoing_mm ||
	echo last_switch > $d/outgoing_mm
if [ "$(cat $d/outgoing_mm)" = last_switch ]; then
	echo "ok - kernel without data symbols in kallsyms (KALLSYMS_ALL=n)"
else
	echo "not ok - kernel without data symbols in kallsyms (KALLSYMS_ALL=n)"
fi
# The kernel's own account of the same run, for the checkers to predict
# each fallback's count exactly: every switch_mm_irqs_off() call (a
# kprobe), the scheduler's events, the arch_prctl() calls and every
# user-mode page fault.
tracefs_reset
tracefs_sched 1
tracefs_fallback 1
echo 1 > $T/tracing_on
$TT trace --json -A "$A" > $d/trace.json 2> $d/trace.err &
tp=$!
$TT top --json -A "$A" -i 1 --openmetrics $d/tagtrace.prom --histograms --tag-values > $d/top.json 2> $d/top.err &
pp=$!
$TT tags --json -A "$A" -i 1 > $d/tags.json 2> $d/tags.err &
gp=$!
started $d/trace.err "Ctrl-C" && started $d/top.err "Ctrl-C" &&
	started $d/tags.err "Ctrl-C"
$W "$N" 0 "$K" "$F" "$G" arch > $d/workload.out &
wp=$!
wait $wp
rc=$?
echo "main_pid=$wp" >> $d/workload.out
build/vm/ptrace_query 5 > $d/ptrace.out || rc=ptrace_query
sleep 0.3
stop $tp $pp $gp
src=$?
tracefs_stop $d/tracefs.txt
grep -q 'LOST EVENTS' $d/tracefs.txt && echo "not ok - tracefs lost no events" ||
	echo "ok - tracefs lost no events"
sed 's/^/# /' $d/trace.err $d/top.err $d/tags.err
[ $rc = 0 ] && echo "ok - workload ran on upstream LAM" || echo "not ok - workload ran on upstream LAM: $rc"
[ $src = 0 ] && echo "ok - tagtrace trace, top and tags exit 0 on SIGINT" ||
	echo "not ok - tagtrace trace, top and tags exit 0 on SIGINT: $src"
r=0
python3 tests/tool/check_counts.py fallback $d "$N" 0 "$K" "$F" "$G" "$A" || r=1
python3 tests/tool/check_openmetrics.py $d/tagtrace.prom $d/top.json --histograms --tag-values || r=1
# tags on the fallbacks: fault tags counted as top counts faults, untags
# (no source) left out as top leaves them out, not reported as 0.
python3 - $d <<'PY' || r=1
import json, sys
sys.path.insert(0, "tests/tool")
from check_counts import tracefs_run
d = sys.argv[1]
tags = [json.loads(l) for l in open(f"{d}/tags.json")][-1]
top = [json.loads(l) for l in open(f"{d}/top.json")][-1]
def say(good, what, *diag):
    print(("ok - " if good else "not ok - ") + what)
    for d in diag if not good else ():
        print("#   " + str(d))
src = tags.get("sources", {})
say(src == {k: top["sources"][k] for k in ("ctrl", "untag", "fault", "gp",
                                           "fault_pointer")} and
    src["untag"] == "unavailable" and src["fault_pointer"] == "registers",
    "tags: sources as top's, untag unavailable, fault tags guessed", src)
bad = [p["pid"] for p in tags["processes"]
       if {"untags", "untag_tags", "syscalls"} & set(p)]
say(not bad, "tags: no untag counts without an untag source", bad)
rows = {p["pid"]: p for p in top["processes"]}
got = {p["pid"]: (p["faults"], sum(p["guessed_fault_tags"]),
                 p["guessed_tagged_faults"])
       for p in tags["processes"] if p["pid"] in rows}
want = {pid: (rows[pid]["total"]["fault"],) * 2 +
        (rows[pid]["guessed_tagged_faults"],) for pid in got}
say(got == want, "tags: faults, their guessed tag histogram and faults with "
    "a guessed tag from page_fault_user equal top's", f"tags {got}",
    f"top  {want}")
# Every process tracefs saw a kept fault of, with exactly that many.
run = tracefs_run(d)
faults = {p: n for p, n in run.faults.items() if n} if run else None
have = {p["pid"]: p["faults"] for p in tags["processes"] if p["faults"]}
say(faults and have == faults, "tags: faults per process exactly tracefs's "
    f"page_fault_user events of tagged mms and tagged addresses ({sum(have.values())})",
    f"tags    {have}", f"tracefs {faults}")
PY
# Events this kernel has no source for, asked for alone: an error at start,
# not a trace that waits for what cannot come (the timeout only guards
# against that wait: the answer comes at start).
timeout 300 $TT trace -e untag,gp -A "$A" > $d/none.out 2> $d/none.err
st=$?
if [ $st = 1 ] && [ ! -s $d/none.out ] && [ "$(wc -l < $d/none.err)" = 1 ] &&
   grep -q "^tagtrace: none of the events asked for can be traced on this kernel" $d/none.err; then
	echo "ok - trace -e untag,gp without those events exits 1 at once, saying why"
else
	echo "not ok - trace -e untag,gp without those events exits 1 at once, saying why (status $st)"
	sed 's/^/#   /' $d/none.err
	r=1
fi
exit $r
