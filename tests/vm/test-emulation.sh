#!/bin/bash
# The patched QEMU emulates LAM and UAI: CPUID bits per --cpu, tagged
# dereferences working under LAM (4- and 5-level paging) and faulting
# without it, and the kernel's own LAM selftest (which skips on a kernel
# that refuses LAM: --no-lass with mitigations on); the address paths that
# are not plain loads and stores (a tagged RSP through PUSH, CALL, PUSHF,
# far CALL/RET and IRETQ, gathers with tagged elements, data breakpoints,
# CS/DS/ES/SS prefixes, which 64-bit mode ignores)
# under LAM and UAI, each with 4- and 5-level paging (tests/vm/emul-paths.c);
# the LASS rules from a freestanding guest (tests/vm/lass/): on LAM with
# LASS, and the same probes on LAM without LASS and on a CPU with neither,
# where paging, SMAP and SMEP answer and CR4.LASS is a reserved bit;
# cross-modifying code on four vCPUs (tests/vm/xmodify-guest.sh): static
# branches rewritten by text_poke_bp() while the other CPUs run through
# them, which must never leave a CPU running bytes already replaced.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

vm=build/vm
tap_guest --cpu none -- $vm/tagged-deref none
tap_guest $(offer uai) -- $vm/tagged-deref uai
tap_guest --cpu lam -- sh -c "$vm/tagged-deref lam && tests/vm/lam-selftest.sh $vm/lam"
tap_guest --cpu lam --no-lass --append mitigations=off -- $vm/tagged-deref lam no-lass
tap_guest --cpu lam --no-lass -- tests/vm/lam-refused.sh $vm/lam
tap_guest --cpu lam --la57 -- sh -c "$vm/tagged-deref lam && tests/vm/lam-selftest.sh $vm/lam"
tap_guest --cpu lam -- $vm/emul-paths lam
tap_guest --cpu lam --la57 -- $vm/emul-paths lam
tap_guest $(offer uai) -- $vm/emul-paths uai
tap_guest $(offer uai) --la57 -- $vm/emul-paths uai
tap_guest --cpu lam --bare $vm/lass.elf
tap_guest --cpu lam --no-lass --bare $vm/lass.elf
tap_guest --cpu none --bare $vm/lass.elf
tap_guest --cpu lam --smp 4 -- tests/vm/xmodify-guest.sh ${XMODIFY_SECONDS:-30}

tap_done
