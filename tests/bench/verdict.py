#!/usr/bin/env python3
"""verdict.py NAME GOAL A... -- B...: the one criterion of the kernel
benchmarks (trace-overhead.sh, lass-bench.sh), fixed here in advance.
verdict.py --self-test: its own checks, as TAP.

A and B are one figure per boot of the reference kernel and of the kernel
judged (at least MIN_BOOTS each). The ratio is median(B) / median(A). Its
interval is [lo(B) / hi(A), hi(B) / lo(A)], where [lo, hi] is each side's
distribution-free interval for its median: the k-th smallest and k-th
largest of its n boots, k the largest for which the median falls outside
with probability at most 1/16 (2 * P(Binomial(n, 1/2) < k) <= 1/16). For
5 to 8 boots k is 1, [min, max]: the interval is then [min(B) / max(A),
max(B) / min(A)], the ratios any pair of boots could give; k is 2 from 9
boots, 3 from 12, and the interval narrows, about as 1/sqrt(n). When each
side's interval holds its median, the ratio of the medians is in the
interval; that is so with probability at least (15/16)^2, about 0.88.

  PASS        the whole interval is at most GOAL;
  MISS        the whole interval is above GOAL, or fewer than MIN_BOOTS
              boots a side (or a figure <= 0);
  UNRESOLVED  the interval straddles GOAL: the boots' spread cannot tell.
              The line says about how many boots a side would resolve it
              (an estimate: see boots_to_resolve()).

One line; exit status 0 on PASS, 1 on MISS, 3 on UNRESOLVED (2: usage)."""
import contextlib
import io
import math
import statistics
import sys

MIN_BOOTS = 5
MAX_BOOTS = 1000        # the estimate gives up beyond this
EXIT = {"PASS": 0, "MISS": 1, "UNRESOLVED": 3}


def order_k(n):
    """The k of the median's interval [x(k), x(n+1-k)] from n sorted
    figures: the largest k with P(Binomial(n, 1/2) <= k - 1) <= 1/32 (each
    tail), 0 when even [min, max] misses that (fewer than 5)."""
    k, tail = 0, 1               # tail: sum of C(n, i) for i <= k
    while tail * 32 <= 2 ** n:
        k += 1
        tail += math.comb(n, k)
    return k


def bounds(xs):
    """(lo, hi): the median's interval of figures xs."""
    s = sorted(xs)
    k = order_k(len(s))
    return s[k - 1], s[len(s) - k]


def boots_to_resolve(a, b, goal):
    """About how many boots a side would bring the interval clear of goal,
    on the side the medians' ratio is on; None beyond MAX_BOOTS, 0 when the
    ratio is the goal itself (no number of boots resolves it).

    An estimate. It takes each side to be normal, centred on its median,
    with the standard deviation its boots show (s), and each bound at n
    boots to be where the k-th of n such figures falls on average,
    median -/+ s * z(n), z(n) = -Phi^-1((k - 0.375) / (n + 0.25)) (Blom's
    approximation of an expected order statistic), k = order_k(n); z(n)
    shrinks about as 1/sqrt(n), in steps. Then the smallest n from the
    present count on with
        (mb + sb z(n)) / (ma - sa z(n)) <= goal   (ratio below the goal), or
        (mb - sb z(n)) / (ma + sa z(n)) >  goal   (ratio above it).
    It assumes the medians stay where they are and the spread is what five
    or so boots showed, and it puts the bounds where they fall on average:
    a run of that many boots resolves the verdict about half the time
    (boots drawn so, 34 a side for the self-test's straddle: 7 PASS of 20
    runs), more boots more often. A guide to the next run's length, not a
    promise."""
    ma, mb = statistics.median(a), statistics.median(b)
    sa, sb = statistics.stdev(a), statistics.stdev(b)
    r = mb / ma
    if r == goal:
        return 0
    phi = statistics.NormalDist()
    for n in range(max(len(a), len(b)), MAX_BOOTS + 1):
        k = order_k(n)
        z = -phi.inv_cdf((k - 0.375) / (n + 0.25))
        if r < goal:
            if ma - sa * z > 0 and (mb + sb * z) / (ma - sa * z) <= goal:
                return n
        elif (mb - sb * z) / (ma + sa * z) > goal:
            return n
    return None


def verdict(name, goal, a, b):
    """(the line, the verdict)."""
    if len(a) < MIN_BOOTS or len(b) < MIN_BOOTS or min(a + b) <= 0:
        return ("%-24s MISS: %d and %d boots with figures > 0 (want %d each)"
                % (name, len(a), len(b), MIN_BOOTS)), "MISS"
    ma, mb = statistics.median(a), statistics.median(b)
    (la, ha), (lb, hb) = bounds(a), bounds(b)
    r, lo, hi = mb / ma, lb / ha, hb / la
    if hi <= goal:
        v, why = "PASS", ""
    elif lo > goal:
        v, why = "MISS", ""
    else:
        v = "UNRESOLVED"
        n = boots_to_resolve(a, b, goal)
        if n == 0:
            why = "; the interval straddles it, the medians' ratio is the goal itself"
        elif n is None:
            why = ("; the interval straddles it: more than %d boots a side"
                   " (estimate) would resolve it" % MAX_BOOTS)
        else:
            why = ("; the interval straddles it: about %d boots a side"
                   " (estimate) would resolve it, toward %s" %
                   (n, "PASS" if r < goal else "MISS"))
    return ("%-24s a=%.0f [%.0f-%.0f]  b=%.0f [%.0f-%.0f]  b/a=%.4f [%.4f, %.4f]  %s (goal <= %g%s)"
            % (name, ma, min(a), max(a), mb, min(b), max(b), r, lo, hi, v,
               goal, why)), v


