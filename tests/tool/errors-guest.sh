#!/bin/sh
# errors-guest.sh: tagtrace refuses to run, with one clear line and a
# non-zero status, when it cannot work. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

# expect STATUS PATTERN DESCRIPTION CMD...: CMD exits STATUS, and its
# stderr is one line (tagtrace(8), EXIT STATUS) with PATTERN.
expect()
{
	want=$1 pat=$2 desc=$3
	shift 3
	"$@" > $d/out 2> $d/err
	st=$?
	lines=$(wc -l < $d/err)
	if [ $st = "$want" ] && grep -q "$pat" $d/err && [ "$lines" -eq 1 ]; then
		echo "ok - $desc"
	else
		echo "not ok - $desc (status $st, want $want; $lines lines on stderr, want 1)"
		sed 's/^/#   /' $d/err
	fi
}

expect 1 "needs root, or CAP_BPF and CAP_PERFMON" \
	"not root, no capabilities: says it needs root or CAP_BPF and CAP_PERFMON" \
	setpriv --reuid=65534 --regid=65534 --clear-groups $TT trace -d 1
expect 1 "needs root, or CAP_BPF and CAP_PERFMON" \
	"not root, CAP_BPF without CAP_PERFMON: refused" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=+bpf --ambient-caps=+bpf $TT trace -d 1
# A service user with CAP_BPF and CAP_PERFMON may trace: capabilities, not uid.
setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
	$TT trace -d 1 > $d/out 2> $d/err
st=$?
if [ $st = 0 ] && grep -q "events, 0 dropped" $d/err; then
	echo "ok - not root, CAP_BPF + CAP_PERFMON: traces and exits 0"
else
	echo "not ok - not root, CAP_BPF + CAP_PERFMON: traces and exits 0 (status $st)"
	sed 's/^/#   /' $d/err
fi
expect 1 "kernel has no BTF" "no /sys/kernel/btf/vmlinux: says the kernel has no BTF" \
	unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec $TT top -n 1"
# bpf() fails with ENOSYS for root (a seccomp filter, tests/tool/nobpf.c):
# what a kernel without CONFIG_BPF_SYSCALL answers. Under the same filter
# an unknown command is still a usage error: the filter stops bpf() alone.
expect 1 "BPF is unavailable here (bpf(): Function not implemented)" \
	"bpf() not implemented: says BPF is unavailable, and why" \
	build/vm/nobpf $TT trace -d 1
expect 2 "unknown command" "under the same filter tagtrace still runs: an unknown command is a usage error" \
	build/vm/nobpf $TT tarce
# A source that attaches and never fires (nobpf --unattached PROG answers
# the program's attach with a link nothing fires) is broken, not working:
# tagtrace sets off a query and a #GP itself after attaching, and says so
# when its source did not report them. A source it cannot check (untag)
# made silent does not stop it.
for ev in ctrl gp; do
	build/vm/nobpf --unattached ${ev}_btf $TT trace -e $ev -d 5 \
		> $d/out 2> $d/err
	st=$?
	if [ $st = 1 ] &&
	   grep -q "^nobpf: left 1 attaches of ${ev}_btf undone" $d/err &&
	   grep -qx "tagtrace: the $ev source (tp_btf/tagged_addr) is attached but did not report the [^ ]* that tagtrace made itself: it is broken on this kernel" $d/err &&
	   ! grep -q "tracing" $d/err; then
		echo "ok - a $ev source that never fires: said broken, status 1, no tracing"
	else
		echo "not ok - a $ev source that never fires: said broken, status 1, no tracing (status $st)"
		sed 's/^/#   /' $d/err
	fi
done
build/vm/nobpf --unattached untag_btf $TT trace -e ctrl,gp,untag -d 0.2 \
	> $d/out 2> $d/err
st=$?
if [ $st = 0 ] && ! grep -q "broken" $d/err &&
   grep -q "^nobpf: left 1 attaches of untag_btf undone" $d/err; then
	echo "ok - ctrl and gp checked and working: trace runs (untag is not checked)"
else
	echo "not ok - ctrl and gp checked and working: trace runs (status $st)"
	sed 's/^/#   /' $d/err
fi
expect 1 "no process with PID 999999" "unknown PID: says so" \
	$TT trace -p 999999 -d 1
expect 2 "unknown event 'bogus'" "unknown event name: says which" \
	$TT trace -e ctrl,bogus
expect 2 "invalid interval" "bad interval: says so" $TT top -i 0
expect 2 "unknown command" "unknown command: says so" $TT tarce

# -p keeps to one process: a second, identical one is not counted. The
# same top without -p, beside it, counts the workload: a tool that counts
# nothing at all does not pass.
$TT top --json -n 1 -i 3 -p $$ > $d/top.json 2> $d/top.err &
tp=$!
$TT top --json -n 1 -i 3 > $d/all.json 2> $d/all.err &
ap=$!
started $d/top.err "Ctrl-C" && started $d/all.err "Ctrl-C"
$W 0 30 0 0 0 > $d/workload.out
wait $tp $ap
if grep -q '"processes":\[\]' $d/top.json; then
	echo "ok - top -p PID: nothing counted for other processes"
else
	echo "not ok - top -p PID: nothing counted for other processes"
	sed 's/^/#   /' $d/top.json
fi
t=$(sed -n 's/^tagged_pid=//p' $d/workload.out)
if grep -q "\"pid\":$t,.*\"total\":{[^}]*\"untag\":30[,}]" $d/all.json; then
	echo "ok - top without -p, beside it: the workload's 30 untags (pid $t)"
else
	echo "not ok - top without -p, beside it: the workload's 30 untags (pid $t)"
	sed 's/^/#   /' $d/all.json
fi
# -c selects by command name. The untags are queued when the workload
# exits, and SIGINT prints what is queued: no fixed window to outlast.
$TT trace --json -c tagged_workload -e untag > $d/trace.json 2> $d/trace.err &
tp=$!
started $d/trace.err "Ctrl-C"
$W 0 30 0 0 0 > $d/workload.out
stop $tp
n=$(grep -c '"comm":"tagged_workload"' $d/trace.json)
all=$(wc -l < $d/trace.json)
if [ "$n" = 30 ] && [ "$all" = 30 ]; then
	echo "ok - trace -c COMM: the 30 untags of that command and nothing else"
else
	echo "not ok - trace -c COMM: the 30 untags of that command and nothing else ($n of $all)"
fi
