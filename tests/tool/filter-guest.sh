#!/bin/sh
# filter-guest.sh NA NB: two tagged processes at once, tagloop (NA tagged
# calls) and tagloop_b (NB), their PIDs known before they start. tagtrace
# top and trace with -p of one and -c of the other must each show exactly
# that process's counts and nothing of the other. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
NA=$1 NB=$2
L=$PWD/build/vm/tagloop

ln -s "$L" $d/tagloop_b
mkfifo $d/go_a $d/go_b
# Each waits in a shell for its go, then execs: same PID, its own name.
sh -c "read x < $d/go_a; exec $L $NA" > $d/a.out &
pa=$!
sh -c "read x < $d/go_b; exec $d/tagloop_b $NB" > $d/b.out &
pb=$!
echo "# tagloop is pid $pa, tagloop_b pid $pb"

$TT top --json -i 1 -p $pa > $d/top_p.json 2> $d/top_p.err &
t1=$!
$TT top --json -i 1 -c tagloop_b > $d/top_c.json 2> $d/top_c.err &
t2=$!
$TT trace --json -p $pb > $d/trace_p.json 2> $d/trace_p.err &
t3=$!
$TT trace --json -c tagloop > $d/trace_c.json 2> $d/trace_c.err &
t4=$!
for f in top_p top_c trace_p trace_c; do
	started $d/$f.err "Ctrl-C" || exit 1
done
echo > $d/go_a &
echo > $d/go_b &
wait $pa
ra=$?
wait $pb
rb=$?
sleep 0.3
stop $t1 $t2 $t3 $t4
st=$?
[ $ra = 0 ] && [ $rb = 0 ] && echo "ok - both workloads ran" ||
	echo "not ok - both workloads ran ($ra, $rb)"
[ $st = 0 ] && echo "ok - the four tagtrace runs exit 0 on SIGINT" ||
	echo "not ok - the four tagtrace runs exit 0 on SIGINT: $st"
python3 tests/tool/check_counts.py filter $d $pa $NA $pb $NB
