#!/bin/sh
# counts-guest.sh ATTACH N M K F G: run tagged_workload once with tracefs,
# `tagtrace trace --json` and `tagtrace top --json` all watching, and check
# that the three agree per process and per event, and with the workload.
# The tagged process also loads through a tagged %rbp 8 times: a #SS each
# on UAI (trap=ss), nothing on LAM. ATTACH is tagtrace's -A mode, or
# "refused": -A auto where the kernel refuses tp_btf programs and nothing
# else (tests/tool/nobpf.c --refuse-tp-btf), which tagtrace must retry with
# raw_tp, saying so. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
A=$1
shift
if [ "$A" = refused ]; then
	TT="build/vm/nobpf --refuse-tp-btf $TT"
	A=auto
	refused=1
fi

tracefs_start
$TT trace --json -A "$A" > $d/trace.json 2> $d/trace.err &
tp=$!
$TT top --json -A "$A" -i 1 > $d/top.json 2> $d/top.err &
pp=$!
started $d/trace.err "Ctrl-C" && started $d/top.err "Ctrl-C"
TAGGED_STACK_DEREFS=8 $W "$@" > $d/workload.out &
wp=$!
wait $wp
rc=$?
echo "main_pid=$wp" >> $d/workload.out
sleep 0.3
stop $tp $pp
src=$?
tracefs_stop $d/tracefs.txt
sed 's/^/# /' $d/trace.err $d/top.err
echo "# $(wc -l < $d/trace.json) trace records, $(wc -l < $d/top.json) top reports"
[ $rc = 0 ] && echo "ok - workload ran ($*)" || echo "not ok - workload ran ($*): $rc"
[ $src = 0 ] && echo "ok - tagtrace trace and top exit 0 on SIGINT" ||
	echo "not ok - tagtrace trace and top exit 0 on SIGINT: $src"
if [ -n "${refused:-}" ]; then
	raw=$(for e in ctrl untag switch fault gp; do
		printf '%s=raw_tp/tagged_addr ' $e; done)
	for c in trace top; do
		e=$d/$c.err
		n=$(sed -n 's/^nobpf: refused \([0-9]*\) tp_btf loads.*/\1/p' $e)
		if [ "${n:-0}" -gt 0 ] &&
		   grep -q "^tagtrace: cannot load the BPF programs: Invalid argument" $e &&
		   grep -q "^tagtrace: retrying with raw_tp and kprobe programs$" $e &&
		   grep -q "^tagtrace: sources: ${raw% }" $e; then
			echo "ok - $c: the kernel refused its tp_btf programs ($n loads): it said so, retried with raw_tp and named them"
		else
			echo "not ok - $c: the kernel refused its tp_btf programs (${n:-no} loads): it said so, retried with raw_tp and named them"
		fi
	done
fi
python3 tests/tool/check_counts.py counts $d "$@"
