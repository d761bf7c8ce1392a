#!/bin/sh
# wake-cost-guest.sh N: what trace's wake-up rule costs, in guest
# instructions when run under --icount (tests/vm/run --icount: one ns of
# guest time per instruction, whatever the host's load). storm makes N
# tagged uname() calls, unpaced, and waits until trace has printed every
# record (storm's PID form), so its ns_per_call holds the call, the BPF
# program, the wake-ups and trace's reading and printing to /dev/null.
# Prints storm's figure alone, then under trace, and trace's totals.
. tests/tool/lib-guest.sh
N=$1

echo "# alone: $(build/vm/storm "$N")"
$TT trace -v -e untag -c storm > /dev/null 2> $d/trace.err &
tp=$!
started $d/trace.err "Ctrl-C" || exit 1
echo "# under trace: $(build/vm/storm "$N" 0 $tp)"
stop $tp
grep -v "libbpf\|sources\|Ctrl-C\|probe+open\|reading the maps" $d/trace.err | sed 's/^/# /'
