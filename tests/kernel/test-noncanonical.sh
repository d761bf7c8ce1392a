#!/bin/bash
# What a process that never enabled tagging sees from the system calls
# that only check a user pointer, for 0x7fff888000000000 (bit 63 clear,
# non-canonical): tests/kernel/noncanon.c, whose table is the one
# Documentation/arch/x86/tagged-addr.rst gives. Where the kernel offers
# LAM (--cpu lam, LASS on), USER_PTR_MAX is 2^63 - PAGE_SIZE (kernel/series
# 0040): a private FUTEX_WAKE does nothing and answers 0, read() and
# readv() from an empty pipe block until a signal, io_uring takes the
# provided buffers. Everywhere else the answer is EFAULT at once: UAI
# (untagged before the check), LAM refused (--no-lass, mitigations on),
# no tagging, and upstream 6.12 with LAM offered (its limit stays at the
# top of the user address space).
# NONCANON_KERNEL and NONCANON_UPSTREAM name other bzImages to boot.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
series=${NONCANON_KERNEL:-build/linux/arch/x86/boot/bzImage}
upstream=${NONCANON_UPSTREAM:-build/linux-upstream/arch/x86/boot/bzImage}

tap_guest --kernel "$series" --cpu lam -- build/vm/noncanon raised
tap_guest --kernel "$series" --cpu lam --no-lass -- build/vm/noncanon exact
# shellcheck disable=SC2046
tap_guest --kernel "$series" $(offer uai) -- build/vm/noncanon exact
tap_guest --kernel "$series" --cpu none -- build/vm/noncanon exact
if [ -f "$upstream" ]; then
	tap_guest --kernel "$upstream" --cpu lam -- build/vm/noncanon exact
else
	ok 1 "the upstream 6.12 kernel is built ($upstream; make kernel-upstream)"
fi
tap_done
