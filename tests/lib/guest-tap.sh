# Sourced first by every guest-side test script (POSIX sh): the script runs
# again as a child, its output passes through as it comes, and its exit
# status accumulates every result it printed: non-zero if the script itself
# ended non-zero, printed a "not ok" (its own or a checker's, TODOs aside)
# or let a Python checker die with a traceback. A script cannot drop a
# checker's status by carrying on, or by ending in "exit 0".
# shellcheck shell=sh
if [ "${TT_GUEST_TAP:-}" != "$0" ]; then
	TT_GUEST_TAP=$0
	export TT_GUEST_TAP
	{ "$0" "$@" 2>&1; echo "tt-guest-status=$?"; } | awk -v me="$0" '
		/^tt-guest-status=/ { st = substr($0, 17) + 0; next }
		/^not ok/ && !/#[ \t]*[Tt][Oo][Dd][Oo]/ { bad++ }
		/^Traceback \(most recent call last\)/ { tb++ }
		{ print; fflush() }
		END {
			if (st)
				printf "# %s exited %d\n", me, st
			if (bad)
				printf "# %s: %d not ok\n", me, bad
			if (tb)
				printf "# %s: %d Python traceback(s)\n", me, tb
			exit st ? st : (bad || tb) ? 1 : 0
		}'
	exit $?
fi
