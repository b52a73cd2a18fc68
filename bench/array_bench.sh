#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The array's control plane, measured (not a test): one etcd member on
# loopback, 3 idle captures (an empty-ish pcap, no hugepages) and their
# dpdk-ibvcap-agents at the default period (5 s) and TTL (10 s).
#   1. time from dpdk-ibvcap-array's command put to the last host's reply
#      (the replies' "done" minus the command's "issued", one clock),
#      and the tool's own wall time, over N commands;
#   2. etcd's writes per host at the default period: etcd_mvcc_put_total
#      and etcd_server_proposals_committed_total over 60 s of idle agents
#      (state records; lease keep-alives are not writes), and the size of
#      one state record.
# Usage: bench/array_bench.sh [N] (default 10); results on stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
N=${1:-10}
W=$(mktemp -d /tmp/array-bench.XXXXXX)
P=$((22000 + ($$ % 400) * 10))
PIDS=()
cleanup() {
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; done
	sleep 1
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$W" /var/run/dpdk/abench$$*
}
trap cleanup EXIT
echo "# machine: $(nproc) vCPU, $(uname -r), etcd $(etcd --version | awk '/etcd Version/ {print $3}'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
etcd --name e0 --data-dir "$W/etcd" --listen-client-urls "http://127.0.0.1:$P" \
	--advertise-client-urls "http://127.0.0.1:$P" --listen-peer-urls "http://127.0.0.1:$((P + 1))" \
	--initial-advertise-peer-urls "http://127.0.0.1:$((P + 1))" \
	--initial-cluster "e0=http://127.0.0.1:$((P + 1))" > "$W/etcd.log" 2>&1 &
PIDS+=($!)
"$B/app/codifgen" --antennas 1 --groups 1 --threads 1 --count 2 --pcap "$W/one.pcap" --quiet
for h in h0 h1 h2; do
	mkdir -p "$W/$h"
	"$B/app/dpdk-ibvcap" --lcores 0@0,1@1,2@0 --no-pci --no-huge -m 256 --file-prefix="abench$$$h" \
		--log-level=lib.eal:error --vdev "net_pcap0,rx_pcap=$W/one.pcap" -- --antennas 1 \
		--groups 1 --threads 1 --stats-period 0 --duration 900s --record idle \
		--write "codif:$W/$h" > "$W/$h.log" 2>&1 &
	PIDS+=($!)
done
sleep 5
for h in h0 h1 h2; do
	/usr/bin/python3 "$B/app/dpdk-ibvcap-agent" --etcd "127.0.0.1:$P" --array bench --host "$h" \
		--file-prefix "abench$$$h" > "$W/$h.agent.log" 2>&1 &
	PIDS+=($!)
done
for _ in $(seq 100); do
	[ "$(grep -l 'member of array' "$W"/*.agent.log 2>/dev/null | wc -l)" = 3 ] && break
	sleep 0.3
done
T0=$(($(date +%s) + 7200))
for i in $(seq "$N"); do
	s=$(date +%s%N)
	/usr/bin/python3 "$B/app/dpdk-ibvcap-array" --etcd "127.0.0.1:$P" --array bench \
		--json "$W/c$i.json" record on --scan "b$i" --at "@$((T0 + i * 10))" --for 1s > "$W/c$i.txt"
	echo $((($(date +%s%N) - s) / 1000000)) > "$W/c$i.wall"
done
python3 - "$W" "$N" <<'PY'
import json, statistics, sys
w, n = sys.argv[1], int(sys.argv[2])
lat, wall = [], []
for i in range(1, n + 1):
    c = json.load(open("%s/c%d.json" % (w, i)))
    assert all(h["result"] == "accepted" for h in c["hosts"]), c
    issued = min(h["reply"]["seen"] for h in c["hosts"])  # a lower bound of the tool's put
    last = max(h["reply"]["done"] for h in c["hosts"])
    lat.append(last - issued)
    wall.append(int(open("%s/c%d.wall" % (w, i)).read()) / 1000)
print("commands: %d, 3 hosts, every host accepted every one" % n)
print("first agent sees the command -> last host's reply written: median %.0f ms, min %.0f, max %.0f"
      % tuple(1000 * x for x in (statistics.median(lat), min(lat), max(lat))))
print("dpdk-ibvcap-array wall time (Python start, etcd, waiting for replies at 0.1 s polls): "
      "median %.2f s, min %.2f, max %.2f" % (statistics.median(wall), min(wall), max(wall)))
PY
metric() { curl -s "http://127.0.0.1:$P/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
a=$(metric etcd_mvcc_put_total) c=$(metric etcd_server_proposals_committed_total)
sleep 60
b=$(metric etcd_mvcc_put_total) d=$(metric etcd_server_proposals_committed_total)
python3 - "$a" "$b" "$c" "$d" <<'PY'
import sys
a, b, c, d = (float(x) for x in sys.argv[1:])
print("idle agents at the default period (5 s): %.3f puts/s per host, %.3f raft proposals/s per host"
      % ((b - a) / 60 / 3, (d - c) / 60 / 3))
PY
/usr/bin/python3 - "$P" <<'PY'
import etcd3, sys
c = etcd3.client(host="127.0.0.1", port=int(sys.argv[1]))
v, _ = c.get("/ibvcap/bench/state/h0")
print("one state record: %d bytes" % len(v))
PY
