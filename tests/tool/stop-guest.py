#!/usr/bin/python3
"""stop-guest.py: tagtrace stops on time under an unpaced storm. Prints
TAP, unnumbered. make check runs it on two vCPUs, the storm beside the
tool: attaching and detaching switch the untag tracepoint on and off while
the storm runs through its site on the other vCPU. (That once panicked
the guest, "Oops: int3" at the site, until the rig's QEMU stopped
running translations of code already rewritten: tests/vm/qemu/0010.)
Both vCPU counts fail the old tagtrace (one: SIGINT 6.7 s, -d 1 not done
in 30 s; two: SIGINT 2.6 s).

- SIGINT ends `trace -e untag > /dev/null` within LIMIT seconds;
- `trace -d N` exits within N + LIMIT seconds of the attach (the moment it
  says "Ctrl-C to stop", which it prints once attached);
- a second SIGINT kills it: stdout is a pipe nobody reads, so the last
  drain after the first SIGINT blocks, and only the default action of a
  second one can end it;
- `top` and `hist` end their report wait on SIGINT within LIMIT too.

Each timed check makes TRIES attempts, all printed, and passes when at
least NEED of them exit 0 within the limit: on a host whose other work
takes the vCPUs' threads away, one attempt can stall seconds (SIGINT
0.2 s, then 2.8 s, then 1.0 s in three runs beside a kernel build), but a
tool that drains an unpaced storm before it exits is slow in every
attempt: the tool before its stop context (575d86f^) was killed after
30 s in all three, for SIGINT and for -d 1 and -d 2.

Besides the times, one bound that no load moves: after SIGINT, trace
prints at most what was queued, a full ring buffer (--ringbuf-size 64 KiB
here) and what its stdout buffer and the pipe held; it is counted in
lines read after the signal.
"""
import threading
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok  # noqa: E402
import tap  # noqa: E402

TT = os.environ.get("TAGTRACE", "build/tool/tagtrace")
STORM = "build/vm/storm"
LIMIT = 0.5
TRIES = 3
NEED = 2
RINGBUF = 65536
# The smallest a record takes in the ring buffer: its 8-byte header and
# struct tt_record (bpf/tagtrace.h: 40 bytes before the union, 48 for its
# largest member), rounded to 8.
RECORD = 8 + 88
PIPE = 65536		# Linux's default pipe capacity
STDOUT_BUF = 65536	# trace's stdout buffer (README: 64 KiB)


def start(args, stdout=subprocess.DEVNULL):
    """tagtrace ARGS, once attached: (process, attach time, stderr lines)."""
    p = subprocess.Popen([TT] + args, stdout=stdout, stderr=subprocess.PIPE,
                         text=True)
    lines = []
    for line in p.stderr:
        lines.append(line.rstrip("\n"))
        if "Ctrl-C to stop" in line:
            return p, time.monotonic(), lines
    p.wait()
    return p, None, lines


def finish(p, lines, timeout=30):
    """Waits for p (killing it after timeout); its exit status, the rest of stderr."""
    try:
        rc = p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    lines += [x.rstrip("\n") for x in p.stderr]
    return rc


def interrupt(args, after, attached=None, sig=signal.SIGINT):
    """Starts tagtrace ARGS, sends SIGINT `after` seconds after the attach:
    its status, the seconds from the signal to its exit (-1 if it never
    attached), its stderr lines. Appends whether it attached to attached."""
    p, t0, lines = start(args)
    if attached is not None:
        attached.append(t0 is not None)
    if t0 is None:
        return finish(p, lines), -1, lines
    time.sleep(after)
    t = time.monotonic()
    p.send_signal(sig)
    rc = finish(p, lines)
    return rc, time.monotonic() - t, lines


