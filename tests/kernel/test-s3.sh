#!/bin/bash
# Suspend to RAM (ACPI S3) by a process with tagging enabled, which uses
# its tagged pointer again as soon as its write to /sys/power/state
# returns (tests/kernel/s3_tagged.c; kernel/series/1-lam-resume-fix). The
# wakeup code brings the boot CPU back in that process's mm, CR3 with its
# LAM bits.
# - Upstream 6.12 on --cpu lam (LAM offered: CPU_MITIGATIONS off):
#   initialize_tlbstate_and_flush() WARNs twice (tlb.c:709 and :710, in
#   that process, CR3 holding LAM_U57) and writes CR3 without LAM; the
#   first dereference after resume works if and only if the trace shows
#   switch_mm_irqs_off() loading CR3 from the mm before the write returned:
#   it always has, at the first switch back into the process and again
#   for each text_poke() of thaw_processes()'s static key, so the process
#   survives.
# - The series: no WARN, the dereference works; on --cpu lam with two
#   CPUs, LASS still on on both after resume; on UAI (mitigations=off),
#   the dereference works, which needs EFER.UAI (those same mm switches
#   would set it again before the write returns if the resume had lost
#   it: that boot checks the outcome, not the resume code alone).
# S3_KERNEL and S3_UPSTREAM name other bzImages to boot.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
series=${S3_KERNEL:-build/linux/arch/x86/boot/bzImage}
upstream=${S3_UPSTREAM:-build/linux-upstream/arch/x86/boot/bzImage}

if [ -f "$upstream" ]; then
	tap_guest --kernel "$upstream" --cpu lam --allow-splat --timeout 120 -- \
		build/vm/s3_tagged lam warn
else
	ok 1 "the upstream 6.12 kernel is built ($upstream; make kernel-upstream)"
fi
tap_guest --kernel "$series" --cpu lam --smp 2 --timeout 120 -- \
	build/vm/s3_tagged lam fixed lass
# shellcheck disable=SC2046
tap_guest --kernel "$series" $(offer uai) --timeout 120 -- \
	build/vm/s3_tagged uai fixed
tap_done
