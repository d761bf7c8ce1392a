#!/bin/sh
# misuse-guest.sh: the misuse `make demo` shows, located by tagtrace and by
# bpftrace for the same events. tagalloc's untagged helper dereferences a
# tagged pointer (a #GP, which kills it); HWASan's runtime (hwasan_prog)
# takes tagged page faults (in its own main() and in libc's memset).
# `tagtrace trace --json -e gp,fault` and bpftrace's ustack watch both;
# check_misuse.py compares
# each event's first frame: the same address, and the same function+offset
# wherever bpftrace could name it. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
$TT trace --json -e gp,fault > $d/t.json 2> $d/t.err &
tp=$!
bpftrace -B line -e 'BEGIN { printf("ready\n"); }
tracepoint:tagged_addr:tagged_addr_gp /comm == "tagalloc"/ {
	printf("gp %d %lx\n%s\n", pid, args->ip, ustack(1)); }
tracepoint:tagged_addr:tagged_addr_fault
/comm == "hwasan_prog" && (args->pointer >> 57) != 0/ {
	printf("fault %d %lx\n%s\n", pid, args->ip, ustack(1)); }' \
	> $d/bt.txt 2> $d/bt.err &
bp=$!
if ! { started $d/t.err Ctrl-C && wait_for $d/bt.txt ready; }; then
	echo "not ok - tagtrace and bpftrace are ready"
	sed 's/^/#   /' $d/t.err $d/bt.err $d/bt.txt
	exit 1
fi
build/vm/tagalloc 8 > $d/tagalloc.out 2>&1
echo "# tagalloc exit status $?"
HWASAN_OPTIONS=color=never build/vm/hwasan_prog 256 1 4 16 --uaf \
	> $d/hwasan.out 2>&1
echo "# hwasan_prog exit status $? (99: its use-after-free report)"
# Both tracers have seen the last event before they stop: bpftrace prints
# as it reads, and tagtrace drains its buffer on SIGINT.
i=0
while [ "$(grep -c '^fault ' $d/bt.txt)" -lt 16 ] && [ $i -lt 1200 ]; do
	i=$((i + 1)); sleep 0.1
done
stop $tp
st=$?
[ $st = 0 ] && echo "ok - tagtrace stopped cleanly" ||
	echo "not ok - tagtrace's exit status: $st"
stop_reference $bp bpftrace
sed 's/^/# /' $d/t.err $d/bt.err
python3 tests/tool/check_misuse.py $d/t.json $d/bt.txt
