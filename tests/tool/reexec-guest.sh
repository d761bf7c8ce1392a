#!/bin/sh
# reexec-guest.sh: top keeps a process's mode right through exec.
# tagloop enables tagging (ctrl), writes pages through tagged pointers,
# then execs a script that execs tagloop again, which enables tagging
# again and does the same: one process (one PID, one start time) that was
# LAM, untagged by the exec, then LAM again. Its row in top's reports
# after it exited must say lam_u57 with 6 tag bits under the name
# tagloop: the exec's reset, written to the row at the exec event, must
# not outlive the second enable counted on the CPU that counted the
# first. On the series' kernel a ctrl event of the exec's reset comes
# first; on upstream's (the fallbacks) nothing but the exec event does.
# Needs --cpu lam. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

$TT top --json -i 1 > $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C" || exit 1
printf '#!/bin/sh\nexec build/vm/tagloop 3 --pages\n' > $d/again.sh
chmod +x $d/again.sh
build/vm/tagloop 3 --pages --exec $d/again.sh > $d/loop.out
rl=$?
pid=$(sed -n 's/^pid=//p' $d/loop.out | sort -u)
# Two reports made after it exited: the last has its final state.
n=$(grep -c '^{' $d/top.json)
i=0
while [ "$(grep -c '^{' $d/top.json)" -lt $((n + 2)) ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
row=$(grep '^{' $d/top.json | tail -n 1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
p = [p for p in r["processes"] if p["pid"] == int(sys.argv[1])]
print(" ".join("%s=%s" % (k, p[0][k]) for k in ("comm", "mode", "tag_bits"))
      if len(p) == 1 else "rows=%d" % len(p))' "${pid:-0}")
stop $tp
st=$?
sed 's/^/# /' $d/top.err
[ $rl = 0 ] && [ -n "$pid" ] && [ "$(grep -c '^pid=' $d/loop.out)" = 2 ] &&
	[ "$(echo "$pid" | wc -l)" = 1 ] &&
	echo "ok - tagloop, exec, tagloop ran as one process (pid $pid)" ||
	echo "not ok - tagloop, exec, tagloop ran as one process: status $rl, pid $pid"
[ $st = 0 ] && echo "ok - tagtrace top exits 0 on SIGINT" ||
	echo "not ok - tagtrace top exits 0 on SIGINT: $st"
want="comm=tagloop mode=lam_u57 tag_bits=6"
[ "$row" = "$want" ] &&
	echo "ok - top: lam_u57 and 6 bits again after the exec and the second enable" ||
	echo "not ok - top: lam_u57 and 6 bits again after the exec and the second enable: $row"
