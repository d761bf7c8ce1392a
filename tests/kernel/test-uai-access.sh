#!/bin/bash
# System calls whose user accesses take a memory operand the compiler
# chooses (kernel/series 3/0014: on UAI they go through the untagged
# pointer), given tagged pointers in a process that enabled tagging:
# - rt_sigreturn() restoring the FPU state through a tagged fpstate
#   pointer (tests/kernel/sigfp_tagged.c): XRSTOR, and with noxsave the
#   legacy FXRSTOR, whose operand is the compiler's choice (GCC based it
#   on %rbp in a distribution build);
# - getdents64() into a tagged buffer (filldir64()'s unsafe_put_user()),
#   FUTEX_WAKE_OP on a tagged word (the futex asm), fstatat() of a tagged
#   path into a tagged buffer, and a signal round trip
#   (tests/bench/uaccess_bench, a few calls each: it exits 1 on a failed
#   call);
# on UAI (mitigations=off; 4- and 5-level paging) and, for comparison, on
# LAM, which masks the tag in every segment (tests/kernel/uai-access-guest.sh).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

kernel=build/linux/arch/x86/boot/bzImage
need_built "run 'make kernel rig'" "$kernel" build/vm/sigfp_tagged \
	build/vm/uaccess_bench

# shellcheck disable=SC2046
for cpu in "$(offer uai)" "$(offer uai) --la57" "--cpu lam"; do
	for extra in "" noxsave; do
		app=
		[ -z "$extra" ] || app="--append $extra"
		# shellcheck disable=SC2086
		tap_guest --kernel "$kernel" $cpu $app -- tests/kernel/uai-access-guest.sh
	done
done
tap_done
