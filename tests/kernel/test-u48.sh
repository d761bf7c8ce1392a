#!/bin/bash
# LAM_U48 (kernel/series/6-lam-u48): a LAM process that asks for 7 to 15
# tag bits gets fifteen at 62:48, on an mm kept below 47 bits
# (tests/kernel/u48.c). On --cpu lam with 4- and 5-level paging and two
# CPUs: the nr_bits matrix of both interfaces, enabling twice, tagged
# dereferences and system calls with each of bits 48..62, fork and exec,
# io_uring's SQPOLL thread on the process's mm, a U48 and an untagged
# process hopping between two CPUs, the tracepoints' lam_u48 (ctrl, untag,
# mode_switch both ways against a U57 process); with 5-level paging, the
# refusal of an mm mapped above 47 bits and every way of mapping there
# after the grant. On UAI (offered) 7 to 15 bits are EINVAL. LAM without
# LASS: refused with EPERM under mitigations, U48 as on --cpu lam with
# mitigations=off.
#
# kthread_use_mm() is exercised through the u48_usemm test module
# (tests/kernel/modules/u48_usemm.c).
#
# KERNEL=bzImage and MODULES=dir test another build (both from one tree).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

kernel=${KERNEL:-build/linux/arch/x86/boot/bzImage}
mods=${MODULES:-build/vm/modules}
need_built "run 'make kernel rig modules-rig'" "$kernel" "$mods/u48_usemm.ko" build/vm/u48

k=(--kernel "$kernel")
run="insmod $mods/u48_usemm.ko && build/vm/u48"
tap_guest "${k[@]}" --cpu lam --smp 2 -- sh -c "$run lam"
tap_guest "${k[@]}" --cpu lam --smp 2 --la57 -- sh -c "$run lam la57"
# shellcheck disable=SC2046
tap_guest "${k[@]}" $(offer uai) -- build/vm/u48 uai
tap_guest "${k[@]}" --cpu lam --no-lass -- build/vm/u48 refused
tap_guest "${k[@]}" --cpu lam --smp 2 --no-lass --append mitigations=off -- \
	sh -c "$run lam"

tap_done
