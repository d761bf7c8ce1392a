#!/bin/sh
# export-guest.sh N M K F G: the real consumer of `tagtrace top
# --openmetrics`, node_exporter's textfile collector, on loopback: every
# tagtrace family arrives with the workload's counts. Then, if Debian's
# Prometheus starts, it scrapes node_exporter and answers a 0.99 quantile
# of the switch histograms through its HTTP API. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
NE=/usr/bin/prometheus-node-exporter
PROM=/usr/bin/prometheus

ip link set lo up
mkdir $d/textfile
# Only the textfile collector: the others read what the guest lacks.
$NE --web.listen-address=127.0.0.1:9100 --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory=$d/textfile \
	> $d/ne.log 2>&1 &
np=$!
$TT top --json -i 1 --openmetrics $d/textfile/tagtrace.prom --histograms > $d/top.json 2> $d/top.err &
tp=$!
started $d/top.err "Ctrl-C"
$W "$@" > $d/workload.out
rc=$?
# top writes a last report and file on SIGINT: the workload's final counts.
stop $tp
src=$?
[ $rc = 0 ] && echo "ok - workload ran ($*)" || echo "not ok - workload ran ($*): $rc"
[ $src = 0 ] && echo "ok - top --openmetrics exits 0 on SIGINT" ||
	echo "not ok - top --openmetrics exits 0 on SIGINT: $src"
r=0
python3 tests/tool/check_scrape.py http://127.0.0.1:9100/metrics $d "$2" "$5" ||
	{ r=1; sed 's/^/# node_exporter: /' $d/ne.log; }

# Prometheus, if installed: scrape node_exporter, ask for a quantile, once
# it is ready and has scraped, however long its start takes under TCG
# (check_prometheus.py).
cat > $d/prometheus.yml <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:9100"]
YML
t0=$(date +%s.%N)
$PROM --config.file=$d/prometheus.yml --storage.tsdb.path=$d/tsdb \
	--web.listen-address=127.0.0.1:9090 > $d/prom.log 2>&1 &
pp=$!
python3 tests/tool/check_prometheus.py http://127.0.0.1:9090 $d/textfile/tagtrace.prom \
	"$pp" "$t0" $PROM || { r=1; sed 's/^/# prometheus: /' $d/prom.log | tail -20; }
kill $pp $np
wait $pp $np 2> /dev/null
exit $r
