#!/usr/bin/python3
"""check_openmetrics.py FILE TOP_JSON [--tag-values] [--histograms]: FILE
is strict OpenMetrics text and its counters equal the last report of
`tagtrace top --json` (TOP_JSON), which was written from the same
snapshot. A process's samples are labelled with its pid and start_ns
alone; its comm and mode are in tagtrace_process_info, equal to top's.
With --tag-values (top was given it) FILE has tagtrace_tag_values, adding
up to each process's untag and fault counts; without, it has no such
family. With --histograms it has the switch_mm histograms (where switches
can be timed) and their source; without, neither. Prints TAP, unnumbered.

Fault tags are facts or guesses as the kernel decides (kernel_fault_pointer()
in check_counts.py): tagtrace_source_info's fault sample says which
(fault_pointer), as top --json does, and the faults with a tag, and with
--tag-values the faults by tag value, are in the families of that kind
alone: tagtrace_faults_with_tag and tagtrace_tag_values where exact,
tagtrace_faults_with_guessed_tag and tagtrace_guessed_tag_values where
guessed. The file says when it was written
(tagtrace_openmetrics_last_success_timestamp_seconds, a gauge in seconds,
its mtime or just before) and how many writes failed before it: none, or
some with --failed-writes.

The parser follows the OpenMetrics 1.0 text format: metadata lines before
their family's samples, each family once, counter samples named
<family>_total, histograms with cumulative _bucket samples in increasing
"le" order ending at +Inf, equal to _count, then _count and _sum; label
values quoted with \\\\, \\" and \\n escapes; no duplicate samples; "# EOF"
last, with a newline. A family whose event has no source (tagtrace_source_info
says "unavailable") must be absent, not 0.
"""
import json
import math
import os
import re
import sys

import tap
from tap import ok
from check_counts import kernel_fault_pointer

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL})(?:,{LABEL})*)?\}})? (\S+)$")
TYPES = {"counter", "gauge", "histogram", "unknown", "info", "stateset",
         "gaugehistogram", "summary"}


def parse(text):
    """family -> {"type", "unit", "help", "samples": [(name, labels, value)]}"""
    errors, families, cur, seen = [], {}, None, set()
    if not text.endswith("# EOF\n"):
        errors.append("does not end with '# EOF' and a newline")
    lines = text.split("\n")[:-1]
    for n, line in enumerate(lines, 1):
        if line == "# EOF":
            if n != len(lines):
                errors.append(f"line {n}: '# EOF' before the end")
            break
        m = re.match(rf"^# (TYPE|HELP|UNIT) ({NAME}) (.*)$", line)
        if m:
            kind, fam, arg = m.groups()
            if fam not in families:
                families[fam] = {"type": "unknown", "samples": []}
                if fam in seen:
                    errors.append(f"line {n}: family {fam} interleaved")
                seen.add(fam)
            elif families[fam]["samples"]:
                errors.append(f"line {n}: metadata after samples of {fam}")
            if kind == "TYPE" and arg not in TYPES:
                errors.append(f"line {n}: unknown type {arg}")
            if kind == "UNIT" and not fam.endswith("_" + arg):
                errors.append(f"line {n}: family {fam} does not end in its unit {arg}")
            families[fam][kind.lower()] = arg
            cur = fam
            continue
        if line.startswith("#") or not line:
            errors.append(f"line {n}: not a sample or metadata: {line!r}")
            continue
        m = SAMPLE.match(line)
        if not m:
            errors.append(f"line {n}: malformed sample {line!r}")
            continue
        name, value = m.group(1), m.group(m.lastindex)
        labels = dict(re.findall(LABEL, m.group(2) or ""))
        try:
            v = float(value)
        except ValueError:
            errors.append(f"line {n}: bad value {value!r}")
            continue
        fam = cur
        t = families[fam]["type"] if fam else None
        suffixes = {"counter": ["_total", "_created"],
                    "histogram": ["_bucket", "_count", "_sum", "_created"],
                    "gauge": [""]}.get(t, [""])
        if fam is None or not any(name == fam + s for s in suffixes):
            errors.append(f"line {n}: sample {name} outside its family ({fam}, {t})")
            continue
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            errors.append(f"line {n}: duplicate sample {name} {labels}")
        seen.add(key)
        if t == "counter" and (v < 0 or math.isnan(v)):
            errors.append(f"line {n}: negative counter")
        families[fam]["samples"].append((name, labels, v))
    for fam, f in families.items():
        if f["type"] == "histogram":
            errors += check_histogram(fam, f["samples"])
    return families, errors


