#!/bin/bash
# What the untag at the user access costs (kernel/series 3/0014: on UAI,
# unsafe_get_user(), unsafe_put_user(), the futex operations and the
# legacy FPU frame go through the untagged pointer; NOPs elsewhere):
#   a  a kernel without it: UACCESS_BENCH_A, a bzImage (required)
#   b  the series as built (make kernel), or UACCESS_BENCH_B
# with tests/bench/uaccess_bench (the signal frame, getdents64,
# FUTEX_WAKE_OP, fstatat, uname as the control) on --cpu none and on
# --cpu uai with mitigations=off (tagging offered), in untagged processes
# on both, and tagged ones on UAI. The guest runs with --icount: one ns is
# one guest instruction. Each kernel boots UACCESS_BENCH_BOOTS times (at
# least 5); every figure is judged by tests/bench/verdict.py against
# UACCESS_BENCH_GOAL (b/a, default 1.01) and printed as insns/call, the
# median of the boots. Exit status 0 only if every verdict is a PASS.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/offer.sh
rig="tests/vm/run --icount"
a=${UACCESS_BENCH_A:?"set UACCESS_BENCH_A to the bzImage to compare with"}
b=${UACCESS_BENCH_B:-build/linux/arch/x86/boot/bzImage}
bench=build/vm/uaccess_bench
args="5000 3"
boots=${UACCESS_BENCH_BOOTS:-5}
goal=${UACCESS_BENCH_GOAL:-1.01}
figs="sig dents futex stat uname"

[ -f "$a" ] || { echo "uaccess-bench: no $a" >&2; exit 1; }
[ -f "$b" ] || { echo "uaccess-bench: no $b: run 'make kernel'" >&2; exit 1; }
[ -x $bench ] || { echo "uaccess-bench: run 'make rig'" >&2; exit 1; }

val() { sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" <<< "$2" | head -1; }

declare -A fig
st=0
for cpu in none uai; do
	cmd="$bench $args untagged | sed 's/^/u /'"
	modes=u
	if [ $cpu = uai ]; then
		cmd="$cmd; $bench $args tagged | sed 's/^/t /'"
		modes="u t"
	fi
	for i in $(seq "$boots"); do
		for k in a b; do
			out=$($rig $(offer $cpu) --kernel "${!k}" -- sh -c "$cmd") || exit 1
			for m in $modes; do
				line=$(grep "^$m " <<< "$out")
				for f in $figs; do
					v=$(val ${f}_ns "$line")
					[ -n "$v" ] || { echo "uaccess-bench: no ${f}_ns in: $out" >&2; exit 1; }
					fig[$cpu.$m.$f.$k]+="$v "
				done
			done
		done
	done
	for m in $modes; do
		case $m in u) what="untagged process";; t) what="tagged process";; esac
		echo "== --cpu $cpu, $what: a $a, b $b (insns/call, $boots boots each)"
		for f in $figs; do
			# shellcheck disable=SC2086
			tests/bench/verdict.py "$f" "$goal" ${fig[$cpu.$m.$f.a]} -- \
				${fig[$cpu.$m.$f.b]} || st=1
		done
	done
done
exit $st
