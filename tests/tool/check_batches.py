#!/usr/bin/python3
"""When `tagtrace trace` printed what BPF queued (tests/tool/batch-guest.sh).

  check_batches.py read FIFO ARRIVALS
  check_batches.py check SAME OTHER

read stamps each read of trace's output with CLOCK_MONOTONIC, BPF's clock:
"NS LINE" a line. check judges the two runs' directories (arrivals,
batches.out, tracefs.txt on the monotonic clock, trace.err) against
wakeup_flags() in bpf/tagtrace.bpf.c and POLL_NS in src/trace.c:

- a record into an empty buffer, a millisecond or more after the last
  wake-up, wakes trace (BPF_RB_FORCE_WAKEUP), and so does the one that
  brings 64 records unread, and past that mark every record whose place
  in the run is a multiple of 64; every other is queued without
  (BPF_RB_NO_WAKEUP). Where trace shares the CPU with a SCHED_FIFO burst
  it cannot read during the burst, so each flag is known;
- a record that woke trace is printed at once (within AT_ONCE of its
  event, or of its burst's end where trace could not run before);
- trace wakes on its own every 0.1 s (POLL), not earlier, and no later
  than SLACK past it: a record that did not wake trace and was not read
  with the one that did is printed by that poll.
"""
import fcntl
import json
import os
import re
import sys
import time

import tap
from tap import ok

FORCE, NO_WAKEUP = 2, 1			# BPF_RB_FORCE_WAKEUP, BPF_RB_NO_WAKEUP
WAKE_EVERY = 64				# records unread that wake trace
POLL = 100_000_000			# src/trace.c's POLL_NS
RATE = 1_000_000			# targ_wakeup_ns, src/session.c
# Under --icount (guest time counts instructions: a loaded host cannot
# stall it) trace printed a woken record within 1.7 ms and woke on its
# timer 100.1-100.2 ms apart, in five runs: AT_ONCE is a tenth of
# the poll, SLACK as much again.
AT_ONCE = 10_000_000
SLACK = 10_000_000
F_SETPIPE_SZ = 1031


