#!/bin/bash
# A 32-bit process's far transfers to its own code segment (far return,
# IRET and far call, with 32- and 16-bit operands; tests/vm/far32.c) on
# every CPU model the rig offers (none, UAI, LAM without LASS, LAM with
# LASS), each with SMAP in use and with SMAP turned off (clearcpuid=smap;
# 6.12 has no "nosmap"). The emulator makes these stack accesses in
# helpers; at CPL 3 they are user-mode accesses (SDM vol. 3,
# "Supervisor-Mode Access Prevention"), not implicit supervisor accesses,
# so none of them may fault: not with a
# #PF that the guest kernel takes for a kernel access to a user page (an
# oops, exit 250), nor with a LASS #GP (SIGSEGV). And an IRETL whose
# popped EFLAGS has VM set returns normally: IRET enters virtual-8086 mode
# only from CPL 0, never in IA-32e mode (SDM vol. 2, IRET).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

far32=build/vm/far32

for cpu in none uai lam-no-lass lam; do
	if [ $cpu = lam-no-lass ]; then
		set -- --cpu lam --no-lass
	else
		# shellcheck disable=SC2046
		set -- $(offer $cpu)
	fi
	tap_guest "$@" -- tests/vm/far32-guest.sh on $far32
	tap_guest "$@" --append clearcpuid=smap -- tests/vm/far32-guest.sh off $far32
done

tap_done
