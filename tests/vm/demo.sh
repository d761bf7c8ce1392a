#!/bin/bash
# make demo: boot LAM and UAI guests and show a tagged pointer dereference
# working, then the same program on a CPU without either, where it faults.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

run()
{
	echo
	echo "\$ tests/vm/run $*"
	start=$(date +%s.%N)
	tests/vm/run "$@"
	rc=$?
	printf '(guest exit %d, %.1f s wall including boot)\n' $rc \
		"$(echo "$(date +%s.%N) - $start" | bc)"
}

echo "== A guest with Intel LAM: arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6), then"
echo "== pointers with a tag in bits 62:57 read and write the same memory."
run --cpu lam -- build/vm/tagged-deref lam
echo
echo "== The same checks with 5-level paging (LAM_U57 still gives 6 bits)."
run --cpu lam --la57 -- build/vm/tagged-deref lam
echo
echo "== AMD UAI: the same six tag bits through the same calls (EFER.UAI,"
echo "== switched per process by kernel/series/). The CPU ignores bit 63 too;"
echo "== the kernel never accepts such a pointer in a system call."
run --cpu uai --append mitigations=off -- build/vm/tagged-deref uai
echo
echo "== A CPU without LAM or UAI: enabling fails with ENODEV, and a tagged"
echo "== dereference is killed by SIGSEGV (the address is not canonical)."
run --cpu none -- build/vm/tagged-deref none
