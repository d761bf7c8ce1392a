#!/usr/bin/python3
"""stop-guest.py: tagtrace stops on time under an unpaced storm. Prints
TAP. make check runs it on one vCPU under --icount (tests/vm/run: guest
time counts instructions), so that the storm, the tool and the reader of
its output take turns as the guest's scheduler decides, in instructions:
how far the storm outruns the tool is the same on an idle host and on a
loaded one. The storm makes far more records than trace prints to its
reader, which takes PACE bytes at a time, PACE_S apart: the ring buffer
stays full, records are dropped (each check says how many), and a drain
that runs until the buffer is empty never ends. The tool before its stop
context (575d86f^) drained so, and was killed after 30 s, for SIGINT and
for -d 1 and -d 2. Judged, from what the tools print and their status:

- SIGINT, and SIGTERM as a service manager sends it: trace exits 0, and of
  the records it prints at most BOUND are from after the signal (their
  times, BPF's CLOCK_MONOTONIC, against the guest's clock when kill()
  returned): a full ring buffer (--ringbuf-size 64 KiB here), the record
  in hand when the stop came, and one a CPU whose program was still
  running at the detach. What was queued before the signal is printed, as
  it should be, and not counted;
- `trace -d N`: exits 0, not before N s after it was started, and at most
  BOUND of the records it prints are from later than N s after the attach
  (the times trace prints count from it);
- a second SIGINT kills: stdout is a pipe nobody reads, so trace blocks in
  pipe_write; once the first SIGINT's handler ran (/proc's SigCgt no
  longer has SIGINT), trace is blocked there again, writing what was
  queued, and only the default action of a second SIGINT ends it;
- `top` and `hist` -i 2 on SIGINT, and top on SIGTERM: exit 0 with one
  report, whose interval is shorter than the 2 s asked for: the signal,
  not the interval, ended their report wait.

What a stop lets through is bounded by the buffers, whatever the clocks
say. The other bounds, INTERVAL and GUARD, are guest time, which under
--icount counts instructions and does not move with the host's load. The
times from each signal to the exit are printed as comments, in guest
time; a wall-clock figure is tests/bench/stop-time.sh's.

Why one vCPU: without --icount the host decides how fast each vCPU runs,
and with the storm on another vCPU a tool that drains until the buffer is
empty caught up with it and stopped within the bound in 6 of 12 checks
beside a load. With two vCPUs under --icount QEMU runs them in turn, and
trace's stop took 7 to 9 s of guest time, nearly all of it detaching the
untag event: a cross-CPU sync for each of its call sites, each waiting
out the other vCPU's turn. Attaching and detaching while other vCPUs run
through the sites is tests/vm/xmodify-guest.sh's.

A wait for an exit gives up after GUARD seconds of guest time (-d N:
N + GUARD) and kills: that ends a tool that never stops within the rig's
timeout, where one that works took 0.25 s at most after a signal, and
0.14 s past N with -d N.
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok  # noqa: E402
import tap  # noqa: E402

TT = os.environ.get("TAGTRACE", "build/tool/tagtrace")
STORM = "build/vm/storm"
GUARD = 5
INTERVAL = 2		# top and hist's report interval
RINGBUF = 65536
# What a record takes in the ring buffer: its 8-byte header and struct
# tt_record (bpf/tagtrace.h: 88 bytes; every record is one whole).
RECORD = 8 + 88
PACE = 8192		# what the reader takes at a time
PACE_S = 0.01		# and how long it waits after each
RUN = 0.5		# seconds of storm before trace's stop
# Records from after the stop that trace may print: a full ring buffer, the
# one in hand, and one a CPU whose program outlived the detach.
BOUND = RINGBUF // RECORD + 1 + os.cpu_count()
TOOL_CPU = "0"
STORM_CPU = str(os.cpu_count() - 1)
SUMMARY = re.compile(r"tagtrace: (\d+) events, (\d+) dropped")


class Printed:
    """What a tagtrace process prints on stdout, read by a thread PACE
    bytes at a time, PACE_S apart: parse(line) of each line that has a
    value. `after` set, `newer` counts the values above it (from when it
    was set: an early count, exact only in count())."""

    def __init__(self, p, parse, after=None):
        self.values = []
        self.after = after
        self.newer = 0
        self.thread = threading.Thread(target=self.read, args=(p, parse))
        self.thread.start()

    def read(self, p, parse):
        fd, rest = p.stdout.fileno(), b""
        while True:
            chunk = os.read(fd, PACE)
            if not chunk:
                break
            time.sleep(PACE_S)
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                v = parse(line)
                if v is None:
                    continue
                self.values.append(v)
                if self.after is not None and v > self.after:
                    self.newer += 1

    def count(self, after):
        """The values above after."""
        self.thread.join()
        return sum(1 for v in self.values if v > after)


def ts_ns(line):
    """A JSON record's event time, ns of CLOCK_MONOTONIC."""
    if line.startswith(b'{"ts_ns":'):
        return int(line[9:line.index(b",", 9)])
    return None


