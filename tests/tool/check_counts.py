#!/usr/bin/python3
"""Check what tagtrace reported against tracefs and the workload.

  check_counts.py counts   DIR N M K F G   tagtrace == tracefs == workload
  check_counts.py fallback DIR N M K F G [raw]   upstream kernel: fallbacks
  check_counts.py storm    DIR M           tiny ring buffer: drops, exact top
  check_counts.py filter   DIR PA NA PB NB  -p PA and -c of PB's name
  check_counts.py pidreuse DIR PA PB [pages]  a reused PID, leader names
  check_counts.py hist     DIR K MODE [raw]  hist per mode transition

DIR holds the files the *-guest.sh scripts wrote: trace.json, trace.err,
top.json, workload.out and (counts) tracefs.txt. Prints TAP, unnumbered.
"""
import json
import os
import re
import sys

import tap
from tap import ok
from collections import Counter

KINDS = ("ctrl", "untag", "switch", "fault", "gp")
TRACEFS_KIND = {"tagged_addr_ctrl": "ctrl", "tagged_addr_untag": "untag",
                "tagged_addr_mode_switch": "switch",
                "tagged_addr_fault": "fault", "tagged_addr_gp": "gp"}
TRACEFS_LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[\d+\]\s+\S+\s+[\d.]+: (\w+): (.*)$")
def tracefs_events(d):
    """(pid, event, the rest of the line) for each event in tracefs.txt."""
    with open(f"{d}/tracefs.txt") as f:
        for line in f:
            m = TRACEFS_LINE.match(line)
            if m:
                yield int(m.group(2)), m.group(3), m.group(4)


def load_ndjson(path):
    """Every line must be one JSON object: that is what --json promises."""
    out, bad = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except ValueError as e:
                bad.append(f"line {n}: {e}: {line[:80]!r}")
    ok(not bad, f"{path.split('/')[-1]}: every line is a JSON object", *bad[:3])
    return out


def workload(d, name="workload.out"):
    vals = {}
    with open(f"{d}/{name}") as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            vals[k] = int(v, 0)
    return vals


def tracefs_counts(d):
    """(pid, kind) -> count, and the pids of the workload's processes."""
    counts, pids = Counter(), set()
    with open(f"{d}/tracefs.txt") as f:
        for line in f:
            m = TRACEFS_LINE.match(line)
            if not m or m.group(3) not in TRACEFS_KIND:
                continue
            pid = int(m.group(2))
            counts[pid, TRACEFS_KIND[m.group(3)]] += 1
            # tracefs names a task by its latest comm: the workload's
            # last enabler exec()s true.
            if m.group(1).strip() in ("tagged_workload", "true"):
                pids.add(pid)
    return counts, pids


SCHED_SWITCH = re.compile(r"^\s*.+-\d+\s+\[(\d+)\].*sched_switch: .*prev_pid=(\d+) .*"
                          r"==> .*next_pid=(\d+) ")
KTHREAD_FORK = re.compile(r"sched_process_fork: .* parent_pid=2 child_comm=.* child_pid=(\d+)")
PROCESS_EXIT = re.compile(r"^\s*.+-\d+\s+\[(\d+)\].*sched_process_exit: .* pid=(\d+) ")


def predicted_switches(d, w):
    """The tagged ping-pong worker W's mode switches in its own context,
    from the scheduler's events: its enable (one, loading its mode where it
    runs), then each sched_switch from W to a user task other than W (a
    kernel thread or idle between keeps W's mm loaded, lazy TLB, and the
    switch out of it is that thread's), and its exit: tearing down its mm
    switches its CPU to init_mm in its own context before
    sched_process_exit, so the last sched_switch from it changes nothing,
    whether it goes to a user task or a kernel thread. None without
    sched_switch events in tracefs.txt."""
    try:
        with open(f"{d}/tracefs.txt.kthreads") as f:
            kt = {int(x) for x in f.read().split()}
    except OSError:
        return None
    kt.add(0)
    pp, n, on, seen = w["pingpong_pid"], 0, False, False
    loaded = {}
    with open(f"{d}/tracefs.txt") as f:
        for line in f:
            m = KTHREAD_FORK.search(line)
            if m:
                kt.add(int(m.group(1)))
                continue
            m = PROCESS_EXIT.match(line)
            if m:
                cpu, pid = int(m.group(1)), int(m.group(2))
                if on and pid == pp and loaded.get(cpu) == pp:
                    n, loaded[cpu] = n + 1, -1
                continue
            m = TRACEFS_LINE.match(line)
            if (m and m.group(3) == "tagged_addr_ctrl" and int(m.group(2)) == pp
                    and "op=enable" in line and " ret=0" in line and not on):
                on, n = True, n + 1
                continue
            m = SCHED_SWITCH.match(line)
            if not m:
                continue
            seen = True
            cpu, prev, nxt = (int(x) for x in m.groups())
            if nxt in kt:
                continue
            if on and prev == pp and nxt != pp and loaded.get(cpu) == pp:
                n += 1
            loaded[cpu] = nxt
    return n if seen else None


