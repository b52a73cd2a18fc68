#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): frames written to pcap per second by
# dpdk-ibvcap-dump (from the antenna buffers) against the stock dpdk-pdump
# (port tap), on the same primary fed the same CODIF traffic through memif,
# at several offered rates and flat out; each with its loss. The generator
# drops what a full ring refuses (--tx-drop), as a NIC would when the
# capture falls behind: a tap that slows the capture shows as loss.
# Writes $OUT/dump_vs_pdump.txt and, with gnuplot, $OUT/dump_vs_pdump.png.
#
#   bench/dump_vs_pdump.sh [OUTDIR (bench/results)] [SECONDS_PER_RUN (3)]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${1:-$ROOT/bench/results}
SECS=${2:-3}
mkdir -p "$OUT"
T=$(mktemp -d /tmp/ibvcap-bench.XXXXXX)
P=ibvbd$$
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=10"
LAYOUT="--groups 1 --threads 2"   # 6 antennas x 2 threads = 12 streams
pids=()
cleanup() {
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
	sleep 0.5
	for p in "${pids[@]+"${pids[@]}"}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$T"
	rm -f /dev/hugepages/${P}*
	rm -rf /var/run/dpdk/${P}*
}
trap cleanup EXIT

count_pcap() { # records in a pcap file
	python3 - "$1" <<'PY'
import struct, sys
n = 0
with open(sys.argv[1], "rb") as f:
    f.read(24)
    while True:
        h = f.read(16)
        if len(h) < 16:
            break
        f.seek(struct.unpack("<I", h[8:12])[0], 1)
        n += 1
print(n)
PY
}

# one run: tool (dump|pdump), total offered packets/s (0 = flat out)
run() {
	local tool=$1 rate=$2 fps n cpid tpid gpid sent written el lost F got accepted
	rm -f "$SOCK" /dev/hugepages/${P}*
	rm -rf "$T/out"; mkdir -p "$T/out"
	# frames per stream for about SECS seconds (flat out: 180000 frames)
	if [ "$rate" = 0 ]; then F=$((15000 * SECS / 3)); else F=$((rate * SECS / 12)); fi
	n=$((F * 12))
	"$B/app/dpdk-ibvcap" -l 0,1 --no-pci --file-prefix=${P} --log-level=lib.eal:error \
		--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 \
		--idle-timeout 60s --ring 4096 --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
	cpid=$!; pids+=("$cpid")
	for _ in $(seq 100); do grep -q 'capturing on' "$T/cap.log" 2>/dev/null && break; sleep 0.1; done
	if [ "$tool" = dump ]; then
		"$B/app/dpdk-ibvcap-dump" --file-prefix ${P} --write "pcap:$T/out,all=yes" \
			--summary-json "$T/tool.json" 2> "$T/tool.log" &
		tpid=$!
		for _ in $(seq 100); do grep -q 'attached' "$T/tool.log" 2>/dev/null && break; sleep 0.1; done
	else
		stdbuf -oL dpdk-pdump -l 0 --no-pci --file-prefix=${P} --log-level=lib.eal:error -- \
			--pdump "port=0,queue=*,rx-dev=$T/out/pdump.pcap,mbuf-size=10240,total-num-mbufs=16384" \
			> "$T/tool.log" 2>&1 &
		tpid=$!
		for _ in $(seq 100); do grep -q 'MAC' "$T/tool.log" 2>/dev/null && break; sleep 0.1; done
		sleep 2
	fi
	pids+=("$tpid")
	if [ "$rate" = 0 ]; then fps=0; else fps=$(python3 -c "print($rate / 12)"); fi
	"$B/app/codifgen" -l 0 --no-pci --file-prefix=${P}g --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna $LAYOUT \
		--frames "$F" --rate-fps "$fps" --tx-drop --linger 300s > "$T/gen.log" 2>&1 &
	gpid=$!; pids+=("$gpid")
	# the generator done, the capture idle, then the tap stops, then the
	# capture (a pdump tap must leave before its primary does)
	for _ in $(seq 600); do grep -q ' packets, ' "$T/gen.log" 2>/dev/null && break; sleep 0.1; done
	last=-1
	while :; do
		got=$(echo /ibvcap/stats | dpdk-telemetry.py -f ${P} 2>/dev/null | tail -1 |
		      python3 -c 'import json,sys; print(json.load(sys.stdin)["/ibvcap/stats"]["packets"])' 2>/dev/null || echo 0)
		[ "$got" = "$last" ] && break
		last=$got
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.5
	done
	if [ "$tool" = pdump ]; then
		sleep 1
		kill -INT "$tpid"; wait "$tpid" || true
	fi
	kill -INT "$cpid"; wait "$cpid" || true
	if [ "$tool" = dump ]; then
		wait "$tpid" || true
		written=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["written"])' "$T/tool.json")
	else
		written=$(count_pcap "$T/out/pdump.pcap")
	fi
	kill -INT "$gpid"; wait "$gpid" || true
	rm -f /dev/hugepages/${P}g*
	el=$(sed -n 's/.* bytes in \([0-9.]*\) s .*/\1/p' "$T/gen.log")
	sent=$n
	lost=$((sent - written))
	printf "%-6s %10s %10d %10d %8d %10.0f %8.3f\n" "$tool" "$rate" "$sent" "$written" \
		"$lost" "$(python3 -c "print($written / $el)")" "$(python3 -c "print($written / $sent)")"
}

