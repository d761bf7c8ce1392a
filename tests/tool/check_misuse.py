#!/usr/bin/env python3
"""check_misuse.py TRACE_JSON BPFTRACE_OUT: tagtrace's location of
tagalloc's #GP and of HWASan's tagged faults against bpftrace's ustack of
the same events.

bpftrace printed "KIND PID IP" and the first frame of each event (KIND gp
for tagalloc, fault for hwasan_prog's faults with a tag). Each must match
a tagtrace record of that pid and kind at that IP whose where.ip is the
IP; where bpftrace named the frame (function+offset), tagtrace's
sym+sym_offset must be the same. tagtrace must name tagalloc's #GP in
helper() of tagalloc and HWASan's faults in a function of hwasan_prog or
libc.so.6, dead process or not, and bpftrace must have named at least one
of HWASan's. One check per place, with its count.
Prints TAP (unnumbered)."""
import json
import re
import sys


def ok(cond, what, why=""):
    print(("ok - " if cond else "not ok - ") + what +
          ("" if cond or not why else f" ({why})"))
    return cond


def bpftrace_events(path):
    """[(kind, pid, ip, frame or None)] in the order bpftrace printed."""
    events, cur = [], None
    for line in open(path):
        m = re.match(r"(gp|fault) (\d+) ([0-9a-f]+)$", line.strip())
        if m:
            cur = [m.group(1), int(m.group(2)), int(m.group(3), 16), None]
            events.append(cur)
        elif cur is not None and line.strip() and cur[3] is None:
            cur[3] = line.strip()
    return [tuple(e) for e in events]


def main():
    recs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    bt = bpftrace_events(sys.argv[2])
    by = {}
    for r in recs:
        if r.get("event") in ("gp", "fault") and "where" in r:
            by.setdefault((r["event"], r["pid"], int(r["where"]["ip"], 16)),
                          []).append(r["where"])
    gps = [e for e in bt if e[0] == "gp"]
    faults = [e for e in bt if e[0] == "fault"]
    ok(len(gps) == 1, "bpftrace saw tagalloc's one #GP", f"{len(gps)}")
    ok(len(faults) >= 16, "bpftrace saw HWASan's tagged faults",
       f"{len(faults)}")
    named = {"gp": 0, "fault": 0}
    # One check per place: (kind, pid, ip, bpftrace's frame) and its count.
    places = {}
    for e in bt:
        places[e] = places.get(e, 0) + 1
    for (kind, pid, ip, frame), n in places.items():
        wheres = by.get((kind, pid, ip), [])
        if not ok(len(wheres) == n, f"{kind} of pid {pid} at {ip:#x}, {n} "
                  "times: tagtrace located each at the same address",
                  f"{len(wheres)} records there"):
            continue
        w = wheres[0]
        m = re.match(r"(\S+)\+(\d+)$", frame or "")
        if m:
            named[kind] += 1
            ok(w.get("sym") == m.group(1) and w.get("sym_offset") ==
               int(m.group(2)), f"{kind} at {ip:#x}: {frame} as bpftrace "
               "names it", f"tagtrace: {w.get('sym')}+{w.get('sym_offset')}")
        if kind == "gp":
            ok(w.get("sym") == "helper" and w.get("file", "").endswith(
               "/tagalloc"), f"tagalloc's #GP in helper() of tagalloc "
               f"(bpftrace: {frame})", f"{w}")
        else:
            ok("sym" in w and w.get("file", "").endswith(
               ("/hwasan_prog", "/libc.so.6")),
               f"HWASan's fault at {ip:#x} named: {w.get('sym')} in "
               f"{w.get('file', '?').rsplit('/', 1)[-1]}", f"{w}")
    ok(named["fault"] > 0, "bpftrace named at least one of HWASan's places "
       "(so the names were compared)", f"{named}")

main()
