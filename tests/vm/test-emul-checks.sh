#!/bin/bash
# Address checks of instructions that are neither loads nor stores, from
# user mode in the guest:
# - WRFSBASE and WRGSBASE of a value that is not canonical raise #GP(0)
#   (SDM vol. 2, WRFSBASE/WRGSBASE), whatever LAM: a base is not the
#   address of a data access, so a LAM tag makes it as non-canonical as any
#   other value; canonical means 48 bits with 4-level paging, 57 with
#   5-level (tests/vm/fsgsbase.c);
# - CLFLUSH, CLFLUSHOPT and CLWB fault as a byte load does (SDM vol. 2,
#   CLFLUSH): #PF on an unmapped page, #GP(0) on a non-canonical address
#   or a LASS violation, nothing on a tagged pointer under LAM or UAI
#   (tests/vm/clflush.c).
# On a CPU with neither LAM nor UAI, on LAM with LASS (4- and 5-level
# paging) and on UAI.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

g=tests/vm/emul-checks-guest.sh
tap_guest --cpu none -- $g "" ""
tap_guest --cpu lam -- $g lam "lam lass"
tap_guest --cpu lam --la57 -- $g lam "lam lass"
# shellcheck disable=SC2046
tap_guest $(offer uai) -- $g "" uai

tap_done
