#!/bin/sh
# The guest side of `make demo`: tagtrace watching tagalloc, an allocator
# that keeps type tags in its pointers' top bits, beside an untagged
# process sharing CPU 0. Live events first, then the per-process summary
# and the switch_mm histograms the same run produced.
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
