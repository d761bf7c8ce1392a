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


FAULT_FORMAT = "/sys/kernel/tracing/events/tagged_addr/tagged_addr_fault/format"
# Figures built on fault tags: exact under these names, guessed under
# "guessed_" and the same name (top, tags and trace records).
FAULT_TAG_FIELDS = ("tagged_faults", "fault_tags", "distinct_tags")
RECORD_TAG_FIELDS = ("tagged", "tag", "tagged_ptr")


def kernel_fault_pointer(fault_source):
    """Where tagtrace must say fault tags come from, by the kernel's own
    account: "event" for faults from the tagged_addr_fault event whose
    tracefs format has the pointer field, "registers" for faults from any
    other source (page_fault_user) or an event without it, None where
    faults have no source, "unknown" where the format cannot be read."""
    if fault_source in (None, "unavailable"):
        return None
    if not fault_source.endswith("/tagged_addr"):
        return "registers"
    try:
        with open(FAULT_FORMAT) as f:
            fields = f.read()
    except OSError:
        return "unknown"
    return "event" if re.search(r"\spointer;", fields) else "registers"


def tagged_faults(report, p):
    """A process's faults with a tag, under the name its report gives them."""
    guessed = report["sources"].get("fault_pointer") == "registers"
    return p[("guessed_" if guessed else "") + "tagged_faults"]


def check_fault_names(what, reports):
    """The last report (top or tags --json) says where fault tags come from
    as the kernel does, and names its figures of fault tags accordingly:
    tagged_faults and the rest where exact, guessed_tagged_faults and the
    rest where guessed, neither where faults have no source."""
    last = reports[-1] if reports else {"sources": {}, "processes": []}
    src = last["sources"]
    want = kernel_fault_pointer(src.get("fault"))
    ok(src.get("fault_pointer") == want and want != "unknown",
       f"{what}: sources say fault tags come from {want} "
       f"(faults from {src.get('fault')})", src)
    exact = set(FAULT_TAG_FIELDS) | {"wide_tags.faults"}
    guess = {"guessed_" + k for k in FAULT_TAG_FIELDS} | {"wide_tags.guessed_faults"}
    bad = []
    for p in last["processes"]:
        names = set(p) | {"wide_tags." + k for w in p.get("wide_tags", []) for k in w}
        ex, gs = sorted(names & exact), sorted(names & guess)
        if want == "event":
            good = "tagged_faults" in names and not gs
        elif want == "registers":
            good = "guessed_tagged_faults" in names and not ex
        else:
            good = not gs and not {"tagged_faults", "fault_tags"} & names
        if not good:
            bad.append(f"pid {p['pid']}: exact names {ex}, guessed names {gs}")
    name = {"event": "tagged_faults", "registers": "guessed_tagged_faults"}.get(want)
    ok(not bad and last["processes"],
       f"{what}: every process's faults with a tag are {name} alone "
       f"({len(last['processes'])} processes)" if name else
       f"{what}: no faults with a tag where faults have no source", *bad[:5])


def check_fault_records(what, records, want):
    """trace --json: each fault record's tag under its exact names where
    fault_pointer is event, under guessed_ ones where it is registers."""
    faults = [r for r in records if r["event"] == "fault"]
    exact, guess = set(RECORD_TAG_FIELDS), {"guessed_" + k for k in RECORD_TAG_FIELDS}
    if want == "event":
        bad = [r for r in faults if "tagged" not in r or set(r) & guess]
    else:
        bad = [r for r in faults if "guessed_tagged" not in r or set(r) & exact]
    ok(faults and not bad, f"{what}: each of its {len(faults)} fault records "
       f"names its tag for a {'fact' if want == 'event' else 'guess'} "
       f"({'tagged, tag' if want == 'event' else 'guessed_tagged, guessed_tag'})",
       *[str(r) for r in bad[:3]])


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


