#!/bin/bash
# LASS in the guest kernel (kernel/series 0027-0033) on the emulated CPU:
# on --cpu lam the kernel turns it on, and on --cpu lam --no-lass and with
# vsyscall=emulate it does not (tests/kernel/lass-guest.sh: text patching
# at run time, user accesses to the kernel half as #GP or #PF, vsyscall
# emulation); the kernel's own stray accesses to the user half (lkdtm)
# end in a #GP oops that names LASS, or a NULL pointer, instead of a #PF.
#
# KERNEL=bzImage tests another build.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
kernel=${KERNEL:-build/linux/arch/x86/boot/bzImage}

# On two CPUs, so that text_poke_bp() syncs another CPU at each step
# (tests/vm/xmodify-guest.sh is the stress test of that under the rig).
tap_guest --kernel "$kernel" --cpu lam --smp 2 -- tests/kernel/lass-guest.sh lass
# Every CPU enforces it: the user side, pinned to each of two CPUs.
tap_guest --kernel "$kernel" --cpu lam --smp 2 -- sh -c \
	"taskset -c 0 build/vm/lass_user lass && taskset -c 1 build/vm/lass_user lass"
tap_guest --kernel "$kernel" --cpu lam --no-lass -- tests/kernel/lass-guest.sh nolass
tap_guest --kernel "$kernel" --cpu lam --append vsyscall=emulate -- sh -c \
	"dmesg | grep -q 'vsyscall=emulate: LASS left off' &&
	 echo 'ok - vsyscall=emulate: the kernel says it leaves LASS off' ||
	 echo 'not ok - vsyscall=emulate: the kernel says it leaves LASS off';
	 tests/kernel/lass-guest.sh emulate"

# oops WHAT WANT RIG-ARGS...: provoke lkdtm's CRASH on a guest booted with
# RIG-ARGS; the guest panics on the oops, the rig exits 250 and prints the
# panic text, which must hold WANT.
oops()
{
	local what=$1 want=$2 err rc

	shift 2
	err=$("$rig" --kernel "$kernel" "$@" --timeout 60 -- sh -c \
		"echo $crash > /sys/kernel/debug/provoke-crash/DIRECT" 2>&1 >/dev/null)
	rc=$?
	last_err=$err
	case $rc:$err in
	250:*"$want"*) ok 0 "lkdtm $crash $what: $want" ;;
	*) ok 1 "lkdtm $crash $what: $want" "exit $rc" \
		"$(printf '%s\n' "$err" | head -n 8)" ;;
	esac
}

# lkdtm CRASH LASS-OOPS NO-LASS-OOPS: the oops each CPU gives.
lkdtm()
{
	local crash=$1

	oops "under LASS" "$2" --cpu lam
	last_lass_err=$last_err
	oops "without LASS" "$3" --cpu lam --no-lass
}

lkdtm ACCESS_USERSPACE "general protection fault, LASS: kernel access to user address 0x" \
	"BUG: unable to handle page fault for address"
# A fetch from the user half under LASS: the #GP has no operand to name
# (the kernel cannot read the instruction it was fetching), so the oops is
# a bare "general protection fault: 0000" whose RIP is that user address.
lkdtm EXEC_USERSPACE "Oops: general protection fault: 0000" \
	"BUG: unable to handle page fault for address"
rip=$(sed -n 's/.*RIP: 0010:\(0x[0-9a-f]*\).*/\1/p' <<< "$last_lass_err" | head -n 1)
[ -n "$rip" ] && [ $((rip)) -gt 0 ] && [ $((rip)) -lt $((0x800000000000)) ]
ok $? "lkdtm EXEC_USERSPACE under LASS: the #GP is at the user address it fetched (RIP ${rip:-none})"
lkdtm ACCESS_NULL "general protection fault, LASS: NULL pointer dereference at 0x0" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000000"

tap_done
