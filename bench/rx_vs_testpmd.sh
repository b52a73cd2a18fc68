#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): rx rate of dpdk-ibvcap against dpdk-testpmd in rxonly
# mode, both on net_pcap infinite replay of the same 8298-byte CODIF frames,
# on the same machine in the same run, alternating; plus dpdk-ibvcap's empty
# polls per packet. Target: ratio >= 0.9.
#
#   bench/rx_vs_testpmd.sh [SECONDS_PER_RUN (10)] [ROUNDS (2)]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SECS=${1:-10}
ROUNDS=${2:-2}
T=$(mktemp -d /tmp/ibvcap-bench.XXXXXX)
P=ibvb$$
trap 'rm -rf "$T"; rm -f /dev/hugepages/${P}*; rm -rf /var/run/dpdk/${P}*' EXIT
command -v dpdk-testpmd >/dev/null || { echo "needs dpdk-testpmd (package dpdk)"; exit 1; }

# 6 antennas x 4 groups x 2 threads x 50 frames: 2400 packets, 20 MB
"$BUILD/app/codifgen" --count 50 --pcap "$T/in.pcap" --quiet
VDEV="net_pcap0,rx_pcap=$T/in.pcap,infinite_rx=1"
EAL_T="-l 0,1 --no-pci --no-huge -m 1024 --log-level=lib.eal:error"

# per-second rates, the first second dropped, averaged
testpmd_run() {
	(sleep "$((SECS + 2))"; echo) | timeout -s INT "$((SECS + 10))" dpdk-testpmd $EAL_T \
		--file-prefix="${P}t" --vdev "$VDEV" -- --forward-mode=rxonly -a \
		--mbuf-size=10240 --max-pkt-len=9018 --total-num-mbufs=16384 --nb-cores=1 \
		--rxq=1 --txq=1 --rxd=1024 --txd=1024 --stats-period 1 2>&1 |
		awk '/Rx-pps:/ {n++; if (n > 2) {s += $2; k++}} END {printf "%.0f\n", k ? s / k : 0}' || true
}

ibvcap_run() {
	"$BUILD/app/dpdk-ibvcap" $EAL_T --no-telemetry --file-prefix="${P}i" --vdev "$VDEV" -- \
		--steer software --duration "${SECS}s" --stats-period 1s \
		--summary-json "$T/ibv.json" > "$T/ibv.log" 2>&1 || { cat "$T/ibv.log" >&2; exit 1; }
	awk '/^\[ *[0-9.]+s\]/ {n++; if (n > 1) {s += $5; k++}} END {printf "%.0f\n", k ? s / k * 1e6 : 0}' "$T/ibv.log"
}

echo "rx rate on net_pcap infinite replay of 8298-byte CODIF frames, ${SECS}s per run"
printf "%-6s %14s %14s %8s\n" round "testpmd pps" "ibvcap pps" ratio
ratios=()
for r in $(seq 1 "$ROUNDS"); do
	tp=$(testpmd_run)
	ib=$(ibvcap_run)
	ratio=$(python3 -c "print('%.3f' % ($ib / $tp if $tp else 0))")
	ratios+=("$ratio")
	printf "%-6s %14s %14s %8s\n" "$r" "$tp" "$ib" "$ratio"
done
bwp=$(python3 -c "import json; t=json.load(open('$T/ibv.json'))['totals']; print('%.3f' % t['busy_wait_per_packet'])")
med=$(printf "%s\n" "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "dpdk-ibvcap empty polls per packet (last run): $bwp"
echo "median ratio ibvcap/testpmd: $med (target >= 0.9) $(python3 -c "print('MET' if $med >= 0.9 else 'NOT MET')")"
echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), DPDK $(pkg-config --modversion libdpdk)"