def trace_counts(records):
    return Counter((r["pid"], r["event"]) for r in records)


def top_counts(reports):
    """Each process's totals in the last report that has it: (pid, kind)
    -> count. A process that exited early is pruned after TT_PRUNE_AFTER
    idle reports, and on a loaded host the workload can outlast that: its
    last row holds its final totals."""
    counts = Counter()
    for r in reports:
        for p in r["processes"]:
            for k in KINDS:
                if k in p["total"]:  # left out: no source, unknown
                    counts[p["pid"], k] = p["total"][k]
    return counts


def drops(d):
    with open(f"{d}/trace.err") as f:
        m = re.search(r"(\d+) events, (\d+) dropped", f.read())
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def enables(records, pids=None):
    return sum(1 for r in records if r["event"] == "ctrl" and r["op"] == "enable"
               and r["ret"] == 0 and (pids is None or r["pid"] in pids))


def check_counts(d, n, m, k, f, g):
    w = workload(d)
    records = load_ndjson(f"{d}/trace.json")
    reports = load_ndjson(f"{d}/top.json")
    tfs, pids = tracefs_counts(d)
    tr, tp = trace_counts(records), top_counts(reports)
    events, dropped = drops(d)
    ok(dropped == 0, "trace: no records dropped", f"dropped: {dropped}")
    ok(events == len(records), "trace: its event count is the lines it printed",
       f"said {events}, printed {len(records)}")
    # The workload's processes with tagged_addr events: the N enablers, the
    # tagged, untagged and ping-pong children, and the main process, which
    # has one only if it switched to the worker directly (not through idle).
    t, u, pp, main = w["tagged_pid"], w["untagged_pid"], w["pingpong_pid"], w["main_pid"]
    kids = pids - {main}
    ok(len(kids) == n + 3 and {t, u, pp} <= kids,
       f"tracefs saw the workload's {n} + 3 child processes ({len(kids)}), "
       f"and the main one {'too' if main in pids else 'not'}", sorted(pids))
    for kind in KINDS:
        bad = [f"pid {p}: tracefs {tfs[p, kind]} trace {tr[p, kind]} top {tp[p, kind]}"
               for p in sorted(pids)
               if not tfs[p, kind] == tr[p, kind] == tp[p, kind]]
        total = sum(tfs[p, kind] for p in pids)
        ok(not bad, f"{kind}: tracefs, trace --json and top --json agree for "
           f"every workload process ({total} events)", *bad)
    ok(enables(records, pids) == n + 2, f"ctrl: {n} + 2 successful enables",
       f"got {enables(records, pids)}")
    t, u, pp = w["tagged_pid"], w["untagged_pid"], w["pingpong_pid"]
    ok(tr[t, "untag"] == m == tp[t, "untag"],
       f"untag: {m} for the tagged process's {m} tagged uname() calls",
       f"trace {tr[t, 'untag']} top {tp[t, 'untag']}")
    ok(tr[u, "untag"] == 0 == tp[u, "untag"],
       "untag: none for the untagged process's same calls",
       f"trace {tr[u, 'untag']} top {tp[u, 'untag']}")
    ok(tr[u, "gp"] == g == tp[u, "gp"], f"gp: {g} for {g} tagged dereferences "
       "without tagging", f"trace {tr[u, 'gp']} top {tp[u, 'gp']}")
    traps = Counter((r["pid"], r["trap"]) for r in records if r["event"] == "gp")
    ok(traps[u, "gp"] == g and traps[u, "ss"] == 0,
       f"gp: the untagged process's {g} are trap=gp",
       f"gp {traps[u, 'gp']} ss {traps[u, 'ss']}")
    s = w["stack_sigbus"]
    ok(traps[t, "ss"] == s == tr[t, "gp"],
       f"gp: the tagged process's {s} SIGBUSes from loads through a tagged "
       "%rbp are its trap=ss events, and its only gp events",
       f"ss {traps[t, 'ss']} gp events {tr[t, 'gp']}")
    # Its other faults (stack, libc) are a tagged process's too: count the
    # ones in the region it touched.
    lo, hi = w["region_start"], w["region_end"]
    region = sum(1 for r in records if r["event"] == "fault" and r["pid"] == t
                 and lo <= int(r["untagged"], 16) < hi)
    ok(region == f, f"fault: exactly {f} in the {f} fresh pages touched through a "
       f"tagged pointer ({region}; {tr[t, 'fault']} in all)")
    # The worker's switches, from the scheduler's own events.
    sw, want = tr[pp, "switch"], predicted_switches(d, w)
    ok(want is not None and sw == want,
       f"switch: the ping-pong worker's {sw} for {k} rounds, as sched_switch "
       f"predicts (its enable, each switch from it to another user task, its exit: {want})")
    pp_top = [p for p in reports[-1]["processes"] if p["pid"] == pp] if reports else []
    ok(pp_top and pp_top[0]["mode"] != "none" and pp_top[0]["tag_bits"] == 6,
       "top: the tagged worker shows its mode and 6 tag bits", pp_top)


