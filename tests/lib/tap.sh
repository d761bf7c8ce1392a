# TAP helpers for the shell tests (sourced). Results are unnumbered, the plan
# comes last, so guest programs can print their own "ok - ..." lines into
# the same stream.
#
# What a guest run passes on (tap_guest), beyond its own "not ok" lines:
# - plans bind: a guest program's "1..N", before or after its numbered
#   results, must match the results it printed (fewer is a program that
#   stopped early), and numbered results without a plan are a program that
#   never reached its end;
# - skips are results not run: each "ok ... # SKIP reason" (and a program's
#   "1..0 # SKIP reason") is passed through with its reason and counted, and
#   the skips of each boot must be exactly those tests/lib/expected-skips.txt
#   lists for it, reason by reason: more fails (something stopped running),
#   and so does fewer (the list is stale; a stale count would hide the same
#   skips coming back). A known failure, "not ok ... # TODO reason", is
#   listed there too, as "TODO: reason".
# These two (the plans held, the skips as listed) and the guest run's exit
# status are results about the run, not checks of the code under test:
# "harness: ..." results, counted apart (here and in tests/lib/summary.sh)
# and failing the test file like any other.
# shellcheck shell=bash

tap_count=0
tap_failed=0
tap_skipped=0
tap_todo=0
tap_harness=0
tap_harness_failed=0
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rig=$top/tests/vm/run
tap_name=$(basename "$0")
tap_skips_file=${TAP_EXPECTED_SKIPS:-$top/tests/lib/expected-skips.txt}
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

