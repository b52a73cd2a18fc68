#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole binary's path, rx burst -> account -> place, per core: bench/ringgen
# (a DPDK secondary) puts fresh, valid, in-order CODIF frames straight into the
# rx rings of the capture's net_ring port (pointer passing: no input device
# cost), dpdk-ibvcap takes them on one rx lcore and places every one. Figures
# from the capture's own summary: the rx lcore's TSC cycles in the polls that
# brought packets, per packet (busy_cycles / packets), and what one core could
# take at that cost (TSC Hz / cycles). Modes, each on the same input in the
# same run: testpmd (dpdk-testpmd rxonly on the same input: rx burst and
# free, nothing read; see testpmd_run), account (--no-buffers: rx burst,
# checks and accounting, nothing placed: the baseline the placement costs
# are read against), copy (one non-temporal copy into the ring, the
# payloads cold: ringgen's pool is far larger than the cache), copy-llc (the
# same copy, ringgen's pool small enough to stay in the last-level cache,
# LLC_POOL mbufs) and zerocopy (the ring keeps the mbuf).
#
# copy-consumer (not in the default list): copy with a libibvcap consumer
# attached (tests/consumer/consumer_read, blocks of 64 frames of every
# antenna, on CPU CONSUMER_CPU: by default the last CPU when there are more
# than 2): its cycles per frame against copy's say what a consumer costs
# the rx lcore; each run also checks the consumer's counts exact (frames
# handed out + overrun = frames placed). E.g. MODES="copy copy-consumer".
#
# Garbage (modes not in the default list): garbage-unknown and
# garbage-malformed flood the capture with 60-byte packets alone (from a
# source no antenna has; from antenna 0's source with a payload that cannot
# be CODIF), testpmd-garbage is dpdk-testpmd rxonly on that flood (the
# floor), and mixed-unknown / mixed-malformed send the frames with 4
# garbage packets per frame (a fifth of the packets are frames): each run
# checks the frames' counts exact (received = placed = sent, nothing lost)
# and every garbage packet counted (unattributed unknown-source, or the
# antenna's malformed), else it fails. Cycles are per packet, garbage
# included. E.g. MODES="testpmd-garbage garbage-unknown garbage-malformed
# mixed-unknown mixed-malformed" SIZES=8192 ANTENNAS=6.
#
# Quick look (--quicklook N: one frame in N of each stream read for its
# sample statistics) is off unless QL names settings: QL="off 256" runs each
# mode with quick look off and at one in 256, alternately within each run,
# and prints the ratio of their cycles per frame (on / off: per run pair
# min/median/max, and of the medians); each run with quick look also checks
# that it sampled ceil(frames / N) frames of each stream.
#
# Each run checks its counts: received = placed = sent, no duplicate, no
# loss, no malformed frame; otherwise the bench fails (exit 1).
#
# The copy baselines at each size, in the same run (bench/copy_bench: one
# core copying payloads from a 16 K-buffer pool into a 512 MiB ring, glibc
# memcpy and lib/antbuf's own non-temporal copy, each checked slot by slot),
# RUNS times, and with gnuplot the plot of frames/s per core against frame
# size for the capture's modes and both copies, with one 100 GbE port's line
# rate: $OUT/capture_vs_size.png.
#
#   bench/capture_bench.sh [OUT] [RUNS] [FRAMES]
#   env: SIZES="8192 4096 2048 1024" ANTENNAS="6 64" MODES="testpmd account copy copy-llc zerocopy"
#        QL="off" (e.g. "off 256") COPY_SECS=2 LLC_POOL=2048
#        ONE_QUEUE=1: every antenna on one queue (software steering), as
#        above 15 antennas: compares stream counts on the same steering
#        STREAM_GROUPS=G: each antenna's streams G groups x 2 threads (default: 4 up
#        to 8 antennas, else 1; STREAM_GROUPS=4 ANTENNAS=64: 512 streams)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${1:-$ROOT/bench/results}
RUNS=${2:-3}
FRAMES=${3:-2000000}
SIZES=${SIZES:-8192 4096 2048 1024}
ANTENNAS=${ANTENNAS:-6 64}
MODES=${MODES:-testpmd account copy copy-llc zerocopy}
QL=${QL:-off}
CAP=$B/app/dpdk-ibvcap
GEN=$B/bench/ringgen
[ -x "$GEN" ] || { echo "build first: scripts/setup.sh"; exit 1; }
mkdir -p "$OUT"
RES=$OUT/capture.txt
W=$(mktemp -d /tmp/ibvcap-cbench.XXXXXX)
P=cb$$
cleanup() {
	wait 2>/dev/null || true
	rm -f /dev/hugepages/"$P"* 2>/dev/null || true
	rm -rf /var/run/dpdk/"$P"*; [ -n "${KEEP_W:-}" ] && echo "kept $W" >&2 || rm -rf "$W"
}
trap cleanup EXIT