FALLBACK_SOURCES = {
    "auto": ("fexit/do_arch_prctl_64", "fentry/switch_mm_irqs_off",
             "tp_btf/page_fault_user"),
    "raw": ("kretprobe/do_arch_prctl_64", "kprobe/switch_mm_irqs_off",
            "raw_tp/page_fault_user"),
}


def check_fallback(d, n, m, k, f, g, attach="auto"):
    w = workload(d)
    pt = workload(d, "ptrace.out")
    records = load_ndjson(f"{d}/trace.json")
    reports = load_ndjson(f"{d}/top.json")
    with open(f"{d}/trace.err") as fh:
        err = fh.read()
    with open(f"{d}/outgoing_mm") as fh:
        outgoing = fh.read().strip()
    ctrl, switch, fault = FALLBACK_SOURCES[attach]
    ok("untag=unavailable" in err and "gp=unavailable" in err,
       "the tool says untag and gp are unavailable", err)
    ok(f"ctrl={ctrl}" in err, f"enables come from {ctrl}", err)
    ok(f"switch={switch}" in err, f"mode switches come from {switch}", err)
    ok(f"fault={fault}" in err, f"faults come from {fault}", err)
    ok(f"outgoing_mm={outgoing}" in err,
       f"the outgoing mm comes from {outgoing}, as /proc/kallsyms allows", err)
    tr, tp = trace_counts(records), top_counts(reports)
    # ptrace_query: a debugger reads its tracee's mask through
    # do_arch_prctl_64(child, ...): the tracee's own query only counts.
    dbg, tracee = pt["debugger_pid"], pt["tracee_pid"]
    ok(tr[dbg, "ctrl"] == 0 == tp[dbg, "ctrl"],
       "ctrl: a debugger's PTRACE_ARCH_PRCTL queries are not its own",
       f"trace {tr[dbg, 'ctrl']} top {tp[dbg, 'ctrl']}")
    ok(tr[tracee, "ctrl"] == 2 == tp[tracee, "ctrl"],
       "ctrl: the tracee's own enable and query, and no more",
       f"trace {tr[tracee, 'ctrl']} top {tp[tracee, 'ctrl']}")
    records = [r for r in records if r["pid"] not in (dbg, tracee)]
    ok(enables(records) == n + 2, f"ctrl: {n} + 2 arch_prctl enables seen",
       f"got {enables(records)}")
    queries = sum(1 for r in records if r["event"] == "ctrl" and r["op"] == "query")
    ok(queries == n, f"ctrl: {n} ARCH_GET_UNTAG_MASK queries seen", f"got {queries}")
    ok(not any(r["event"] == "untag" for r in records), "no untag records at all")
    last = reports[-1] if reports else {"sources": {}, "processes": []}
    ok(last["sources"].get("untag") == "unavailable" and last["sources"].get("gp") == "unavailable"
       and not any(k in p["total"] or k in p["interval"]
                   for p in last["processes"] for k in ("untag", "gp")),
       "top --json: untag and gp sources unavailable, their counts left out (unknown, not 0)",
       json.dumps(last)[:300])
    pp = w["pingpong_pid"]
    sw = tr[pp, "switch"]
    ok(sw >= k - k // 50,
       f"switch: at least one per round out of the tagged worker ({sw} for {k})")
    ok(all(r["prev_mode"] != r["next_mode"] for r in records if r["event"] == "switch"),
       "every switch record changes the mode")
    # Out of the tagged worker the CPU goes to an untagged task, mostly
    # the workload's main process (tagtrace shares the CPU): next_pid names
    # it (a kretprobe must save the argument at entry). Only the worker's
    # last switch, to init_mm as it exits, has no task: next_pid is its own.
    main = w["main_pid"]
    out = sorted((r for r in records if r["event"] == "switch" and r["pid"] == pp),
                 key=lambda r: r["ts_ns"])
    nexts = Counter(r["next_pid"] for r in out)
    own = [r for r in out[:-1] if r["next_pid"] == pp]
    ok(not own and nexts[main] >= k // 2,
       f"switch: next_pid is the incoming task: the main process {main} "
       f"{nexts[main]} times for {k} rounds, the worker itself {len(own)} "
       "before its exit", nexts.most_common(4))
    t = w["tagged_pid"]
    ok(tr[t, "fault"] >= f, f"fault: at least {f} for {f} tagged pages", tr[t, "fault"])
    bad = [f"pid {p} {kind}: trace {tr[p, kind]} top {tp[p, kind]}"
           for (p, kind) in set(tr) | set(tp) if p in w.values() and tr[p, kind] != tp[p, kind]]
    ok(not bad, "top --json agrees with trace --json for the workload's processes", *bad)


