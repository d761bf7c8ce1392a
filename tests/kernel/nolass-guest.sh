#!/bin/bash
# In the guest (tests/kernel/test-hotplug.sh): the context switch's check
# that no CPU loads a LAM mm without CR4.LASS while mitigations are on.
#
#   nolass-guest.sh LINE WARNS
#
# The lam_nolass test module (tests/kernel/modules/lam_nolass.c) switches
# a kernel thread to a LAM process's mm with LASS cleared on its CPU, two
# rounds for each of two processes (ua_write enables LAM and writes the
# count through a tagged pointer): four switches that the check sees, each
# with LAM in CR3 and CR4.LASS clear, and LASS set again after each. The
# kernel log then holds exactly WARNS warnings at arch/x86/mm/tlb.c:LINE,
# the check's WARN_ON_ONCE(): 1 with mitigations on (it fires, once for
# the four), 0 with mitigations=off (LAM without LASS is offered then).
# Prints TAP.
. tests/lib/guest-tap.sh
line=$1 warns=$2
. tests/lib/guest-ok.sh

dmesg -C
insmod build/vm/modules/lam_nolass.ko
ok $? "lam_nolass loads"
for p in 1 2; do
	build/vm/ua_write /proc/lam_nolass 2 0x2a
	ok $? "process $p: LAM enabled, two switches to its mm without LASS"
done
st=$(cat /proc/lam_nolass)
echo "# $st"
[ "$st" = "rounds=4 lam=4 nolass=4 restored=4" ]
ok $? "each of the 4 switches ran with LAM in CR3 and CR4.LASS clear, and LASS was set again after each"
rmmod lam_nolass
ok $? "lam_nolass unloads"
log=$(dmesg)
printf '%s\n' "$log" | grep -E 'WARNING:|RIP:' | sed 's/^/  /'
got=$(printf '%s\n' "$log" | grep -c "^\[ *[0-9.]*\] WARNING: CPU: [0-9]* PID: [0-9]* at arch/x86/mm/tlb.c:$line ")
ok $((got != warns)) "the context switch's check warned $got times at tlb.c:$line (expected $warns)"
all=$(printf '%s\n' "$log" | grep -c 'WARNING:')
ok $((all != warns)) "no other warning ($all in all)"

tap_done
