#!/usr/bin/env python3
"""verdict.py NAME GOAL A... -- B...: the one criterion of the kernel
benchmarks (trace-overhead.sh, lass-bench.sh), fixed here in advance.

A and B are one figure per boot of the reference kernel and of the kernel
judged (at least MIN_BOOTS each). The ratio is median(B) / median(A); its
interval runs from min(B) / max(A) to max(B) / min(A), the ratios any pair
of boots could give. PASS when the ratio is at most GOAL; MISS otherwise,
or with fewer boots than MIN_BOOTS. One line; exit status 1 on MISS. The
interval is printed, not judged: a goal inside it is a goal the boots'
spread cannot resolve, which the reader should see."""
import statistics
import sys

MIN_BOOTS = 5


def main():
    name, goal = sys.argv[1], float(sys.argv[2])
    rest = sys.argv[3:]
    if "--" not in rest:
        print("usage: verdict.py NAME GOAL A... -- B...", file=sys.stderr)
        return 2
    i = rest.index("--")
    a = [float(x) for x in rest[:i]]
    b = [float(x) for x in rest[i + 1:]]
    if len(a) < MIN_BOOTS or len(b) < MIN_BOOTS or min(a + b) <= 0:
        print("%-24s MISS: %d and %d boots with figures > 0 (want %d each)"
              % (name, len(a), len(b), MIN_BOOTS))
        return 1
    ma, mb = statistics.median(a), statistics.median(b)
    r = mb / ma
    lo, hi = min(b) / max(a), max(b) / min(a)
    good = r <= goal
    print("%-24s a=%.0f [%.0f-%.0f]  b=%.0f [%.0f-%.0f]  b/a=%.4f [%.4f, %.4f]  %s (goal <= %g%s)"
          % (name, ma, min(a), max(a), mb, min(b), max(b), r, lo, hi,
             "PASS" if good else "MISS", goal,
             "; the interval straddles it" if lo <= goal < hi else ""))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
