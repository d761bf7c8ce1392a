#!/usr/bin/python3
"""Check which pointer faults are tagged by, against tagloop --mixed.

  check_faultptr.py DIR N M SOURCE

DIR holds what faultptr-guest.sh wrote: tags.json, tags.err, trace.json,
trace.err, tracefs.txt and tagloop.out (pid=, region=). tagloop wrote N
fresh pages from region through tag-44 pointers, then the next M untagged.
SOURCE: "event" (the kernel's pointer field: the counts exact) or
"registers" (a kernel without it: the counts a guess). Either way tagtrace
must say which, on stderr and in tags --json's sources, and name its
figures of fault tags for what they are: tagged_faults, fault_tags and
trace's tagged/tag where exact, the same with "guessed_" before them, and
those alone, where guessed. Prints TAP, unnumbered.
"""
import json
import re
import sys

import tap
from tap import ok
from check_counts import (TRACEFS_LINE, check_fault_names,
                          check_fault_records, load_ndjson, workload)

TAG_SHIFT, TAG_MASK, TAG = 57, 0x3f, 44
PAGE = 4096
FAULT = re.compile(r"untagged=0x([0-9a-f]+) .* pointer=0x([0-9a-f]+)")


def tag(v):
    return (v >> TAG_SHIFT) & TAG_MASK


def source(d, name):
    """What tagtrace NAME said it takes a fault's pointer from."""
    with open(f"{d}/{name}.err") as f:
        m = re.search(r"fault_pointer=(\w+)", f.read())
    return m.group(1) if m else None


def row(reports, pid):
    """pid's row in the last report, or None."""
    rows = [p for p in reports[-1]["processes"] if p["pid"] == pid] \
        if reports else []
    return rows[0] if rows else None


def check_guess(reports, records, pid, n, m):
    """Registers: the guess, under its own names only, finds the N faults
    through tag-44 pointers among the N + M, and tags and trace agree on
    it. How many of the M untagged ones it takes for tagged is said, not
    checked: that is the guess's error."""
    p = row(reports, pid)
    if not ok(p is not None, f"tags reports tagloop (pid {pid})"):
        return tap.done()
    hist = p.get("guessed_fault_tags", [0] * 64)
    marked = [r for r in records if r.get("guessed_tagged")]
    ok(len(records) == n + m and hist[TAG] >= n and
       p.get("guessed_tagged_faults", 0) >= hist[TAG] and
       all(r["guessed_tag"] == TAG for r in marked) and len(marked) >= n,
       f"the guess: at least the {n} faults through tag-44 pointers of the "
       f"{n + m}, tag 44, in guessed_fault_tags, guessed_tagged_faults and "
       "trace's guessed_tagged",
       f"trace: {len(records)} faults, {len(marked)} guessed tagged "
       f"{[r['guessed_tag'] for r in marked]}",
       f"tags: guessed_fault_tags[44] {hist[TAG]}, guessed_tagged_faults "
       f"{p.get('guessed_tagged_faults')}")
    print(f"# the guess: {len(marked)} of the {n + m} faults tagged, "
          f"{n} truly were")
    return tap.done()


def main():
    d, n, m, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    loop = workload(d, "tagloop.out")
    pid, lo = loop["pid"], loop["region"]
    tagged_end, hi = lo + n * PAGE, lo + (n + m) * PAGE

    for name in ("tags", "trace"):
        ok(source(d, name) == want,
           f"tagtrace {name} takes the faulting pointer from: {want}",
           f"it says {source(d, name)}")
    reports = load_ndjson(f"{d}/tags.json")
    records = [r for r in load_ndjson(f"{d}/trace.json")
               if r["pid"] == pid and r["event"] == "fault" and
               lo <= int(r["untagged"], 16) < hi]
    ok(reports and reports[-1]["sources"].get("fault_pointer") == want,
       f"tags --json: its sources say fault_pointer {want}",
       reports[-1]["sources"] if reports else "no report")
    check_fault_names("tags --json", reports)
    check_fault_records("trace --json", records, want)
    if want != "event":
        return check_guess(reports, records, pid, n, m)

    # The kernel's field: each page's fault, with the pointer the store used.
    seen = []
    with open(f"{d}/tracefs.txt") as f:
        for line in f:
            mt = TRACEFS_LINE.match(line)
            if not mt or int(mt.group(2)) != pid or \
               mt.group(3) != "tagged_addr_fault":
                continue
            fm = FAULT.search(mt.group(4))
            if fm:
                addr, ptr = int(fm.group(1), 16), int(fm.group(2), 16)
                if lo <= addr < hi:
                    seen.append((addr, ptr))
    # The stores go to each page's first byte: the pointer is exact.
    good = [a for a, p in seen
            if p == (a | TAG << TAG_SHIFT if a < tagged_end else a)]
    ok(len(seen) == n + m and len(good) == n + m,
       f"tracefs: one fault per page, pointer tag 44 on the first {n}, "
       f"the untagged address itself on the last {m}",
       *[f"untagged 0x{a:x} pointer 0x{p:x}" for a, p in seen])

    first = [r for r in records if int(r["untagged"], 16) < tagged_end]
    last = [r for r in records if int(r["untagged"], 16) >= tagged_end]
    # Where: the store in mixed_pages() (kept out of line), in tagloop.
    where = [r.get("where", {}) for r in first]
    ok(len(where) == n and
       all(w.get("sym") == "mixed_pages" and w.get("ip") == r["ip"] and
           w.get("file", "").endswith("/build/vm/tagloop")
           for w, r in zip(where, first)),
       f"trace: each of the {n} tagged faults is located at mixed_pages() "
       "in build/vm/tagloop",
       *[json.dumps(w) for w in where])
    ok(all("where" not in r for r in last),
       f"trace: the {m} untagged faults are not located (paging, not misuse)")
    ok(len(first) == n and all(r.get("tagged") and r.get("tag") == TAG for r in first),
       f"trace: the {n} faults through tag-44 pointers are tagged, tag 44",
       *[f"{r['untagged']} tagged={r.get('tagged')} tag={r.get('tag')}" for r in first])
    ok(len(last) == m and all(not r.get("tagged") and r.get("tag") == 0 for r in last),
       f"trace: the {m} faults through untagged pointers are untagged, "
       "with a tagged pointer live in a register",
       *[f"{r['untagged']} tagged={r.get('tagged')} tag={r.get('tag')}" for r in last])

    p = row(reports, pid)
    if not ok(p is not None, f"tags reports tagloop (pid {pid})"):
        return tap.done()
    # tags attached after trace: each fault's VMA lookup was trace's.
    locs = [(l.get("event"), l.get("count"), l.get("no_sym"),
             l.get("ip") == first[0]["ip"] if first else None)
            for l in p.get("locations", [])]
    ok(locs == [("fault", n, "not placed: the VMA lookup was busy", True)],
       f"tags: where: the {n} tagged faults at one IP, not placed: the "
       "lookup at the fault was the first tracer's", locs)
    hist = p.get("fault_tags", [0] * 64)
    others = {i: c for i, c in enumerate(hist) if c and i not in (0, TAG)}
    ok(hist[TAG] == n and p.get("tagged_faults") == n and not others,
       f"tags: exactly {n} faults with tag 44, none with another tag",
       f"tag 44: {hist[TAG]}, tagged_faults {p.get('tagged_faults')}, "
       f"others {others}")
    ok(hist[0] >= m and hist[0] == p["faults"] - n,
       f"tags: the other faults (the {m} untagged stores among them) untagged",
       f"untagged {hist[0]} of {p['faults']}")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
