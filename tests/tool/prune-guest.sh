#!/bin/sh
# prune-guest.sh N: `tagtrace top --openmetrics FILE --tag-values` drops an
# exited process from every per-process map once it has pruned its row:
# its counters, its tag values and its untags by system call. Otherwise the
# tag and system call maps fill up in a long run and count nothing more.
# tagloop makes N tagged uname() calls and exits; tagtrace's maps are then
# read with bpftool. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

# entries NAME PID: the number of entries of tagtrace's map NAME that
# belong to process PID (bpftool prints a key's "tgid" once an entry; no
# python here, slow to start in TCG). Other processes may have entries:
# the idle task or a kernel thread that ran on tagloop's mm switches out
# of its mode, and that switch is counted for the task that made it.
entries()
{
	bpftool map dump name "$1" > $d/dump 2> $d/bpftool.err ||
		{ sed 's/^/# /' $d/bpftool.err >&2; echo -1; return; }
	grep -c "\"tgid\": $2," $d/dump
}

$TT top --json -i 2 --openmetrics $d/tagtrace.prom --tag-values \
	> $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C" || exit 1
build/vm/tagloop "$1" > $d/loop.out || echo "not ok - tagloop $1 ran"
pid=$(sed -n 's/^pid=//p' $d/loop.out)
# Read at once: top prunes a row only after 5 idle reports, 10 s.
before="$(entries procs $pid) $(entries tags $pid) $(entries syscalls $pid)"
# Reported, then pruned: exited and idle for 5 reports, gone from the last.
i=0 seen=
while [ $i -lt 200 ]; do
	if tail -n 1 $d/top.json | grep -q "\"pid\":$pid,"; then
		seen=1
	elif [ -n "$seen" ]; then
		break
	fi
	sleep 0.2
	i=$((i + 1))
done
# The maps are emptied as the row goes: poll them, at most 5 s.
j=0
while :; do
	after="$(entries procs $pid) $(entries tags $pid) $(entries syscalls $pid)"
	[ "$after" = "0 0 0" ] || [ $j -ge 25 ] && break
	sleep 0.2
	j=$((j + 1))
done
others=$(bpftool map dump name procs | sed -n 's/.*"tgid": \([0-9]*\),.*/\1/p' | tr '\n' ' ')
stop $tp
st=$?
sed 's/^/# /' $d/top.err
echo "# tagloop pid $pid; its procs, tags and syscalls entries: before pruning $before, after $after"
echo "# processes left in the counter map: ${others:-none}"
[ -n "$seen" ] && echo "ok - top reported tagloop" ||
	echo "not ok - top reported tagloop"
[ $i -lt 200 ] && echo "ok - top pruned tagloop's row once it exited" ||
	echo "not ok - top pruned tagloop's row once it exited"
[ "$before" = "1 1 1" ] &&
	echo "ok - tagloop had an entry in each map before ($before)" ||
	echo "not ok - tagloop had an entry in each map before ($before)"
[ "$after" = "0 0 0" ] &&
	echo "ok - pruning emptied the counter, tag and system call maps ($after)" ||
	echo "not ok - pruning emptied the counter, tag and system call maps ($after)"
[ $st = 0 ] && echo "ok - tagtrace top exits 0 on SIGINT" ||
	echo "not ok - tagtrace top exits 0 on SIGINT: $st"
