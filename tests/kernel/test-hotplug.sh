#!/bin/bash
# A CPU coming online runs a LAM mm only with LASS on (kernel/series:
# "x86/cpu: Enable LASS while a CPU is set up, as SMAP is"). On two CPUs,
# CPU 1 goes offline and online in a loop while a LAM process runs and the
# lam_online test module (tests/kernel/modules/lam_online.c) adopts that
# process's mm with kthread_use_mm() on CPU 1 as soon as it is online,
# before it is active, while sysfs readers make the hotplug thread wait now
# and then before the dynamic online states (tests/kernel/lam_online.c;
# with LASS set late, from CPUHP_AP_ONLINE_DYN, 4 of 20 adoptions ran
# LAM without LASS): on --cpu lam every adoption finds CR4.LASS set. The
# control, LAM without LASS (--no-lass, mitigations=off), shows the module
# does see a CPU without LASS when there is one.
#
# The context switch's own check (tests/kernel/nolass-guest.sh): the
# lam_nolass test module switches to LAM mms on a CPU whose CR4.LASS it
# cleared, four times; with mitigations on none of them loads LAM into
# CR3 (kernel/series: "x86/mm: Keep LAM off CPUs without LASS while
# mitigations are on"), with mitigations=off, where LAM without LASS is
# offered, all four do.
#
# A real CPU without LASS (tests/kernel/lass-cpu-guest.sh, a second QEMU
# CPU with lass=off): at boot it comes online and LAM is no longer
# offered; through hotplug the same while no process has LAM, and its
# online is refused (EPERM) once one has; with mitigations=off it comes
# online beside the LAM process.
#
# And what an NMI finds right after the switch publishes loaded_mm
# (kernel/series: "x86/mm: Load the untag mask before publishing
# loaded_mm"):
# the switch_order test module puts a kprobe on the instruction after that
# store, found here in vmlinux, while a tagged and an untagged process
# ping-pong on one CPU (tests/kernel/switch_order.c); at every switch the
# CPU's untag mask, and on UAI EFER.UAI, must already be the new mm's. On
# upstream 6.12, which publishes loaded_mm first, 405 of 410 were not
# (make modules-upstream builds the module for it). On UAI the same run
# counts EFER writes (msr:write_msr) against the mode changes: one at each
# switch between a UAI and an untagged process, none between two UAI
# processes (tests/kernel/efer-guest.sh).
#
# KERNEL=bzImage and MODULES=dir test another build (both from one tree).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

kernel=${KERNEL:-build/linux/arch/x86/boot/bzImage}
mods=${MODULES:-build/vm/modules}
need_built "run 'make kernel rig modules-rig'" "$kernel" "$mods/lam_online.ko" build/vm/lam_online \
	"$mods/lam_nolass.ko" "$mods/switch_order.ko" build/vm/switch_order build/vm/ua_write \
	build/vm/lass_cpu
tree=${kernel%/arch/x86/boot/bzImage}

run="insmod $mods/lam_online.ko && build/vm/lam_online"
tap_guest --kernel "$kernel" --cpu lam --smp 2 -- sh -c "$run lass 20"
tap_guest --kernel "$kernel" --cpu lam --smp 2 --la57 -- sh -c "$run lass 10"
tap_guest --kernel "$kernel" --cpu lam --smp 2 --no-lass --append mitigations=off -- \
	sh -c "$run nolass 10"

tap_guest --kernel "$kernel" --cpu lam -- tests/kernel/nolass-guest.sh 0
tap_guest --kernel "$kernel" --cpu lam --append mitigations=off -- \
	tests/kernel/nolass-guest.sh 4

# A second CPU without LASS (tests/kernel/lass-cpu-guest.sh): brought up
# at boot, or online through sysfs after a maxcpus=1 boot, with and
# without a process holding LAM, and with mitigations=off.
other="--kernel $kernel --cpu lam --other-cpu lass=off"
tap_guest $other -- tests/kernel/lass-cpu-guest.sh boot
tap_guest $other --append maxcpus=1 -- tests/kernel/lass-cpu-guest.sh redecide
tap_guest $other --append maxcpus=1 -- tests/kernel/lass-cpu-guest.sh refuse
tap_guest $other --append "maxcpus=1 mitigations=off" -- \
	tests/kernel/lass-cpu-guest.sh offered

# switch_site VMLINUX: the kprobe's place, "FUNCTION OFFSET", the
# instruction after the last store of a register to cpu_tlbstate (its
# first member, loaded_mm) in __switch_mm_irqs_off(), or in
# switch_mm_irqs_off() where there is no such function; and "TLBSTATE",
# cpu_tlbstate's per-CPU address.
switch_site()
{
	local f start at

	for f in __switch_mm_irqs_off switch_mm_irqs_off; do
		start=$(nm "$1" | awk -v f=$f '$3 == f { print $1; exit }')
		[ -n "$start" ] || continue
		at=$(objdump -d --no-show-raw-insn --disassemble=$f "$1" | awk '
			/^ *[0-9a-f]+:/ {
				a = $1; sub(/:$/, "", a)
				if (hit) { next_insn = a; hit = 0 }
			}
			/mov +%r[a-z0-9]+,%gs:.*# [0-9a-f]+ <cpu_tlbstate>$/ { hit = 1 }
			END { print next_insn }')
		[ -n "$at" ] && echo "$f $((0x$at - 0x$start))"
		break
	done
	nm "$1" | awk '$3 == "cpu_tlbstate" { print "0x" $1; exit }'
}
site=($(switch_site "$tree/vmlinux"))
[ ${#site[@]} -eq 3 ] && [ "${site[1]}" -gt 0 ]
ok $? "the store of loaded_mm found in $tree/vmlinux: ${site[*]}"
run="insmod $mods/switch_order.ko func=${site[0]} offset=${site[1]} tlbstate=${site[2]} &&
	build/vm/switch_order 200"
tap_guest --kernel "$kernel" --cpu lam -- sh -c "$run"
tap_guest --kernel "$kernel" --cpu uai --append mitigations=off -- \
	tests/kernel/efer-guest.sh "func=${site[0]} offset=${site[1]} tlbstate=${site[2]}" 200

tap_done
