#!/bin/sh
# Reproducer, not part of make check: switching the tagged_addr_untag event
# on and off through tracefs while an untag storm runs on another CPU.
#
#   tests/vm/run --cpu lam --smp 2 -- tests/kernel/untag-toggle-guest.sh
#
# With the series as of this commit the guest panics within the 50 rounds:
# "Oops: int3" at do_trace_tagged_addr_untag+0x2c, a text_poke_bp() int3
# that poke_int3_handler() did not claim. The same loop over a stock event
# (syscalls/sys_enter_newuname) survives. The series-v2 work owns the fix;
# tagtrace's stop test runs on one CPU until then.
build/vm/storm 1000000000 > /dev/null &
s=$!
sleep 0.5
E=/sys/kernel/tracing/events/tagged_addr/tagged_addr_untag/enable
for i in $(seq 1 50); do
	echo 1 > $E; sleep 0.05; echo 0 > $E; sleep 0.05
done
echo "50 toggles survived"
kill $s