def self_test():
    """Synthetic boots against each verdict, as TAP."""
    results = []

    def check(cond, what):
        results.append(cond)
        print("%sok %d - %s" % ("" if cond else "not ", len(results), what))

    check([order_k(n) for n in (4, 5, 8, 9, 11, 12, 20)] == [0, 1, 1, 2, 2, 3, 6],
          "the median's interval: k 1 for 5-8 boots, 2 from 9, 3 from 12, 6 at 20")
    a = [1000, 1001, 1002, 1003, 1004]
    line, v = verdict("clear", 1.01, a, [1004, 1005, 1006, 1007, 1008])
    check(v == "PASS" and " PASS " in line, "b/a 1.004 in [1.000, 1.008], goal 1.01: PASS")
    line, v = verdict("miss", 1.002, a, [1020, 1021, 1022, 1023, 1024])
    check(v == "MISS" and " MISS " in line, "b/a 1.020 in [1.016, 1.024], goal 1.002: MISS")
    # doc/benchmarks.md's lass-bench ping-pong mean: 1.0005 [0.9966, 1.0052], goal 1.002.
    pa = [9480, 9485, 9491, 9500, 9515]
    pb = [9483, 9490, 9496, 9510, 9530]
    line, v = verdict("straddle", 1.002, pa, pb)
    check(v == "UNRESOLVED" and "boots a side" in line and "toward PASS" in line,
          "b/a 1.0005 in [0.9966, 1.0053], goal 1.002: UNRESOLVED, with a boot count")
    n = boots_to_resolve(pa, pb, 1.002)
    check(n is not None and 5 < n <= MAX_BOOTS,
          "the estimate is a count above the 5 boots run (%s)" % n)
    # The estimate against the verdict: boots where the estimate puts them
    # (each side's k-th of n at its median -/+ s z(n)) pass at its count and
    # not one boot a side earlier.
    phi = statistics.NormalDist()

    def placed(xs, m):
        s = statistics.stdev(xs)
        return [statistics.median(xs) + s * phi.inv_cdf((i - 0.375) / (m + 0.25))
                for i in range(1, m + 1)]
    check(verdict("placed", 1.002, placed(pa, n), placed(pb, n))[1] == "PASS" and
          verdict("placed", 1.002, placed(pa, n - 1), placed(pb, n - 1))[1] == "UNRESOLVED",
          "boots placed as the estimate assumes: PASS at %d a side, UNRESOLVED at %d"
          % (n, n - 1))
    line, v = verdict("above", 1.0, a, [1000, 1003, 1004, 1006, 1009])
    check(v == "UNRESOLVED" and "toward MISS" in line,
          "b/a 1.0020 in [0.9960, 1.0090], goal 1.0: UNRESOLVED, toward MISS")
    line, v = verdict("few", 1.01, a[:4], a[:4])
    check(v == "MISS", "4 boots a side: MISS")
    line, v = verdict("zero", 1.01, [0] + a[1:], a)
    check(v == "MISS", "a figure of 0: MISS")
    line, v = verdict("same", 1.002, [9154] * 5, [9146] * 5)
    check(v == "PASS", "every boot the same (a median round trip), 0.9991: PASS")
    for argv, st in ((["clear", "1.01"] + [str(x) for x in a] + ["--"] +
                      [str(x) for x in (1004, 1005, 1006, 1007, 1008)], 0),
                     (["miss", "1.002"] + [str(x) for x in a] + ["--"] +
                      [str(x) for x in (1020, 1021, 1022, 1023, 1024)], 1),
                     (["straddle", "1.002"] + [str(x) for x in pa] + ["--"] +
                      [str(x) for x in pb], 3)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            got = main(argv)
        print("# " + out.getvalue().strip())
        check(got == st, "exit status %d for %s" % (st, argv[0]))
    print("1..%d" % len(results))
    return 0 if all(results) else 1


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) < 2 or "--" not in argv[2:]:
        print("usage: verdict.py NAME GOAL A... -- B...", file=sys.stderr)
        return 2
    name, goal = argv[0], float(argv[1])
    rest = argv[2:]
    i = rest.index("--")
    a = [float(x) for x in rest[:i]]
    b = [float(x) for x in rest[i + 1:]]
    line, v = verdict(name, goal, a, b)
    print(line)
    return EXIT[v]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
