#!/bin/sh
# stack-guest.sh N: where a #GP happened, as tagtrace says and as bpftrace's
# ustack says for the same events. stackgp takes N #GPs three calls deep
# (main -> stack_top -> stack_mid -> stack_leaf) and waits, alive, while
# `tagtrace trace -e gp --stack` (JSON and text) and bpftrace print the
# user stack of each; check_stack.py wants every frame of each event, by
# address and by function+offset, the same in both, and the functions in
# that order. Then `stackgp 1 --die` dies of its #GP: tagtrace must still
# name its functions (bpftrace, resolving from /proc/PID/maps, cannot).
# `tagtrace tags` counts each process's #GPs by place: N and 1 at
# stack_leaf.
# Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
n=$1
mkfifo $d/in
$TT trace -e gp --stack --json -c stackgp > $d/t.json 2> $d/t.err &
tj=$!
$TT trace -e gp --stack -c stackgp > $d/t.txt 2> $d/tt.err &
tt=$!
$TT tags --json -i 60 -c stackgp > $d/tags.json 2> $d/tags.err &
tg=$!
bpftrace -B line -e 'BEGIN { printf("ready\n"); }
tracepoint:tagged_addr:tagged_addr_gp /comm == "stackgp"/ {
	printf("gp %d\n%s\n", pid, ustack); }' > $d/bt.txt 2> $d/bt.err &
bp=$!
# Every wait below is a hang guard only, and each says what it waited for:
# the boot's timeout (test-tool.sh) outlasts them all.
if ! { started $d/t.err Ctrl-C && started $d/tt.err Ctrl-C &&
       started $d/tags.err Ctrl-C && wait_for $d/bt.txt ready; }; then
	echo "not ok - the three tagtraces and bpftrace are ready"
	sed 's/^/#   /' $d/t.err $d/tt.err $d/tags.err $d/bt.err $d/bt.txt
	exit 1
fi
echo "# tracers ready"
build/vm/stackgp "$n" < $d/in > $d/sg.out &
sp=$!
exec 3> $d/in
wait_for $d/sg.out "caught $n" || echo "# stackgp did not say it caught $n"
# Alive until bpftrace has printed (so resolved) every event.
i=0
while [ "$(grep -c '^gp ' $d/bt.txt)" -lt "$n" ] && [ $i -lt 1200 ]; do
	i=$((i + 1)); sleep 0.1
done
echo "# bpftrace printed $(grep -c '^gp ' $d/bt.txt) of the $n ustacks"
exec 3>&-
wait $sp
src=$?
[ $src = 0 ] && echo "ok - stackgp $n took and caught $n #GPs" ||
	echo "not ok - stackgp $n: exit status $src"
build/vm/stackgp 1 --die > /dev/null 2>&1
drc=$?
[ $drc = 139 ] && echo "ok - stackgp 1 --die died of SIGSEGV" ||
	echo "not ok - stackgp 1 --die: exit status $drc, not 139"
# The dead one's event: in both tagtrace outputs before they stop.
i=0
while [ "$(grep -c '"event":"gp"' $d/t.json)" -le "$n" ] ||
      [ "$(grep -c ' gp ' $d/t.txt)" -le "$n" ]; do
	i=$((i + 1)); [ $i -gt 1200 ] && break; sleep 0.1
done
stop $tj $tt $tg
rc=$?
[ $rc = 0 ] && echo "ok - the three tagtraces stopped cleanly" ||
	echo "not ok - a tagtrace's exit status: $rc"
stop_reference $bp bpftrace
sed 's/^/# /' $d/t.err $d/bt.err
python3 tests/tool/check_stack.py $n $d/t.json $d/t.txt $d/bt.txt $d/tags.json