def predicted_switches(d, w):
    """The tagged ping-pong worker W's mode switches in its own context:
    its enable (one, loading its mode where it runs: the series'
    mode_switch event, no switch_mm_irqs_off() call), then the calls
    tracefs_run() finds in its context that change the mode: a context
    switch from it to a user task (a kernel thread or idle between keeps
    W's mm loaded, lazy TLB, and the switch out of it is that thread's),
    and, where the kernel made it in W's context, the lazy CPU's switch to
    init_mm as its mm is torn down. None without tt_mm events in
    tracefs.txt."""
    run = tracefs_run(d)
    if run is None:
        return None
    pp = w["pingpong_pid"]
    enabled = any(pid == pp and ev == "tagged_addr_ctrl" and "op=enable" in rest
                  and " ret=0" in rest for pid, ev, rest in tracefs_events(d))
    return enabled + sum(1 for c in run.calls if c.cur == pp and c.changes)


# Any event: task, pid, CPU, event name and the rest ("name: fields", or a
# system call's "name(args)" and "name -> ret").
TRACE_EVENT = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+[\d.]+: (\w+):? ?(.*)$")
SWITCH_ARGS = re.compile(r"prev_comm=(.*) prev_pid=(\d+) .*==> next_comm=(.*) next_pid=(\d+) ")
ARCH_ENABLE_TAGGED_ADDR = 0x4002
MM_ARGS = re.compile(r" next=(0x[0-9a-f]+) tsk=(0x[0-9a-f]+)")


class MmCall:
    """One switch_mm_irqs_off() call: on cpu, in the context of task cur
    (named comm), from the loaded mm to the next, each tagged or not, for
    the task next_pid (a context switch's next task; else the caller's own
    pid: exec, a lazy CPU leaving for init_mm, text_poke())."""
    def __init__(self, cpu, cur, comm, prev_tagged, next_tagged, next_pid):
        self.cpu, self.cur, self.comm = cpu, cur, comm
        self.prev_tagged, self.next_tagged = prev_tagged, next_tagged
        self.next_pid = next_pid

    @property
    def changes(self):
        return self.prev_tagged != self.next_tagged


class Run:
    """What tracefs.txt says the run did: calls, its switch_mm_irqs_off()
    calls (MmCall), and faults, per pid the user-mode page faults the
    fault fallback keeps (see pf_user() in bpf/tagtrace.bpf.c)."""
    def __init__(self, calls, faults):
        self.calls, self.faults = calls, faults


