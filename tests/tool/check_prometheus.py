#!/usr/bin/python3
"""check_prometheus.py URL PROM_FILE WAIT T0 BINARY: Prometheus at URL,
started from BINARY at T0 (seconds since the epoch) and scraping
node_exporter, answers histogram_quantile(0.99, ...) over tagtrace's switch
histograms through its HTTP API, equal to the quantile computed from
PROM_FILE (what tagtrace wrote) by Prometheus's own interpolation. Where
BINARY is not installed, that is a skip; where it is, a server not ready
within WAIT seconds (crashed, never started, too slow) fails, with the
time waited. The start-up time is printed either way. Prints TAP.
"""
import os
import json
import math
import re
import sys
import time
import urllib.parse
import urllib.request

import tap
from tap import ok

QUERY = ("histogram_quantile(0.99, sum by (le, prev_mode, next_mode, same_mm) "
         "(tagtrace_switch_mm_seconds_bucket))")
BUCKET = re.compile(r'^tagtrace_switch_mm_seconds_bucket\{(.*),le="([^"]+)"\} (\S+)$')


def get(url):
    try:
        return urllib.request.urlopen(url, timeout=5).read().decode()
    except OSError:
        return None


def quantile(q, buckets):
    """Prometheus's bucketQuantile over [(le, cumulative count)], le sorted."""
    total = buckets[-1][1]
    if total == 0:
        return math.nan
    rank = q * total
    b = next(i for i, (_, c) in enumerate(buckets[:-1] + [(0, math.inf)]) if c >= rank)
    if b == len(buckets) - 1:
        return buckets[-2][0]
    start, end, count = 0.0, buckets[b][0], buckets[b][1]
    if b > 0:
        start = buckets[b - 1][0]
        count -= buckets[b - 1][1]
        rank -= buckets[b - 1][1]
    return start + (end - start) * (rank / count)


def expected(path):
    """labels (without le) -> 0.99 quantile, from tagtrace's file."""
    series = {}
    with open(path) as f:
        for line in f:
            m = BUCKET.match(line.strip())
            if m:
                le = math.inf if m.group(2) == "+Inf" else float(m.group(2))
                series.setdefault(m.group(1), []).append((le, float(m.group(3))))
    return {k: quantile(0.99, sorted(v)) for k, v in series.items()}


def main():
    url, path, wait, t0 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    binary = sys.argv[5]
    if not os.access(binary, os.X_OK):
        tap.count += 1
        print(f"ok {tap.count} - Prometheus answers a quantile # SKIP {binary} is not installed")
        return tap.done()
    while get(url + "/-/ready") is None and time.time() - t0 < wait:
        time.sleep(0.2)
    ready = time.time() - t0
    up = get(url + "/-/ready") is not None
    print(f"# prometheus {'ready' if up else 'not ready'} {ready:.1f} s after start")
    if not ok(up and ready <= wait, f"{binary} gets ready within {wait:.0f} s ({ready:.1f} s)"):
        return tap.done()
    res = []
    while time.time() - t0 < wait + 30:
        body = get(url + "/api/v1/query?" + urllib.parse.urlencode({"query": QUERY}))
        res = json.loads(body)["data"]["result"] if body else []
        if res:
            break
        time.sleep(0.5)
    print(f"# first answer {time.time() - t0:.1f} s after start")
    want = expected(path)
    got = {}
    for r in res:
        m = r["metric"]
        got['next_mode="%s",prev_mode="%s",same_mm="%s"' % (
            m["next_mode"], m["prev_mode"], m["same_mm"])] = float(r["value"][1])
    norm = {}
    for k, v in want.items():
        labels = dict(re.findall(r'(\w+)="([^"]*)"', k))
        norm['next_mode="%s",prev_mode="%s",same_mm="%s"' % (
            labels["next_mode"], labels["prev_mode"], labels["same_mm"])] = v
    for k in sorted(got):
        print(f"# p99 {k}: {got[k] * 1e6:.3f} us (from the file: {norm.get(k, math.nan) * 1e6:.3f} us)")
    bad = [k for k in norm if k not in got or
           not math.isclose(got[k], norm[k], rel_tol=1e-6, abs_tol=1e-12)]
    ok(got and not bad,
       f"Prometheus (ready in {ready:.1f} s) answers histogram_quantile(0.99) for "
       f"{len(got)} transitions, as the file's buckets give", *bad[:5])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
