# Numbered TAP results for a guest-side script (POSIX sh), sourced after
# tests/lib/guest-tap.sh: "ok STATUS DESCRIPTION" prints result n, and the
# script ends with tap_done (the plan, and a status that says whether any
# failed).
n=0 failed=0

ok()
{
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

tap_done()
{
	echo "1..$n"
	[ "$failed" -eq 0 ]
}
