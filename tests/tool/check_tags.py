#!/usr/bin/python3
"""Check `tagtrace tags` and `trace` against tracefs and hwasan_prog.

  check_tags.py DIR N W U P

DIR holds what tags-guest.sh wrote: tags.json, trace.json, tracefs.txt
(tagged_addr events and raw_syscalls:sys_enter), workload.out (the clean
hwasan_prog run), uaf.out and uaf.err (the run HWASan aborts),
tagloop.out and reads.out. Prints TAP, unnumbered.
"""
import re
import sys
from collections import Counter, defaultdict

import tap
from tap import ok
from check_counts import load_ndjson, tracefs_events, workload

UNTAG = re.compile(r"tagged=0x([0-9a-f]+) untagged=0x([0-9a-f]+)")
CTRL = re.compile(r"op=(\w+) req_bits=(-?\d+) granted_bits=(\d+) offset=(\d+)"
                  r" mode=(\w+) .* ret=(-?\d+)")
NR = re.compile(r"NR (-?\d+)")
TAG_SHIFT, TAG_MASK = 57, 0x3f
X86_PF_USER = 1 << 2    # a page fault's error code: the access was in user mode
PAGE = 4096


def tracefs(d):
    """Per pid: untags by tag, untags by the system call they happened
    in (the task's last sys_enter), fault count, enables."""
    tags, sys_, faults = defaultdict(Counter), defaultdict(Counter), Counter()
    enables, in_call = defaultdict(list), {}
    for pid, event, rest in tracefs_events(d):
        if event == "sys_enter":
            in_call[pid] = int(NR.search(rest).group(1))
        elif event == "tagged_addr_untag":
            tagged = int(UNTAG.search(rest).group(1), 16)
            tags[pid][(tagged >> TAG_SHIFT) & TAG_MASK] += 1
            sys_[pid][in_call.get(pid, -1)] += 1
        elif event == "tagged_addr_fault":
            faults[pid] += 1
        elif event == "tagged_addr_ctrl":
            c = CTRL.search(rest)
            if c and c.group(1) == "enable":
                enables[pid].append(c.groups())
    return tags, sys_, faults, enables


def proc(reports, pid):
    rows = [p for p in reports[-1]["processes"] if p["pid"] == pid] \
        if reports else []
    return rows[0] if rows else None


def check_process(name, p, pid, t_tags, t_sys, t_faults, records):
    """tags == tracefs == trace for one process."""
    if not ok(p is not None, f"{name}: tags reports pid {pid}"):
        return
    hist = Counter({i: n for i, n in enumerate(p["untag_tags"]) if n})
    ok(hist == t_tags[pid], f"{name}: tag histogram equals tracefs's "
       f"untag events' tags ({sum(hist.values())} untags, "
       f"{len(hist)} tags)", f"tags    {sorted(hist.items())}",
       f"tracefs {sorted(t_tags[pid].items())}")
    ok(sum(p["untag_tags"]) == p["untags"] == sum(t_tags[pid].values()),
       f"{name}: histogram total == untag count == tracefs ({p['untags']})",
       f"histogram {sum(p['untag_tags'])} untags {p['untags']} "
       f"tracefs {sum(t_tags[pid].values())}")
    calls = Counter({s["nr"]: s["untags"] for s in p["syscalls"]})
    ok(calls == t_sys[pid], f"{name}: untags by system call equal tracefs's "
       "(each untag in its task's last sys_enter)",
       f"tags    {sorted(calls.items())}", f"tracefs {sorted(t_sys[pid].items())}")
    mine = [r for r in records if r["pid"] == pid]
    traced = Counter(r["syscall_nr"] for r in mine if r["event"] == "untag")
    ok(traced == calls, f"{name}: trace's syscall per untag equals tags's",
       f"trace {sorted(traced.items())}")
    ok(p["faults"] == sum(p["fault_tags"]) == t_faults[pid],
       f"{name}: faults == their tag histogram == tracefs ({p['faults']})",
       f"faults {p['faults']} histogram {sum(p['fault_tags'])} "
       f"tracefs {t_faults[pid]}")
    flagged = sum(1 for r in mine if r["event"] == "fault" and r["tagged"])
    ok(p["tagged_faults"] == p["faults"] - p["fault_tags"][0] == flagged,
       f"{name}: faults with a tag: tags, its histogram and trace's marks "
       f"agree ({p['tagged_faults']})", f"tags {p['tagged_faults']} "
       f"histogram {p['faults'] - p['fault_tags'][0]} trace {flagged}")
    distinct = sum(1 for i in range(1, 64)
                   if p["untag_tags"][i] or p["fault_tags"][i])
    ok(p["distinct_tags"] == distinct and "untagged_share" not in p,
       f"{name}: distinct tags ({distinct}); no untagged share",
       f"said {p['distinct_tags']}, {p.get('untagged_share')}")


