#!/bin/sh
# pidreuse-guest.sh [--pages]: with kernel.pid_max at its minimum, a tagged process's
# PID comes round again to an untagged one while tagtrace top runs: the new
# process must get its own row (its own name, mode and zero untags), the
# old one keep its counts. Also: a process is named after its group leader,
# not the thread that made its events, and after an exec by the new name.
# The tagged events are untags (tagged uname() calls), or with --pages
# tagged page faults (upstream LAM refuses tagged system calls). TAP.
. tests/tool/lib-guest.sh
L=$PWD/build/vm/tagloop
MAX=400		# PIDs 300..399 once wrapped (RESERVED_PIDS is 300)

ln -s "$L" $d/tagquery
echo $MAX > /proc/sys/kernel/pid_max
# Wrap once, so that the tagged process's PID is one that comes round,
# and go a little past the bottom of the range.
last=0 wrapped=
while [ -z "$wrapped" ] || [ $p -lt 320 ]; do
	: &
	p=$!
	wait $p
	[ $p -lt $last ] && wrapped=1
	last=$p
done

$TT top --json -i 1 > $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C" || exit 1
# The tagged one: 50 untags from a thread named worker, then exec true.
$L 50 $1 --thread worker --exec /bin/true > $d/a.out || echo "not ok - tagloop A ran"
pa=$(sed -n 's/^pid=//p' $d/a.out)
# Threads again, no exec: the row is named after the leader.
$L 20 $1 --thread worker > $d/b.out || echo "not ok - tagloop B ran"
pb=$(sed -n 's/^pid=//p' $d/b.out)
# Spawn until the PIDs come round to just below pa, then start untagged
# query processes until one gets pa (a live process may hold pa - 1).
pq= tries=0
while [ "$pq" != "$pa" ] && [ $tries -lt 3000 ]; do
	: &
	p=$!
	wait $p
	tries=$((tries + 1))
	[ $p -ge $((pa - 8)) ] && [ $p -lt $pa ] || continue
	while :; do
		$d/tagquery 0 > $d/q.out
		pq=$(sed -n 's/^pid=//p' $d/q.out)
		[ "$pq" -ge "$pa" ] || [ "$pq" -lt $((pa - 8)) ] && break
	done
done
echo "# tagged pid $pa, threaded pid $pb, query pid $pq after $tries spawns"
# Until a report has the query process's row (top -i 1), at most 10 s.
i=0
while ! grep -q '"tagquery"' $d/top.json && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
stop $tp
st=$?
sed 's/^/# /' $d/top.err
[ "$pq" = "$pa" ] && echo "ok - an untagged process got the tagged one's PID" ||
	echo "not ok - an untagged process got the tagged one's PID ($pq, $pa)"
[ $st = 0 ] && echo "ok - tagtrace top exits 0 on SIGINT" ||
	echo "not ok - tagtrace top exits 0 on SIGINT: $st"
python3 tests/tool/check_counts.py pidreuse $d $pa $pb ${1:+pages}
