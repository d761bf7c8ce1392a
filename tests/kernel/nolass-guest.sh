#!/bin/bash
# In the guest (tests/kernel/test-hotplug.sh): no CPU loads a LAM mm
# without CR4.LASS while mitigations are on.
#
#   nolass-guest.sh LAM
#
# The lam_nolass test module (tests/kernel/modules/lam_nolass.c) switches
# a kernel thread to a LAM process's mm with LASS cleared on its CPU, two
# rounds for each of two processes (ua_write enables LAM and writes the
# count through a tagged pointer): four switches without CR4.LASS, and
# LASS set again after each. LAM of them load the mm with LAM in CR3: 0
# with mitigations on (the mm is loaded without LAM, so a tagged pointer
# faults instead of being masked without LASS), 4 with mitigations=off
# (LAM without LASS is offered then). Either way without a warning.
# Prints TAP.
. tests/lib/guest-tap.sh
lam=$1
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
[ "$st" = "rounds=4 lam=$lam nolass=$lam restored=4" ]
ok $? "of the 4 switches without CR4.LASS, $lam loaded LAM into CR3; LASS was set again after each"
rmmod lam_nolass
ok $? "lam_nolass unloads"
log=$(dmesg)
printf '%s\n' "$log" | grep -E 'WARNING:|RIP:' | sed 's/^/  /'
all=$(printf '%s\n' "$log" | grep -c 'WARNING:')
ok $((all != 0)) "no warning ($all)"

tap_done