machine="$(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r), $(date -u +%FT%TZ)"
{
	echo "# capture_bench: dpdk-ibvcap rx lcore, net_ring input from bench/ringgen"
	echo "# machine: $machine"
	echo "# frames per run: $FRAMES; runs: $RUNS; one rx lcore"
} | tee "$RES"

# the receiver (pid, its log) is up when its log says so; it is killed if
# this run ends early (runs are in $( ): the caller's trap cannot see it)
receiver_up() { # pid log pattern name
	CAP_PID=$1
	trap 'kill "${CAP_PID:-}" 2>/dev/null || true' EXIT
	for _ in $(seq 300); do
		grep -qs "$3" "$2" && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "$3" "$2" || { cat "$2" >&2; echo "FAIL: $4 did not start" >&2; exit 1; }
}

# ringgen into the receiver's rings, every frame: prefix ring size ringgen-args...
ringgen() {
	local pfx=$1 ring=$2 size=$3
	shift 3
	timeout 300 "$GEN" -l 0 --proc-type secondary --file-prefix "$pfx" --log-level 3 -- \
		--ring "$ring" --count "$FRAMES" --antennas "$nant" --data-bytes "$size" "$@" \
		> "$W/gen.log" 2>&1 || { cat "$W/gen.log" >&2; echo "FAIL: ringgen $*" >&2; exit 1; }
}

# copy-consumer's consumer on the capture of prefix $1 ($2 antennas), up
# when it says it attached; its pid in CONS_PID
consumer_start() {
	local cpu=${CONSUMER_CPU:-} mask
	[ -n "$cpu" ] || { [ "$(nproc)" -gt 2 ] && cpu=$(($(nproc) - 1)); }
	mask=$(python3 -c "print(hex((1 << $2) - 1))")
	rm -f "$W/cons.log" "$W/cons.json"
	${cpu:+taskset -c "$cpu"} "$B/tests/consumer/consumer_read" -i "$1" -n bench -a "$mask" \
		-T 64 -o /dev/null > "$W/cons.json" 2> "$W/cons.log" &
	CONS_PID=$!
	for _ in $(seq 300); do
		grep -qs 'attached to' "$W/cons.log" && return
		kill -0 "$CONS_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$W/cons.log" >&2; echo "FAIL: the consumer did not attach" >&2; exit 1
}

# ... once the capture ended: its counts exact against the capture's
consumer_check() {
	wait "$CONS_PID" || { cat "$W/cons.log" >&2; echo "FAIL: the consumer failed" >&2; exit 1; }
	python3 - "$W/cons.json" "$W/sum.json" <<'PY' >&2 || exit 1
import json, sys
c, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
placed = sum(a["placed"] for a in s["buffers"]["antennas"])
if c["frames"] + c["overrun"] != placed:
    sys.exit("FAIL: consumer: %d frames + %d overrun, %d placed" % (c["frames"], c["overrun"], placed))
PY
}