def attempts(attempt, limit):
    """Runs attempt() (it returns status, seconds, stderr lines) TRIES
    times: whether NEED of them exited 0 within limit, the median
    attempt's seconds, every attempt's seconds and status, the stderr of
    the slowest."""
    runs = [attempt() for _ in range(TRIES)]
    good = [r for r in runs if r[0] == 0 and 0 < r[1] <= limit]
    took = sorted(r[1] for r in runs)[TRIES // 2]
    slow = max(runs, key=lambda r: (r[0] != 0, r[1]))
    return (len(good) >= NEED, took, slow[2],
            " ".join(f"{r[1]:.3f}" + ("" if r[0] == 0 else f"(status {r[0]})")
                     for r in runs))


def wait_wchan(pid, want, timeout=10):
    """Until the main thread of pid waits in want (its /proc wchan, else
    its kernel stack): True, or False after timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for f in ("wchan", "stack"):
            try:
                with open(f"/proc/{pid}/{f}") as fh:
                    if want in fh.read():
                        return True
            except OSError:
                pass
        time.sleep(0.01)
    return False


def main():
    storm = subprocess.Popen([STORM, "1000000000"], stdout=subprocess.DEVNULL)
    try:
        run(storm)
    finally:
        storm.kill()
        storm.wait()
    return tap.done()


def run(storm):
    # SIGINT during the storm.
    attached = []
    good, took, lines, runs = attempts(
        lambda: interrupt(["trace", "-e", "untag"], 1, attached), LIMIT)
    ok(all(attached), "trace attached during the storm", *lines[:3])
    summary = [x for x in lines if "dropped" in x]
    ok(good, f"SIGINT during an unpaced storm: trace exits 0 within {LIMIT} s in "
       f"{NEED} of {TRIES} attempts (s: {runs})", *lines[-3:])
    print(f"# {summary[-1] if summary else 'no summary'}")

    # SIGTERM, as a service manager stops it, ends trace and top alike.
    for cmd in (["trace", "-e", "untag"], ["top", "-i", "60"]):
        good, took, lines, runs = attempts(
            lambda: interrupt(cmd, 1, sig=signal.SIGTERM), LIMIT)
        ok(good, f"SIGTERM during the storm: {cmd[0]} exits 0 within {LIMIT} s in "
           f"{NEED} of {TRIES} attempts (s: {runs})", *lines[-3:])

    # -d N during the storm.
    for n in (1, 2):
        def duration():
            p, t0, lines = start(["trace", "-e", "untag", "-d", str(n)])
            rc = finish(p, lines)
            return rc, time.monotonic() - t0 if t0 else -1, lines

        good, took, lines, runs = attempts(duration, n + LIMIT)
        ok(good, f"-d {n} during the storm: exits 0 within {n + LIMIT} s of attaching in "
           f"{NEED} of {TRIES} attempts (s: {runs})", *lines[-3:])

    # After SIGINT, at most what was queued is printed: lines read from
    # the pipe after the signal, against a full ring buffer's records plus
    # what the stdout buffer and the pipe can hold in lines this short.
    p, t0, lines = start(["trace", "-e", "untag", "--ringbuf-size", str(RINGBUF)],
                         stdout=subprocess.PIPE)
    got = {"n": 0, "short": 1 << 30}

    def reader():
        for line in p.stdout:
            got["n"] += 1
            got["short"] = min(got["short"], len(line))
    th = threading.Thread(target=reader)
    th.start()
    time.sleep(0.5)
    before = got["n"]
    p.send_signal(signal.SIGINT)
    rc = finish(p, lines)
    th.join()
    after = got["n"] - before
    bound = RINGBUF // RECORD + (PIPE + STDOUT_BUF) // got["short"]
    ok(rc == 0 and before > 0 and after <= bound,
       f"after SIGINT trace printed {after} lines, at most a full {RINGBUF}-byte ring "
       f"buffer and its output buffers ({bound}; {before} before the signal)",
       f"status {rc}", *lines[-3:])

    # A second SIGINT kills: the first one's drain blocks on a full pipe.
    p, t0, lines = start(["trace", "-e", "untag"], stdout=subprocess.PIPE)
    blocked = wait_wchan(p.pid, "pipe_write")
    ok(blocked, "trace blocks writing into a full pipe nobody reads (its wchan: pipe_write)")
    p.send_signal(signal.SIGINT)
    time.sleep(0.5)
    alive = p.poll() is None
    ok(alive, "after one SIGINT, trace still prints what was queued into a full pipe")
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "still running 5 s later"
    p.stdout.close()
    ok(rc == -signal.SIGINT, "a second SIGINT kills trace", f"status {rc}")

    # top and hist: the wait for the next report ends on SIGINT.
    for cmd in (["top", "-i", "60"], ["hist", "-i", "60"]):
        good, took, lines, runs = attempts(lambda: interrupt(cmd, 0.5), LIMIT)
        ok(good, f"{cmd[0]} -i 60: SIGINT ends it with status 0 within {LIMIT} s in "
           f"{NEED} of {TRIES} attempts (s: {runs})", *lines[-3:])
    ok(storm.poll() is None, "the storm ran throughout")


if __name__ == "__main__":
    sys.exit(main())