def check_storm(d, m):
    w = workload(d)
    reports = load_ndjson(f"{d}/top.json")
    events, dropped = drops(d)
    ok(dropped is not None and dropped > 0,
       f"trace: a 4 KiB ring buffer under {m} untags drops records and says so",
       f"events {events} dropped {dropped}")
    t = w["tagged_pid"]
    got = top_counts(reports)[t, "untag"]
    ok(got == m, f"top: exactly {m} untags for the storm process despite the drops",
       f"got {got}")
    ok(events is not None and events + dropped == m == got,
       "trace: records printed + dropped == untags made == top's untags",
       f"{events} + {dropped}, {m} made, top {got}")


def last_rows(reports):
    return reports[-1]["processes"] if reports else []


def row_desc(rows):
    return [f"pid {p['pid']} {p['comm']} {p['mode']} {p['tag_bits']} "
            f"{p['total']} exited={p['exited']}" for p in rows]


def check_filter(d, pa, na, pb, nb):
    """-p and -c each keep exactly one of two tagged processes."""
    procs = {pa: ("tagloop", na), pb: ("tagloop_b", nb)}
    for name, want, other in (("top_p", pa, pb), ("top_c", pb, pa)):
        rows = last_rows(load_ndjson(f"{d}/{name}.json"))
        comm, n = procs[want]
        flag = "-p" if name == "top_p" else "-c"
        ok(len(rows) == 1 and rows[0]["pid"] == want and rows[0]["comm"] == comm
           and rows[0]["total"]["untag"] == n and rows[0]["total"]["ctrl"] == 2,
           f"top {flag}: one row, {comm} (pid {want}) with its {n} untags, "
           "enable and query", *row_desc(rows))
    for name, want in (("trace_p", pb), ("trace_c", pa)):
        records = load_ndjson(f"{d}/{name}.json")
        comm, n = procs[want]
        flag = "-p" if name == "trace_p" else "-c"
        alien = [r for r in records if r["pid"] != want or r["comm"] != comm]
        untags = sum(1 for r in records if r["event"] == "untag")
        ok(not alien and untags == n and enables(records) == 1,
           f"trace {flag}: only {comm} (pid {want}): its {n} untags, 1 enable",
           f"{len(alien)} records of others, {untags} untags, "
           f"{enables(records)} enables", *[str(r) for r in alien[:3]])


