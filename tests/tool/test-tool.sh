#!/bin/bash
# tagtrace in the guest: its counts against tracefs and known workloads on
# LAM and UAI, with tp_btf and raw_tp programs (and raw_tp as the retry
# when the kernel refuses tp_btf), the pointer a fault is
# tagged by (the fault event's field; registers on upstream) and where
# (function and user stack, against bpftrace's ustack), which #GPs are
# reported and the bits that made them (gpbits), LAM_U48's
# 15-bit tags, a ring buffer storm, stopping on time under an unpaced one,
# when trace is woken to print what BPF queued, and by two CPUs at once,
# its errors, its export read by
# node_exporter (and Prometheus), HWASan's tags and system calls under
# tagtrace tags on LAM and UAI, its fallbacks on the upstream kernel
# (no tagged_addr events), its counts on a kernel with the series meant
# for mainline alone, and its start on Debian's own kernel, which has no
# LAM support at all.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
upstream=build/linux-upstream/arch/x86/boot/bzImage
mainline=build/linux-mainline/arch/x86/boot/bzImage

for cpu in lam uai; do
	tap_guest $(offer $cpu) -- tests/tool/counts-guest.sh auto 5 200 300 64 20
done
tap_guest --cpu lam -- tests/tool/counts-guest.sh raw 3 100 100 16 5
tap_guest --cpu lam -- tests/tool/reexec-guest.sh
tap_guest --cpu lam -- tests/tool/counts-guest.sh refused 3 100 100 16 5
for cpu in lam uai; do
	tap_guest $(offer $cpu) -- tests/tool/tags-guest.sh 20 3 5 16
done
for cpu in lam uai; do
	tap_guest $(offer $cpu) -- tests/tool/faultptr-guest.sh 5 3 event
done
tap_guest --cpu lam -- tests/tool/u48-guest.sh
tap_guest --cpu lam --timeout 900 -- tests/tool/stack-guest.sh 3
# Which #GPs are reported, and the bits outside the field: LAM on 4- and
# 5-level paging, UAI, and the series meant for mainline.
tap_guest --cpu lam -- tests/tool/gpbits-guest.sh lam
tap_guest --cpu lam --la57 -- tests/tool/gpbits-guest.sh la57
tap_guest $(offer uai) -- tests/tool/gpbits-guest.sh uai
tap_guest --cpu lam --kernel $mainline -- tests/tool/gpbits-guest.sh mainline
# The demo's misuse (tagalloc's #GP, HWASan's tagged faults) located by
# tagtrace and by bpftrace's ustack alike.
tap_guest --cpu lam -- tests/tool/misuse-guest.sh
for smp in 1 2; do
	tap_guest $(offer uai) --smp $smp -- tests/tool/storm-guest.sh 20000
done
tap_guest --cpu lam --icount --timeout 600 -- tests/tool/stop-guest.py
tap_guest --cpu lam --smp 2 --icount -- tests/tool/batch-guest.sh
tap_guest --cpu lam --smp 2 -- tests/tool/wake2-guest.sh 30000 40000
tap_guest --cpu lam -- tests/tool/errors-guest.sh
tap_guest --cpu lam -- tests/tool/filter-guest.sh 100 300
tap_guest --cpu lam -- tests/tool/pidreuse-guest.sh
tap_guest --cpu lam -- tests/tool/prune-guest.sh 20
tap_guest --cpu lam -- tests/tool/hist-guest.sh 3 100 200 8 5
tap_guest --cpu lam -- tests/tool/histmodes-guest.sh auto lam_u57 3 100 200 8 5
tap_guest $(offer uai) -- tests/tool/histmodes-guest.sh raw uai 3 100 200 8 5
tap_guest --cpu lam --mem 1024 --timeout 900 -- tests/tool/export-guest.sh 3 100 200 8 5
tap_guest --cpu lam -- tests/tool/unknown-guest.sh
for attach in auto raw; do
	tap_guest --cpu lam --kernel $upstream -- \
		tests/tool/fallback-guest.sh $attach 3 200 8 5
	tap_guest --cpu lam --kernel $upstream -- \
		tests/tool/histmodes-guest.sh $attach lam_u57 3 0 200 8 5 arch
done
tap_guest --cpu lam --kernel $upstream -- tests/tool/pidreuse-guest.sh --pages
tap_guest --cpu lam --kernel $upstream -- tests/tool/reexec-guest.sh
tap_guest --cpu lam --kernel $upstream -- \
	tests/tool/faultptr-guest.sh 5 3 registers
# The series meant for mainline (1-4) alone: events without the LASS
# policy's reason in ctrl, and LAM as upstream offers it (no mitigations).
for attach in auto raw; do
	tap_guest --cpu lam --kernel $mainline -- \
		tests/tool/counts-guest.sh $attach 3 100 100 16 5
done
tap_guest --cpu lam --kernel $mainline -- tests/tool/tags-guest.sh 20 3 5 16
# Debian's own kernel of the series' base version (make kernel-distro), as
# tagtrace's users run it: CPU_MITIGATIONS on, so upstream 6.12 leaves out
# ADDRESS_MASKING, and the CPU's LAM is refused.
distro=build/distro-kernel
if [ -f $distro/vmlinuz ] && [ -f $distro/initrd.img ] && [ -f $distro/config ]; then
	is "$(grep -E '^CONFIG_(CPU_MITIGATIONS|ADDRESS_MASKING)=' $distro/config)" \
		CONFIG_CPU_MITIGATIONS=y \
		"Debian's kernel: CPU_MITIGATIONS=y, hence no ADDRESS_MASKING"
	tap_guest --distro --cpu lam -- tests/tool/distro-guest.sh "$(cat $distro/release)"
else
	ok 1 "Debian's kernel is in $distro" "run 'make kernel-distro'"
fi

tap_done
