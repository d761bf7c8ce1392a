#!/bin/bash
# A short randomized run of the tagged-address ABI (tests/kernel/tagged_fuzz.c)
# on LAM with 4- and 5-level paging (LAM_U48's 47-bit rule needs the
# latter) and on UAI with 5-level paging, two CPUs each, 10 s and then
# until covered (tagged_fuzz.c: at most 200 s; the rig's timeout is above
# that and the boot). The seed is fixed so a failure replays:
# TAGGED_FUZZ_SEED picks another.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

seed=${TAGGED_FUZZ_SEED:-20261203}
TAGGED_EXPECT=lam tap_guest --cpu lam --smp 2 --timeout 600 -- build/vm/tagged_fuzz "$seed" 10
TAGGED_EXPECT=lam tap_guest --cpu lam --la57 --smp 2 --timeout 600 -- build/vm/tagged_fuzz "$seed" 10
TAGGED_EXPECT=uai tap_guest $(offer uai) --la57 --smp 2 --timeout 600 -- build/vm/tagged_fuzz "$seed" 10

tap_done
