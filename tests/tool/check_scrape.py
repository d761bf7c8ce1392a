#!/usr/bin/python3
"""check_scrape.py URL DIR M G: scrape node_exporter (URL, its textfile
collector reading `tagtrace top --openmetrics`) and check that every
tagtrace family arrives, equal to the last `tagtrace top --json` report
(DIR/top.json), with the workload's known counts (DIR/workload.out: M
tagged uname() calls, G tagged dereferences) and
node_textfile_scrape_error 0. Prints TAP, unnumbered.

node_exporter re-exposes the file in the Prometheus text format: each
counter as an untyped series under its _total name.
"""
import json
import re
import sys
import time
import urllib.request

import tap
from tap import ok

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
COUNTERS = {"ctrl": "tagtrace_ctrl_calls_total", "untag": "tagtrace_untags_total",
            "switch": "tagtrace_mode_switches_total",
            "fault": "tagtrace_tagged_faults_total", "gp": "tagtrace_tagged_gps_total"}
OTHERS = ["tagtrace_source_info", "tagtrace_process_info", "tagtrace_process_tag_bits",
          "tagtrace_uncounted_events_total", "tagtrace_switch_mm_seconds_bucket",
          "tagtrace_switch_mm_seconds_count", "tagtrace_switch_mm_seconds_sum"]


def scrape(url):
    """name -> [(labels, value)], retrying for 30 s while it starts."""
    for _ in range(300):
        try:
            text = urllib.request.urlopen(url, timeout=5).read().decode()
            break
        except OSError:
            time.sleep(0.1)
    else:
        return None
    series = {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if m and not line.startswith("#"):
            labels = dict(LABEL.findall(m.group(2) or ""))
            series.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return series


def main():
    url, d, m, g = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    series = scrape(url)
    ok(series is not None, f"node_exporter answers on {url}")
    if series is None:
        return tap.done()
    err = [v for _, v in series.get("node_textfile_scrape_error", [])]
    ok(err == [0], "node_textfile_scrape_error 0: it parsed tagtrace's file", err)
    missing = [n for n in list(COUNTERS.values()) + OTHERS if n not in series]
    ok(not missing, f"every tagtrace family arrives ({len(COUNTERS) + len(OTHERS)} series names)",
       *missing)
    with open(f"{d}/top.json") as f:
        last = [json.loads(x) for x in f][-1]
    w = {}
    with open(f"{d}/workload.out") as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            w[k] = int(v)
    bad = []
    for kind, name in COUNTERS.items():
        got = {int(l["pid"]): v for l, v in series.get(name, [])}
        for p in last["processes"]:
            if got.get(p["pid"]) != p["total"][kind]:
                bad.append(f"{name} pid {p['pid']}: {got.get(p['pid'])} != {p['total'][kind]}")
    ok(not bad and last["processes"],
       f"scraped counters equal top --json's for all {len(last['processes'])} processes", *bad[:10])
    untags = {int(l["pid"]): v for l, v in series.get(COUNTERS["untag"], [])}
    gps = {int(l["pid"]): v for l, v in series.get(COUNTERS["gp"], [])}
    ok(untags.get(w["tagged_pid"]) == m,
       f"the tagged process's {m} tagged uname() calls arrive as its untags",
       untags.get(w["tagged_pid"]))
    ok(gps.get(w["untagged_pid"]) == g,
       f"the untagged process's {g} tagged dereferences arrive as its #GPs",
       gps.get(w["untagged_pid"]))
    bits = {int(l["pid"]): v for l, v in series.get("tagtrace_process_tag_bits", [])}
    ok(bits.get(w["pingpong_pid"]) == 6,
       "the tagged worker's 6 tag bits arrive", bits.get(w["pingpong_pid"]))
    info = {int(l["pid"]): (l.get("comm"), l.get("mode"))
            for l, _ in series.get("tagtrace_process_info", [])}
    want = {p["pid"]: (p["comm"], p["mode"]) for p in last["processes"]}
    ok(info == want, "tagtrace_process_info arrives with each process's comm and mode",
       *[f"pid {p}: {info.get(p)} != {want.get(p)}" for p in want if info.get(p) != want.get(p)][:5])
    counts = sum(v for _, v in series.get("tagtrace_switch_mm_seconds_count", []))
    inf = sum(v for l, v in series.get("tagtrace_switch_mm_seconds_bucket", [])
              if l.get("le") == "+Inf")
    ok(counts > 0 and counts == inf,
       f"switch histograms arrive: {int(counts)} switches, +Inf == _count")
    sources = {l["event"]: l["source"] for l, _ in series.get("tagtrace_source_info", [])}
    ok(sources.get("untag") == last.get("sources", {}).get("untag") and len(sources) == 6,
       "tagtrace_source_info arrives for every event", sources)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
