#!/bin/sh
# pidns-guest.sh N: which process -p names, and which processes are gone.
# A Python process makes N ARCH_GET_UNTAG_MASK queries (N ctrl events)
# from its main thread while a second thread waits. `top -p TID` of that
# thread follows its process (and says so); in a PID namespace of its own
# (unshare -p -f), `top -p PID` of a PID of that namespace counts the
# process, and `top` there keeps a live process that idles for longer than
# pruning waits listed, not exited. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
N=$2
[ "$1" = --inner ] || N=$1

cat > $d/queries.py <<'EOF'
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
go = threading.Event()
t = threading.Thread(target=go.wait)
t.start()
print(os.getpid(), t.native_id, flush=True)
open(sys.argv[1]).read()          # the go: a line into the fifo
mask = ctypes.c_ulong()
for _ in range(int(sys.argv[2])):
    libc.syscall(158, 0x4001, ctypes.byref(mask))   # ARCH_GET_UNTAG_MASK
time.sleep(float(sys.argv[3]))    # idle, alive
go.set()
t.join()
EOF

# run NAME WHO IDLE TOP-ARGS...: queries.py (idle IDLE s after its
# queries), then top --json TOP-ARGS with -p of what WHO names (pid, tid
# or all: no -p); leaves NAME.json, NAME.err, NAME.ids. Prints whether top
# started and exited 0 on SIGINT, and returns non-zero if not.
run()
{
	n=$1 who=$2 idle=$3
	shift 3
	rm -f $d/$n.go
	mkfifo $d/$n.go
	python3 $d/queries.py $d/$n.go $N $idle > $d/$n.ids &
	py=$!
	while [ ! -s $d/$n.ids ]; do sleep 0.1; done
	set -- $(cat $d/$n.ids) "$@"
	pid=$1 tid=$2
	shift 2
	case $who in
	pid) set -- -p $pid "$@" ;;
	tid) set -- -p $tid "$@" ;;
	esac
	$TT top --json "$@" > $d/$n.json 2> $d/$n.err &
	tp=$!
	if ! started $d/$n.err "Ctrl-C"; then
		echo "not ok - top ($n) started"
		return 1
	fi
	echo go > $d/$n.go
	wait $py
	sleep 0.5
	stop $tp
	rc=$?
	[ $rc = 0 ] && echo "ok - top ($n) exits 0 on SIGINT" ||
		echo "not ok - top ($n) exits 0 on SIGINT: $rc"
	sed 's/^/# /' $d/$n.err
	echo $pid > $d/$n.pid
	return $rc
}

# count NAME: the ctrl count of the one process in NAME.json's last report.
check_one()
{
	python3 - $d/$1.json "$N" "$2" <<'EOF'
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1])]
n, what = int(sys.argv[2]), sys.argv[3]
procs = reps[-1]["processes"] if reps else []
ctrl = [p["total"].get("ctrl") for p in procs]
good = ctrl == [n]
print(("ok - " if good else "not ok - ") + what + f": its {n} ctrl events, nothing else")
if not good:
    print(f"#   got {len(procs)} processes, ctrl counts {ctrl[:5]}")
EOF
}

# Inside the namespace: the same script, its files in the outer one's $d,
# its results printed for the outer one to pass on, its exit status
# theirs (stop() sets st: its own variable here).
if [ "$1" = --inner ]; then
	d=$3
	inner=0
	run ns pid 0 -i 30 || inner=1
	run prune all 4 -i 0.3 || inner=1
	readlink /proc/self/ns/pid > $d/ns.id
	exit $inner
fi

run tid tid 0 -i 30
if grep -q "is a thread of process $(cat $d/tid.pid): following the process" $d/tid.err; then
	echo "ok - top -p TID: says the thread's process is followed"
else
	echo "not ok - top -p TID: says the thread's process is followed"
fi
check_one tid "top -p TID of a thread"

# A PID namespace of its own, /proc mounted for it.
unshare -p -f --mount-proc sh tests/tool/pidns-guest.sh --inner "$N" $d \
	> $d/unshare.out 2>&1
ust=$?
# Its results as they are, the rest as comments.
sed '/^\(not \)\{0,1\}ok /!s/^/# /' $d/unshare.out
[ $ust = 0 ] && echo "ok - the pass in the PID namespace exits 0" ||
	echo "not ok - the pass in the PID namespace exits 0: $ust"
[ -s $d/ns.id ] && [ "$(readlink /proc/self/ns/pid)" != "$(cat $d/ns.id)" ] &&
	echo "ok - unshare -p -f: tagtrace ran in a PID namespace of its own" ||
	echo "not ok - unshare -p -f: tagtrace ran in a PID namespace of its own"
check_one ns "top -p PID in a PID namespace, PID of that namespace"
python3 - $d/prune.json "$N" <<'EOF'
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1])]
n = int(sys.argv[2])
rows = [p for r in reps for p in r["processes"]
        if p["total"].get("ctrl") == n and p["comm"].startswith("python")]
# Listed from its queries on; it exits only in the last 2 or 3 reports.
alive = rows[:-3]
good = len(rows) >= 8 and not any(p["exited"] for p in alive)
print(("ok - " if good else "not ok - ") +
      f"top in a PID namespace: a live process idle for {len(alive)} reports "
      "stays listed, not exited, not pruned")
if not good:
    print(f"#   listed in {len(rows)} of {len(reps)} reports, exited: " +
          " ".join(str(p["exited"]) for p in rows))
EOF
