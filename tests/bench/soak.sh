#!/bin/bash
# Soak: 10 minutes (SOAK_SECONDS) of storms and short-lived tagged
# processes under tagtrace top and trace on a LAM guest. Prints their
# resident memory every 30 s and the drops trace counted, and fails
# (exit 1, saying why) unless both exited 0 on SIGTERM and neither one's
# resident memory grew by more than 10% from the first sample taken after
# its first report (30 s in) to the last.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
secs=${SOAK_SECONDS:-600}
out=$(tests/vm/run --cpu lam --timeout $((secs + 300)) -- \
	tests/bench/soak-guest.sh $secs) || { echo "$out"; exit 1; }
echo "$out" | sed -n 's/^sample_\([0-9]*\)=\(.*\),\(.*\)/t=\1x30s  top RSS \2 KiB  trace RSS \3 KiB/p'
echo "$out" | grep -v '^sample_'
echo "$out" | python3 -c '
import re, sys
text = sys.stdin.read()
samples = [tuple(map(int, m)) for m in re.findall(r"^sample_\d+=(\d+),(\d+)$", text, re.M)]
exits = dict(re.findall(r"^(top_exit|trace_exit)=(\d+)$", text, re.M))
bad = [f"{k}={exits.get(k)}, want 0" for k in ("top_exit", "trace_exit") if exits.get(k) != "0"]
if len(samples) < 3:
    bad.append(f"{len(samples)} memory samples: too few to judge growth")
else:
    base, last = samples[1], samples[-1]
    for i, name in enumerate(("top", "trace")):
        growth = (last[i] - base[i]) / base[i]
        print(f"{name}: RSS {base[i]} KiB at 30 s, {last[i]} KiB at the end: {growth:+.1%}")
        if growth > 0.10:
            bad.append(f"{name} RSS grew {growth:.1%} (> 10%)")
for b in bad:
    print("soak: FAIL: " + b)
sys.exit(1 if bad else 0)'
