#!/bin/bash
# What a process that never enabled tagging sees from the system calls
# that only check a user pointer, for 0x7fff888000000000 (bit 63 clear,
# non-canonical), and from those given a range that crosses the exact
# user limit: tests/kernel/noncanon.c, whose table is the one
# Documentation/arch/x86/tagged-addr.rst gives. Where the kernel offers
# LAM on an Intel CPU (--cpu lam --intel, LASS on), USER_PTR_MAX is
# 2^63 - PAGE_SIZE (kernel/series: "x86/uaccess: Raise the user limit for
# LAM instead of untagging"): a private FUTEX_WAKE does nothing and
# answers 0, read() and readv() from an empty pipe block until a signal,
# io_uring takes the provided buffers, epoll_wait() waits, a write()
# across the old limit is short and a UDP receive across it drops the
# datagram. Everywhere else the answer is EFAULT at once: LAM on the
# rig's default CPU, which says AuthenticAMD (untagged before the check,
# as on UAI), UAI, LAM refused (--no-lass, mitigations on), no tagging,
# and upstream 6.12 with LAM offered (its limit stays at the top of the
# user address space).
# rseq() registration there fails with EFAULT on every kernel: 6.12 reads
# the area's rseq_cs before it records the area. A tagged alias of a valid
# area fails alike in an untagged process, and is registered and written
# through its tag once the process enabled tagging, except on upstream
# 6.12, whose LAM neither raises the limit nor untags. TAGGED_EXPECT says
# what an enable gets on each boot: lam and uai succeed, none is ENODEV,
# refused (LAM without LASS, mitigations on) EPERM.
# NONCANON_KERNEL and NONCANON_UPSTREAM name other bzImages to boot.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
series=${NONCANON_KERNEL:-build/linux/arch/x86/boot/bzImage}
upstream=${NONCANON_UPSTREAM:-build/linux-upstream/arch/x86/boot/bzImage}

TAGGED_EXPECT=lam tap_guest --kernel "$series" --cpu lam --intel -- \
	build/vm/noncanon raised
TAGGED_EXPECT=lam tap_guest --kernel "$series" --cpu lam -- build/vm/noncanon untag
TAGGED_EXPECT=refused tap_guest --kernel "$series" --cpu lam --no-lass -- \
	build/vm/noncanon exact
# shellcheck disable=SC2046
TAGGED_EXPECT=uai tap_guest --kernel "$series" $(offer uai) -- build/vm/noncanon untag
TAGGED_EXPECT=none tap_guest --kernel "$series" --cpu none -- build/vm/noncanon exact
if [ -f "$upstream" ]; then
	# Upstream 6.12 built without CPU_MITIGATIONS offers LAM.
	TAGGED_EXPECT=lam tap_guest --kernel "$upstream" --cpu lam -- \
		build/vm/noncanon exact
else
	ok 1 "the upstream 6.12 kernel is built ($upstream; make kernel-upstream)"
fi
tap_done
