#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): libibvcap's delay from a frame's arrival to the
# delivery of its block, at a stated rate. codifgen paced at RATE frames/s
# per stream (6 antennas x 2 streams of 1024-byte frames, data time = wall
# time) through memif into dpdk-ibvcap (reorder window WINDOW frames); a C
# consumer (tests/consumer/consumer_read -d) takes blocks of T frames of
# all 6 antennas and notes, per block, the ns from the arrival of its
# newest frame (the capture's host clock, once per rx burst) to the
# block's delivery (CLOCK_REALTIME at ibvcap_acquire's return). A block is
# final only once the capture's window has passed its last frame, so the
# floor is about WINDOW / RATE seconds. Prints the median, p99 and maximum,
# and checks that the capture's counts equal codifgen's truth and that the
# consumer lost nothing and was handed every frame placed. Uses the
# consumer tests' setup (tests/lib.sh, tests/consumer/common.sh): root,
# hugepages.
#
#   bench/consumer_delay.sh [RATE (1000)] [SECONDS (5)] [WINDOW (32)] [T (16)]
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export BUILD=${BUILD:-$ROOT/build} SRC=$ROOT
RATE=${1:-1000}
SECS=${2:-5}
WIN=${3:-32}
TB=${4:-16}
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/consumer/common.sh"
set -e
LAYOUT="--groups 1 --threads 2 --antennas 6 --data-bytes 1024"
SIG="--nchan 1 --nbits 8 --real --period 1 --total-samples $((1024 * RATE))"
FRAME_RATE=$RATE
GENARGS="$LAYOUT $SIG --count $((RATE * SECS))"
cons_capture "$GENARGS" 4096 "$WIN"
cons_start delay "$T/cons.log" -a 0x3f -T "$TB" -o /dev/null -d "$T/delays"
cons_run "$GENARGS" "$RATE"
python3 - "$T/delays" "$T/delay.json" "$T/sum.json" "$RATE" "$WIN" "$TB" "$N" <<'PY'
import json, sys
d = sorted(int(x) for x in open(sys.argv[1]))
c, s = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
rate, win, tb, n = (int(x) for x in sys.argv[4:8])
placed = sum(a["placed"] for a in s["buffers"]["antennas"])
assert c["overrun"] == 0 and c["frames"] == placed, (c, placed)
assert d, "no block delivered"
pct = lambda q: d[min(len(d) - 1, int(q * len(d)))] / 1e6
print("consumer delay: %d frames/s per stream x 12 streams (%d sent, %d placed = the truth, "
      "all delivered, 0 overrun), window %d frames (%.1f ms), blocks of %d frames: %d blocks, "
      "arrival of a block's newest frame -> its delivery: median %.2f ms, p99 %.2f ms, "
      "max %.2f ms" % (rate, n, placed, win, 1e3 * win / rate, tb, len(d),
                       pct(0.5), pct(0.99), d[-1] / 1e6))
PY
