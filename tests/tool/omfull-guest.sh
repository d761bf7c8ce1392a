#!/bin/sh
# omfull-guest.sh: `tagtrace top --openmetrics FILE` when FILE cannot be
# written, its file system full. A failed write leaves the last good file
# in place, and that file says when it was written
# (tagtrace_openmetrics_last_success_timestamp_seconds), so its age shows.
# After 3 failed writes in a row top stops by itself, exit status 1, and
# says why; a failure the next write gets past is survived, and counted in
# that file (tagtrace_openmetrics_write_failures_total); a run that ends
# (-n) on a failed write exits 1. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
mnt=/tmp/omfull
mkdir -p $mnt
mount -t tmpfs -o size=64k none $mnt || echo "not ok - mount a 64 KiB tmpfs"

# fill: every write to the tmpfs fails with ENOSPC until unfill.
fill() { dd if=/dev/zero of=$mnt/fill bs=1k count=128 2> /dev/null; }
unfill() { rm -f $mnt/fill; }

# written FILE: the time FILE says it was written (none: empty).
written()
{
	sed -n 's/^tagtrace_openmetrics_last_success_timestamp_seconds //p' "$1" 2> /dev/null
}

# later A B: B is later than A (decimal seconds).
later() { python3 -c "import sys; sys.exit(not $2 > $1)"; }

# Tagged system calls all along, so that the files have processes.
(while :; do build/vm/tagloop 5 > /dev/null; sleep 0.2; done) &
load=$!

# 1. Full for good: 3 failed writes in a row, then top stops by itself.
$TT top -i 0.5 --openmetrics $mnt/t.prom > /dev/null 2> $d/stop.err &
tp=$!
started $d/stop.err "Ctrl-C" && wait_for $mnt/t.prom '^# EOF$' && sleep 1
fill
full=$(date +%s.%N)
# A top that goes on is stopped here, after 30 s: status 130, not 1.
(sleep 30; kill -INT $tp 2> /dev/null) &
watchdog=$!
wait $tp
st=$?
end=$(date +%s.%N)
kill $watchdog 2> /dev/null
sed 's/^/# /' $d/stop.err
w=$(written $mnt/t.prom)
if [ $st = 1 ] &&
   [ "$(grep -c "^tagtrace: cannot write $mnt/t.prom: No space left on device$" $d/stop.err)" = 1 ] &&
   grep -q "^tagtrace: stopping: the last 3 writes of $mnt/t.prom failed (No space left on device)$" $d/stop.err; then
	echo "ok - top --openmetrics on a full file system: stops by itself after 3 failed writes, exit 1, says why"
else
	echo "not ok - top --openmetrics on a full file system: stops by itself after 3 failed writes, exit 1, says why (status $st)"
fi
# Stopped after 3 intervals of 0.5 s at the earliest: the file it left
# was written before the disk filled, and is that old when top stops.
if [ -n "$w" ] && later "$w" "$full" && later "$w + 1.0" "$end"; then
	echo "ok - the file left in place says it was written before the disk filled ($w, full at $full, top stopped at $end)"
else
	echo "not ok - the file left in place says it was written before the disk filled (${w:-no time}, full at $full, top stopped at $end)"
fi
if ls $mnt | grep -q '\.tmp\.'; then
	echo "not ok - no temporary file left: $(ls $mnt | tr '\n' ' ')"
else
	echo "ok - no temporary file left"
fi

# 2. Full for one write: top goes on, and the next file counts the failure.
unfill
$TT top -i 2 --json --openmetrics $mnt/r.prom > $d/top.json 2> $d/again.err &
tp=$!
started $d/again.err "Ctrl-C" && wait_for $mnt/r.prom '^# EOF$'
fill
wait_for $d/again.err "cannot write"
unfill
freed=$(date +%s.%N)
wait_for $mnt/r.prom '^tagtrace_openmetrics_write_failures_total [1-9]'
stop $tp
st=$?
sed 's/^/# /' $d/again.err
w=$(written $mnt/r.prom)
if [ $st = 0 ] &&
   grep -q "^tagtrace: wrote $mnt/r.prom again, after 1 failed write$" $d/again.err &&
   [ -n "$w" ] && later "$freed" "$w"; then
	echo "ok - a write failing once: top goes on, says when it writes again, exits 0 on SIGINT"
else
	echo "not ok - a write failing once: top goes on, says when it writes again, exits 0 on SIGINT (status $st, written ${w:-never} after $freed)"
fi
r=0
python3 tests/tool/check_openmetrics.py $mnt/r.prom $d/top.json --failed-writes || r=1

# 3. A run that ends on a failed write: exit 1.
fill
timeout 60 $TT top -n 1 -i 0.5 --openmetrics $mnt/n.prom > /dev/null 2> $d/end.err
st=$?
sed 's/^/# /' $d/end.err
if [ $st = 1 ] && [ ! -e $mnt/n.prom ] &&
   grep -q "^tagtrace: $mnt/n.prom does not hold the last report: its last write failed (No space left on device)$" $d/end.err; then
	echo "ok - top -n 1 --openmetrics whose write fails: exit 1, says so"
else
	echo "not ok - top -n 1 --openmetrics whose write fails: exit 1, says so (status $st)"
fi
kill $load
wait $load 2> /dev/null
umount $mnt
exit $r