def check_histogram(fam, samples):
    errors, series = [], {}
    for name, labels, v in samples:
        rest = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
        series.setdefault(rest, []).append((name, labels.get("le"), v))
    for rest, s in series.items():
        buckets = [(le, v) for name, le, v in s if name == fam + "_bucket"]
        count = [v for name, _, v in s if name == fam + "_count"]
        total = [v for name, _, v in s if name == fam + "_sum"]
        les = [float(le) for le, _ in buckets]
        vals = [v for _, v in buckets]
        if not buckets or buckets[-1][0] != "+Inf":
            errors.append(f"{fam}{dict(rest)}: no +Inf bucket last")
        if les != sorted(les) or len(set(les)) != len(les):
            errors.append(f"{fam}{dict(rest)}: le not increasing")
        if vals != sorted(vals):
            errors.append(f"{fam}{dict(rest)}: buckets not cumulative")
        if len(count) != 1 or (buckets and count[0] != vals[-1]):
            errors.append(f"{fam}{dict(rest)}: _count is not the +Inf bucket")
        if len(total) != 1 or total[0] < 0:
            errors.append(f"{fam}{dict(rest)}: no valid _sum")
    return errors


def check_status(families, mtime, failed):
    """The file says when it was written, as a gauge in seconds: its mtime
    or just before (the time is taken before the write), and the writes
    that failed before it."""
    name = "tagtrace_openmetrics_last_success_timestamp_seconds"
    fam = families.get(name, {})
    when = [v for _, _, v in fam.get("samples", [])]
    # A file's times are the kernel's coarse clock: up to a tick behind.
    ok(fam.get("type") == "gauge" and fam.get("unit") == "seconds" and
       len(when) == 1 and -0.1 < mtime - when[0] < 10,
       f"{name}: a gauge in seconds, the time the file was written",
       f"type {fam.get('type')} unit {fam.get('unit')} samples {when} "
       f"mtime {mtime:.3f}")
    fails = [v for _, _, v in families.get("tagtrace_openmetrics_write_failures",
                                            {}).get("samples", [])]
    ok(len(fails) == 1 and (fails[0] > 0 if failed else fails[0] == 0),
       "tagtrace_openmetrics_write_failures_total: "
       + ("some writes failed before this one" if failed else "no write failed"),
       fails)


