#!/bin/bash
# Run one long build step quietly: announce it with its expected duration,
# keep the compiler noise in a log file, print a progress line every 20 s,
# and on failure show the log's tail and where the full log is.
#
#   scripts/step.sh NAME "what it does" "how long it takes here" LOG -- CMD...
set -uo pipefail

name=$1 what=$2 eta=$3 log=$4
shift 4
[ "${1:-}" = "--" ] && shift

mkdir -p "$(dirname "$log")"
start=$(date +%s)
echo "[$name] $what (about $eta here; log: $log)"

if [ "${V:-0}" = 1 ]; then
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
else
	"$@" > "$log" 2>&1 &
	pid=$!
	trap 'kill $pid 2>/dev/null; exit 130' INT TERM
	while kill -0 $pid 2>/dev/null; do
		for _ in $(seq 20); do
			sleep 1
			kill -0 $pid 2>/dev/null || break
		done
		kill -0 $pid 2>/dev/null || break
		now=$(date +%s)
		last=$(tail -n 1 "$log" 2>/dev/null | cut -c1-50)
		printf '[%s]   %dm%02ds, %d log lines: %s\n' "$name" \
			$(((now - start) / 60)) $(((now - start) % 60)) \
			"$(wc -l < "$log")" "$last"
	done
	wait $pid
	rc=$?
fi

secs=$(($(date +%s) - start))
"$(dirname "$0")/timings.sh" record "$name" "$secs"
if [ $rc -ne 0 ]; then
	echo "[$name] FAILED after ${secs}s (exit $rc); last lines of $log:" >&2
	tail -n 25 "$log" | sed 's/^/    /' >&2
	echo "[$name] full log: $log" >&2
	exit $rc
fi
echo "[$name] done in $((secs / 60))m$((secs % 60))s"
