#!/bin/bash
# PR_SET_TAGGED_ADDR_CTRL in RISC-V's form (mainline 6.13): the tag size
# wanted as the PR_PMLEN field of the flags word, accepted by x86 and
# arm64 too (kernel/series/2-tagged-addr-uabi/, the PR_PMLEN patch, and
# x86's set function), so that a portable runtime makes one call on all
# three. tests/kernel/pmlen.c: 0 to the tag size enable, more is EINVAL
# and changes nothing, the field with nr_bits is EINVAL, the field is
# ignored when disabling, GET's value stays the flags as set. On LAM and
# UAI (6 bits at 57), and on arm64 (TBI, 8 bits at 56).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# shellcheck disable=SC2046
tap_guest $(offer lam) -- build/vm/pmlen 6
# shellcheck disable=SC2046
tap_guest $(offer uai) -- build/vm/pmlen 6
tap_guest --arch arm64 -- build/vm-arm64/pmlen 8
tap_done
