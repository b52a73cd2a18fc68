#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): frames written to pcap per second by
# dpdk-ibvcap-dump (from the antenna buffers) against the stock taps
# dpdk-pdump and dpdk-dumpcap (port taps), on the same primary fed the same
# CODIF traffic through memif, at several offered rates and flat out; each
# with its loss. The generator
# drops what a full ring refuses (--tx-drop), as a NIC would when the
# capture falls behind: a tap that slows the capture shows as loss.
# "written" is what the files hold (every record read); a tool whose own
# figure (dpdk-ibvcap-dump's summary, dpdk-pdump's and dpdk-dumpcap's exit
# statistics) differs from its files fails the benchmark.
# Writes $OUT/dump_vs_pdump.txt and, with gnuplot, $OUT/dump_vs_pdump.png:
# every measured point (flat out too, at the rate the generator reached),
# frames written per second and each tool's loss, titled with the machine
# and the date. It ends with what an observatory asks first: the highest
# offered rate each tool wrote without losing a frame, and their ratio.
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
	if [ "${KEEP:-0}" = 1 ]; then echo "scratch kept in $T" >&2; else rm -rf "$T"; fi
	rm -f /dev/hugepages/${P}*
	rm -rf /var/run/dpdk/${P}*
}
trap cleanup EXIT

count_pcap() { # records in pcap files (every one named), each whole
	python3 - "$@" <<'PY'
import struct, sys
n = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or struct.unpack("<I", head[:4])[0] not in (0xA1B2C3D4, 0xA1B23C4D):
            sys.exit("%s: not a little-endian pcap file" % path)
        while True:
            h = f.read(16)
            if len(h) < 16:
                if h:
                    sys.exit("%s: a record header cut short" % path)
                break
            cap = struct.unpack("<I", h[8:12])[0]
            if len(f.read(cap)) != cap:
                sys.exit("%s: a record cut short" % path)
            n += 1
print(n)
PY
}

# one run: tool (dump|pdump), total offered packets/s (0 = flat out)
run() {
	local tool=$1 rate=$2 fps n cpid tpid gpid sent written said el lost F got accepted
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
		"$B/app/dpdk-ibvcap-dump" --file-prefix ${P} --lcore 0 --write "pcap:$T/out,all=yes" \
			--summary-json "$T/tool.json" 2> "$T/tool.log" &
		tpid=$!
		for _ in $(seq 100); do grep -q 'attached' "$T/tool.log" 2>/dev/null && break; sleep 0.1; done
	elif [ "$tool" = dumpcap ]; then
		stdbuf -oL dpdk-dumpcap --file-prefix=${P} -i 0 -s 9000 -P -w "$T/out/dumpcap.pcap" \
			> "$T/tool.log" 2>&1 &
		tpid=$!
		for _ in $(seq 100); do grep -q 'Packets captured' "$T/tool.log" 2>/dev/null && break; sleep 0.1; done
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
		--count "$F" --rate-fps "$fps" --tx-drop --linger 300s > "$T/gen.log" 2>&1 &
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
	if [ "$tool" != dump ]; then
		sleep 1
		kill -INT "$tpid" 2>/dev/null || true; wait "$tpid" || true
	fi
	kill -INT "$cpid" 2>/dev/null ||
		{ tail -20 "$T/cap.log" >&2; echo "$tool at $rate/s: the capture ended before the run did" >&2; exit 1; }
	wait "$cpid" || true
	# written: the frames in the files; each tool's own figure must agree
	if [ "$tool" = dump ]; then
		wait "$tpid" || true
		said=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["written"])' "$T/tool.json")
		written=$(count_pcap "$T"/out/*.pcap)
	elif [ "$tool" = pdump ]; then
		# its exit statistics: "packets transmitted to vdev: N"
		said=$(sed -n 's/.*packets transmitted to vdev[^0-9]*\([0-9]*\).*/\1/p' "$T/tool.log" | tail -1)
		written=$(count_pcap "$T/out/$tool.pcap")
	else
		# "Packets received/dropped on interface '0': R/D"
		said=$(sed -n "s|^Packets received/dropped on interface.*: \([0-9]*\)/[0-9]*.*|\1|p" "$T/tool.log" | tail -1)
		written=$(count_pcap "$T/out/$tool.pcap")
	fi
	[ -n "$said" ] || { cat "$T/tool.log" >&2; echo "$tool: no figure of its own to check the files against" >&2; exit 1; }
	[ "$said" = "$written" ] ||
		{ echo "$tool: says $said frames written, its files hold $written" >&2; exit 1; }
	kill -INT "$gpid"; wait "$gpid" || true
	rm -f /dev/hugepages/${P}g*
	el=$(sed -n 's/.* bytes in \([0-9.]*\) s .*/\1/p' "$T/gen.log")
	sent=$n
	lost=$((sent - written))
	[ "$written" -le "$sent" ] || { echo "$tool: $written frames written of $sent sent" >&2; exit 1; }
	printf "%-7s %10s %10d %10.0f %10d %8d %10.0f %8.3f\n" "$tool" "$rate" "$sent" \
		"$(python3 -c "print($sent / $el)")" "$written" "$lost" \
		"$(python3 -c "print($written / $el)")" "$(python3 -c "print($written / $sent)")"
}