# harness STATUS DESCRIPTION [DIAGNOSTIC...]: a result about the run itself
# (a guest's exit status, its plans, its skips against the list), not a
# check of the code under test: "harness: DESCRIPTION", counted apart.
harness()
{
	local st=$1 desc=$2

	shift 2
	tap_harness=$((tap_harness + 1))
	[ "$st" -eq 0 ] || tap_harness_failed=$((tap_harness_failed + 1))
	ok "$st" "harness: $desc" "$@"
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

# tap_expected_skips BOOT: "COUNT<TAB>REASON" lines that
# tests/lib/expected-skips.txt lists for BOOT of this test file.
tap_expected_skips()
{
	[ -f "$tap_skips_file" ] || return 0
	awk -F'\t' -v f="$tap_name" -v b="$1" '
		/^#/ || NF < 4 { next }
		$1 == f && $2 == b { print $3 "\t" $4 }' "$tap_skips_file"
}

# tap_parse BOOT < OUTPUT: pass a guest's TAP through, counting its results,
# binding its plans and comparing its skips with the expected ones. BOOT
# names the boot on one line: a newline in it (a multi-line sh -c) is a
# space.
tap_parse()
{
	local boot=${1//$'\n'/ } line num desc rest reason
	local seg_plan= seg_n=0
	local -A skips=()
	local -a problems=()

	# tap_close: the end of one guest program's numbered results.
	tap_close()
	{
		if [ -n "$seg_plan" ] && [ "$seg_n" != "$seg_plan" ]; then
			problems+=("a guest program planned $seg_plan results and printed $seg_n")
		elif [ -z "$seg_plan" ] && [ "$seg_n" -gt 0 ]; then
			problems+=("a guest program printed $seg_n numbered results and no plan (it stopped early?)")
		fi
		seg_plan= seg_n=0
	}

	while IFS= read -r line; do
		if [[ $line =~ ^TAP\ version ]]; then
			tap_close
			echo "# $line"
			continue
		fi
		if [[ $line =~ ^1\.\.([0-9]+)(.*)$ ]]; then
			num=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
			if [ -z "$seg_plan" ] && [ "$seg_n" -gt 0 ]; then
				seg_plan=$num		# a plan after the results
				tap_close
			else
				tap_close
				seg_plan=$num		# a plan before them
			fi
			if [ "$num" = 0 ]; then
				seg_plan=
				reason=
				[[ $rest =~ \#\ *[Ss][Kk][Ii][Pp]\ *(.*)$ ]] && reason=${BASH_REMATCH[1]}
				reason=${reason:-no reason given}
				skips[$reason]=$((${skips[$reason]:-0} + 1))
				tap_count=$((tap_count + 1))
				tap_skipped=$((tap_skipped + 1))
				echo "ok - a guest program skipped all its tests # SKIP $reason"
			else
				echo "# guest plan: $line"
			fi
			continue
		fi
		if ! [[ $line =~ ^(not\ )?ok($|\ ) ]]; then
			echo "# $line"
			continue
		fi
		# Guest programs number their own results; renumbering is ours.
		[[ $line =~ ^(not\ )?ok\ ?([0-9]*)\ *(-\ *)?(.*)$ ]]
		num=${BASH_REMATCH[2]} desc=${BASH_REMATCH[4]}
		if [ -n "$num" ]; then
			[ "$num" = 1 ] && [ "$seg_n" -gt 0 ] && tap_close
			seg_n=$((seg_n + 1))
			[ "$num" = "$seg_n" ] ||
				problems+=("result numbered $num where $seg_n was due: '$desc'")
		fi
		line="${BASH_REMATCH[1]}ok - $desc"
		tap_count=$((tap_count + 1))
		if [[ $desc =~ \#\ *[Ss][Kk][Ii][Pp]($|\ +(.*)$) ]]; then
			reason=${BASH_REMATCH[2]:-no reason given}
			if [ "${line#not }" != "$line" ]; then
				tap_failed=$((tap_failed + 1))	# "not ok # SKIP" is a failure
			else
				tap_skipped=$((tap_skipped + 1))
				skips[$reason]=$((${skips[$reason]:-0} + 1))
			fi
		elif [[ $desc =~ \#\ *[Tt][Oo][Dd][Oo]\ *(.*)$ ]]; then
			reason="TODO: ${BASH_REMATCH[1]:-no reason given}"
			tap_todo=$((tap_todo + 1))
			skips[$reason]=$((${skips[$reason]:-0} + 1))
			case $line in
			"ok "*) echo "# a TODO passes: take it off the known failures" ;;
			esac
		elif [ "${line#not }" != "$line" ]; then
			tap_failed=$((tap_failed + 1))
		fi
		echo "$line"
	done
	tap_close

	if [ ${#problems[@]} -gt 0 ]; then
		harness 1 "guest run ($boot): its programs' plans hold" "${problems[@]}"
	fi

	# The skips against the list, reason by reason: exactly its count.
	local want got total=0 k
	local -a diag=()
	local -A listed=()
	while IFS=$'\t' read -r want reason; do
		[ -n "$reason" ] || continue
		listed[$reason]=1
		got=${skips[$reason]:-0}
		if ! [[ $want =~ ^[0-9]+$ ]]; then
			diag+=("'$reason': the list's count '$want' is not a number")
		elif [ "$got" -ne "$want" ]; then
			diag+=("'$reason': $got skipped, $want expected")
		fi
	done < <(tap_expected_skips "$boot")
	for k in "${!skips[@]}"; do
		total=$((total + skips[$k]))
		[ -n "${listed[$k]:-}" ] ||
			diag+=("'$k': ${skips[$k]} skipped, none expected")
	done
	if [ ${#diag[@]} -gt 0 ]; then
		diag+=("if these skips are right, ${tap_skips_file#"$top"/} lists them as:")
		for k in "${!skips[@]}"; do
			diag+=("$(printf '%s\t%s\t%s\t%s' "$tap_name" "$boot" "${skips[$k]}" "$k")")
		done
		harness 1 "guest run ($boot): its skips are the expected ones" "${diag[@]}"
	elif [ ${#listed[@]} -gt 0 ]; then
		harness 0 "guest run ($boot): its $total skips are the expected ones"
	fi
}

# tap_guest RIG-ARGS... -- CMD...: run CMD in the guest; pass its TAP lines
# through and count them; a guest that ends badly is a failure of its own.
# With TAP_GUEST_KEEP=FILE in its environment, the guest's output is also
# copied to FILE.
tap_guest()
{
	local rc out

	out=$(mktemp)
	"$rig" "$@" > "$out" 2>&1
	rc=$?
	tap_parse "$*" < "$out"
	# TAP_GUEST_KEEP=FILE: the caller reads the output too.
	[ -z "${TAP_GUEST_KEEP:-}" ] || cp "$out" "$TAP_GUEST_KEEP"
	# prove shows none of a failed run's output unless -v: keep it.
	local kept=
	if [ "$rc" != 0 ]; then
		mkdir -p "$top/build/logs/guest-failures"
		kept=$top/build/logs/guest-failures/$(date +%Y%m%d-%H%M%S)-$$.txt
		{ printf 'tests/vm/run %s\n' "$*"; cat "$out"; } > "$kept"
	fi
	rm -f "$out"
	harness "$rc" "guest run ($*) exited 0" "exit status $rc${kept:+, output in $kept}"
}

# need_built HINT FILE...: every FILE exists, or one failed result naming
# the first missing one with HINT (the make targets that build it), and
# the script ends there.
need_built()
{
	local hint=$1 f

	shift
	for f in "$@"; do
		if [ ! -f "$f" ]; then
			ok 1 "$f is built" "$hint"
			tap_done
			exit
		fi
	done
}

# tap_done: the plan, and the counts (the harness's apart); fails if
# anything failed, the harness's results included.
tap_done()
{
	local hpass=$((tap_harness - tap_harness_failed))

	echo "# $tap_name: $((tap_count - tap_failed - tap_skipped - tap_todo - hpass)) passed," \
		"$((tap_failed - tap_harness_failed)) failed, $tap_skipped skipped, $tap_todo todo," \
		"plus $tap_harness harness checks, $tap_harness_failed failed"
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}