def check_enable(name, pid, enables, records):
    """HWASan's runtime enables tagging once: 6 bits at 57."""
    ctrl = [r for r in records if r["pid"] == pid and r["event"] == "ctrl"
            and r["op"] == "enable"]
    ok(len(ctrl) == 1 and ctrl[0]["granted_bits"] == 6 and
       ctrl[0]["offset"] == 57 and ctrl[0]["ret"] == 0 and
       len(enables[pid]) == 1,
       f"{name}: trace shows HWASan's one enable, granted 6 bits at 57",
       f"trace {ctrl}", f"tracefs {enables[pid]}")


def main():
    d = sys.argv[1]
    n, w, u, pages = (int(x) for x in sys.argv[2:6])
    reports = load_ndjson(f"{d}/tags.json")
    records = load_ndjson(f"{d}/trace.json")
    t_tags, t_sys, t_faults, enables = tracefs(d)
    clean, uaf = workload(d), workload(d, "uaf.out")
    loop = workload(d, "tagloop.out")

    for name, wl in (("hwasan_prog", clean), ("hwasan_prog --uaf", uaf)):
        check_enable(name, wl["pid"], enables, records)
        check_process(name, proc(reports, wl["pid"]), wl["pid"], t_tags,
                      t_sys, t_faults, records)
    check_process("tagloop --pages", proc(reports, loop["pid"]), loop["pid"],
                  t_tags, t_sys, t_faults, records)

    p = proc(reports, clean["pid"])
    if p:
        want = Counter({int(k[4:]): v for k, v in clean.items()
                        if k.startswith("tag_")})
        got = Counter({i: c for i, c in enumerate(p["untag_tags"]) if c})
        ok(got == want, f"hwasan_prog: each tag counted as often as the "
           f"program passed pointers with it ({len(want)} tags)",
           f"tags    {sorted(got.items())}", f"program {sorted(want.items())}")
        calls = {s["name"]: s["untags"] for s in p["syscalls"]}
        ok(calls == {"write": n * w, "uname": u, "openat": 1},
           f"hwasan_prog: untags by system call are its {n * w} write(), "
           f"{u} uname() and 1 open() calls", f"got {calls}")
        # The runtime's own faults carry tags too: count the allocation's,
        # by address, in trace's records (which equal tags' above).
        lo, hi, tag = clean["big_start"], clean["big_end"], clean["big_tag"]
        mine = [r for r in records if r["pid"] == clean["pid"] and r["event"] == "fault"
                and lo <= int(r["untagged"], 16) < hi]
        good = [r for r in mine if r["tag"] == tag]
        ok(len(mine) == len(good) == pages,
           f"hwasan_prog: its {pages} fresh pages are {pages} faults, each with "
           f"the allocation's tag {tag}",
           f"{len(mine)} faults in the range, {len(good)} with tag {tag}")
    p = proc(reports, loop["pid"])
    if p:
        tagged = [(i, c) for i, c in enumerate(p["fault_tags"]) if i and c]
        ok(p["tagged_faults"] == pages and len(tagged) == 1 and
           tagged[0][1] == pages,
           f"tagloop: exactly its {pages} page writes through one tagged "
           "pointer are faults with a tag, all with its tag",
           f"tagged {p['tagged_faults']} by tag {tagged}")

    # tagloop --reads: its faults (the event's, from the enable on) as
    # tracefs has them, and its read()s' located: a read() of one byte into
    # a fresh page faults once, in the kernel (X86_PF_USER clear), at the
    # page's first byte, so they are the kernel-mode faults of the process:
    # P of them on P consecutive pages (nothing else it does with tagging on
    # makes the kernel fault on a user page), none with a tag.
    reads = workload(d, "reads.out")
    rpid = reads["pid"]
    p = proc(reports, rpid)
    check_process("tagloop --reads", p, rpid, t_tags, t_sys, t_faults, records)
    kern = [r for r in records if r["pid"] == rpid and r["event"] == "fault"
            and not int(r["error_code"], 16) & X86_PF_USER]
    at = sorted(int(r["untagged"], 16) for r in kern)
    run = bool(at) and at[0] % PAGE == 0 and \
        all(b - a == PAGE for a, b in zip(at, at[1:]))
    ok(p is not None and len(kern) == pages and run and
       not any(r["tagged"] for r in kern) and p["tagged_faults"] == 0,
       f"tagloop --reads: its {pages} read()s into fresh pages through "
       f"untagged pointers are {pages} kernel faults, one a page, none with "
       "a tag, a tagged pointer in %rbx (no argument) near them "
       "notwithstanding",
       f"kernel-mode faults {len(kern)} at {[hex(x) for x in at[:4]]}..., "
       f"tagged {[r['tag'] for r in kern if r['tagged']]}, tags's tagged "
       f"faults {p and p['tagged_faults']}")

    with open(f"{d}/uaf.err") as f:
        report = f.read()
    ok("ERROR: HWAddressSanitizer: tag-mismatch on address" in report and
       "Cause: use-after-free" in report,
       "hwasan_prog --uaf: HWASan's tag-mismatch report, a use-after-free",
       report[:300])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