{
	echo "# offered: total packets/s of 8298-byte CODIF frames into memif (0 = flat out)"
	echo "# sent: frames offered; lost: not in the pcap (dropped at a full ring, or by the tap)"
	echo "# sent/s: frames sent / sending time (flat out: what the generator reached)"
	echo "# written/s: frames written / sending time; captured: written / sent"
	echo "# machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
	printf "%-7s %10s %10s %10s %10s %8s %10s %8s\n" tool offered sent sent/s written lost written/s captured
	for r in ${RATES:-5000 10000 20000 40000 50000 60000 70000 80000 160000 0}; do
		for tool in ${TOOLS:-dump pdump dumpcap}; do
			run "$tool" "$r"
		done
	done
} | tee "$OUT/dump_vs_pdump.txt"

python3 - "$OUT/dump_vs_pdump.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.split() and l.split()[0] in ("dump", "pdump", "dumpcap")]
d = {(r[0], r[1]): r for r in rows}
for rate in sorted({r[1] for r in rows}, key=lambda x: (x == "0", int(x))):
    a = d.get(("dump", rate))
    if not a:
        continue
    line = "%s: dpdk-ibvcap-dump %s frames/s (lost %s)" % (
        "flat out" if rate == "0" else "offered %s/s" % rate, a[6], a[5])
    for t in ("pdump", "dumpcap"):
        b = d.get((t, rate))
        if b:
            line += ", dpdk-%s %s frames/s (lost %s): ratio %.2f" % (
                t, b[6], b[5], float(a[6]) / float(b[6]) if float(b[6]) else float("inf"))
    print(line + " (target >= 2 flat out)")
# what an observatory asks first: the highest offered rate each tool wrote
# without losing a frame, and whether it lost at the next rate measured
offered = sorted({int(r[1]) for r in rows if r[1] != "0"})
best = {}
for t in ("dump", "pdump", "dumpcap"):
    ok = [x for x in offered if (t, str(x)) in d and d[(t, str(x))][5] == "0"]
    if not ok:
        continue
    top = max(ok)
    nxt = [x for x in offered if x > top and (t, str(x)) in d]
    # offered beyond what the sender reached counts at the rate sent
    best[t] = float(d[(t, str(top))][3])
    print("lossless up to: dpdk-%s %.0f frames/s (offered %d/s)%s" % (
        "ibvcap-dump" if t == "dump" else t, best[t], top,
        ", lost at %d/s" % nxt[0] if nxt else ", the highest rate measured"))
for t in ("pdump", "dumpcap"):
    if "dump" in best and t in best:
        print("lossless rate, dpdk-ibvcap-dump / dpdk-%s: %.2f%s" % (t, best["dump"] / best[t],
              " (at least: dump lost nothing at the highest rate measured)"
              if max(x for x in offered if ("dump", str(x)) in d) ==
              max(x for x in offered if ("dump", str(x)) in d and d[("dump", str(x))][5] == "0")
              else ""))
PY
if command -v gnuplot > /dev/null; then
	machine=$(sed -n 's/^# machine: //p' "$OUT/dump_vs_pdump.txt")
	for t in dump pdump dumpcap; do
		# x: frames/s sent (flat out: the generator's own rate), written/s, loss %
		awk -v t=$t '$1==t {print $4, $7, ($3-$5)/$3*100, ($2==0 ? "\"flat out\"" : "\"\"")}' \
			"$OUT/dump_vs_pdump.txt" | sort -n > "$T/$t.dat"
	done
	gnuplot <<GP
set terminal png size 900,900
set output "$OUT/dump_vs_pdump.png"
set multiplot layout 2,1 title "8298-byte CODIF frames into memif, written to pcap\\n$machine"
set logscale x
set grid
set key top left
set xlabel "frames/s offered (sent by the generator; flat out: as fast as it could send)"
set ylabel "frames written / s"
set logscale y
plot "$T/dump.dat" using 1:2 with linespoints lw 2 pt 7 title "dpdk-ibvcap-dump (antenna buffers)", \\
     "$T/pdump.dat" using 1:2 with linespoints lw 2 pt 5 title "dpdk-pdump (stock, port tap)", \\
     "$T/dumpcap.dat" using 1:2 with linespoints lw 2 pt 9 title "dpdk-dumpcap (stock, port tap)", \\
     "$T/dump.dat" using 1:2:4 with labels offset 0,1 notitle, \\
     "$T/pdump.dat" using 1:2:4 with labels offset 0,-1 notitle
unset logscale y
set ylabel "frames lost (%)"
set yrange [-2:102]
plot "$T/dump.dat" using 1:3 with linespoints lw 2 pt 7 title "dpdk-ibvcap-dump", \\
     "$T/pdump.dat" using 1:3 with linespoints lw 2 pt 5 title "dpdk-pdump", \\
     "$T/dumpcap.dat" using 1:3 with linespoints lw 2 pt 9 title "dpdk-dumpcap", \\
     "$T/pdump.dat" using 1:3:4 with labels offset 0,1 notitle, \\
     "$T/dumpcap.dat" using 1:3:4 with labels offset 0,-1 notitle
unset multiplot
GP
	echo "plot: $OUT/dump_vs_pdump.png"
fi
