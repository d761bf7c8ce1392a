#!/bin/bash
# The tagged_addr tracepoints count what a known workload did, on LAM and
# on UAI (tests/kernel/trace-guest.sh has the expected numbers).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# 10 tagged loads through %rbp: LAM ignores the tag (no #SS), UAI does
# not (10 #SS).
tap_guest --cpu lam -- tests/kernel/trace-guest.sh 5 200 300 64 20 10 0
tap_guest $(offer uai) -- tests/kernel/trace-guest.sh 5 200 300 64 20 10 10

tap_done