# one run of the capture; prints "cycles_per_packet tsc_hz ql_cycles pkts_per_busy_poll"
capture_run() { # mode size antennas run quicklook
	local mode=$1 size=$2 nant=$3 r=$4 ql=$5 pfx=$P${r}q$5 ring=cbr${r}q$5 zc=no q cpid rows spa pool nb=
	local gen=() kind=
	[ "$mode" = zerocopy ] && zc=yes
	[ "$mode" = account ] && nb=--no-buffers
	case $mode in
	garbage-*|testpmd-garbage) kind=${mode#garbage-}; [ "$mode" = testpmd-garbage ] && kind=unknown
		gen=(--count 0 --garbage "$kind" --garbage-count "$FRAMES") ;;
	mixed-*) kind=${mode#mixed-}
		gen=(--count $((FRAMES / 5)) --garbage "$kind" --garbage-ratio 4) ;;
	esac
	q=$((nant + 1))
	[ "$q" -gt 16 ] && q=1  # net_ring has 16 queues: software steering
	[ -n "${ONE_QUEUE:-}" ] && q=1 # every antenna on one queue, as above 15
	# ringgen's layout: 4 groups x 2 threads up to 8 antennas, else 1 group
	# (STREAM_GROUPS: that many)
	local ng=${STREAM_GROUPS:-}
	[ -n "$ng" ] || { ng=4; [ "$nant" -gt 8 ] && ng=1; }
	rows=1024 spa=$((ng * 2))
	[ "$nant" -gt 8 ] && rows=256
	# zero-copy keeps ringgen's mbufs in the rings: its pool must outlast them
	pool=$((nant * rows * spa + 16384))
	# copy-llc: the same copy from a pool that fits the last-level cache
	# (2048 x ~8.5 KiB = 17 MiB): payloads warm, as a NIC's DMA into the
	# cache (DDIO) can leave them; copy reads them from DRAM
	[ "$mode" = copy-llc ] && pool=${LLC_POOL:-2048}
	# a fresh log: the previous run's 'capturing on' must not start ringgen
	# before this capture is up
	rm -f "$W/cap.log" "$W/sum.json"
	if [ "$mode" = testpmd ] || [ "$mode" = testpmd-garbage ]; then
		testpmd_run "$size" "$r" "$pfx" "$ring" "${gen[@]+"${gen[@]}"}"
		return
	fi
	"$CAP" -l 0-1 --no-pci --file-prefix "$pfx" --vdev "net_ring0,nodeaction=$ring:0:CREATE" \
		-- --antennas "$nant" --groups "$ng" --ring "$rows" \
		--data-bytes "$size" --count-packets "$FRAMES" --idle-timeout 60s --stats-period 0 \
		--zero-copy "$zc" $nb --quicklook "$ql" --summary-json "$W/sum.json" > "$W/cap.log" 2>&1 &
	cpid=$!
	receiver_up "$cpid" "$W/cap.log" 'capturing on' "the capture"
	[ "$mode" = copy-consumer ] && consumer_start "$pfx" "$nant"
	[ -n "$kind" ] && q=1 # garbage has no antenna's queue: all on one
	ringgen "$pfx" "$ring" "$size" --queues "$q" --pool "$pool" --groups "$ng" "${gen[@]+"${gen[@]}"}"
	wait "$cpid" || { cat "$W/cap.log" >&2; echo "FAIL: the capture failed" >&2; exit 1; }
	[ "$mode" = copy-consumer ] && consumer_check
	python3 - "$W/sum.json" "$FRAMES" "$mode" "$ql" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); n = int(sys.argv[2]); t = s["totals"]
every = 0 if sys.argv[4] == "off" else int(sys.argv[4])
mode = sys.argv[3]
# the frames among the packets, and the garbage: counted where it belongs
frames = 0 if mode.startswith("garbage-") else n // 5 if mode.startswith("mixed-") else n
junk = n - frames
kind = mode.split("-", 1)[1] if junk else ""
unknown = s["unattributed"]["unknown-source"]
placed = frames if mode == "account" else sum(a["placed"] for a in s["buffers"]["antennas"])
bad = []
if unknown != (junk if kind == "unknown" else 0):
    bad.append("unknown-source %d (expected %d)" % (unknown, junk if kind == "unknown" else 0))
for k, want in (("packets", n), ("received", frames), ("lost", 0), ("duplicate", 0),
                ("malformed", junk if kind == "malformed" else 0), ("late", 0)):
    if t.get(k) != want:
        bad.append("%s %s (expected %s)" % (k, t.get(k), want))
if placed != frames:
    bad.append("placed %d (expected %d)" % (placed, frames))
if every:
    for st in s["streams"]:
        ql = [q for q in s["quicklook"]["streams"] if q["antenna"] == st["antenna"]
              and q["groupid"] == st["groupid"] and q["threadid"] == st["threadid"]
              and q["port"] == st["port"]]
        want = (st["received"] + every - 1) // every
        if len(ql) != 1 or ql[0]["sampled"] != want or ql[0]["used"] != want:
            bad.append("quick look of stream %s: %s (expected %d sampled)"
                       % (st, ql[0]["sampled"] if ql else "none", want))
if bad:
    sys.exit("FAIL: counts: " + ", ".join(bad))
ql = s["quicklook"].get("cycles", 0) / n if every else 0
# packets per poll that brought any: a poll's own cost is shared by them
busy = t["polls"] - t["busy_wait"]
print("%.1f %d %.2f %.1f" % (t["cycles_per_packet"], t["tsc_hz"], ql, n / busy if busy else 0))
PY
}

