#!/bin/sh
# uncounted-guest.sh BITS WHAT: in the guest of test-uaccess-uncounted.sh,
# on --cpu uai with mitigations=off. BITS 6: the kernel's uaccess_ss_sites
# was counted (0) and UAI is offered; BITS 0: it was not, and the kernel
# says so, drops the uai CPU flag and offers no tag bits. Prints TAP.
. "$(dirname "$0")/../lib/guest-tap.sh"
want=$1 what=$2
t()	# t STATUS DESCRIPTION
{
	if [ "$1" = 0 ]; then echo "ok - $what: $2"; else echo "not ok - $what: $2"; fi
}
if [ "$want" = 0 ]; then said=yes flag=dropped; else said=no flag=kept; fi

dmesg | grep -q "x86/mm: the user accesses of this vmlinux were not counted"
[ $? = $((want != 0)) ]
t $? "the kernel says its user accesses were not counted: $said"
grep -qw uai /proc/cpuinfo
[ $? = $((want == 0)) ]
t $? "the uai CPU flag is $flag"
bits=$(python3 -c 'import ctypes
b = ctypes.c_ulong(99)
ctypes.CDLL(None).syscall(158, 0x4003, ctypes.byref(b))  # ARCH_GET_MAX_TAG_BITS
print(b.value)')
[ "$bits" = "$want" ]
t $? "ARCH_GET_MAX_TAG_BITS says $bits (want $want)"
