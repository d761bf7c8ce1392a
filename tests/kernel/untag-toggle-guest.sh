#!/bin/sh
# Reproducer, not part of make check: switching the tagged_addr_untag event
# on and off through tracefs while an untag storm runs on another CPU.
#
#   tests/vm/run --cpu lam --smp 2 -- tests/kernel/untag-toggle-guest.sh
#
# With the jump-label hook the guest panicked within the 50 rounds: "Oops:
# int3" at do_trace_tagged_addr_untag+0x2c. With the static-call hook it
# still does, at the site itself ("Oops: int3" at _copy_to_user+0x8, RIP
# inside the 5-byte call being written): a text_poke_bp() int3 that
# poke_int3_handler() no longer claims, seen only under TCG with 2 vCPUs.
# The same loop over a stock event (syscalls/sys_enter_newuname)
# survives. tagtrace's stop test runs on one CPU until this is understood.
build/vm/storm 1000000000 > /dev/null &
s=$!
sleep 0.5
E=/sys/kernel/tracing/events/tagged_addr/tagged_addr_untag/enable
for i in $(seq 1 50); do
	echo 1 > $E; sleep 0.05; echo 0 > $E; sleep 0.05
done
echo "50 toggles survived"
kill $s