# dpdk-testpmd rxonly on the same input, one forwarding lcore: ringgen takes
# its mbufs from testpmd's own pool (--pool-of, by that pool's ring: the
# mempool-ops trap rules out a pool of ringgen's), one rx queue (no steering
# in testpmd). Its figure is testpmd's own --record-core-cycles "CPU
# cycles/packet": busy cycles (the polls that brought packets) / packets, as
# ours. rxonly frees what it receives and reads nothing: the floor of any
# receiver on this input. Prints "cycles_per_packet tsc_hz 0".
testpmd_run() { # size run prefix ring [ringgen args: garbage]
	local size=$1 pfx=$3 ring=$4 tpid
	shift 4
	rm -f "$W/tp.log" "$W/tp.in"
	mkfifo "$W/tp.in"
	exec 7<> "$W/tp.in"
	stdbuf -oL dpdk-testpmd -l 0-1 --no-pci --file-prefix "$pfx" --log-level=lib.eal:error \
		--vdev "net_ring0,nodeaction=$ring:0:CREATE" -- --forward-mode=rxonly -a \
		--mbuf-size=$((128 + size + 256)) --total-num-mbufs=16384 --nb-cores=1 \
		--rxq=1 --txq=1 --record-core-cycles --disable-link-check < "$W/tp.in" > "$W/tp.log" 2>&1 &
	tpid=$!
	receiver_up "$tpid" "$W/tp.log" 'Press enter to exit' "dpdk-testpmd"
	ringgen "$pfx" "$ring" "$size" --queues 1 --pool-of mb_pool_0 --groups "$ng" "$@"
	echo >&7
	exec 7>&-
	wait "$tpid" || { cat "$W/tp.log" >&2; echo "FAIL: dpdk-testpmd failed" >&2; exit 1; }
	python3 - "$W/tp.log" "$FRAMES" <<'PY'
import re, sys
log = open(sys.argv[1]).read(); n = int(sys.argv[2])
acc = log[log.rindex("Accumulated forward statistics"):]
rx = int(re.search(r"RX-packets: *(\d+)", acc).group(1))
drop = int(re.search(r"RX-dropped: *(\d+)", acc).group(1))
m = re.search(r"CPU cycles/packet=([0-9.]+) .* at (\d+) MHz", log)
if rx != n or drop != 0 or m is None:
    sys.exit("FAIL: dpdk-testpmd counts: received %d (expected %d), dropped %d, cycles %s"
             % (rx, n, drop, "found" if m else "missing"))
print("%s %d 0 0" % (m.group(1), int(m.group(2)) * 1000000))
PY
}

stats() { # values...: min/median/max
	python3 -c 'import sys,statistics as s; v=sorted(map(float,sys.argv[1:])); print("%.0f/%.0f/%.0f" % (v[0], s.median(v), v[-1]))' "$@"
}

printf '%-9s %4s %6s %4s  %-22s %-18s %-16s %s\n' mode ql bytes ant "cycles/frame min/med/max" \
	"Mfps/core (med)" "GB/s/core (med)" "budget 1730 cyc" | tee -a "$RES"
for nant in $ANTENNAS; do
	for size in $SIZES; do
		for mode in $MODES; do
			declare -A v=() qc=() pps=()
			# quick look settings alternate within each run: the VM's
			# drift falls on both alike
			for r in $(seq "$RUNS"); do
				for ql in $QL; do
					x=$(capture_run "$mode" "$size" "$nant" "$r" "$ql")
					read -r c hz q pp <<< "$x"
					v[$ql]="${v[$ql]:-} $c"
					pps[$ql]="${pps[$ql]:-} $pp"
					qc[$ql]="${qc[$ql]:-} $q"
				done
			done
			for ql in $QL; do
				# shellcheck disable=SC2086
				python3 - "$mode" "$size" "$nant" "$hz" "$ql" "${pps[$ql]}" ${v[$ql]} <<'PY' | tee -a "$RES"
import statistics as st, sys
mode, size, nant, hz, ql = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
pp = st.median(map(float, sys.argv[6].split()))
v = sorted(map(float, sys.argv[7:])); med = st.median(v)
fps = hz / med
wire = size + 64 + 42 + 4  # data, CODIF header, Eth/IPv4/UDP, FCS
print("%-9s %4s %6d %4s  %-22s %-18s %-16s %s" % (mode, ql, size, nant,
      "%.0f/%.0f/%.0f" % (v[0], med, v[-1]), "%.2f" % (fps / 1e6),
      "%.1f" % (fps * wire / 1e9),
      "%.2f of it (%.0f cycles at 2.6 GHz)" % (med * 2.6e9 / hz / 1730, med * 2.6e9 / hz))
      + ("  %.1f pkts/poll" % pp if pp else ""))
