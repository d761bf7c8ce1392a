#!/usr/bin/python3
"""Check tagtrace's reports of LAM_U48's 15-bit tags against tracefs.

  check_u48.py DIR

DIR holds what u48-guest.sh wrote: tags.json, top.json, trace.json,
fallback.json (trace -A fallback -e ctrl), tracefs.txt, and small.out, pages.out, many.out (tagloop's pid=). Prints
TAP, unnumbered.
"""
import re
import sys
from collections import Counter, defaultdict

import tap
from tap import ok
from check_counts import load_ndjson, tracefs_events, workload

SHIFT, MASK = 48, 0x7fff
WIDE_TAGS = 16384		# bpf/tagtrace.h TT_WIDE_TAGS
UNTAG = re.compile(r"tagged=0x([0-9a-f]+)")
FAULT = re.compile(r"pointer=0x([0-9a-f]+)")


def tracefs(d):
    """Per pid: untags by 15-bit tag, fault count."""
    untags, faults = defaultdict(Counter), Counter()
    for pid, event, rest in tracefs_events(d):
        if event == "tagged_addr_untag":
            t = int(UNTAG.search(rest).group(1), 16)
            untags[pid][(t >> SHIFT) & MASK] += 1
        elif event == "tagged_addr_fault":
            faults[pid] += 1
    return untags, faults


def tag_counts(p, kind):
    """A tags row's counts by value, dense array and wide_tags alike."""
    c = Counter({i: n for i, n in enumerate(p[f"{kind}_tags"]) if n})
    for w in p.get("wide_tags", []):
        if w[kind + "s"]:
            c[w["tag"]] += w[kind + "s"]
    return c


def row(reports, pid):
    rows = [p for p in reports[-1]["processes"] if p["pid"] == pid] \
        if reports else []
    return rows[0] if rows else None


def main():
    d = sys.argv[1]
    tags, top = load_ndjson(f"{d}/tags.json"), load_ndjson(f"{d}/top.json")
    records = load_ndjson(f"{d}/trace.json")
    fallback = load_ndjson(f"{d}/fallback.json")
    t_untags, t_faults = tracefs(d)
    small, pages, many = (workload(d, f"{n}.out")["pid"]
                          for n in ("small", "pages", "many"))

    for name, pid in (("small", small), ("pages", pages), ("many", many)):
        en = [r for r in records if r["pid"] == pid and r["event"] == "ctrl"
              and r["op"] == "enable"]
        ok(len(en) == 1 and en[0]["ret"] == 0 and en[0]["granted_bits"] == 15
           and en[0]["offset"] == 48 and en[0]["mode"] == "lam_u48",
           f"trace: tagloop {name}'s enable granted 15 bits at 48, lam_u48",
           f"{en}")
        en = [r for r in fallback if r["pid"] == pid and r["event"] == "ctrl"
              and r["op"] == "enable"]
        ok(len(en) == 1 and en[0]["ret"] == 0 and en[0]["granted_bits"] == 15
           and en[0]["offset"] == 48 and en[0]["mode"] == "lam_u48",
           f"trace -A fallback: tagloop {name}'s enable at offset 48, from "
           "the untag mask", f"{en}")
        p = row(top, pid)
        ok(p is not None and p["mode"] == "lam_u48" and p["tag_bits"] == 15,
           f"top: tagloop {name} in mode lam_u48 with 15 tag bits",
           f"{p and (p['mode'], p['tag_bits'])}")

    # Tags 1-300: each once, the dense array's and the wide map's alike.
    p = row(tags, small)
    want = Counter(range(1, 301))
    ok(p is not None and tag_counts(p, "untag") == want == t_untags[small]
       and p["distinct_tags"] == 300,
       "tags: tagloop 300 --u48 0: tags 1-300 once each, as tracefs saw",
       f"tags {p and sorted(tag_counts(p, 'untag').items())[:8]}...",
       f"tracefs {sorted(t_untags[small].items())[:8]}...")
    mine = [r for r in records if r["pid"] == small and r["event"] == "untag"]
    ok(sorted(r["tag"] for r in mine) == list(range(1, 301)),
       "trace: the 300 untags print their 15-bit tags 1-300",
       f"{sorted(r['tag'] for r in mine)[:8]}...")

    p = row(tags, pages)
    got = tag_counts(p, "fault") if p else Counter()
    ok(p is not None and all(got[t] == 1 for t in range(20001, 20005)) and
       p["tagged_faults"] == 4 and
       sum(n for t, n in got.items() if t) == 4,
       "tags: tagloop 4 --u48 20000 --pages: 4 faults, tags 20001-20004",
       f"{p and sorted(got.items())}")

    # More distinct values than wide_tags holds: the rest is overflow.
    p = row(tags, many)
    used = sum(len(r.get("wide_tags", [])) for r in tags[-1]["processes"]) \
        if tags else 0
    over = tags[-1].get("tag_overflow", 0) if tags else 0
    counted = sum(tag_counts(p, "untag").values()) if p else 0
    ok(p is not None and t_untags[many] == Counter(range(1001, 18001)) and
       counted + over == 17000 == p["untags"] and used == WIDE_TAGS and
       over == 17000 - (WIDE_TAGS - 237 - 4),
       f"tags: 17000 distinct wide values: the map's {WIDE_TAGS} entries "
       "counted, the rest reported as tag_overflow, exactly",
       f"counted {counted} overflow {over} entries {used} "
       f"untags {p and p['untags']} tracefs {sum(t_untags[many].values())}")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
