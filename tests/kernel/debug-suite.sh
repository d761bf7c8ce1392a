#!/bin/bash
# The kernel tests, and tagtrace against tracefs, on the debug kernel
# (KASAN, PROVE_LOCKING, DEBUG_VM, DEBUG_ENTRY): they must pass and leave no splat in
# the kernel log. `make check-debug`; too slow
# for `make check`.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# A splat in the kernel log fails the guest run (tests/vm/run exits 253).
k=build/linux-debug/arch/x86/boot/bzImage
guest="TAGGED_EXPECT=\$0 build/vm/tagged_addr_test; r=\$?
tests/kernel/trace-guest.sh 5 200 300 64 20 10 \$([ \$0 = uai ] && echo 10 || echo 0) || r=1
tests/tool/counts-guest.sh auto 3 100 100 8 5 || r=1
exit \$r"
for cpu in lam uai; do
	tap_guest --kernel $k $(offer $cpu) --smp 2 --mem 1024 --timeout 900 -- sh -c "$guest" $cpu
done

# Five minutes of tests/kernel/tagged_fuzz.c on each CPU, 5-level paging
# and four CPUs. The seed is printed and fixed: TAGGED_FUZZ_SEED replays
# another.
seed=${TAGGED_FUZZ_SEED:-20261203}
for cpu in lam uai none; do
	TAGGED_EXPECT=$cpu tap_guest --kernel $k $(offer $cpu) --la57 --smp 4 --mem 1024 \
		--timeout 900 -- build/vm/tagged_fuzz "$seed" 300
done

tap_done
