#!/bin/sh
# procfull-guest.sh N M: `tagtrace tags` with its process map full. N
# short-lived processes that only enable tagging (a ctrl event each, so a
# process row and no tag value) fill the map's 10240 rows; then M more
# each enable tagging and make one tagged uname(). Those M get no row, so
# their events are counted as uncounted (map full), and their tag values
# and system calls must not go into the tags and syscalls maps either:
# pruning frees those maps' entries by the rows of the process map, so an
# entry without a row would stay for good. bpftool counts both maps'
# entries while tags runs. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
N=$1 M=$2

$TT tags --json -i 600 > $d/tags.json 2> $d/tags.err &
tp=$!
started $d/tags.err "Ctrl-C" || exit 1
build/vm/forktags "$N" > $d/fill.out
r1=$?
build/vm/forktags "$M" --untag > $d/over.out
r2=$?
count()
{
	bpftool -j map dump name "$1" 2> $d/bpftool.err |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'
}
tags=$(count tags)
sys=$(count syscalls)
stop $tp
st=$?
sed 's/^/# /' $d/tags.err $d/bpftool.err
[ $r1 = 0 ] && [ $r2 = 0 ] && echo "ok - $N processes enabled tagging, then $M made a tagged call" ||
	echo "not ok - $N processes enabled tagging, then $M made a tagged call: $r1 $r2"
[ $st = 0 ] && echo "ok - tags exits 0 on SIGINT" || echo "not ok - tags exits 0 on SIGINT: $st"
python3 - "$d/tags.json" "$M" "$tags" "$sys" <<'PY'
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
m, tags, sysc = int(sys.argv[2]), sys.argv[3], sys.argv[4]
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
ok(tags == "0" and sysc == "0",
   "no tag value or system call kept for a process without a row "
   f"(tags map {tags} entries, syscalls map {sysc})",
   f"tags {tags} syscalls {sysc}")
PY
