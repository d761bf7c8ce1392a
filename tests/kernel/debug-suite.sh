#!/bin/bash
# The kernel tests, and tagtrace against tracefs, on the debug kernel
# (KASAN, PROVE_LOCKING, DEBUG_VM): they must pass and leave no splat in
# dmesg. `make check-debug`; too slow
# for `make check`.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

k=build/linux-debug/arch/x86/boot/bzImage
splat='BUG:|WARNING:|KASAN|INFO: possible|circular locking|Call Trace|sleeping function'
guest="TAGGED_EXPECT=\$0 build/vm/tagged_addr_test; r=\$?
tests/kernel/trace-guest.sh 5 200 300 64 20 || r=1
tests/tool/counts-guest.sh auto 3 100 100 8 5 || r=1
if dmesg | grep -E '$splat'; then echo 'not ok - no splat in dmesg'; r=1;
else echo 'ok - no splat in dmesg'; fi
exit \$r"
for cpu in lam uai; do
	tap_guest --kernel $k --cpu $cpu --smp 2 --mem 1024 --timeout 900 -- sh -c "$guest" $cpu
done

tap_done
