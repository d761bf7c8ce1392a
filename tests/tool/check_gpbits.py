#!/usr/bin/env python3
"""check_gpbits.py CPU CASES TRACE_JSON: gpbits' cases against trace's gp
records. CPU is lam (4-level paging), la57 (LAM with 5-level paging),
mainline (LAM on the kernel of series 1-4, which has no LAM_U48) or uai. For each case: the signal the child died of (0: the access worked,
-1: the enable was refused), and the gp records of its pid: none, or
exactly one with the trap and the outside bits the case set wrong. Prints
TAP (unnumbered)."""
import json
import sys

SEGV, BUS, REFUSED = 11, 7, -1
TAG = 0x2a << 57
B47, B55, B56, B63 = 1 << 47, 1 << 55, 1 << 56, 1 << 63

# case: (signal, (trap, outside) of its one gp record, or None for none)
COMMON = {
    "field": (0, None),                 # a tag in the field: works
    "bit56": (SEGV, ("gp", B56)),       # next to the field: never ignored
    # A #GP with an operand canonical for the process: not its tag.
    "kernel_half": (SEGV, None),
    "misaligned": (SEGV, None),
    # A call through a tagged pointer: the target is fetched, which no
    # mode masks; the tag is inside the field, so nothing is outside.
    "call_tagged": (SEGV, ("gp", 0)),
    "untagged_tag": (SEGV, ("gp", TAG)),  # a tag without tagging
    "untagged_bit56": (SEGV, None),     # non-canonical, but no tag
}
LAM = dict(COMMON, bit63=(SEGV, ("gp", B63)),
           rbp_tag=(0, None),           # LAM masks SS references too
           rbp_bit56=(BUS, ("ss", B56)))
EXPECT = {
    "lam": dict(LAM, bit55=(SEGV, ("gp", B55)), u48_bit47=(SEGV, ("gp", B47))),
    # 5-level paging: bit 55 is an address bit (a page fault).
    # LAM_U48 checks bit 47 against bit 63 at any paging depth.
    "la57": dict(LAM, bit55=(SEGV, None), u48_bit47=(SEGV, ("gp", B47))),
    # The series meant for mainline (1-4): LAM without LAM_U48.
    "mainline": dict(LAM, bit55=(SEGV, ("gp", B55)),
                     u48_bit47=(REFUSED, None)),
    # UAI ignores bit 63 too, and nothing of an SS reference; no LAM_U48.
    "uai": dict(COMMON, bit55=(SEGV, ("gp", B55)), bit63=(0, None),
                rbp_tag=(BUS, ("ss", TAG)), rbp_bit56=(BUS, ("ss", B56)),
                u48_bit47=(REFUSED, None)),
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
    for name, (sig, rec) in sorted(want.items()):
        if name not in cases:
            continue
        pid, got_sig = cases[name]
        mine = [r for r in gps if r["pid"] == pid]
        ok(got_sig == sig, f"{cpu} {name}: the child ended with signal {sig}",
           f"signal {got_sig}")
        if rec is None:
            ok(not mine, f"{cpu} {name}: no gp record",
               f"{len(mine)}: {mine[:1]}")
            continue
        trap, outside = rec
        got = [(r.get("trap"), int(r["outside"], 16)) for r in mine]
        ok(got == [(trap, outside)],
           f"{cpu} {name}: one gp record, trap={trap} outside={outside:#x}",
           f"{[(r.get('address'), r.get('trap'), r.get('outside')) for r in mine]}")
        if mine:
            addr = int(mine[0]["address"], 16)
            ok(addr & outside == outside,
               f"{cpu} {name}: its address has those bits",
               f"address {mine[0]['address']}")
    stray = [r for r in gps if r["pid"] not in {p for p, _ in cases.values()}]
    ok(not stray, f"{cpu}: no gp record of another process", f"{stray[:2]}")


main()
