#!/bin/sh
# counts-guest.sh ATTACH N M K F G: run tagged_workload once with tracefs,
# `tagtrace trace --json` and `tagtrace top --json` all watching, and check
# that the three agree per process and per event, and with the workload.
# The tagged process also loads through a tagged %rbp 8 times: a #SS each
# on UAI (trap=ss), nothing on LAM. ATTACH is tagtrace's -A mode. Prints
# TAP (unnumbered).
. tests/tool/lib-guest.sh
A=$1
shift

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
python3 tests/tool/check_counts.py counts $d "$@"
