#!/bin/sh
# gpbits-guest.sh lam|la57|mainline|uai: tagtrace trace reports a user #GP when
# its operand is non-canonical under the process's mode, or carries a tag
# in a process without tagging, and says which bits were wrong (outside);
# not when the operand was canonical for the process. gpbits makes one
# #GP per case, each in its own child. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

$TT trace --json -e gp > $d/trace.json 2> $d/trace.err &
tp=$!
started $d/trace.err "Ctrl-C" || exit 1
build/vm/gpbits > $d/cases
rc=$?
stop $tp
st=$?
sed 's/^/# /' $d/trace.err $d/cases
[ $rc = 0 ] && echo "ok - gpbits ran" || echo "not ok - gpbits ran: status $rc"
[ $st = 0 ] && echo "ok - tagtrace trace exits 0 on SIGINT" ||
	echo "not ok - tagtrace trace exits 0 on SIGINT: status $st"
python3 tests/tool/check_gpbits.py "$1" $d/cases $d/trace.json
