#!/bin/sh
# Guest side, on a kernel that refuses LAM on a CPU that has it (--cpu lam
# --no-lass, mitigations on): the kernel's LAM selftest must skip
# (KSFT_SKIP, exit 4) and say why, instead of failing every case because
# it trusted CPUID (kernel/series 5/0013). Prints TAP; exits 1 on a failure.
lam=${1:-build/vm/lam}
out=$("$lam" 2>&1)
status=$?
echo "$out" | sed 's/^/# lam: /'
if [ "$status" = 4 ]; then
	echo "ok 1 - lam.c skips (exit 4) where the kernel refuses LAM"
else
	echo "not ok 1 - lam.c exits $status where the kernel refuses LAM (want 4)"
fi
if echo "$out" | grep -q 'The kernel does not offer LAM'; then
	echo "ok 2 - it says the kernel does not offer LAM"
else
	echo "not ok 2 - it does not say the kernel does not offer LAM"
fi
echo "1..2"
[ "$status" = 4 ] && echo "$out" | grep -q 'The kernel does not offer LAM'
