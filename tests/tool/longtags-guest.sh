#!/bin/sh
# longtags-guest.sh N: `tagtrace tags` on a long run. While it reports every
# 0.5 s: a tagged process makes 1000 tagged calls and stays alive, idle
# (the busiest since the start); N short-lived tagged processes come and go
# (more than its maps held once); then, after a quiet second, one last
# tagloop makes 200 uname() calls with tags 1 + i % 63. In the report of
# the interval it ran in, it must come first, its untag histogram exact
# (tags 1-11 four times, 12-63 three), no tagged fault; the exited short
# processes must have left the last report (pruned). Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
N=$1
L=$PWD/build/vm/tagloop

printf '#!/bin/sh\nexec sleep 600\n' > $d/sleeper
chmod +x $d/sleeper
$TT tags --json -i 0.5 > $d/tags.json 2> $d/tags.err &
tp=$!
started $d/tags.err "Ctrl-C" || exit 1
$L 1000 --exec $d/sleeper > $d/big.out &
big=$!
i=0 bad=0
t0=$(date +%s)
while [ $i -lt "$N" ]; do
	$L 2 > /dev/null || bad=$((bad + 1))
	i=$((i + 1))
done
echo "# $N short-lived tagloops in $(($(date +%s) - t0)) s"
# They are the load the checks below are about: each must have tagged.
[ $bad = 0 ] && echo "ok - $N short-lived tagloops enabled tagging and made their calls" ||
	echo "not ok - $N short-lived tagloops enabled tagging and made their calls: $bad failed"
sleep 1.5
$L 200 > $d/last.out
sleep 3.5
stop $tp
st=$?
kill $big
sed 's/^/# /' $d/tags.err
[ $st = 0 ] && echo "ok - tags exits 0 on SIGINT" ||
	echo "not ok - tags exits 0 on SIGINT: $st"
big=$(sed -n 's/^pid=//p' $d/big.out)
last=$(sed -n 's/^pid=//p' $d/last.out)
python3 - $d/tags.json "$big" "$last" "$N" <<'EOF'
import json
import sys

path, big, last, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
reports = [json.loads(line) for line in open(path)]
want = [0] + [4 if t <= 11 else 3 for t in range(1, 64)]


def check(cond, what, why=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond and why:
        print("#   " + why)


def row(rep, pid):
    return next((p for p in rep["processes"] if p["pid"] == pid), None)


# The report of the interval the last tagloop ran in: its first.
first = next((r for r in reports if row(r, last)), None)
check(first is not None, f"tags: the last tagloop (pid {last}) is reported",
      f"{len(reports)} reports, none has it")
if first:
    p = row(first, last)
    got = p.get("untag_tags", [])
    check(first["processes"][0]["pid"] == last,
          "tags: the last tagloop comes first in its interval's report "
          "(busiest now, not since the start)",
          "first is " + json.dumps({k: first["processes"][0].get(k)
                                    for k in ("pid", "comm", "untags")}))
    check(p.get("untags") == 200 and got == want,
          "tags: its untag histogram is exact (200 calls, tags 1-11 x4, 12-63 x3)",
          f"untags {p.get('untags')}, untag_tags {got}")
    check(sum(p.get("fault_tags", [0])[1:]) == 0 and p.get("tagged_faults") == 0,
          "tags: no tagged fault for it",
          f"fault_tags {p.get('fault_tags')}")
    b = row(first, big)
    check(b is not None and b["untags"] == 1000 and not b["exited"],
          "tags: the idle process with 1000 untags is still listed, alive",
          json.dumps(b))
# At the end: the idle process, alive, and no exited short-lived one (each
# ended 5 s or more before: pruned after 5 idle reports of 0.5 s). The
# last tagloop ended 3.5 s before: pruning may or may not have reached it
# (5 idle reports and the one that prunes, about 3 s), so it may be listed.
final = [p["pid"] for p in reports[-1]["processes"]] if reports else []
others = [p for p in final if p not in (big, last)]
check(big in final and not others,
      f"tags: exited processes are pruned (at the end the idle one and "
      f"{'the last tagloop' if last in final else 'nothing else'} listed, "
      f"of {n + 2} seen)", f"pids {final[:10]}")
check(all(r["uncounted"] == 0 for r in reports),
      "tags: nothing uncounted (no map filled)",
      f"uncounted {[r['uncounted'] for r in reports if r['uncounted']][:3]}")
EOF
