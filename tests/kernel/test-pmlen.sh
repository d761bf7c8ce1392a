#!/bin/bash
# PR_SET_TAGGED_ADDR_CTRL in RISC-V's form (mainline 6.13): the tag size
# wanted as the PR_PMLEN field of the flags word, accepted by x86 and
# arm64 too (kernel/series/2-tagged-addr-uabi/, the PR_PMLEN patch, x86's
# set function, and LAM_U48 in kernel/series/6-lam-u48/), so that a
# portable runtime makes one call on all three. tests/kernel/pmlen.c: 0 to
# the largest tag size enable, each size with the smallest grant that
# holds it, more is EINVAL and changes nothing; the field with nr_bits is
# EINVAL, the field is ignored when disabling, GET's value stays the
# flags as set. RISC-V's field promises the top n bits: arm64's top byte
# takes RISC-V's own call; x86, whose bit 63 is never a tag, takes a
# size in the field only with an offset pointer, EINVAL without. On LAM (1 to 6: 6 bits at 57; 7 to 15: LAM_U48, 15 at
# 48), UAI (6 at 57 only) and arm64 (TBI, 8 at 56); on x86 the ctrl
# event's req_bits says what each PR_PMLEN request asked for
# (tests/kernel/pmlen-guest.sh).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# shellcheck disable=SC2046
tap_guest $(offer lam) -- tests/kernel/pmlen-guest.sh 6@57,15@48
# shellcheck disable=SC2046
tap_guest $(offer uai) -- tests/kernel/pmlen-guest.sh 6@57
tap_guest --arch arm64 -- build/vm-arm64/pmlen 8@56
tap_done
