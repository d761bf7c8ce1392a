#!/bin/bash
# The benchmarks' judges, on made-up figures (no guest): tests/bench/verdict.py
# (b/a against a goal: PASS, MISS, or UNRESOLVED when the interval straddles
# the goal, each with its exit status) and tests/bench/tool-summary.py (the
# tool's goals, its noise floor, a MISS or an unresolved goal failing make
# bench). Their TAP, as one plan; a judge's own failing status fails it.
cd "$(dirname "$0")/../.." || exit 1
n=0 st=0
for judge in tests/bench/verdict.py tests/bench/tool-summary.py; do
	out=$(python3 "$judge" --self-test) || st=1
	echo "# $judge --self-test"
	echo "$out" | grep -v '^1\.\.[0-9]*$' | sed 's/^\(\(not \)\{0,1\}ok\) [0-9]*/\1/'
	n=$((n + $(echo "$out" | grep -c '^\(not \)\{0,1\}ok ')))
done
echo "1..$n"
exit $st
