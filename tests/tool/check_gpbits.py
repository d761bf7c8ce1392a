#!/usr/bin/env python3
"""check_gpbits.py CPU CASES TRACE_JSON: gpbits' cases against trace's gp
records. CPU is lam (4-level paging), la57 (LAM with 5-level paging) or
uai. For each case: the signal the child died of (0: the access worked),
and the gp records of its pid: none, or exactly one whose outside names
the bits the case set wrong. Prints TAP (unnumbered)."""
import json
import sys

SEGV = 11
TAG = 0x2a << 57
B55, B56, B63 = 1 << 55, 1 << 56, 1 << 63

# case: (signal, outside of its one gp record, or None for no record)
COMMON = {
    "field": (0, None),                 # a tag in the field: works
    "bit56": (SEGV, B56),               # next to the field: never ignored
    "misaligned": (SEGV, None),         # a #GP, but the operand is canonical
    "untagged_tag": (SEGV, TAG),        # a tag without tagging
    "untagged_bit56": (SEGV, None),     # non-canonical, but no tag
}
EXPECT = {
    "lam": dict(COMMON, bit55=(SEGV, B55), bit63=(SEGV, B63)),
    # 5-level paging: bit 55 is an address bit (a page fault, no #GP).
    "la57": dict(COMMON, bit55=(SEGV, None), bit63=(SEGV, B63)),
    # UAI ignores bit 63 too (the kernel never accepts such a pointer).
    "uai": dict(COMMON, bit55=(SEGV, B55), bit63=(0, None)),
}


def ok(cond, what, why=""):
    print(("ok - " if cond else "not ok - ") + what +
          ("" if cond or not why else f" ({why})"))


def main():
    cpu, cases_path, trace_path = sys.argv[1:4]
    want = EXPECT[cpu]
    cases = {}
    for line in open(cases_path):
        f = line.split()
        if len(f) == 6 and f[0] == "case":
            cases[f[1]] = (int(f[3]), int(f[5]))
    recs = [json.loads(line) for line in open(trace_path) if line.strip()]
    gps = [r for r in recs if r.get("event") == "gp"]
    ok(set(cases) == set(want), f"{cpu}: gpbits ran every case",
       f"ran {sorted(cases)}")
    for name, (sig, outside) in sorted(want.items()):
        if name not in cases:
            continue
        pid, got_sig = cases[name]
        mine = [r for r in gps if r["pid"] == pid]
        ok(got_sig == sig, f"{cpu} {name}: the child ended with signal {sig}",
           f"signal {got_sig}")
        if outside is None:
            ok(not mine, f"{cpu} {name}: no gp record",
               f"{len(mine)}: {mine[:1]}")
            continue
        ok(len(mine) == 1 and int(mine[0]["outside"], 16) == outside,
           f"{cpu} {name}: one gp record, outside={outside:#x}",
           f"{[(r.get('address'), r.get('outside')) for r in mine]}")
        if mine:
            r = mine[0]
            addr = int(r["address"], 16)
            ok(addr & outside == outside and r["trap"] == "gp",
               f"{cpu} {name}: its address has those bits, trap=gp",
               f"address {r['address']} trap {r['trap']}")
    stray = [r for r in gps if r["pid"] not in {p for p, _ in cases.values()}]
    ok(not stray, f"{cpu}: no gp record of another process", f"{stray[:2]}")


main()
