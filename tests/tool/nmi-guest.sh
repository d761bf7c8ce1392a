#!/bin/sh
# nmi-guest.sh N K: untags in NMI context are either counted or reported
# as missed. tagloop makes tagged uname() calls on CPU 0 (N at least, and
# on until the module is done, then it says how many) while the test
# module nmi_untag (tests/kernel/modules) sends K NMIs to that CPU from
# CPU 1, each untagging a tagged pointer when it interrupts tagloop: in
# user space, in a system call, or inside tagtrace's own BPF program for
# the untag event, which the kernel then skips and counts only in
# recursion_misses. `tagtrace top` must account for every untag exactly:
# tagloop's untags + the runs missed + map busy == its calls + the hits,
# with some missed or busy (else the NMIs never nested and the test proves
# nothing). Needs --smp 2. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
N=$1 K=$2
MOD=build/vm/modules/nmi_untag.ko

$TT top --json -i 1 > $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C" || exit 1
taskset -c 0 build/vm/tagloop "$N" --until $d/done > $d/loop.out &
lp=$!
i=0
while ! grep -q '^pid=' $d/loop.out && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
pid=$(sed -n 's/^pid=//p' $d/loop.out)
taskset -c 1 insmod $MOD pid="$pid" cpu=0 count="$K" gap_us=50
irc=$?
hits=$(cat /sys/module/nmi_untag/parameters/hits 2> /dev/null)
kill -0 $lp 2> /dev/null && during=1 || during=0
touch $d/done
rmmod nmi_untag 2> /dev/null
wait $lp
lrc=$?
calls=$(sed -n 's/^calls=//p' $d/loop.out)
stop $tp
st=$?
sed 's/^/# /' $d/top.err
dmesg | grep 'nmi_untag:' | sed 's/^/# /'
[ $lrc = 0 ] && echo "ok - tagloop ran: $calls calls" ||
	echo "not ok - tagloop ran: $lrc"
[ $irc = 0 ] && echo "ok - nmi_untag sent $K NMIs and each was taken" ||
	echo "not ok - nmi_untag sent $K NMIs and each was taken: $irc"
[ $during = 1 ] && echo "ok - tagloop outlasted the NMIs" ||
	echo "not ok - tagloop outlasted the NMIs (it ended before $N calls?)"
[ $st = 0 ] && echo "ok - tagtrace top exits 0 on SIGINT" ||
	echo "not ok - tagtrace top exits 0 on SIGINT: $st"
python3 - $d/top.json $d/top.err "$pid" "${calls:-0}" "${hits:-0}" <<'PY'
import json, re, sys
top, err, pid, n, hits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
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
    f"{missed} runs missed, {busy} map busy")
say(untags + missed + busy == n + hits and full == 0,
    f"every untag accounted for: {untags} counted + {missed} missed + "
    f"{busy} busy == {n} calls + {hits} NMI untags",
    f"got {untags + missed + busy}, want {n + hits}; map full {full}")
PY
