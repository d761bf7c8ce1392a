#!/bin/bash
# How long tagtrace takes to stop under an unpaced storm: a figure, which
# tests/tool/stop-guest.py does not judge (it bounds what trace prints
# after the stop; this machine's load moves the time). One boot,
# `--cpu lam --smp 2` without --icount (under it the detach's cross-CPU
# syncs wait out QEMU's round-robin time slices: 7 to 9 s of guest time),
# the storm on CPU 1, the tool on CPU 0; ROUNDS (default 5) of each:
#   sigint  trace -e untag > /dev/null, SIGINT 1 s after the attach: from
#           the signal to the exit
#   top     top -i 60, SIGINT 0.5 s after the attach: from the signal to
#           the exit
# in seconds of the guest's clock. Prints each figure's median [min-max],
# with the host's load average before and after the boot. Exit 1 only
# when the guest fails or a tool exits non-zero.
#   tests/bench/stop-time.sh [ROUNDS]
#   tests/bench/stop-time.sh --guest ROUNDS   (in the guest: key=value lines)
if [ "${1:-}" = --guest ]; then
	rounds=$2
	tt=${TAGTRACE:-build/tool/tagtrace}
	now() { date +%s%N; }
	# attached ERRFILE: until the tool says it is attached.
	attached()
	{
		local n=0
		until grep -q "Ctrl-C to stop" "$1" 2> /dev/null; do
			n=$((n + 1))
			[ $n -lt 6000 ] || return 1
			sleep 0.01
		done
	}
	taskset -c 1 build/vm/storm 1000000000 > /dev/null &
	storm=$!
	st=0
	for _ in $(seq "$rounds"); do
		for what in sigint top; do
			case $what in
			sigint) args=(trace -e untag) wait=1 ;;
			top) args=(top -i 60) wait=0.5 ;;
			esac
			taskset -c 0 "$tt" "${args[@]}" > /dev/null 2> /tmp/err &
			pid=$!
			attached /tmp/err || { cat /tmp/err >&2; st=1; break 2; }
			sleep "$wait"
			t0=$(now)
			kill -INT $pid
			wait $pid || { cat /tmp/err >&2; st=1; }
			t1=$(now)
			echo "$what=$(((t1 - t0) / 1000000))"
		done
	done
	kill $storm
	wait $storm 2> /dev/null
	exit $st
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rounds=${1:-5}
before=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(tests/vm/run --cpu lam --smp 2 --timeout 900 -- \
	tests/bench/stop-time.sh --guest "$rounds") || {
	echo "stop-time: the guest failed:" >&2
	echo "$out" >&2
	exit 1
}
echo "== tagtrace's stop under an unpaced storm, $rounds rounds, s of guest time: median [min-max]"
echo "   (host load average $before before, $(cut -d' ' -f1-3 /proc/loadavg) after)"
for what in sigint top; do
	sed -n "s/^$what=//p" <<< "$out" | sort -n |
		awk -v w="$what" '{ v[NR] = $1 / 1000 }
			END { printf "%-7s %.3f [%.3f-%.3f]\n", w, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
