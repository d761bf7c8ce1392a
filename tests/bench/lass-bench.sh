#!/bin/bash
# What tagging on a kernel built with mitigations costs:
#   a  upstream 6.12, the guest's config, mitigations on: no ADDRESS_MASKING
#      (make kernel-baseline), what a distribution runs today
#   b  the series, LAM with LASS, events off (make kernel)
# on the same emulated CPU (--cpu lam), with tests/bench/tagged_bench:
#   untagged: uname() and a pipe ping-pong in processes that never enabled
#             tagging, every other program on the machine (goal b/a <= 1.002)
#   tagged:   the same loops with a tagged buffer and one tagged process
#             in the ping-pong (b only: upstream cannot tag here)
# and what LASS adds to text patching: text_poke_bp_batch() of a static key
# flip on --cpu lam and --cpu lam --no-lass, the same series kernel.
# The guest runs with --icount: one ns is one guest instruction. The
# uname() loop then counts the same in every boot. The ping-pong's mean
# varies by about 1% from boot to boot (timer interrupts fall on
# different rounds), more than the goal, so the median round trip (each
# round timed alone, one vDSO clock_gettime() a round) is judged beside it:
#   syscall, pp-median, pp-mean   each b/a <= 1.002
# all by one criterion (tests/bench/verdict.py): each kernel boots
# LASS_BENCH_BOOTS times (at least 5), the ratio is median(b) / median(a)
# over the boots, printed with its interval ([min b / max a, max b / min a]
# for 5-8 boots), PASS only when all of the interval is at most the goal;
# an interval above it, or fewer than 5 boots, is a MISS, one that
# straddles it UNRESOLVED (with about how many boots would resolve it),
# and either makes the script exit 1. pp-tail (mean - median, what the slow rounds add on average)
# and the 10th/90th percentile round are printed for both kernels. The
# figures say nothing about cycles on real hardware (a STAC is one
# instruction here).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig="tests/vm/run --icount"
base=build/linux-baseline/arch/x86/boot/bzImage
bench=build/vm/tagged_bench
args="20000 2000 3"

[ -f "$base" ] || { echo "no $base: run 'make kernel-baseline'" >&2; exit 1; }
[ -x $bench ] || { echo "run 'make rig'" >&2; exit 1; }

val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }

boots=${LASS_BENCH_BOOTS:-5}
untagged="$bench $args untagged > /tmp/u; sed 's/^/u_/' /tmp/u"

# median FIGURES...: the middle one (the lower middle for an even count)
# and the range, as "median lo hi".
median()
{
	printf '%s\n' "$@" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

a_sys=() a_pp=() b_sys=() b_pp=() t_sys=() t_pp=() a_pm=() b_pm=() t_pm=()
a_p10=() b_p10=() a_p90=() b_p90=()
for i in $(seq "$boots"); do
	# a and b run alike, the bench's output read only after it ends
	# (a reader beside it moves the ping-pong's mean: trace-overhead.sh).
	a=$($rig --cpu lam --kernel "$base" -- sh -c "$untagged") || exit 1
	b=$($rig --cpu lam -- sh -c "$untagged;
		$bench $args tagged > /tmp/t; sed 's/^/t_/' /tmp/t") || exit 1
	a_sys+=("$(val u_syscall_ns "$a")") a_pp+=("$(val u_pingpong_ns "$a")")
	b_sys+=("$(val u_syscall_ns "$b")") b_pp+=("$(val u_pingpong_ns "$b")")
	t_sys+=("$(val t_syscall_ns "$b")") t_pp+=("$(val t_pingpong_ns "$b")")
	a_pm+=("$(val u_pingpong_median_ns "$a")") b_pm+=("$(val u_pingpong_median_ns "$b")")
	t_pm+=("$(val t_pingpong_median_ns "$b")")
	a_p10+=("$(val u_pingpong_p10_ns "$a")") b_p10+=("$(val u_pingpong_p10_ns "$b")")
	a_p90+=("$(val u_pingpong_p90_ns "$a")") b_p90+=("$(val u_pingpong_p90_ns "$b")")
done
st=0
echo "== untagged processes, LAM+LASS, mitigations on: upstream a, series b (insns/op, median of $boots boots [range])"
tests/bench/verdict.py syscall 1.002 "${a_sys[@]}" -- "${b_sys[@]}" || st=1
tests/bench/verdict.py pp-median 1.002 "${a_pm[@]}" -- "${b_pm[@]}" || st=1
tests/bench/verdict.py pp-mean 1.002 "${a_pp[@]}" -- "${b_pp[@]}" || st=1
echo "== a tagged process on the series t, against b (printed, no goal)"
for m in syscall pp-median pp-mean; do
	case $m in
	syscall) B=$(median "${b_sys[@]}") T=$(median "${t_sys[@]}");;
	pp-median) B=$(median "${b_pm[@]}") T=$(median "${t_pm[@]}");;
	pp-mean) B=$(median "${b_pp[@]}") T=$(median "${t_pp[@]}");;
	esac
	awk -v m=$m -v B="$B" -v T="$T" 'BEGIN {
		split(B, b, " "); split(T, t, " ")
		printf "%-9s tagged t=%6.0f [%.0f-%.0f]  t/b=%.4f\n", m, t[1], t[2], t[3], t[1] / b[1] }'