PY
			done
			set -- $QL
			if [ $# -ge 2 ]; then
				# shellcheck disable=SC2086
				python3 - "$mode" "$1" "$2" "${v[$1]}" "${v[$2]}" "${qc[$2]}" <<'PY' | tee -a "$RES"
import statistics as st, sys
mode, off, on = sys.argv[1:4]
a, b = list(map(float, sys.argv[4].split())), list(map(float, sys.argv[5].split()))
q = sorted(map(float, sys.argv[6].split()))
r = sorted(y / x for x, y in zip(a, b))
print("%-9s quick look %s vs %s: cycles/frame ratio per run %.3f/%.3f/%.3f (min/med/max), "
      "of the medians %.3f: rx rate x %.3f" % (mode, on, off, r[0], st.median(r), r[-1],
      st.median(b) / st.median(a), st.median(a) / st.median(b)))
# measured where it is paid: the rx lcore's cycles in ql_frame, per frame
print("%-9s quick look %s: %.1f/%.1f/%.1f cycles per received frame in ql_frame "
      "(min/med/max), %.1f%% of the median off run's %.0f cycles/frame (min run: %.1f%%)"
      % (mode, on, q[0], st.median(q), q[-1], 100 * st.median(q) / st.median(a),
         st.median(a), 100 * st.median(q) / min(a)))
PY
			fi
			unset v qc pps
		done
	done
done
echo "# all runs: received = placed (account: received; testpmd: its RX-packets, 0 RX-dropped) = $FRAMES, 0 duplicate, 0 lost, 0 malformed; quick look (QL=$QL): sampled = ceil(frames / N) per stream" | tee -a "$RES"

# the copy baselines, same sizes, same run; min/median/max of RUNS
{
	echo "# copy baselines (bench/copy_bench, one core, pool -> 512 MiB ring, every slot checked)"
	printf '%-12s %6s  %-22s %s\n' copy bytes "cycles/frame min/med/max" "Mfps/core (med)"
} | tee -a "$RES"
for size in $SIZES; do
	for r in $(seq "$RUNS"); do
		"$B/bench/copy_bench" "$size" "${COPY_SECS:-2}" > "$W/copy.$size.$r" ||
			{ echo "FAIL: copy_bench $size" >&2; exit 1; }
	done
	cat "$W"/copy."$size".* | python3 -c '
import statistics as st, sys
rows = {}
for line in sys.stdin:
    _, size, name, frames, secs, cyc, fps = line.split()
    rows.setdefault(name, []).append((float(cyc), float(fps)))
for name, v in rows.items():
    c = sorted(x[0] for x in v)
    print("%-12s %6s  %-22s %.2f" % (name, size, "%.0f/%.0f/%.0f" % (c[0], st.median(c), c[-1]),
          st.median(x[1] for x in v) / 1e6))' | tee -a "$RES"
done

# the plot: M frames/s per core against frame size, the fewest antennas
if command -v gnuplot > /dev/null; then
	set -- $ANTENNAS
	python3 - "$RES" "$W" "$1" <<'PY'
import sys
res, w, nant = sys.argv[1:]
series = {}
for line in open(res):
    f = line.split()
    if not f or f[0].startswith("#") or f[1] in ("ql", "bytes"):
        continue
    if f[0] in ("memcpy", "antbuf-copy") and len(f) == 4:
        series.setdefault(f[0], []).append((int(f[1]), float(f[3])))
    elif len(f) >= 6 and f[1] == "off" and f[3] == nant:
        series.setdefault(f[0], []).append((int(f[2]), float(f[5])))
for name, pts in series.items():
    with open("%s/%s.dat" % (w, name), "w") as o:
        for size, mfps in sorted(pts):
            o.write("%g %g\n" % (size / 1024, mfps))
PY
	plots=()
	for m in $MODES memcpy antbuf-copy; do
		[ -s "$W/$m.dat" ] && plots+=("\"$W/$m.dat\" using 1:2 with linespoints lw 2 title \"$m\"")
	done
	gnuplot <<GP
set terminal png size 900,600
set output "$OUT/capture_vs_size.png"
set title "frames/s per core vs frame size ($1 antennas; copies: one core, same sizes)\n$machine"
set xlabel "CODIF data bytes per frame (KiB)"
set ylabel "M frames/s per core (median of $RUNS)"
set logscale x 2
set logscale y 10
set key outside right
set grid
# one 100 GbE port at line rate: data + CODIF header + Eth/IPv4/UDP + FCS,
# + 20 bytes of preamble and inter-frame gap per frame on the wire
port(k) = 100e9 / 8 / (k * 1024 + 64 + 42 + 4 + 20) / 1e6
plot $(IFS=,; echo "${plots[*]}"), port(x) with lines dt 2 lw 2 lc "black" title "one 100 GbE port"
GP
	echo "plot: $OUT/capture_vs_size.png" | tee -a "$RES"
fi