def seconds(line):
    """A text record's time, s since the attach (None: the header)."""
    try:
        return float(line.split(None, 1)[0])
    except (IndexError, ValueError):
        return None


def report(line):
    """A top or hist JSON report's interval, in s."""
    m = re.search(rb'"interval_s":([0-9.e+-]+)', line)
    return float(m.group(1)) if m else None


def start(args, stdout=subprocess.DEVNULL):
    """tagtrace ARGS on TOOL_CPU, once attached: (process, whether it
    attached, stderr lines so far)."""
    p = subprocess.Popen(["taskset", "-c", TOOL_CPU, TT] + args, stdout=stdout,
                         stderr=subprocess.PIPE)
    lines = []
    for line in p.stderr:
        lines.append(line.decode(errors="replace").rstrip("\n"))
        if "Ctrl-C to stop" in lines[-1]:
            return p, True, lines
    p.wait()
    return p, False, lines


def finish(p, lines, hopeless=lambda: False, guard=GUARD):
    """Waits for p, killing it after guard seconds or once hopeless() (it
    printed more than it may: waiting longer shows nothing more). Its exit
    status and the guest's clock at its exit; the rest of stderr into
    lines."""
    ended = {}

    def reap():
        ended["rc"] = p.wait()
        ended["at"] = time.monotonic()
    th = threading.Thread(target=reap)
    th.start()
    end = time.monotonic() + guard
    while th.is_alive() and time.monotonic() < end and not hopeless():
        th.join(0.05)
    if th.is_alive():
        p.kill()
        th.join()
    lines += [x.decode(errors="replace").rstrip("\n") for x in p.stderr]
    return ended["rc"], ended["at"]


def dropped(lines):
    """The records trace's summary says were dropped, -1 without one."""
    for line in lines:
        m = SUMMARY.search(line)
        if m:
            return int(m.group(2))
    return -1


def until(cond, guard=GUARD):
    """Polls cond() until it holds or guard seconds passed: its value."""
    end = time.monotonic() + guard
    while not cond() and time.monotonic() < end:
        time.sleep(0.01)
    return cond()


def waits_in(pid, want):
    """Whether the main thread of pid waits in want (its /proc wchan, else
    its kernel stack)."""
    for f in ("wchan", "stack"):
        try:
            with open(f"/proc/{pid}/{f}") as fh:
                if want in fh.read():
                    return True
        except OSError:
            pass
    return False


