#!/bin/sh
# fallback-guest.sh ATTACH N K F G: on a kernel without the tagged_addr events
# (upstream 6.12 LAM), tagtrace falls back to fexit/fentry and the page
# fault tracepoint, and says untag and gp are unavailable. The workload
# enables through arch_prctl only and makes no tagged system calls, which
# upstream LAM rejects. ATTACH is tagtrace's -A: auto (fexit, fentry,
# tp_btf) or raw (kprobes, raw_tp). Prints TAP (unnumbered).
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
$TT trace --json -A "$A" > $d/trace.json 2> $d/trace.err &
tp=$!
$TT top --json -A "$A" -i 1 --openmetrics $d/tagtrace.prom > $d/top.json 2> $d/top.err &
pp=$!
started $d/trace.err "Ctrl-C" && started $d/top.err "Ctrl-C"
$W "$N" 0 "$K" "$F" "$G" arch > $d/workload.out &
wp=$!
wait $wp
rc=$?
echo "main_pid=$wp" >> $d/workload.out
build/vm/ptrace_query 5 > $d/ptrace.out || rc=ptrace_query
sleep 0.3
stop $tp $pp
src=$?
sed 's/^/# /' $d/trace.err $d/top.err
[ $rc = 0 ] && echo "ok - workload ran on upstream LAM" || echo "not ok - workload ran on upstream LAM: $rc"
[ $src = 0 ] && echo "ok - tagtrace trace and top exit 0 on SIGINT" ||
	echo "not ok - tagtrace trace and top exit 0 on SIGINT: $src"
python3 tests/tool/check_counts.py fallback $d "$N" 0 "$K" "$F" "$G" "$A"
python3 tests/tool/check_openmetrics.py $d/tagtrace.prom $d/top.json
