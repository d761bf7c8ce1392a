#!/bin/bash
# tagtrace against the equivalent bpftrace 0.17 scripts, in the guest
# (tests/bench/tool-guest.sh does the work); prints figures and ratios:
#   start-up to the first event printed     goal: tagtrace <= 1/10 of bpftrace
#   added cost per event, untag storm       goal: tagtrace <= 1/3 of bpftrace
#   highest rate with no record lost        goal: tagtrace >= 3x bpftrace
#   time in switch_mm by mode transition    (tagtrace hist, per CPU model)
#   tagtrace's memory and its BPF maps      goal: RSS <= 8 MiB
# Start-up is wall time (TCG, one vCPU). The rest runs with --icount, whose
# clock counts guest instructions (1 ns each), so figures repeat from run
# to run; their units are instructions, not time on real hardware.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rig=tests/vm/run
rates="2500 5000 10000 12500 15000 20000 30000 40000 50000"

for f in build/tool/tagtrace build/vm/storm build/vm/until build/vm/tagalloc; do
	[ -x $f ] || { echo "no $f: run 'make rig tagtrace'" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf $out' EXIT

echo "== booting 3 guests for start-up, cost and rate (about 5 minutes)"
$rig --cpu lam -- tests/bench/tool-guest.sh startup > $out/startup || exit 1
$rig --cpu lam --icount -- tests/bench/tool-guest.sh cost 20000 > $out/cost || exit 1
$rig --cpu lam --icount --smp 2 --timeout 1200 -- \
	tests/bench/tool-guest.sh rate $rates > $out/rate || exit 1
cat $out/startup $out/cost $out/rate | tr ' ' '\n' | grep = > $out/all

val() { sed -n "s/^$1=//p" $out/all | head -1; }
best() { sed -n "s/^$1_[0-9]=//p" $out/all | sort -g | head -1; }

tt=$(best tt_startup) bt=$(best bt_startup)
awk -v t="$tt" -v b="$bt" 'BEGIN {
	printf "start-up to first event: tagtrace %.2f s, bpftrace %.2f s: ratio %.3f (goal <= 0.100)\n",
	       t, b, t / b }'
none=$(val none_ns_per_call)
for pair in "tt_top bt_count counting per process" "tt_trace bt_stream streaming each event"; do
	set -- $pair
	t=$(val ${1}_ns_per_call) b=$(val ${2}_ns_per_call)
	awk -v n="$none" -v t="$t" -v b="$b" -v what="$3 $4 $5" 'BEGIN {
		printf "cost per event, %s: none %d, tagtrace +%d, bpftrace +%d insns: ratio %.3f (goal <= 0.333)\n",
		       what, n, t - n, b - n, (t - n) / (b - n) }'
done
echo "# streaming figures include records a tracer dropped, which cost less; see the rates below"
for tool in tt bt; do
	max=0
	for r in $rates; do
		lost=$(val ${tool}_lost_$r)
		[ "$lost" = 0 ] && max=$r
		printf "%s rate %6d/s: achieved %s, lost %s\n" $tool $r "$(val ${tool}_rate_$r)" "$lost"
	done
	eval ${tool}_max=$max
done
for r in $rates; do
	[ "$(val tt_lost_$r)" = "$(val tt_said_$r)" ] ||
		echo "WARNING: at $r/s tagtrace lost $(val tt_lost_$r) but reported $(val tt_said_$r) drops"
done
awk -v t=$tt_max -v b=$bt_max 'BEGIN {
	printf "highest rate with nothing lost: tagtrace %d/s, bpftrace %d/s: ratio %s (goal >= 3)\n",
	       t, b, b ? sprintf("%.1f", t / b) : "inf (bpftrace lost records at every rate)" }'
for m in tt_top tt_trace bt_count bt_stream; do
	echo "memory $m: RSS $(val ${m}_rss_kb) KiB, peak $(val ${m}_hwm_kb) KiB"
done
echo "tagtrace top BPF maps: $(val tt_top_maps_kb) KiB ($(sed -n 's/^# maps: //p' $out/cost))"

echo "== switch_mm cost by mode transition (tagtrace hist, --icount: insns)"
for cpu in none lam uai; do
	# Without tagging, a pipe between two untagged processes switches.
	load="build/vm/tagalloc 200"
	[ $cpu = none ] && load="sh -c 'yes | head -c 4000000'"
	$rig --cpu $cpu --icount -- sh -c "build/tool/tagtrace hist --json -i 30 -n 1 > /tmp/h.json 2> /dev/null &
		sleep 2; $load > /dev/null; kill -INT \$!; wait; cat /tmp/h.json" | grep '^{' |
		python3 -c '
import json, sys
for line in sys.stdin:
    for h in json.loads(line)["histograms"]:
        t = "same mm (%s)" % h["prev_mode"] if h["same_mm"] else "%s -> %s" % (h["prev_mode"], h["next_mode"])
        print("%-5s %-22s %6d switches, mean %7.0f" % (sys.argv[1], t, h["count"], h["mean"]))' $cpu
done