def main():
    path, top_path = sys.argv[1:3]
    flags = set(sys.argv[3:])
    if flags - {"--tag-values", "--histograms", "--failed-writes"}:
        sys.exit(f"usage: {sys.argv[0]} FILE TOP_JSON [--tag-values] "
                 "[--histograms] [--failed-writes]")
    tag_values = "--tag-values" in flags
    hists = "--histograms" in flags
    try:
        with open(path) as f:
            families, errors = parse(f.read())
        mtime = os.stat(path).st_mtime
    except OSError as e:
        ok(False, f"{path.split('/')[-1]} was written", e)
        return tap.done()
    ok(not errors, f"{path.split('/')[-1]} is strict OpenMetrics", *errors[:10])
    with open(top_path) as f:
        last = [json.loads(x) for x in f][-1]
    names = {"ctrl": "tagtrace_ctrl_calls", "untag": "tagtrace_untags",
             "switch": "tagtrace_mode_switches", "fault": "tagtrace_tagged_faults",
             "gp": "tagtrace_tagged_gps"}
    sources = {l["event"]: l["source"] for _, l, _ in
               families.get("tagtrace_source_info", {}).get("samples", [])}
    ok(set(sources) == set(names) | ({"switch_time"} if hists else set()) and
       all(sources[k] == last["sources"][k] for k in names),
       "tagtrace_source_info names every event's source, as top --json does"
       + (", and the histograms'" if hists else ""), sources)
    check_status(families, mtime, "--failed-writes" in flags)
    # Fault tags: a fact or a guess, as the kernel says, and as top --json.
    tags_from = kernel_fault_pointer(sources.get("fault"))
    fp = [l.get("fault_pointer") for _, l, _ in
          families.get("tagtrace_source_info", {}).get("samples", [])
          if l.get("event") == "fault"]
    ok(fp == [tags_from] and tags_from == last["sources"].get("fault_pointer")
       and tags_from != "unknown",
       f"tagtrace_source_info: fault tags come from {tags_from}, as the kernel "
       "and top --json say", f"file {fp}",
       f"top --json {last['sources'].get('fault_pointer')}")
    fwt = {"event": "tagtrace_faults_with_tag",
           "registers": "tagtrace_faults_with_guessed_tag"}
    tv = {"event": "tagtrace_tag_values", "registers": "tagtrace_guessed_tag_values"}
    # A process is its pid and start time: nothing that changes in its life.
    extra = {"tagtrace_tag_values": {"event", "tag"},
             "tagtrace_guessed_tag_values": {"event", "tag"},
             "tagtrace_misuse_places": {"event", "place"},
             "tagtrace_guessed_misuse_places": {"event", "place"}}
    bad = [f"{fam}: {sorted(l)}" for fam, f in families.items()
           for _, l, _ in f["samples"] if "pid" in l and
           fam != "tagtrace_process_info" and
           set(l) != {"pid", "start_ns"} | extra.get(fam, set())]
    ok(not bad, "process samples are labelled pid and start_ns alone", *bad[:5])
    info = {}
    for _, l, v in families.get("tagtrace_process_info", {}).get("samples", []):
        info.setdefault(int(l["pid"]), []).append((l.get("comm"), l.get("mode"), v))
    want = {p["pid"]: [(p["comm"], p["mode"], 1.0)] for p in last["processes"]}
    ok(info == want and want, "tagtrace_process_info has each process's comm and "
       f"mode as top --json ({len(want)} processes)",
       *[f"pid {p}: file {info.get(p)}, top {want.get(p)}"
         for p in set(info) | set(want) if info.get(p) != want.get(p)][:5])
    bad, compared = [], 0
    for kind, fam in names.items():
        if sources.get(kind) == "unavailable":
            if fam in families:
                bad.append(f"{fam} exported though {kind} has no source")
            continue
        got = {int(l["pid"]): v for _, l, v in families.get(fam, {}).get("samples", [])}
        for p in last["processes"]:
            compared += 1
            if got.get(p["pid"]) != p["total"][kind]:
                bad.append(f"{fam} pid {p['pid']}: {got.get(p['pid'])} != {p['total'][kind]}")
        if len(got) != len(last["processes"]):
            bad.append(f"{fam}: {len(got)} processes, top --json has {len(last['processes'])}")
    ok(not bad and compared > 0,
       f"counters equal top --json's for every process ({compared} values)", *bad[:10])
    if tags_from in fwt:
        other = fwt["registers" if tags_from == "event" else "event"]
        field = ("guessed_" if tags_from == "registers" else "") + "tagged_faults"
        got = {int(l["pid"]): v for _, l, v in
               families.get(fwt[tags_from], {}).get("samples", [])}
        top = {p["pid"]: p.get(field) for p in last["processes"]}
        ok(got == top and other not in families,
           f"{fwt[tags_from]}_total equals top --json's {field} for every process "
           f"({sum(v or 0 for v in top.values())} faults), and there is no "
           f"{other}", f"file {got}", f"top {top}",
           f"{other} {'present' if other in families else 'absent'}")
    else:
        ok(not set(fwt.values()) & set(families),
           "no faults with a tag where faults have no source")
    pl = {"event": "tagtrace_misuse_places",
          "registers": "tagtrace_guessed_misuse_places"}
    for fam in (tv, pl):
        ok((fam["event"] in families) == tag_values and
           (fam["registers"] in families) ==
           (tag_values and tags_from == "registers"),
           f"{fam['event']} is there " +
           ("with --tag-values" if tag_values else "only with --tag-values") +
           f", {fam['registers']} too only where fault tags are guessed")
    wrong = [f"{fam} {l}" for fam in pl.values()
             for _, l, _ in families.get(fam, {}).get("samples", [])
             if l["event"] == "fault" and fam != pl.get(tags_from)]
    ok(not wrong, f"fault places in {pl.get(tags_from)} alone", *wrong[:5])
    if "tagtrace_tag_values" in families:
        sums, misplaced = {}, []
        for fam in ("tagtrace_tag_values", "tagtrace_guessed_tag_values"):
            for _, l, v in families.get(fam, {}).get("samples", []):
                key = (int(l["pid"]), l["event"])
                sums[key] = sums.get(key, 0) + v
                if l["event"] == "fault" and fam != tv.get(tags_from):
                    misplaced.append(f"{fam} {l}")
        ok(not misplaced, "--tag-values: faults by tag value in "
           f"{tv.get(tags_from)} alone", *misplaced[:5])
        bad = [f"pid {p['pid']} {ev}: tag values {sums.get((p['pid'], ev), 0)}"
               f" != {p['total'][ev]}" for p in last["processes"]
               for ev in ("untag", "fault")
               if sums.get((p["pid"], ev), 0) != p["total"].get(ev, 0)]
        ok(not bad and sums, "--tag-values: each process's tag values add up "
           f"to its untag and fault counts ({int(sum(sums.values()))} events)",
           *bad[:10])
    hist = families.get("tagtrace_switch_mm_seconds", {}).get("samples", [])
    counts = sum(v for n, _, v in hist if n.endswith("_count"))
    if not hists:
        ok("tagtrace_switch_mm_seconds" not in families,
           "no switch_mm histograms without --histograms")
    elif sources.get("switch_time") == "unavailable":
        ok("tagtrace_switch_mm_seconds" not in families,
           "no switch_mm histograms where switches cannot be timed")
    else:
        ok(counts > 0, f"switch_mm histograms exported ({int(counts)} switches)")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
