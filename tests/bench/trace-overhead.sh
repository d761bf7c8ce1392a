#!/bin/bash
# What the tagged_addr tracepoints cost, with the events off: b/a <= 1.003.
#   a  the series without the tracepoint patches (make kernel-notrace)
#   b  with it, events off                        (make kernel)
#   c  with it, all tagged_addr events on through tracefs (printed)
# Each kernel boots TRACE_BENCH_BOOTS times (at least 5) per CPU model;
# tagged_bench prints the mean of 3 runs of a tagged-pointer syscall loop
# and of a tagged/untagged pipe ping-pong, and the ping-pong's median round
# trip, each round timed alone. All three are judged by one criterion
# (tests/bench/verdict.py): median(b) / median(a) over the boots <= 1.003,
# printed with its interval ([min b / max a, max b / min a] for 5-8 boots),
# PASS only when all of the interval is; a MISS, or an interval that
# straddles the goal (UNRESOLVED, with about how many boots would resolve
# it), exits 1.
# Wall time under TCG varies by tens of percent from run to run, so the
# guest runs with --icount: its clock counts instructions (one ns each),
# and the figures are guest instructions per operation.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig="tests/vm/run --icount"
. tests/lib/offer.sh
base=build/linux-notrace/arch/x86/boot/bzImage
bench="build/vm/tagged_bench 20000 2000 3"
off="$bench > /tmp/off; sed 's/^/off_/' /tmp/off"
T=/sys/kernel/tracing

[ -f "$base" ] || { echo "no $base: run 'make kernel-notrace'" >&2; exit 1; }
[ -x build/vm/tagged_bench ] || { echo "run 'make rig'" >&2; exit 1; }

val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }

# med FIGURES...: "median lo hi" (the lower middle for an even count).
med()
{
	printf '%s\n' "$@" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

boots=${TRACE_BENCH_BOOTS:-5}
st=0
for cpu in lam uai; do
	declare -A A=() B=() C=()
	for i in $(seq "$boots"); do
		# a and b run alike, the bench's output read only after it
		# ends: a reader beside it (| sed) added 700-900 instructions
		# to the ping-pong's mean round trip, varying 2% from boot to
		# boot (a 10192-10390 through a pipe, 9457-9506 through a
		# file, in one run on LAM).
		a=$($rig $(offer $cpu) --kernel "$base" -- sh -c "$off") || exit 1
		bc=$($rig $(offer $cpu) -- sh -c "$off;
			echo 1 > $T/events/tagged_addr/enable; echo 1 > $T/tracing_on;
			$bench > /tmp/on; sed 's/^/on_/' /tmp/on
			echo 0 > $T/events/tagged_addr/enable") || exit 1
		for m in syscall pingpong pingpong_median; do
			A[$m]+=" $(val off_${m}_ns "$a")" B[$m]+=" $(val off_${m}_ns "$bc")"
			C[$m]+=" $(val on_${m}_ns "$bc")"
		done
	done
	echo "== $cpu: a without the tracepoints, b with them off (insns/op, $boots boots each)"
	for m in syscall pingpong pingpong_median; do
		# shellcheck disable=SC2086
		tests/bench/verdict.py "$cpu $m" 1.003 ${A[$m]} -- ${B[$m]} || st=1
		# shellcheck disable=SC2086
		awk -v m="$cpu $m" -v a="$(med ${A[$m]})" -v c="$(med ${C[$m]})" 'BEGIN {
			split(a, x, " "); split(c, y, " ")
			printf "%-24s c (events on)=%.0f [%.0f-%.0f]  c/a=%.4f (printed, no goal)\n",
			       m, y[1], y[2], y[3], y[1] / x[1] }'
	done
	unset A B C
done
exit $st
