#!/bin/bash
# What the tagged_addr tracepoints cost (issue: b/a <= 1.01):
#   a  the series without the tracepoint patches (make kernel-notrace)
#   b  with it, events off                        (make kernel)
#   c  with it, all tagged_addr events on through tracefs
# Each kernel boots once per CPU model; tagged_bench prints the best of 3
# runs of a tagged-pointer syscall loop and a tagged/untagged pipe
# ping-pong, and the ping-pong's median round trip, each round timed
# alone. The goal, b/a <= 1.003 with the events off, is judged on the
# syscall loop and on that median: the ping-pong's mean moves by about
# 1% between boots (timer interrupts), and is printed beside it. Wall time under TCG varies by tens of percent from run to
# run, so the guest runs with --icount: its clock counts instructions (one
# ns each), and the figures are guest instructions per operation, the same
# in every run.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig="tests/vm/run --icount"
. tests/lib/offer.sh
base=build/linux-notrace/arch/x86/boot/bzImage
bench="build/vm/tagged_bench 20000 2000 3"
T=/sys/kernel/tracing

[ -f "$base" ] || { echo "no $base: run 'make kernel-notrace'" >&2; exit 1; }
[ -x build/vm/tagged_bench ] || { echo "run 'make rig'" >&2; exit 1; }

val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }

for cpu in lam uai; do
	a=$($rig $(offer $cpu) --kernel "$base" -- $bench) || exit 1
	bc=$($rig $(offer $cpu) -- sh -c "$bench | sed 's/^/off_/';
		echo 1 > $T/events/tagged_addr/enable; echo 1 > $T/tracing_on;
		$bench | sed 's/^/on_/'; echo 0 > $T/events/tagged_addr/enable") || exit 1
	for m in syscall pingpong pingpong_median; do
		va=$(val ${m}_ns "$a") vb=$(val off_${m}_ns "$bc") vc=$(val on_${m}_ns "$bc")
		awk -v cpu=$cpu -v m=$m -v a="$va" -v b="$vb" -v c="$vc" 'BEGIN {
			r = b / a
			printf "%-4s %-15s a=%7.0f  b=%7.0f  c=%7.0f insns/op  b/a=%.4f %s  c/a=%.4f\n",
			       cpu, m, a, b, c, r,
			       m == "pingpong" ? "(mean)" : r <= 1.003 ? "PASS" : "MISS", c / a }'
	done
done