def tracefs_run(d):
    """The switch_mm_irqs_off() calls of the run, from tracefs.txt as
    tracefs_sched and tracefs_fallback record it (kernels with and without
    the tagged_addr events both have these events):
    - tt_mm, a kprobe on switch_mm_irqs_off(), says where each call
      happened; its tsk argument says whose: the task of the sched_switch
      just before it on that CPU (a context switch: nothing between the
      two on the CPU), or none (tsk 0: exec's activate_mm(), or a CPU in
      lazy TLB mode leaving for init_mm, e.g. as an exiting task's mm is
      torn down), or the current task (text_poke(), kthread_use_mm());
      a sched_switch without a tt_mm after it loaded nothing (lazy TLB:
      a kernel thread, or a task past exit_mm());
    - which mm a call loads: the next task's (a context switch); for tsk 0,
      a new mm where the task's next exec or exit event is its exec, else
      init_mm; else the task last switched to that mm (next), or a kernel
      mm (text_poke()'s) nobody was switched to;
    - whether an mm is tagged: from its task's successful
      ARCH_ENABLE_TAGGED_ADDR (sys_exit_arch_prctl after
      sys_enter_arch_prctl's option; on the series also tagged_addr_ctrl's
      enable, prctl included); a child starts as its parent
      (sched_process_fork); exec gives an untagged mm; kernel mms are not;
    - a user-mode fault (exceptions:page_fault_user) at a user address is
      kept where the task's mm is tagged or the address has a tag.
    A Run; None when tracefs.txt has no tt_mm event."""
    with open(f"{d}/tracefs.txt") as f:
        events = [(n, int(m.group(2)), int(m.group(3)), m.group(4), m.group(5))
                  for n, m in enumerate(map(TRACE_EVENT.match, f)) if m]
    # Each task's exec and exit events, in order, for a tsk-0 call to tell
    # exec's new mm from init_mm.
    life = {}
    for n, pid, cpu, ev, rest in events:
        if ev in ("sched_process_exec", "sched_process_exit"):
            life.setdefault(pid, []).append((n, ev))
    tagged, comm, option = {}, {}, {}
    loaded, switched, mm_pid = {}, {}, {}
    calls, faults, seen = [], Counter(), False
    for n, pid, cpu, ev, rest in events:
        if ev == "tt_mm":
            seen = True
            a = MM_ARGS.search(rest)
            mm, tsk = int(a.group(1), 16), int(a.group(2), 16)
            after, was = switched.get(cpu), tagged.get(loaded.get(cpu), False)
            if tsk and after is not None:	# a context switch
                who = nxt = after
            elif tsk:	# text_poke(), kthread_use_mm()
                who, nxt = pid, mm_pid.get(mm)
            elif next((e for k, e in life.get(pid, ()) if k > n),
                      "") == "sched_process_exec":
                who = nxt = pid
                tagged[pid] = False
            else:	# lazy TLB leaves for init_mm
                who, nxt = pid, None
            if nxt is not None:
                mm_pid[mm] = nxt
            calls.append(MmCall(cpu, pid, comm.get(pid, ""), was,
                                tagged.get(nxt, False), who))
            loaded[cpu] = nxt
        switched[cpu] = None
        if ev == "task_rename":
            comm[pid] = re.search(r"newcomm=(.*) oom_score_adj=", rest).group(1)
        elif ev == "sched_switch":
            a = SWITCH_ARGS.search(rest)
            prev, nxt = int(a.group(2)), int(a.group(4))
            comm[prev], comm[nxt] = a.group(1), a.group(3)
            switched[cpu] = nxt
        elif ev == "sched_process_fork":
            a = re.search(r" pid=(\d+) child_comm=(.*) child_pid=(\d+)", rest)
            parent, child = int(a.group(1)), int(a.group(3))
            comm[child] = a.group(2)
            tagged[child] = tagged.get(parent, False)
        elif ev == "sys_arch_prctl":
            a = re.match(r"\(option: ([0-9a-f]+),", rest)
            if a:
                option[pid] = int(a.group(1), 16)
            elif rest.strip() == "-> 0x0" and option.pop(pid, None) == ARCH_ENABLE_TAGGED_ADDR:
                tagged[pid] = True
            else:
                option.pop(pid, None)
        elif (ev == "tagged_addr_ctrl" and "op=enable" in rest
              and " ret=0" in rest):
            tagged[pid] = True
        elif ev == "page_fault_user":
            a = int(re.search(r"address=(0x[0-9a-f]+)", rest).group(1), 16)
            if a < 1 << 63 and (tagged.get(pid, False) or a >> 57):
                faults[pid] += 1
    return Run(calls, faults) if seen else None


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
    check_fault_names("top --json", reports)
    check_fault_records("trace --json", records, kernel_fault_pointer(
        reports[-1]["sources"].get("fault") if reports else None))
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
    everyone = records
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
    # page_fault_user has no pointer: its fault tags are guesses, said so.
    check_fault_names("top --json", reports)
    check_fault_records("trace --json", records, "registers")
    # Every switch record against the switch_mm_irqs_off() calls the
    # kernel's own account predicts (tracefs_run()), task by task (by tid:
    # the calls' context is a thread): the tagged worker's (its enable
    # loads nothing on upstream: LAM's enable writes CR3 directly), the
    # kernel threads' (out of a tagged mm left loaded lazily), the
    # enablers' exits and exec.
    run = tracefs_run(d)
    want = Counter((c.cur, c.next_pid) for c in run.calls if c.changes) if run else Counter()
    got = Counter((r["tid"], r["next_pid"]) for r in everyone if r["event"] == "switch")
    ok(run is not None and got == want,
       f"switch: every record is a mode-changing switch_mm_irqs_off() call of "
       f"tracefs's kprobe, its task and modes from sched_switch, fork, exec, exit "
       f"and arch_prctl, with its incoming task ({sum(got.values())} records, {sum(want.values())} "
       "predicted)", f"records not predicted: {dict(got - want)}",
       f"predicted, no record: {dict(want - got)}")
    pp, main = w["pingpong_pid"], w["main_pid"]
    sw = tr[pp, "switch"]
    pred = [c for c in run.calls if c.changes and c.cur == pp] if run else []
    to_main = sum(1 for c in pred if c.next_pid == main)
    ok(pred and sw == len(pred),
       f"switch: the tagged worker's {sw} for {k} rounds, as predicted ({len(pred)}: "
       f"{to_main} to the main process, the rest to other tasks and its exit)")
    ok(all(r["prev_mode"] != r["next_mode"] for r in records if r["event"] == "switch"),
       "every switch record changes the mode")
    # Out of the tagged worker the CPU goes to an untagged task, mostly
    # the workload's main process (tagtrace shares the CPU): next_pid names
    # it (a kretprobe must save the argument at entry). Only the worker's
    # last switch, to init_mm as it exits, has no task: next_pid is its own.
    out = sorted((r for r in records if r["event"] == "switch" and r["pid"] == pp),
                 key=lambda r: r["ts_ns"])
    nexts = Counter(r["next_pid"] for r in out)
    own = [r for r in out[:-1] if r["next_pid"] == pp]
    ok(not own and out and out[-1]["next_pid"] == pp
       and nexts == Counter(c.next_pid for c in pred),
       f"switch: next_pid is the incoming task: the main process {main} "
       f"{nexts[main]} times for {k} rounds, each as sched_switch says, the "
       f"worker itself {len(own)} before its exit and once at it",
       nexts.most_common(4), Counter(c.next_pid for c in pred).most_common(4))
    # Faults: page_fault_user's, per process, as the fallback keeps them.
    t = w["tagged_pid"]
    lo, hi = w["region_start"], w["region_end"]
    region = sum(1 for r in records if r["event"] == "fault" and r["pid"] == t
                 and lo <= int(r["untagged"], 16) < hi)
    faults = run.faults if run else Counter()
    bad = [f"pid {p}: tracefs {faults[p]} trace {tr[p, 'fault']} top {tp[p, 'fault']}"
           for p in sorted(set(faults) | {p for p, kind in tr if kind == "fault"})
           if not faults[p] == tr[p, "fault"] == tp[p, "fault"]]
    ok(run is not None and not bad and region == f,
       f"fault: per process exactly tracefs's page_fault_user events of tagged "
       f"mms and tagged addresses ({sum(faults.values())}), the tagged "
       f"process's {f} pages touched through a tagged pointer among them ({region})",
       *bad)
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
        return tagged_faults(reports[-1], p) if pages else p["total"]["untag"]
    if pages:
        check_fault_names("top --json", reports)
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
    changes = {t: n for t, n in hist.items() if t[0] != t[1]}
    # The calls in a tagged_workload task's context that change the mode,
    # as tracefs_run() finds them: the ping-pong's K rounds each way
    # (directly, not through a kernel thread: then the kernel thread's
    # call), the enablers' exits and the last one's exec, the tagged
    # process's exit.
    run = tracefs_run(d)
    want = Counter((mode if c.prev_tagged else "none", mode if c.next_tagged else "none")
                   for c in run.calls if c.changes and c.comm == "tagged_workload") if run else None
    ok(run is not None and changes == dict(want),
       f"hist: {mode} -> none {changes.get((mode, 'none'), 0)} times and none -> "
       f"{mode} {changes.get(('none', mode), 0)}, exactly the calls of tracefs's "
       f"kprobe and events that change it for {k} ping-pong rounds, the enablers and the tagged "
       "process", f"hist    {changes}", f"tracefs {dict(want or {})}")
    if os.path.exists(f"{d}/tagged_addr"):
        tfs = tracefs_modes(d)
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
