#!/bin/sh
# faultptr-guest.sh N M SOURCE: which pointer a fault is tagged by, and
# whether tagtrace says it knows or guesses. tagloop N --mixed M writes N
# fresh pages through pointers with tag 44, then M fresh pages untagged
# while the last tagged pointer, within 64 KiB, stays live in a register.
# tracefs, `tagtrace tags --json` and `tagtrace trace --json -e fault`
# watch. SOURCE is what tagtrace must say it takes the pointer from:
# "event" (the fault event's pointer field, which the register heuristic
# cannot match here: it takes the live tagged register for the M untagged
# faults too), where check_faultptr.py wants exactly N faults with tag 44
# and M untagged ones from each, as facts; or "registers" (a kernel
# without the field), where it wants the guess under guessed_ names only,
# finding at least the N. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

tracefs_start
# trace first: at a page fault only the first BPF program to look a VMA up
# can (tagtrace(8), LOCATIONS), and programs run in the order
# they were attached, so trace places each fault and tags says it could
# not.
$TT trace --json -e fault > $d/trace.json 2> $d/trace.err &
tp=$!
started $d/trace.err "Ctrl-C"
$TT tags --json -i 60 > $d/tags.json 2> $d/tags.err &
gp=$!
started $d/tags.err "Ctrl-C"
build/vm/tagloop "$1" --mixed "$2" > $d/tagloop.out
lrc=$?
sleep 0.3
stop $gp $tp
src=$?
tracefs_stop $d/tracefs.txt
sed 's/^/# /' $d/tags.err $d/trace.err
[ $lrc = 0 ] && echo "ok - tagloop $1 --mixed $2 ran" ||
	echo "not ok - tagloop $1 --mixed $2 ran: $lrc"
[ $src = 0 ] && echo "ok - tagtrace tags and trace exit 0 on SIGINT" ||
	echo "not ok - tagtrace tags and trace exit 0 on SIGINT: $src"
python3 tests/tool/check_faultptr.py $d "$@"
