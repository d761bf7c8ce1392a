# TAP helpers for the shell tests (sourced). Results are unnumbered, the plan
# comes last, so guest programs can print their own "ok - ..." lines into
# the same stream.
# shellcheck shell=bash

tap_count=0
tap_failed=0
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rig=$top/tests/vm/run
. "$top/tests/lib/offer.sh"

# ok STATUS DESCRIPTION [DIAGNOSTIC...]: STATUS 0 passes.
ok()
{
	local st=$1 desc=$2

	shift 2
	tap_count=$((tap_count + 1))
	if [ "$st" -eq 0 ]; then
		echo "ok - $desc"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok - $desc"
		local d
		for d in "$@"; do
			printf '%s\n' "$d" | sed 's/^/#   /'
		done
	fi
}

# is GOT WANT DESCRIPTION: passes when the two strings are equal.
is()
{
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3" "got:  '$1'" "want: '$2'"
	fi
}

# tap_guest RIG-ARGS... -- CMD...: run CMD in the guest; pass its TAP lines
# through and count them; a guest that ends badly is a failure of its own.
tap_guest()
{
	local line rc out

	out=$(mktemp)
	"$rig" "$@" > "$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		# Guest programs number their own results; renumbering is ours.
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ (-\ )?(.*)$ ]]; then
			line="${BASH_REMATCH[1]}ok - ${BASH_REMATCH[3]}"
		fi
		case $line in
		"ok "*|"ok")
			tap_count=$((tap_count + 1)); echo "$line" ;;
		"not ok"*"# TODO"*)
			tap_count=$((tap_count + 1)); echo "$line" ;;
		"not ok"*)
			tap_count=$((tap_count + 1))
			tap_failed=$((tap_failed + 1)); echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$out"
	# prove shows none of a failed run's output unless -v: keep it.
	local kept=
	if [ "$rc" != 0 ]; then
		mkdir -p "$top/build/logs/guest-failures"
		kept=$top/build/logs/guest-failures/$(date +%Y%m%d-%H%M%S)-$$.txt
		{ printf 'tests/vm/run %s\n' "$*"; cat "$out"; } > "$kept"
	fi
	rm -f "$out"
	ok "$rc" "guest run ($*) exited 0" "exit status $rc${kept:+, output in $kept}"
}

tap_done()
{
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}
