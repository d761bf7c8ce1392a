#!/bin/bash
# Soak: 10 minutes (SOAK_SECONDS) of storms and short-lived tagged
# processes under tagtrace top and trace on a LAM guest. Prints their
# resident memory every 30 s, the drops trace counted, and whether both
# exited cleanly on SIGTERM. A figure, not a pass/fail test: growth shows
# as rising samples.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
secs=${SOAK_SECONDS:-600}
out=$(tests/vm/run --cpu lam --timeout $((secs + 300)) -- \
	tests/bench/soak-guest.sh $secs) || { echo "$out"; exit 1; }
echo "$out" | sed -n 's/^sample_\([0-9]*\)=\(.*\),\(.*\)/t=\1x30s  top RSS \2 KiB  trace RSS \3 KiB/p'
echo "$out" | grep -v '^sample_'
