#!/bin/bash
# What the tagged_addr tracepoints cost (issue: b/a <= 1.01):
#   a  the series without the tracepoint patch   (make kernel-notrace)
#   b  with it, events off                        (make kernel)
#   c  with it, all tagged_addr events on through tracefs
# Each kernel boots once per CPU model; tagged_bench prints the best of 5
# runs of a tagged-pointer syscall loop and a tagged/untagged pipe
# ping-pong. TCG timings are noisy: read the ratios, not the nanoseconds.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig=tests/vm/run
base=build/linux-notrace/arch/x86/boot/bzImage
bench="build/vm/tagged_bench 200000 20000 5"
T=/sys/kernel/tracing

[ -f "$base" ] || { echo "no $base: run 'make kernel-notrace'" >&2; exit 1; }
[ -x build/vm/tagged_bench ] || { echo "run 'make rig'" >&2; exit 1; }

val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }

for cpu in lam uai; do
	a=$($rig --cpu $cpu --kernel "$base" -- $bench) || exit 1
	bc=$($rig --cpu $cpu -- sh -c "$bench | sed 's/^/off_/';
		echo 1 > $T/events/tagged_addr/enable; echo 1 > $T/tracing_on;
		$bench | sed 's/^/on_/'; echo 0 > $T/events/tagged_addr/enable") || exit 1
	for m in syscall pingpong; do
		va=$(val ${m}_ns "$a") vb=$(val off_${m}_ns "$bc") vc=$(val on_${m}_ns "$bc")
		awk -v cpu=$cpu -v m=$m -v a="$va" -v b="$vb" -v c="$vc" 'BEGIN {
			printf "%-4s %-9s a=%8.1f ns  b=%8.1f ns  c=%8.1f ns  b/a=%.3f  c/a=%.3f\n",
			       cpu, m, a, b, c, b / a, c / a }'
	done
done
