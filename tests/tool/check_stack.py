#!/usr/bin/env python3
"""check_stack.py N TRACE_JSON TRACE_TXT BPFTRACE_OUT TAGS_JSON: tagtrace's user
stacks of stackgp's #GPs against bpftrace's ustack of the same events.

The first N gp events are one living stackgp's (bpftrace printed each while
it was alive); the one after them is `stackgp 1 --die`'s. For the N:
tagtrace's frames, in order, must be bpftrace's, by address and by name
(function+offset where tagtrace names one, the address where it does
not), and start stack_leaf, stack_mid, stack_top, main in stackgp with its
build id. For the dead one, tagtrace's JSON and text must name the same
four functions; tags' last report must put each process's #GPs (N, 1) at
stack_leaf. Prints TAP (unnumbered)."""
import json
import re
import subprocess
import sys

CHAIN = ["stack_leaf", "stack_mid", "stack_top", "main"]
fails = 0


def check(cond, what, detail=None):
    global fails
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        fails += 1
        if detail is not None:
            for line in str(detail).splitlines():
                print("#   " + line)
    return cond


def label(f):
    """bpftrace's way of printing a frame."""
    if "sym" in f:
        return "%s+%d" % (f["sym"], f["sym_offset"])
    return f["ip"]


def bpftrace_blocks(path):
    """[(pid, [frame, ...])] in the order bpftrace printed them."""
    blocks, cur = [], None
    for line in open(path):
        m = re.match(r"gp (\d+)$", line.strip())
        if m:
            cur = (int(m.group(1)), [])
            blocks.append(cur)
        elif cur is not None and line.strip():
            cur[1].append(line.strip())
        elif cur is not None and cur[1]:
            cur = None
    return blocks


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def main():
    n = int(sys.argv[1])
    events = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    gps = [e for e in events if e.get("event") == "gp"]
    text = [l for l in open(sys.argv[3]) if " gp " in l]
    bt = bpftrace_blocks(sys.argv[4])
    bid = build_id("build/vm/stackgp")

    if not check(len(gps) == n + 1, "tagtrace: %d gp events, N + 1" % (n + 1),
                 "got %d" % len(gps)):
        return
    alive, dead = gps[:n], gps[n]
    check(all(e["pid"] == alive[0]["pid"] for e in alive) and
          dead["pid"] != alive[0]["pid"],
          "tagtrace: the N of one process, then the dying one's")
    mine = [b for b in bt if b[0] == alive[0]["pid"]]
    check(len(mine) == n, "bpftrace: %d ustacks of that process" % n,
          "got %d" % len(mine))
    for i, e in enumerate(gps):
        who = "dying stackgp" if e is dead else "#GP %d" % (i + 1)
        st = e.get("stack", [])
        check(st and st[0] == e.get("where") and st[0]["ip"] == e["ip"],
              "%s: the stack starts at where, the event's ip" % who)
        names = [f.get("sym") for f in st[:4]]
        check(names == CHAIN, "%s: frames %s" % (who, " <- ".join(CHAIN)),
              names)
        check(all(f.get("file", "").endswith("/build/vm/stackgp") and
                  f.get("build_id") == bid for f in st[:4]),
              "%s: in build/vm/stackgp, build id %s" % (who, bid),
              json.dumps(st[:4]))
        if e is dead:
            continue
        if i < len(mine):
            theirs = mine[i][1]
            ours = [label(f) for f in st]
            k = min(len(ours), len(theirs))
            check(k >= 4 and ours[:k] == theirs[:k] and
                  (len(ours) == 16 or len(ours) == len(theirs)),
                  "%s: every frame as bpftrace's ustack (%d frames)"
                  % (who, k),
                  "tagtrace: %s\nbpftrace: %s" % (ours, theirs))
    want = re.compile(r" at stack_leaf\+0x[0-9a-f]+ \(stackgp\) <- "
                      r"stack_mid\+0x[0-9a-f]+ \(stackgp\) <- "
                      r"stack_top\+0x[0-9a-f]+ \(stackgp\) <- "
                      r"main\+0x[0-9a-f]+ \(stackgp\)")
    check(len(text) == n + 1 and all(want.search(l) for l in text),
          "text: each of the %d lines names the four functions" % (n + 1),
          "".join(text))
    reports = [json.loads(l) for l in open(sys.argv[5]) if l.strip()]
    procs = {p["pid"]: p for p in reports[-1]["processes"]} if reports else {}
    for who, pid, count in (("living", alive[0]["pid"], n),
                            ("dying", dead["pid"], 1)):
        locs = [(l.get("event"), l.get("count"), l.get("sym"),
                 l.get("build_id"))
                for l in procs.get(pid, {}).get("locations", [])]
        check(locs == [("gp", count, "stack_leaf", bid)],
              "tags: the %s stackgp's %d #GPs, all at stack_leaf" %
              (who, count), locs)
    gone = [b for b in bt if b[0] == dead["pid"]]
    if gone:
        print("# bpftrace on the dying one: " + " <- ".join(gone[0][1][:4]))


main()
sys.exit(1 if fails else 0)
