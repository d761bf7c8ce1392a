#!/bin/bash
# The arm64 half of the tagging uABI, booted: the series cross-built for
# QEMU's virt machine (make kernel-arm64) on a TCG "max" CPU with MTE
# (tests/vm/run --arch arm64), with static arm64 programs (make rig-arm64):
# - tests/kernel/arm64_uabi.c: PR_SET/GET_TAGGED_ADDR_CTRL's nr_bits and
#   offset (kernel/series 0013): 1 to 8 bits get 8 at 56, 0, 9 and -1 are
#   EINVAL, a failed call writes nothing back and leaves tagging off, the
#   three-argument calls still work, MTE's TCF and tag-mask fields read back
#   as set through both forms, the ptrace regset, abi.tagged_addr_disabled;
# - selftests/mm/tags, the series' move of arm64's tags test, with
#   TAGGED_EXPECT=tbi: tagging must be offered and work;
# - arm64's MTE selftest check_prctl (the MTE fields of the prctl).
# Not here: arm64's check_tags_inclusion. In this rig no MTE tag check
# faults at all (QEMU 7.2 TCG, -M virt,mte=on, on this kernel): the
# "tag check on" cases of check_mmap_options and check_buffer_fill fail
# alike, so it is the rig's MTE, not the prctl; see the README.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

a64=build/vm-arm64
tap_guest --arch arm64 -- $a64/arm64_uabi
TAGGED_EXPECT=tbi tap_guest --arch arm64 -- $a64/tags_test
tap_guest --arch arm64 -- $a64/check_prctl
tap_done
