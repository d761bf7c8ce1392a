#!/bin/bash
# Where a `make` run's time went: each long step records its wall time,
# and `make check` prints them all at its end.
#
#   scripts/timings.sh record NAME SECONDS   (scripts/step.sh calls this)
#   scripts/timings.sh report                the steps of this make run, and
#                                            its guest boots (tests/vm/run)
#
# A make run is TT_RUN (set once by the Makefile, inherited by sub-makes).
set -euo pipefail
log=$(cd "$(dirname "$0")/.." && pwd)/build/logs/timings.tsv
run=${TT_RUN:-none}

case ${1:-} in
record)
	mkdir -p "$(dirname "$log")"
	printf '%s\t%s\t%s\n' "$run" "$2" "$3" >> "$log" ;;
report)
	[ -f "$log" ] || exit 0
	# TT_RUN is the make run's start time: what the run took, wall.
	wall=$(awk -v t0="$run" -v now="$(date +%s)" 'BEGIN { print (t0 + 0 > 0) ? int(now - t0) : -1 }')
	awk -F'\t' -v run="$run" -v wall="$wall" '
		$1 == run {
			if (!($2 in at)) {
				at[$2] = ++n
				name[n] = $2
			}
			secs[at[$2]] += $3
			total += $3
		}
		END {
			if (!n)
				exit
			print "time per step (wall, this run):"
			for (i = 1; i <= n; i++)
				printf "  %-22s %4dm%02ds\n", name[i], secs[i] / 60, secs[i] % 60
			printf "  %-22s %4dm%02ds\n", "sum of steps", total / 60, total % 60
			if (wall >= 0)
				printf "  %-22s %4dm%02ds\n",
				       "wall, whole run", wall / 60, wall % 60
		}' "$log"
	# The guest boots of this run (tests/vm/run writes one line each).
	boots=$(dirname "$log")/boots.tsv
	[ -f "$boots" ] || exit 0
	awk -F'\t' -v run="$run" '
		$1 == run {
			n++
			total += $2
			k = $5
			sub(/\/arch\/.*$/, "", k)
			sub(/^.*build\//, "", k)
			key = k " " $4
			secs[key] += $2
			cnt[key]++
		}
		END {
			if (!n)
				exit
			printf "guest boots: %d, %dm%02ds in guests (boot and command)\n",
			       n, total / 60, total % 60
			for (key in secs)
				printf "  %-32s %4d boots %6ds\n", key, cnt[key],
				       secs[key] | "sort -k5,5nr"
		}' "$boots" ;;
*)
	echo "usage: timings.sh record NAME SECONDS | report" >&2
	exit 2 ;;
esac
