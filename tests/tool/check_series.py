#!/usr/bin/python3
"""check_series.py BEFORE AFTER PID N M: two `tagtrace top --openmetrics`
files, read before and after process PID exec'd under a new name
(omseries-guest.sh), give that process the same series: in every family
its samples have the same labels in both files, one sample each; its
untags are N, then N + M; its comm is only in tagtrace_process_info,
"next" before and "ttexecb" after. Prints TAP, unnumbered.
"""
import sys

import tap
from check_openmetrics import parse
from tap import ok


def samples(path, pid):
    """family -> [labels of pid's samples, value], parse errors"""
    try:
        with open(path) as f:
            families, errors = parse(f.read())
    except OSError as e:
        return None, [str(e)]
    got = {}
    for fam, f in families.items():
        for _, labels, v in f["samples"]:
            if labels.get("pid") == str(pid):
                got.setdefault(fam, []).append((labels, v))
    return got, errors


def main():
    before, after = sys.argv[1:3]
    pid, n, m = (int(x) for x in sys.argv[3:6])
    a, a_err = samples(before, pid)
    b, b_err = samples(after, pid)
    ok(a is not None and b is not None and not a_err and not b_err,
       "both files were written and are strict OpenMetrics",
       *(a_err + b_err)[:5])
    if a is None or b is None:
        return tap.done()
    info = "tagtrace_process_info"
    fams = sorted((set(a) | set(b)) - {info})
    bad = [f"{fam}: {[l for l, _ in a.get(fam, [])]} then "
           f"{[l for l, _ in b.get(fam, [])]}" for fam in fams
           if len(a.get(fam, [])) != 1 or len(b.get(fam, [])) != 1 or
           a[fam][0][0] != b[fam][0][0]]
    ok(fams and not bad, f"process {pid} keeps one series in each of "
       f"{len(fams)} families across exec", *bad[:10])
    untags = [x.get("tagtrace_untags", [({}, None)])[0][1] for x in (a, b)]
    ok(untags == [n, n + m], f"its untags continue: {n}, then {n + m}",
       f"got {untags}")
    comms = [[l.get("comm") for l, _ in x.get(info, [])] for x in (a, b)]
    ok(comms == [["next"], ["ttexecb"]],
       f"its comm is in {info} alone: next, then ttexecb", f"got {comms}")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