done

# Where the rounds fall: percentiles (medians over the boots) and what the
# slow rounds add to the mean.
awk -v a10="$(median "${a_p10[@]}")" -v a50="$(median "${a_pm[@]}")" \
    -v a90="$(median "${a_p90[@]}")" -v am="$(median "${a_pp[@]}")" \
    -v b10="$(median "${b_p10[@]}")" -v b50="$(median "${b_pm[@]}")" \
    -v b90="$(median "${b_p90[@]}")" -v bm="$(median "${b_pp[@]}")" 'BEGIN {
	split(a10, x, " "); A10 = x[1]; split(a50, x, " "); A50 = x[1]
	split(a90, x, " "); A90 = x[1]; split(am, x, " "); AM = x[1]
	split(b10, x, " "); B10 = x[1]; split(b50, x, " "); B50 = x[1]
	split(b90, x, " "); B90 = x[1]; split(bm, x, " "); BM = x[1]
	printf "pp rounds upstream a: p10 %.0f p50 %.0f p90 %.0f tail %.0f   series b: p10 %.0f p50 %.0f p90 %.0f tail %.0f\n",
	       A10, A50, A90, AM - A50, B10, B50, B90, BM - B50 }'

# A static key flip: the tagged_addr_gp event on and off, 20 times each,
# through tracefs, on one CPU. The flips themselves wait for RCU, whose
# idle time icount turns into jumps of the clock; so time only
# text_poke_bp_batch(), which does the writing (under LASS with a
# STAC/CLAC window around each write of the poking mm), with the
# function_graph tracer: its duration is instructions.
flip='T=/sys/kernel/tracing
echo text_poke_bp_batch > $T/set_ftrace_filter
echo function_graph > $T/current_tracer
E=$T/events/tagged_addr/tagged_addr_gp/enable
i=0; while [ $i -lt 20 ]; do echo 1 > $E; echo 0 > $E; i=$((i + 1)); done
echo 0 > $T/tracing_on
awk "/text_poke_bp_batch/ { for (i = 1; i <= NF; i++) if (\$i == \"us\") print \$(i - 1) * 1000 }" $T/trace |
	sort -n | awk "{ v[NR] = \$1 } END { print \"batches=\" NR; print \"poke_ns=\" v[int((NR + 1) / 2)] }"'
on=$($rig --cpu lam -- sh -c "$flip") || exit 1
off=$($rig --cpu lam --no-lass -- sh -c "$flip") || exit 1
echo "== text_poke_bp_batch() of a static key flip (insns, median of $(val batches "$on") and $(val batches "$off") batches)"
awk -v on="$(val poke_ns "$on")" -v off="$(val poke_ns "$off")" 'BEGIN {
	printf "LASS on %6.0f  LASS off %6.0f  on/off=%.4f\n", on, off, on / off }'
exit $st
