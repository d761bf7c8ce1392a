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
# The same check shown to fire (tests/kernel/nolass-guest.sh): the
# lam_nolass test module switches to LAM mms on a CPU whose CR4.LASS it
# cleared, four times; with mitigations on the kernel warns exactly once
# at the check's line of arch/x86/mm/tlb.c (--allow-splat), and with
# mitigations=off, where LAM without LASS is offered, not at all.
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
	"$mods/lam_nolass.ko" "$mods/switch_order.ko" build/vm/switch_order build/vm/ua_write
tree=${kernel%/arch/x86/boot/bzImage}

run="insmod $mods/lam_online.ko && build/vm/lam_online"
tap_guest --kernel "$kernel" --cpu lam --smp 2 -- sh -c "$run lass 20"
tap_guest --kernel "$kernel" --cpu lam --smp 2 --la57 -- sh -c "$run lass 10"
tap_guest --kernel "$kernel" --cpu lam --smp 2 --no-lass --append mitigations=off -- \
	sh -c "$run nolass 10"

# The check's line: its WARN_ON_ONCE() in switch_mm_irqs_off().
line=$(grep -n 'WARN_ON_ONCE(!cpu_mitigations_off());' "$tree/arch/x86/mm/tlb.c" | cut -d: -f1)
[ -n "$line" ]
ok $? "the context switch's LASS check is in $tree/arch/x86/mm/tlb.c (line $line)"
tap_guest --kernel "$kernel" --cpu lam --allow-splat -- \
	tests/kernel/nolass-guest.sh "$line" 1
tap_guest --kernel "$kernel" --cpu lam --append mitigations=off -- \
	tests/kernel/nolass-guest.sh "$line" 0

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
