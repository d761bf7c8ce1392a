#!/bin/sh
# procfull-guest.sh N M: `tagtrace tags` with its process map full. N
# short-lived processes that only enable tagging (a ctrl event each, so a
# process row and no tag value) fill the map's 10240 rows; then M more
# each enable tagging and make one tagged uname(). Those M get no row, so
# their events are counted as uncounted (map full), and their tag values
# and system calls must not go into the tags and syscalls maps either:
# pruning frees those maps' entries by the rows of the process map, so an
# entry without a row would stay for good. While tags runs, bpftool lists
# the three maps' keys: every tags and syscalls entry must belong to a
# process with a row. (A process of the first N may have one: the page
# fault that maps a page of libc it first touches after enabling tagging
# is a fault, counted with no tag.) Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
N=$1 M=$2

$TT tags --json -i 600 > $d/tags.json 2> $d/tags.err &
tp=$!
started $d/tags.err "Ctrl-C" || exit 1
build/vm/forktags "$N" > $d/fill.out
r1=$?
build/vm/forktags "$M" --untag > $d/over.out
r2=$?
# keys MAP: MAP's keys, one per line ("key":["0x..",...]), into $d/MAP.
# The dump of a full tags map is 80 MB of JSON: streamed, not kept.
keys()
{
	{ bpftool -j map dump name "$1" 2>> $d/bpftool.err; echo $? > $d/$1.rc; } |
		grep -o '"key":\[[^]]*\]' > $d/$1
	[ "$(cat $d/$1.rc)" = 0 ] || echo "# bpftool map dump name $1: $(cat $d/$1.rc)"
}
keys procs
keys tags
keys syscalls
stop $tp
st=$?
sed 's/^/# /' $d/tags.err $d/bpftool.err
[ $r1 = 0 ] && [ $r2 = 0 ] && echo "ok - $N processes enabled tagging, then $M made a tagged call" ||
	echo "not ok - $N processes enabled tagging, then $M made a tagged call: $r1 $r2"
[ $st = 0 ] && echo "ok - tags exits 0 on SIGINT" || echo "not ok - tags exits 0 on SIGINT: $st"
python3 - "$d/tags.json" "$M" "$d" <<'PY'
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
m, d = int(sys.argv[2]), sys.argv[3]
def keys(name, n):
    """The first n bytes of each key bpftool listed, or None if it failed."""
    if open(f"{d}/{name}.rc").read().strip() != "0":
        return None
    return [tuple(json.loads("{" + l + "}")["key"][:n]) for l in open(f"{d}/{name}")]
procs, tags, sysc = keys("procs", 16), keys("tags", 16), keys("syscalls", 16)
last = reports[-1] if reports else {}
rows = len(last.get("processes", []))
unc = last.get("uncounted", 0)
def ok(c, what, *diag):
    print(("ok - " if c else "not ok - ") + what)
    for d in diag if not c else ():
        print("# " + d)
ok(rows >= 10240 - 8 and unc >= 2 * m,
   f"the process map filled: {rows} rows, the last {m} processes' "
   f"{2 * m} events uncounted",
   f"rows {rows}, uncounted {unc}")
if procs is None or tags is None or sysc is None:
    ok(False, "no tag value or system call kept for a process without a row",
       "bpftool could not list the maps")
else:
    rows_k = set(procs)
    stray = [k for k in tags + sysc if k not in rows_k]
    ok(len(procs) >= 10240 - 8 and not stray,
       "no tag value or system call kept for a process without a row "
       f"({len(procs)} rows; tags {len(tags)} entries, syscalls "
       f"{len(sysc)}; {len(stray)} of them without a row)",
       f"{len(stray)} entries without a row, the first key {stray[:1]}")
PY
