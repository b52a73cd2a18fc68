#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run every benchmark on this machine, in one go, and print the ratios the
# targets are stated in (not tests: these machines are noisy; the ratios
# compare against baselines measured in the same run; each benchmark checks
# that what it counted was placed or written, and fails otherwise):
#   1. the whole binary's path per core (rx burst -> account -> place) on
#      fresh, in-order frames from bench/ringgen, cycles per frame against
#      the 1730-cycle budget of one 100 GbE port: dpdk-testpmd rxonly on the
#      same input, account only, copy (payloads cold and in the LLC),
#      zero-copy; 1-8 KiB frames, 6 and 64 antennas; memcpy and the
#      non-temporal copy of the same sizes; the plot of frames/s vs frame size
#   2. the libraries alone (lib/acct + lib/antbuf) vs single-core memcpy
#   3. writer throughput vs fio (io_uring, direct=1, same block size, same
#      directory), one and two writers                                >= 0.9
#   4. pcap frames/s written: dpdk-ibvcap-dump vs dpdk-pdump and
#      dpdk-dumpcap, and the plot                              >= 2 flat out
#   5. hardware timestamp conversion (lib/hwclock), ns and cycles per packet
#   6. libibvcap's aligned blocks: read rate against memcpy of the same bytes,
#      and the delay from a frame's arrival to its block's delivery; the rx
#      lcore's cycles per frame with a consumer attached (a libibvcap
#      consumer, the --consumer plugin) against none, ABBA in one run
# Results in bench/results/ (or $1).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${1:-$ROOT/bench/results}
DIR=${BENCH_DIR:-/var/tmp}
mkdir -p "$OUT"
[ -x "$B/bench/place_bench" ] || { echo "build first: scripts/setup.sh"; exit 1; }
command -v dpdk-testpmd >/dev/null || { echo "needs dpdk-testpmd (package dpdk)"; exit 1; }
machine() { echo "# machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r), DPDK $(pkg-config --modversion libdpdk), $(date -u +%FT%TZ)"; }
machine | tee "$OUT/machine.txt"

echo "== 1. the whole binary's path per core (net_ring input from bench/ringgen)"
BUILD=$B "$ROOT/bench/capture_bench.sh" "$OUT" 3 1000000

echo "== 2. the libraries alone: capture + placement vs memcpy"
{ machine; "$B/bench/place_bench" 4000 4; } | tee "$OUT/placement.txt"

echo "== 3. writers vs fio (io_uring, O_DIRECT, same block size) in $DIR"
BUILD=$B "$ROOT/bench/writer_vs_fio.sh" "$DIR" 3 | tee "$OUT/writer.txt"

echo "== 4. dpdk-ibvcap-dump vs dpdk-pdump and dpdk-dumpcap"
BUILD=$B "$ROOT/bench/dump_vs_pdump.sh" "$OUT" 3

echo "== 5. hwclock: device ticks -> Unix ns per packet"
{ machine; "$B/bench/hwclock_bench" 15 2000; } | tee "$OUT/hwclock.txt"

echo "== 6. libibvcap: aligned blocks vs memcpy of the same bytes"
{ machine; "$B/bench/consumer_bench" 8192 64 7; } | tee "$OUT/consumer.txt"
BUILD=$B "$ROOT/bench/consumer_delay.sh" 1000 5 32 16 | tee -a "$OUT/consumer.txt"
BUILD=$B "$ROOT/bench/consumer_rx_bench.sh" "$OUT" 3 3
# the same inside one capture, in turns: a consumer, the plugin, nothing
# (the method's own spread), a memory hog beside the rx lcore, a task on
# its CPU (a cost the method must see)
for what in consumer plugin none hog share; do
	WHAT=$what BUILD=$B "$ROOT/bench/consumer_rx_paired.sh" "$OUT" 24 1 # (plugin: at most 40)
done
