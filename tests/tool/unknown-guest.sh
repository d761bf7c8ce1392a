#!/bin/sh
# unknown-guest.sh: with -A fallback (as on a kernel without the tagged_addr
# events) untag and #GP have no source; top --json and its OpenMetrics
# file must leave them out, not write 0, and name every source. Runs on
# the series kernel, so it holds whatever the upstream kernel's fallbacks
# can load. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh

$TT top --json -A fallback -i 1 --openmetrics $d/tagtrace.prom > $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C"
$W 3 100 200 8 5 > $d/workload.out
rc=$?
stop $tp
src=$?
sed 's/^/# /' $d/top.err
[ $rc = 0 ] && echo "ok - workload ran" || echo "not ok - workload ran: $rc"
[ $src = 0 ] && echo "ok - top -A fallback --openmetrics exits 0 on SIGINT" ||
	echo "not ok - top -A fallback --openmetrics exits 0 on SIGINT: $src"
r=0
python3 - $d/top.json <<'PY' || r=1
import json, sys
last = [json.loads(x) for x in open(sys.argv[1])][-1]
src = last.get("sources", {})
keys = {k for p in last["processes"] for k in list(p["total"]) + list(p["interval"])}
good = (src.get("untag") == src.get("gp") == "unavailable" and
        not keys & {"untag", "gp"} and {"ctrl", "switch", "fault"} <= keys)
print(("ok" if good else "not ok") +
      " - top --json: untag and gp named unavailable and left out, the others counted")
if not good:
    print("#   " + json.dumps(last)[:400])
PY
python3 tests/tool/check_openmetrics.py $d/tagtrace.prom $d/top.json || r=1
exit $r