def read(fifo, path):
    """Stamp trace's output as it comes, from FIFO into PATH. Says
    "ready" on stderr before it opens FIFO, so that trace starts after
    Python did; takes a large pipe, so that trace never waits on it."""
    print("ready", file=sys.stderr, flush=True)
    fd = os.open(fifo, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    out, rest = [], b""
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        t = time.monotonic_ns()
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        out += [f"{t} {line.decode()}" for line in lines]
    with open(path, "w") as f:
        f.write("".join(s + "\n" for s in out))
    return 0


TRACEFS = re.compile(r"^\s*.+-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$")


def load(d):
    """The run in d: records (ts, arrival) in event order, steps
    (kind, n, start, end), BPF's flags in order, trace's wake-ups."""
    records = []
    with open(f"{d}/arrivals") as f:
        for line in f:
            t, _, rec = line.rstrip("\n").partition(" ")
            r = json.loads(rec)
            records.append((r["ts_ns"], int(t)))
    records.sort()
    steps = []
    with open(f"{d}/batches.out") as f:
        for line in f:
            kind, n, start, end = line.split()
            steps.append((kind, int(n), int(start), int(end)))
    flags, wakeups = [], []
    with open(f"{d}/tracefs.txt") as f:
        for line in f:
            m = TRACEFS.match(line)
            if not m:
                continue
            ts = int(m.group(3)) * 1_000_000_000 + int(m.group(4).ljust(9, "0"))
            if m.group(5) == "tt_rb_output":
                flags.append((ts, int(re.search(r"flags=(\w+)", m.group(6)).group(1), 0)))
            elif m.group(5) == "sched_wakeup":
                wakeups.append(ts)
    with open(f"{d}/trace.err") as f:
        m = re.search(r"(\d+) events, (\d+) dropped", f.read())
    return records, steps, flags, wakeups, m and (int(m.group(1)), int(m.group(2)))


def ms(ns):
    return f"{ns / 1e6:.1f} ms"


def common(d, what, records, steps, flags, counted):
    """Every record printed, one flag each, each in its step's window."""
    n = sum(s[1] for s in steps)
    ok(counted == (n, 0) and len(records) == n == len(flags),
       f"{what}: trace printed the {n} records made, none dropped, each "
       "passed to bpf_ringbuf_output() once",
       f"trace said {counted}, printed {len(records)}, kprobe {len(flags)}")
    i, bad = 0, []
    for kind, k, start, end in steps:
        inside = [r for r in records[i:i + k] if start <= r[0] <= end]
        if len(inside) != k:
            bad.append(f"{kind} {k} at {start}: {len(inside)} records inside")
        i += k
    ok(not bad, f"{what}: each record falls in its burst's window", *bad[:5])


def woken_flags(k, first):
    """A burst of k into an empty buffer, read by nobody meanwhile, its
    first record the run's record number first (from 0)."""
    return [FORCE if i == 0 or (i >= WAKE_EVERY - 1 and (
        i == WAKE_EVERY - 1 or (first + i + 1) % WAKE_EVERY == 0))
        else NO_WAKEUP for i in range(k)]


def poll_gaps(wakeups, flags):
    """Gaps between trace's consecutive wake-ups with no record between:
    its timer's."""
    times = [t for t, _ in flags]
    gaps, j = [], 0
    for a, b in zip(wakeups, wakeups[1:]):
        while j < len(times) and times[j] <= a:
            j += 1
        if j == len(times) or times[j] > b:
            gaps.append(b - a)
    return gaps


def check_same(d):
    """trace on the workload's CPU: BPF's every flag is known."""
    what = "trace on the bursts' CPU"
    records, steps, flags, wakeups, counted = load(d)
    common(d, what, records, steps, flags, counted)
    want = []
    for _, k, _, _ in steps:
        want += woken_flags(k, len(want))
    got = [f for _, f in flags]
    diff = [f"record {i}: flags {g}, want {w}" for i, (g, w) in
            enumerate(zip(got, want)) if g != w]
    ok(got == want, f"{what}: singles and the first of each burst wake trace, so "
       f"does the {WAKE_EVERY}th record of a burst and past it each "
       f"{WAKE_EVERY}th of the run, no other record does "
       f"({got.count(FORCE)} wake-ups of {len(got)})", *diff[:6])
    late, i, worst = [], 0, 0
    for kind, k, start, end in steps:
        for ts, arrival in records[i:i + k]:
            since = arrival - (ts if k == 1 else end)
            worst = max(worst, since)
            if since > AT_ONCE:
                late.append(f"{kind} {k}: record at {ts} printed {ms(since)} after")
        i += k
    ok(records and not late, f"{what}: every record printed within {ms(AT_ONCE)} "
       "of its event (singles) or its burst's end", *late[:6])
    gaps = poll_gaps(wakeups, flags)
    bad = [ms(g) for g in gaps if not POLL <= g <= POLL + SLACK]
    print(f"# {what}: timer wake-ups {len(gaps)}, gaps {ms(min(gaps, default=0))}"
          f"..{ms(max(gaps, default=0))}; worst latency {ms(worst)}")
    ok(len(gaps) >= len(steps) and not bad,
       f"{what}: with nothing queued trace wakes every {ms(POLL)}, not earlier, "
       f"at most {ms(SLACK)} later ({len(gaps)} wake-ups in the pauses)", *bad[:6])


def check_other(d):
    """trace on another CPU: pairs, the second meant to come within the
    millisecond after the first woke trace (a loaded host's TCG may stall
    the guest between them: those pairs say less)."""
    what = "trace on the other CPU"
    records, steps, flags, wakeups, counted = load(d)
    common(d, what, records, steps, flags, counted)
    bad, near, polled = [], 0, 0
    pairs = zip(records[::2], records[1::2], flags[::2], flags[1::2])
    for (t0, a0), (t1, a1), (_, f0), (_, f1) in pairs:
        woke = [w for w in wakeups if w >= t0]
        if f0 != FORCE:
            bad.append(f"first at {t0}: flags {f0}, want {FORCE}")
        if t1 - t0 < RATE:
            near += 1
            if f1 != NO_WAKEUP:
                bad.append(f"second at {t1}, {ms(t1 - t0)} after: flags {f1}, want {NO_WAKEUP}")
        if a0 - t0 > AT_ONCE:
            bad.append(f"first at {t0} printed {ms(a0 - t0)} after")
        if a1 - t1 <= AT_ONCE:
            continue	# it woke trace, or was read with the first
        if f1 == FORCE:
            bad.append(f"second at {t1} woke trace, printed {ms(a1 - t1)} after")
            continue
        polled += 1
        if not woke or a1 - woke[0] < POLL or a1 - t1 > POLL + SLACK:
            bad.append(f"second at {t1} printed {ms(a1 - t1)} after, "
                       f"{ms(a1 - woke[0]) if woke else '?'} after trace woke")
    print(f"# {what}: {near} of {len(steps)} pairs less than {ms(RATE)} apart, "
          f"{polled} second records printed by the poll")
    ok(records and not bad and polled, f"{what}: the first of each pair wakes trace and is "
       f"printed within {ms(AT_ONCE)}; a second within {ms(RATE)} of it does not "
       f"wake trace and is printed with it or by the next poll (some are), at least "
       f"{ms(POLL)} after trace woke and within {ms(POLL + SLACK)} "
       f"({near} such pairs, {polled} by the poll)", *bad[:6])


def main():
    if sys.argv[1:2] == ["read"]:
        return read(*sys.argv[2:4])
    check_same(sys.argv[2])
    check_other(sys.argv[3])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
