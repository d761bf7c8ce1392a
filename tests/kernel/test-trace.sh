#!/bin/bash
# The tagged_addr tracepoints count what a known workload did, on LAM and
# on UAI (tests/kernel/trace-guest.sh has the expected numbers).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

for cpu in lam uai; do
	tap_guest --cpu $cpu -- tests/kernel/trace-guest.sh 5 200 300 64 20
done

tap_done
