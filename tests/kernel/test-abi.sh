#!/bin/bash
# The tagged-address ABI (selftests/x86/tagged_addr.c) on every CPU the
# rig emulates: LAM and UAI with 4- and 5-level paging, one, two and four
# CPUs (the ping-pong tests pin and migrate across them), and a CPU
# without either; and its refusal where mitigations forbid tagging.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# Each boot: our ABI test, then the in-tree tags test (selftests/mm/tags),
# which fails if the CPU has a backend (TAGGED_EXPECT) and enabling fails.
t="build/vm/tagged_addr_test; r=\$?; build/vm/tags_test && exit \$r"
# The guest kernel has ia32 and x32 system calls: their refusal is tested.
export TAGGED_COMPAT=1
TAGGED_EXPECT=none tap_guest --cpu none -- sh -c "$t"
TAGGED_EXPECT=lam tap_guest --cpu lam -- sh -c "$t"
TAGGED_EXPECT=lam tap_guest --cpu lam --la57 --smp 2 -- sh -c "$t"
TAGGED_EXPECT=lam tap_guest --cpu lam --smp 4 -- sh -c "$t"
# On an Intel CPU the kernel raises LAM's user limit instead of untagging
# (the test's check-only paths then pass a non-canonical pointer).
TAGGED_EXPECT=lam tap_guest --cpu lam --intel -- sh -c "$t"
TAGGED_EXPECT=uai tap_guest $(offer uai) -- sh -c "$t"
TAGGED_EXPECT=uai tap_guest $(offer uai) --la57 -- sh -c "$t"
TAGGED_EXPECT=uai tap_guest $(offer uai) --smp 2 -- sh -c "$t"
TAGGED_EXPECT=uai tap_guest $(offer uai) --la57 --smp 4 -- sh -c "$t"

# The kernel offers tagging by CPU and mitigations (tagged-addr.rst, "When
# tagging is offered"): with mitigations on, LAM without LASS (absent, or
# turned off by vsyscall=emulate) and UAI are refused with EPERM, change
# nothing and report 0 bits; with mitigations=off both are offered.
TAGGED_EXPECT=refused tap_guest --cpu lam --no-lass -- sh -c "$t"
TAGGED_EXPECT=refused tap_guest --cpu lam --append vsyscall=emulate -- sh -c "$t"
TAGGED_EXPECT=refused tap_guest --cpu uai --la57 -- sh -c "$t"
TAGGED_EXPECT=lam tap_guest --cpu lam --no-lass --append mitigations=off -- sh -c "$t"
# UAI needs SMAP whatever the mitigations: with SMAP off (clearcpuid=smap,
# as a hypervisor that hides it) the UAI boot that offers tagging above
# refuses it, and says so at boot.
TAGGED_EXPECT=refused tap_guest $(offer uai) --append clearcpuid=smap -- sh -c "$t"
# The ctrl event says why (reason), in tracefs and in tagtrace.
tap_guest --cpu lam --no-lass -- tests/kernel/refusal-guest.sh no_lass_with_mitigations
tap_guest --cpu uai -- tests/kernel/refusal-guest.sh uai_with_mitigations
tap_guest $(offer uai) --append clearcpuid=smap -- \
	tests/kernel/refusal-guest.sh uai_without_smap
tap_guest $(offer uai) -- tests/kernel/refusal-guest.sh none
tap_guest --cpu lam -- tests/kernel/refusal-guest.sh sysctl
tap_guest --cpu none -- tests/kernel/refusal-guest.sh no_backend

tap_done
