#!/bin/bash
# A CPU coming online runs a LAM mm only with LASS on (kernel/series:
# "x86/cpu: Enable LASS while a CPU is set up, as SMAP is"). On two CPUs,
# CPU 1 goes offline and online in a loop while a LAM process runs and the
# lam_online test module (tests/kernel/modules/lam_online.c) adopts that
# process's mm with kthread_use_mm() on CPU 1 as soon as it is online,
# before it is active, while sysfs readers make the hotplug thread wait now
# and then before the dynamic online states (tests/kernel/lam_online.c;
# with LASS set late, from CPUHP_AP_ONLINE_DYN, 4 of 20 adoptions ran
# LAM without LASS and the switch's WARN fired): on --cpu lam every
# adoption finds CR4.LASS set, and the kernel's own check in the context
# switch (a WARN, which fails the guest run) stays quiet. The control, LAM
# without LASS (--no-lass, mitigations=off), shows the module does see a
# CPU without LASS when there is one.
#
# KERNEL=bzImage and MODULES=dir test another build (both from one tree).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

kernel=${KERNEL:-build/linux/arch/x86/boot/bzImage}
mods=${MODULES:-build/vm/modules}
need_built "run 'make kernel rig modules-rig'" "$kernel" "$mods/lam_online.ko" build/vm/lam_online

run="insmod $mods/lam_online.ko && build/vm/lam_online"
tap_guest --kernel "$kernel" --cpu lam --smp 2 -- sh -c "$run lass 20"
tap_guest --kernel "$kernel" --cpu lam --smp 2 --la57 -- sh -c "$run lass 10"
tap_guest --kernel "$kernel" --cpu lam --smp 2 --no-lass --append mitigations=off -- \
	sh -c "$run nolass 10"

tap_done
