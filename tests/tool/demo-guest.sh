#!/bin/sh
# The guest side of `make demo`: tagtrace watching tagalloc, an allocator
# that keeps type tags in its pointers' top bits, beside an untagged
# process sharing CPU 0. Live events first, then the per-process summary
# and the switch_mm histograms the same run produced. Then LLVM's HWASan,
# the real user of LAM: hwasan_prog under tagtrace tags and trace, and
# HWASan's own report of the use-after-free it ends with.
TT=build/tool/tagtrace
d=$(mktemp -d /tmp/demo.XXXXXX)

# waitfor FILE: until tagtrace says it is attached ("Ctrl-C to stop").
waitfor() { while ! grep -q Ctrl-C "$1" 2>/dev/null; do sleep 0.1; done; }

echo "== tagtrace trace -c tagalloc  (live; tagalloc runs 8 rounds)"
# trace's messages still reach the terminal, and a copy tells when it is
# ready.
mkfifo $d/trace.fifo
tee $d/trace.err < $d/trace.fifo >&2 &
$TT trace -c tagalloc 2> $d/trace.fifo &
tp=$!
$TT top -c tagalloc -i 60 > $d/top.txt 2> $d/top.err &
op=$!
$TT hist --us -i 60 > $d/hist.txt 2> $d/hist.err &
hp=$!
waitfor $d/trace.err; waitfor $d/top.err; waitfor $d/hist.err
build/vm/tagalloc 8
# Its events are all queued or counted by now; SIGINT prints the rest.
kill -INT $tp $op $hp
wait
echo
echo "== tagtrace top -c tagalloc  (the same run)"
sed 1d $d/top.txt
echo
echo "== tagtrace hist --us  (the same run: time in switch_mm_irqs_off)"
sed 1,2d $d/hist.txt

echo
echo "== HWASan: build/vm/hwasan_prog 256 1 4 16 --uaf  (clang-14 -fsanitize=hwaddress)"
echo "   256 heap allocations, each write()n once; 4 uname(); 16 fresh pages;"
echo "   then a use-after-free. Under tagtrace tags and trace -c hwasan_prog."
# trace attached first: at a page fault only the first tracer can look up
# where the IP is, and it is trace that prints it.
$TT trace -c hwasan_prog -e ctrl,untag,fault > $d/htrace.txt 2> $d/htrace.err &
tp=$!
waitfor $d/htrace.err
$TT tags -c hwasan_prog -i 60 > $d/tags.txt 2> $d/tags.err &
gp=$!
waitfor $d/tags.err
HWASAN_OPTIONS=color=never build/vm/hwasan_prog 256 1 4 16 --uaf \
	> $d/hw.out 2> $d/hw.err
echo "hwasan_prog exit status $?"
kill -INT $gp $tp
wait
echo
echo "-- trace: HWASan's enable, untags with their system call, faults"
grep " ctrl " $d/htrace.txt
grep " untag " $d/htrace.txt | head -4
echo "[...]"
grep " fault .* untagged" $d/htrace.txt | head -2
grep " fault .* tagged tag" $d/htrace.txt | head -3
echo "[...]"
echo
echo "-- tagtrace tags -c hwasan_prog"
sed 1d $d/tags.txt
echo
echo "-- HWASan's report (stderr), its first lines"
grep -m1 -A1 "ERROR: HWAddressSanitizer" $d/hw.err
grep -m1 "Cause:" $d/hw.err
