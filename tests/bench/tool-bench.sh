#!/bin/bash
# tagtrace against bpftrace 0.17 and against the floor, the cheapest
# programs on the same event (tests/bench/floor.c, floor.bpf.c), in the
# guest (tests/bench/tool-guest.sh does the work, tool-summary.py the sums):
#   cost per untag event (--icount, instructions), 3 rounds of every
#   configuration side by side: (a) nothing attached, (b) an empty tp_btf
#   program, (c) a per-CPU counter, (d) ring-buffer reserve/submit with a
#   consumer that discards; tagtrace top, trace and trace --json (to
#   /dev/null and to a pipe read by cat); bpftrace count(), printf and -f json
#   zero-loss rate of trace | cat (--icount, 2 vCPUs): doubling, then
#   bisection to within 10%, 3 trials a rate, every trial's drop count checked
#   start-up (wall time): exec to "attached" and to the first event, 5 trials
#   memory: resident and peak (the peak is libbpf parsing the kernel's BTF),
#   and the same on Debian's kernel (tests/vm/run --distro: 4.9 MB of BTF)
#   time in switch_mm by mode transition (tagtrace hist, per CPU model)
# Prints each goal with PASS, MISS or UNRESOLVED (tool-summary.py). Exits
# non-zero when a goal is not met (missed or unresolved), a tracer's drop
# count is wrong (records + reported drops != calls made) or a guest fails.
# BENCH_FAKE_MISMATCH=1 adds one to every drop count, to show that it does.
# BENCH_PARTS="startup cost rate distro hist" (the default) picks the guests to boot
# (the goals of the parts left out have no figure: MISS, exit status 1);
# BENCH_TRIALS (5), BENCH_CALLS (20000), BENCH_ROUNDS (3), BENCH_SECS (2)
# make a quicker run.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig=tests/vm/run
. tests/lib/offer.sh
guest=tests/bench/tool-guest.sh
[ -n "$BENCH_FAKE_MISMATCH" ] && guest+=" --fake-mismatch"

for f in build/tool/tagtrace build/vm/storm build/vm/until build/vm/floor \
	 build/vm/floor.bpf.o; do
	[ -e $f ] || { echo "no $f: run 'make rig tagtrace'" >&2; exit 1; }
done
# BENCH_OUT=DIR keeps each guest's output there.
out=${BENCH_OUT:-$(mktemp -d)}
mkdir -p "$out" || exit 1
[ -n "$BENCH_OUT" ] || trap 'rm -rf $out' EXIT
SECONDS=0

for part in ${BENCH_PARTS:-startup cost rate distro}; do
	case $part in
	startup) echo "== start-up, 5 trials each (about 1.5 minutes)"
		 args="--cpu lam -- $guest startup ${BENCH_TRIALS:-5}" ;;
	cost)	 echo "== cost, 3 rounds of 14 configurations (about 4 minutes)"
		 args="--cpu lam --icount --timeout 1200 -- $guest cost ${BENCH_CALLS:-20000} ${BENCH_ROUNDS:-3}" ;;
	rate)	 echo "== zero-loss rate search (about 4 minutes)"
		 args="--cpu lam --icount --smp 2 --timeout 1800 -- $guest rate ${BENCH_SECS:-2}" ;;
	distro)	 echo "== memory on Debian's kernel, 3 trials (about 1 minute)"
		 args="--distro --cpu lam -- $guest distro 3" ;;
	hist)	 continue ;;	# after the summary, below
	*)	 echo "unknown part $part" >&2; exit 1 ;;
	esac
	# shellcheck disable=SC2086
	$rig $args | tee $out/$part | grep '^#'
	[ "${PIPESTATUS[0]}" = 0 ] || {
		echo "the $part guest failed" >&2
		exit 1
	}
done
tests/bench/tool-summary.py $out/*
rc=$?

case " ${BENCH_PARTS:-hist} " in
*" hist "*) echo "== switch_mm cost by mode transition (tagtrace hist, --icount: insns)" ;;
*) cpus= ;;
esac
for cpu in ${cpus-none lam uai}; do
	# Without tagging, a pipe between two untagged processes switches.
	load="build/vm/tagalloc 200"
	[ $cpu = none ] && load="sh -c 'yes | head -c 4000000'"
	hist=$($rig $(offer $cpu) --icount -- sh -c "build/tool/tagtrace hist --json -i 30 -n 1 > /tmp/h.json 2> /dev/null &
		sleep 2; $load > /dev/null; kill -INT \$!; wait; cat /tmp/h.json") || {
		echo "the hist guest ($cpu) failed" >&2
		rc=1
	}
	grep '^{' <<< "$hist" |
		python3 -c '
import json, sys
for line in sys.stdin:
    for h in json.loads(line)["histograms"]:
        t = "same mm (%s)" % h["prev_mode"] if h["same_mm"] else "%s -> %s" % (h["prev_mode"], h["next_mode"])
        print("%-5s %-22s %6d switches, mean %7.0f" % (sys.argv[1], t, h["count"], h["mean"]))' $cpu
done
echo "== tool-bench: $((SECONDS / 60)) min $((SECONDS % 60)) s"
exit $rc