{
	echo "# offered: total packets/s of 8298-byte CODIF frames into memif (0 = flat out)"
	echo "# sent: frames offered; lost: not in the pcap (dropped at a full ring, or by the tap)"
	echo "# written/s: frames written / sending time; captured: written / sent"
	printf "%-6s %10s %10s %10s %8s %10s %8s\n" tool offered sent written lost written/s captured
	for r in ${RATES:-5000 10000 20000 40000 80000 160000 0}; do
		run dump $r
		run pdump $r
	done
} | tee "$OUT/dump_vs_pdump.txt"

python3 - "$OUT/dump_vs_pdump.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l and l[0] in "dp" and not l.startswith("pdump ") or l.startswith("pdump ")]
d = {(r[0], r[1]): r for r in rows if r[0] in ("dump", "pdump")}
for rate in sorted({r[1] for r in rows if r[0] in ("dump", "pdump")}, key=lambda x: (x == "0", int(x))):
    if ("dump", rate) in d and ("pdump", rate) in d:
        a, b = d[("dump", rate)], d[("pdump", rate)]
        print("%s: dpdk-ibvcap-dump %s frames/s (lost %s), dpdk-pdump %s frames/s (lost %s): ratio %.2f (target >= 2)"
              % ("flat out" if rate == "0" else "offered %s/s" % rate, a[5], a[4], b[5], b[4],
                 float(a[5]) / float(b[5]) if float(b[5]) else float("inf")))
PY
if command -v gnuplot > /dev/null; then
	awk '$1=="dump" && $2!=0 {print $2, $4/$3*100}' "$OUT/dump_vs_pdump.txt" > "$T/d.dat"
	awk '$1=="pdump" && $2!=0 {print $2, $4/$3*100}' "$OUT/dump_vs_pdump.txt" > "$T/p.dat"
	gnuplot <<GP
set terminal png size 800,500
set output "$OUT/dump_vs_pdump.png"
set title "Frames written to pcap vs offered rate (8298-byte CODIF, memif, 2 vCPU)"
set xlabel "offered rate (packets/s)"
set ylabel "frames written / frames sent (%)"
set logscale x
set yrange [0:105]
set key bottom left
plot "$T/d.dat" using 1:2 with linespoints lw 2 title "dpdk-ibvcap-dump (antenna buffers)", \
     "$T/p.dat" using 1:2 with linespoints lw 2 title "dpdk-pdump (stock, port tap)"
GP
	echo "plot: $OUT/dump_vs_pdump.png"
fi
