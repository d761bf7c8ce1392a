#!/bin/sh
# omseries-guest.sh N M: `tagtrace top --openmetrics` keeps a process's
# series across exec, and times context switches only when asked.
#
# tagloop makes N tagged uname() calls and execs a shell script (comm
# "next", tagging reset), which waits, then execs tagloop again under the
# name "ttexecb" for M more. The file read while the script waits and the
# file read after the exit must have the same label set for that process in
# every family (pid and start_ns), its untags N and then N + M, and its
# comm only in tagtrace_process_info, "next" and then "ttexecb".
#
# While that top runs (no --histograms) bpftool lists tagtrace's programs
# and none on switch_mm_irqs_off; a second top with --histograms, watching
# another tagloop, attaches them and exports the histograms. Prints TAP
# (unnumbered).
. tests/tool/lib-guest.sh
N=$1 M=$2

# rewritten FILE: until top has written FILE again (at most 10 s).
rewritten()
{
	m0=$(stat -c %y "$1")
	i=0
	while [ "$(stat -c %y "$1")" = "$m0" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
}

# progs: the names of the loaded BPF programs, one a line.
progs()
{
	bpftool prog show | sed -n 's/.* name \([^ ]*\) .*/\1/p' | sort
}

ln -s "$PWD/build/vm/tagloop" $d/ttexecb
cat > $d/next <<EOF
#!/bin/sh
while [ ! -e $d/go ]; do sleep 0.1; done
exec $d/ttexecb $M
EOF
chmod +x $d/next

$TT top --json -i 0.5 --openmetrics $d/t.prom > $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C" || exit 1
progs > $d/progs.off
build/vm/tagloop "$N" --exec $d/next > $d/loop.out &
lp=$!
wait_for $d/t.prom 'comm="next"' && rewritten $d/t.prom &&
	cp $d/t.prom $d/a.prom
touch $d/go
wait $lp
rc=$?
wait_for $d/t.prom 'comm="ttexecb"' && rewritten $d/t.prom &&
	cp $d/t.prom $d/b.prom
stop $tp
st=$?
sed 's/^/# /' $d/top.err
[ $rc = 0 ] && echo "ok - tagloop $N, exec, tagloop $M ran" ||
	echo "not ok - tagloop $N, exec, tagloop $M ran: $rc"
[ $st = 0 ] && echo "ok - top --openmetrics exits 0 on SIGINT" ||
	echo "not ok - top --openmetrics exits 0 on SIGINT: $st"
pid=$(sed -n 's/^pid=//p' $d/loop.out | head -n 1)
r=0
python3 tests/tool/check_series.py $d/a.prom $d/b.prom "$pid" "$N" "$M" || r=1

# Without --histograms: tagtrace's programs, none on switch_mm_irqs_off.
sw=$(grep -c '^switch_mm_' $d/progs.off)
if grep -q '^untag_btf$' $d/progs.off && [ "$sw" = 0 ]; then
	echo "ok - top --openmetrics attaches no switch_mm program"
else
	echo "not ok - top --openmetrics attaches no switch_mm program ($sw)"
	sed 's/^/#   /' $d/progs.off
fi

# With --histograms: fentry and fexit on it, and the histograms exported.
$TT top --json -i 0.5 --openmetrics $d/h.prom --histograms \
	> $d/toph.json 2> $d/toph.err &
tp=$!
started $d/toph.err "Ctrl-C" || exit 1
progs > $d/progs.on
build/vm/tagloop 10 > /dev/null ||
	echo "not ok - tagloop 10 ran under top --histograms"
wait_for $d/h.prom '^tagtrace_switch_mm_seconds_count' &&
	rewritten $d/h.prom
stop $tp
st=$?
sed 's/^/# /' $d/toph.err
sw=$(grep -c '^switch_mm_' $d/progs.on)
if [ "$sw" = 2 ] && grep -q '^switch_mm_fexit$' $d/progs.on; then
	echo "ok - top --openmetrics --histograms attaches fentry and fexit to switch_mm_irqs_off"
else
	echo "not ok - top --openmetrics --histograms attaches fentry and fexit to switch_mm_irqs_off ($sw)"
	sed 's/^/#   /' $d/progs.on
fi
[ $st = 0 ] && echo "ok - top --histograms exits 0 on SIGINT" ||
	echo "not ok - top --histograms exits 0 on SIGINT: $st"
python3 tests/tool/check_openmetrics.py $d/h.prom $d/toph.json --histograms ||
	r=1
exit $r