def check_pidreuse(d, pa, pb, pages=None):
    """A reused PID is a new row; rows are named after the group leader."""
    kind, got = ("fault", "faults") if pages else ("untag", "untags")
    reports = load_ndjson(f"{d}/top.json")
    seen = [p for r in reports for p in r["processes"]]
    last = last_rows(reports)
    new = [p for p in last if p["pid"] == pa and p["comm"] == "tagquery"]
    ok(len(new) == 1 and new[0]["total"][kind] == 0
       and new[0]["total"]["ctrl"] == 1 and new[0]["mode"] == "none"
       and new[0]["tag_bits"] == 0,
       f"top: the new process with pid {pa} has its own name, mode none, "
       f"1 query and no {got}", *row_desc([p for p in last if p["pid"] == pa]))
    # The old process: tagloop's 50 tagged uname() calls (untags), or
    # with pages its 50 page writes through a tagged pointer (its faults
    # with a tag; its others, stack and libc, are a tagged process's too).
    def count(p):
        return p["tagged_faults"] if pages else p["total"]["untag"]
    old = [p for p in seen if p["pid"] == pa and p["comm"] != "tagquery"]
    ok(old and count(old[-1]) == 50 and old[-1]["comm"] == "true"
       and old[-1]["mode"] == "none" and old[-1]["tag_bits"] == 0,
       f"top: the old process {pa}: exactly its 50 {got}, named and untagged as "
       "after its exec of true", *row_desc(old[-1:]))
    ok(old and old[-1]["exited"], "top: the old process is marked exited",
       *row_desc(old[-1:]))
    b = [p for p in seen if p["pid"] == pb]
    ok(b and b[-1]["comm"] == "tagloop" and count(b[-1]) == 20
       and b[-1]["total"]["ctrl"] == 2,
       f"top: a process whose thread 'worker' made its query and {got} is "
       "named after its leader, tagloop", *row_desc(b[-1:]))


def tracefs_modes(d):
    """tagged_addr_mode_switch events between two mms: (prev, next) -> n."""
    counts = Counter()
    with open(f"{d}/tracefs.txt") as f:
        for line in f:
            m = re.search(r"tagged_addr_mode_switch: .*prev_mm=(\d+) "
                          r"next_mm=(\d+) .*prev_mode=(\w+) next_mode=(\w+)",
                          line)
            if m and m.group(1) != m.group(2):
                counts[m.group(3), m.group(4)] += 1
    return counts


def check_hist(d, k, mode, attach="auto"):
    """hist per (prev mode, next mode): tracefs's mode switches, the
    workload's known transitions, the kprobe count in total."""
    reports = load_ndjson(f"{d}/hist.json")
    with open(f"{d}/hist.err") as fh:
        err = fh.read()
    with open(f"{d}/kprobes") as fh:
        kprobes = int(fh.read())
    with open(f"{d}/outgoing_mm") as fh:
        outgoing = fh.read().strip()
    src = "kprobe" if attach == "raw" else "fentry"
    ok(f"hist={src}/switch_mm_irqs_off" in err and
       f"outgoing_mm={outgoing}" in err,
       f"hist times with {src}, the outgoing mm from {outgoing}", err)
    hist = Counter()
    for r in reports:
        for h in r["histograms"]:
            hist[h["prev_mode"], h["next_mode"]] += h["count"]
    total = sum(hist.values())
    ok(total == kprobes > 0,
       f"hist: {total} switch_mm calls, as many as the kprobe event counted",
       f"kprobe event: {kprobes}")
    for t in ((mode, "none"), ("none", mode)):
        ok(hist[t] >= k - k // 50,
           f"hist: {t[0]} -> {t[1]} at least once a ping-pong round "
           f"({hist[t]} for {k})", dict(hist))
    if os.path.exists(f"{d}/tracefs.txt"):
        tfs = tracefs_modes(d)
        changes = {t: n for t, n in hist.items() if t[0] != t[1]}
        ok(changes == dict(tfs),
           "hist: switches per mode transition equal tracefs's "
           "tagged_addr_mode_switch events between two mms",
           f"hist {changes}", f"tracefs {dict(tfs)}")


def main():
    mode, d, *args = sys.argv[1:]
    nums = [int(x) for x in args if x.isdigit()]
    extra = [x for x in args if not x.isdigit()]
    {"counts": check_counts, "fallback": check_fallback,
     "storm": check_storm, "filter": check_filter,
     "pidreuse": check_pidreuse, "hist": check_hist}[mode](d, *nums, *extra)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
