#!/bin/sh
# nmi-guest.sh N K: untags in NMI context are either counted or reported
# as missed. tagloop makes tagged uname() calls on CPU 0 (N at least, and
# on until the module is done, then it says how many) while the test
# module nmi_untag (tests/kernel/modules) sends rounds of K NMIs to that
# CPU from CPU 1, each untagging a tagged pointer when it interrupts
# tagloop: in user space, in a system call, or inside tagtrace's own BPF
# program for the untag event, which the kernel then skips and counts only
# in recursion_misses. `tagtrace top` must account for every untag
# exactly: tagloop's untags + the runs missed + map busy == its calls +
# the hits. Where an NMI lands is chance, so rounds go on until top's
# report counts an untag it missed or found its map busy (an NMI inside
# its program; else the NMIs never nested and the test proves nothing),
# at most ROUNDS of them, a limit that only ends a test that would not.
# `tagtrace trace -e ctrl,untag -c tagloop` beside top must account per
# stream: its untag line's printed + dropped + missed == the calls + the
# hits, and its ctrl line exactly tagloop's 2 events, none missed (the
# untag program's misses are untags, not every stream's).
# Needs --smp 2. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
N=$1 K=$2
ROUNDS=10
MOD=build/vm/modules/nmi_untag.ko

$TT top --json -i 1 > $d/top.json 2> $d/top.err &
tp=$!
$TT trace --json -e ctrl,untag -c tagloop > $d/trace.json 2> $d/trace.err &
rp=$!
started $d/top.err "Ctrl-C" && started $d/trace.err "Ctrl-C" || exit 1
taskset -c 0 build/vm/tagloop "$N" --until $d/done > $d/loop.out &
lp=$!
i=0
while ! grep -q '^pid=' $d/loop.out && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
pid=$(sed -n 's/^pid=//p' $d/loop.out)

# reported_after: the "uncounted" of a report top made after now (the
# second to come: the first may hold counts read before now), or nothing
# if top writes none within a minute.
reported_after()
{
	l=$(($(wc -l < $d/top.json) + 2))
	read -r since _ < /proc/uptime
	while [ "$(wc -l < $d/top.json)" -lt $l ]; do
		read -r now _ < /proc/uptime
		[ "${now%.*}" -lt $((${since%.*} + 60)) ] || return
		sleep 0.2
	done
	sed -n "${l}s/.*\"uncounted\":\([0-9]*\).*/\1/p" $d/top.json
}

rounds=0 hits=0 irc=0 uncounted=0
while [ $rounds -lt $ROUNDS ] && [ "$uncounted" = 0 ]; do
	rounds=$((rounds + 1))
	taskset -c 1 insmod $MOD pid="$pid" cpu=0 count="$K" gap_us=50
	irc=$?
	h=$(cat /sys/module/nmi_untag/parameters/hits 2> /dev/null)
	rmmod nmi_untag 2> /dev/null
	[ $irc = 0 ] || break
	hits=$((hits + ${h:-0}))
	uncounted=$(reported_after)
	[ -n "$uncounted" ] || { echo "# top wrote no report within a minute"; break; }
done
echo "# $rounds rounds of $K NMIs; top's report after the last: ${uncounted:-no} events uncounted"
kill -0 $lp 2> /dev/null && during=1 || during=0
touch $d/done
wait $lp
lrc=$?
calls=$(sed -n 's/^calls=//p' $d/loop.out)
stop $tp $rp
st=$?
sed 's/^/# /' $d/top.err $d/trace.err
dmesg | grep 'nmi_untag:' | sed 's/^/# /'
[ $lrc = 0 ] && echo "ok - tagloop ran: $calls calls" ||
	echo "not ok - tagloop ran: $lrc"
[ $irc = 0 ] && echo "ok - nmi_untag sent $rounds rounds of $K NMIs and each was taken" ||
	echo "not ok - nmi_untag sent $rounds rounds of $K NMIs and each was taken: round $rounds: $irc"
[ $during = 1 ] && echo "ok - tagloop outlasted the NMIs" ||
	echo "not ok - tagloop outlasted the NMIs (it ended before $N calls?)"
[ $st = 0 ] && echo "ok - tagtrace top and trace exit 0 on SIGINT" ||
	echo "not ok - tagtrace top and trace exit 0 on SIGINT: $st"
python3 - $d/top.json $d/top.err "$pid" "${calls:-0}" "$hits" "$rounds" "$ROUNDS" \
	$d/trace.err <<'PY'
import json, re, sys
top, err, pid, n, hits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rounds, limit = int(sys.argv[6]), int(sys.argv[7])
trace_err = open(sys.argv[8]).read()
def say(good, what, *diag):
    print(("ok - " if good else "not ok - ") + what)
    for d in diag if not good else ():
        print("#   " + str(d))
last = [json.loads(l) for l in open(top)][-1]
row = [p for p in last["processes"] if p["pid"] == pid]
untags = row[0]["total"]["untag"] if row else 0
m = re.search(r"(\d+) events uncounted \((\d+) process map full, (\d+) map busy, "
              r"(\d+) runs missed\)", open(err).read())
full, busy, missed = (int(x) for x in m.groups()[1:]) if m else (-1, -1, -1)
say(hits > 0, f"the NMIs untagged in tagloop {hits} times")
say(missed + busy > 0, f"some untags in NMI context were not counted: "
    f"{missed} runs missed, {busy} map busy, after {rounds} rounds",
    f"none in {rounds} rounds (at most {limit}): no NMI landed in tagtrace's "
    "program, or top does not count the untags it misses")
say(untags + missed + busy == n + hits and full == 0,
    f"every untag accounted for: {untags} counted + {missed} missed + "
    f"{busy} busy == {n} calls + {hits} NMI untags",
    f"got {untags + missed + busy}, want {n + hits}; map full {full}")
# trace's account per stream: the runs its untag program missed (NMIs
# inside it) are untags, and no other program's misses are.
streams = {m.group(1): tuple(int(x) for x in m.groups()[1:]) for m in re.finditer(
    r"^tagtrace: (\w+): (\d+) printed, (\d+) dropped, (\d+) missed$", trace_err, re.M)}
u = streams.get("untag")
say(u is not None and sum(u) == n + hits,
    f"trace, untag: printed + dropped + missed == {n} calls + {hits} NMI untags"
    + (f" ({u[0]} + {u[1]} + {u[2]})" if u else ""),
    f"untag stream: {u}, want a sum of {n + hits}")
c = streams.get("ctrl")
say(c is not None and c == (2, 0, 0),
    "trace, ctrl: tagloop's 2 ctrl events printed, none dropped or missed "
    "(the untag program's misses are not ctrl's)", f"ctrl stream: {c}")
PY
