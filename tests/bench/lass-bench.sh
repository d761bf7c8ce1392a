#!/bin/bash
# What tagging on a kernel built with mitigations costs (issue 13):
#   a  upstream 6.12, the guest's config, mitigations on: no ADDRESS_MASKING
#      (make kernel-baseline), what a distribution runs today
#   b  the series, LAM with LASS, events off (make kernel)
# on the same emulated CPU (--cpu lam), with tests/bench/tagged_bench:
#   untagged: uname() and a pipe ping-pong in processes that never enabled
#             tagging, every other program on the machine (goal b/a <= 1.002)
#   tagged:   the same loops with a tagged buffer and one tagged process
#             in the ping-pong (b only: upstream cannot tag here)
# and the cost of a static key flip (text_poke) with LASS on and off, the
# series on --cpu lam and --cpu lam --no-lass.
# The guest runs with --icount: one ns is one guest instruction, the same
# in every run, so the ratios below are exact for this emulation; they say
# nothing about cycles on real hardware (a STAC is one instruction here).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig="tests/vm/run --icount"
base=build/linux-baseline/arch/x86/boot/bzImage
bench=build/vm/tagged_bench
args="20000 2000 3"

[ -f "$base" ] || { echo "no $base: run 'make kernel-baseline'" >&2; exit 1; }
[ -x $bench ] || { echo "run 'make rig'" >&2; exit 1; }

val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }

a=$($rig --cpu lam --kernel "$base" -- $bench $args untagged) || exit 1
b=$($rig --cpu lam -- sh -c "$bench $args untagged | sed 's/^/u_/';
	$bench $args tagged | sed 's/^/t_/'") || exit 1
st=0
echo "== untagged and tagged processes, LAM+LASS, mitigations on (insns/op)"
for m in syscall pingpong; do
	va=$(val ${m}_ns "$a") vb=$(val u_${m}_ns "$b") vt=$(val t_${m}_ns "$b")
	awk -v m=$m -v a="$va" -v b="$vb" -v t="$vt" 'BEGIN {
		r = b / a
		printf "%-9s upstream a=%7.0f  series b=%7.0f  b/a=%.4f %s  tagged t=%7.0f  t/b=%.4f\n",
		       m, a, b, r, r <= 1.002 ? "PASS" : "MISS", t, t / b
		exit r > 1.002 }' || st=1
done

# A static key flip: the tagged_addr_gp event on and off, 200 times each,
# through tracefs (text_poke_bp() of the key's sites, under LASS with a
# STAC/CLAC window around each user-half write of the poking mm).
flip='E=/sys/kernel/tracing/events/tagged_addr/tagged_addr_gp/enable
t0=$(date +%s%N); i=0
while [ $i -lt 200 ]; do echo 1 > $E; echo 0 > $E; i=$((i + 1)); done
echo flip_ns=$(( ($(date +%s%N) - t0) / 400 ))'
on=$($rig --cpu lam -- sh -c "$flip") || exit 1
off=$($rig --cpu lam --no-lass -- sh -c "$flip") || exit 1
echo "== a static key flip through tracefs (insns/flip, with the shell's echo)"
awk -v on="$(val flip_ns "$on")" -v off="$(val flip_ns "$off")" 'BEGIN {
	printf "LASS on %9.0f  LASS off %9.0f  on/off=%.4f\n", on, off, on / off }'
exit $st