def catches(pid, sig):
    """Whether pid has a handler for sig (/proc's SigCgt)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def main():
    storm = subprocess.Popen(["taskset", "-c", STORM_CPU, STORM, "1000000000"],
                             stdout=subprocess.DEVNULL)
    try:
        run(storm)
    finally:
        storm.kill()
        storm.wait()
    return tap.done()


def signalled(sig, attached):
    """trace, its records as JSON, signalled RUN s into the storm."""
    name = signal.Signals(sig).name
    p, up, lines = start(["trace", "--json", "-e", "untag",
                          "--ringbuf-size", str(RINGBUF)], stdout=subprocess.PIPE)
    attached.append(up)
    printed = Printed(p, ts_ns)
    sent = None
    if up:
        time.sleep(RUN)
        p.send_signal(sig)
        sent = time.monotonic_ns()
        printed.after = sent
    rc, at = finish(p, lines, lambda: printed.newer > BOUND)
    newer = printed.count(sent) if up else -1
    drops = dropped(lines)
    ok(up and rc == 0 and drops > 0 and 0 <= newer <= BOUND,
       f"{name} during an unpaced storm ({drops} records dropped): trace exits 0 "
       f"and prints {newer} records from after the signal, at most a full "
       f"{RINGBUF >> 10} KiB ring buffer, the one in hand and one a CPU ({BOUND})",
       f"status {rc}; {len(printed.values)} records printed", *lines[-3:])
    if up:
        print(f"# ended {at - sent / 1e9:.3f} s of guest time after the {name}")


def duration(n, attached):
    """trace -d n, its records as text."""
    spawned = time.monotonic()
    p, up, lines = start(["trace", "-e", "untag", "-d", f"{n:g}",
                          "--ringbuf-size", str(RINGBUF)], stdout=subprocess.PIPE)
    attached.append(up)
    seen = time.monotonic()
    printed = Printed(p, seconds, after=n)
    rc, at = finish(p, lines, lambda: printed.newer > BOUND, n + GUARD)
    newer = printed.count(n)
    drops = dropped(lines)
    ok(up and rc == 0 and drops > 0 and at - spawned >= n and newer <= BOUND,
       f"-d {n:g} during the storm ({drops} records dropped): trace exits 0, not "
       f"before {n:g} s, and prints {newer} records from after {n:g} s, at most "
       f"{BOUND}", f"status {rc}; exited {at - spawned:.3f} s after it was started; "
       f"{len(printed.values)} records printed", *lines[-3:])
    print(f"# ended {at - seen:.3f} s of guest time after it said it was attached")


def report_wait(cmd, sig, attached):
    """cmd (top or hist) -i INTERVAL, signalled 0.2 s after the attach."""
    name = signal.Signals(sig).name
    p, up, lines = start([cmd, "--json", "-i", str(INTERVAL)], stdout=subprocess.PIPE)
    attached.append(up)
    printed = Printed(p, report)
    if up:
        time.sleep(0.2)
        p.send_signal(sig)
        sent = time.monotonic()
    rc, at = finish(p, lines)
    printed.thread.join()
    got = printed.values
    ok(up and rc == 0 and len(got) == 1 and got[0] < INTERVAL,
       f"{cmd} -i {INTERVAL}: {name} ends its report wait, status 0 and one report "
       f"of less than {INTERVAL} s", f"status {rc}; report intervals (s): {got}",
       *lines[-3:])
    if up:
        print(f"# ended {at - sent:.3f} s of guest time after the {name}")


def run(storm):
    attached = []
    # SIGINT, and SIGTERM as a service manager stops it.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signalled(sig, attached)
    for n in (RUN, 2 * RUN):
        duration(n, attached)

    # A second SIGINT kills: the first one's drain blocks on a full pipe.
    p, up, lines = start(["trace", "-e", "untag"], stdout=subprocess.PIPE)
    attached.append(up)
    blocked = up and until(lambda: waits_in(p.pid, "pipe_write"))
    ok(blocked, "trace blocks writing into a full pipe nobody reads (its wchan: pipe_write)")
    p.send_signal(signal.SIGINT)
    handled = until(lambda: p.poll() is not None or not catches(p.pid, signal.SIGINT))
    back = until(lambda: p.poll() is not None or waits_in(p.pid, "pipe_write"))
    ok(handled and back and p.poll() is None,
       "after one SIGINT (its handler ran: SIGINT no longer caught), trace is "
       "still blocked writing what was queued into the full pipe",
       f"status {p.poll()}; SIGINT caught: {not handled}")
    p.send_signal(signal.SIGINT)
    rc, _ = finish(p, lines)
    p.stdout.close()
    ok(rc == -signal.SIGINT, "a second SIGINT kills trace", f"status {rc}")

    # top and hist: the wait for the next report ends on SIGINT, top's on
    # SIGTERM too.
    report_wait("top", signal.SIGTERM, attached)
    for cmd in ("top", "hist"):
        report_wait(cmd, signal.SIGINT, attached)
    ok(attached and all(attached), "tagtrace attached during the storm, every time "
       f"({attached.count(True)} of {len(attached)})")
    ok(storm.poll() is None, "the storm ran throughout")


if __name__ == "__main__":
    sys.exit(main())
