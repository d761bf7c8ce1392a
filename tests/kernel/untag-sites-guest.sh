#!/bin/sh
# Guest side of tests/kernel/test-untag-sites.sh: bpftrace reads the first
# byte of every untag site (tests/kernel/untag_sites.py wrote SCRIPT) from
# the running kernel's text; 0x65 is the patched-in `and %gs:mask, reg`,
# anything else the NOPs the site was built with.
#   untag-sites-guest.sh SCRIPT FEATURE:SITES:patched|nop...
# For each FEATURE: SITES sites read, and all patched or none.
. tests/lib/guest-tap.sh
out=/tmp/untag-sites.out
script=$1
shift

if bpftrace "$script" > $out 2> /tmp/untag-sites.err; then
	echo "ok - bpftrace read the untag sites"
else
	echo "not ok - bpftrace read the untag sites (status $?)"
	sed 's/^/#   /' /tmp/untag-sites.err
fi
for want in "$@"; do
	f=${want%%:*} rest=${want#*:}
	n=${rest%%:*} state=${rest#*:}
	read=$(awk -v f="$f" '$1 == f' $out | wc -l)
	patched=$(awk -v f="$f" '$1 == f && $3 == "65"' $out | wc -l)
	if [ "$read" != "$n" ]; then
		echo "not ok - feature $f: $read of its $n untag sites read"
		continue
	fi
	case $state in
	patched) [ "$patched" = "$n" ] ;;
	nop) [ "$patched" = 0 ] ;;
	*) false ;;
	esac
	if [ $? = 0 ]; then
		echo "ok - feature $f: $patched of $n untag sites patched in, as wanted ($state)"
	else
		echo "not ok - feature $f: $patched of $n untag sites patched in, want $state"
	fi
done
