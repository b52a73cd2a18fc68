#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): what a libibvcap consumer costs the rx lcore,
# measured inside one capture. bench/consumer_rx_bench.sh compares separate
# captures, and on a shared 2-vCPU VM their figures differ by 30 % with
# nothing changed; here one capture runs on bench/ringgen's paced frames
# (a net_ring port, pointer passing, RATE frames/s) while WHAT comes and
# goes in turns:
#   consumer  tests/consumer/consumer_read (aligned blocks of T frames of
#             every antenna, every valid frame's data copied out, to
#             /dev/null), started for an on window and ended (SIGTERM: it
#             closes, its entry released) for an off one;
#   plugin    the capture's --consumer examples/beam_plugin.so (scans=1, on
#             an lcore of its own on OTHER_CPU: the incoherent beam of each
#             block of PLUGIN_T frames, to /dev/null: a file's writeback
#             runs kernel work on the rx lcore's CPU of a 2-vCPU host), following a scan started for an on window
#             and stopped for an off one (/ibvcap/record): it is handed
#             blocks, or nothing;
#   none      nothing (the control: on and off the same, so the ratio's
#             spread is the method's own);
#   hog       dd copying 32 MiB blocks from /dev/zero to /dev/null on
#             OTHER_CPU (memory traffic beside the rx lcore, no consumer);
#   share     a busy loop on RX_CPU at the rx lcore's priority (a known,
#             large cost: its time inside busy polls counts in them; the
#             method must see it, in the windows where it runs).
# The figure is the capture's own: the rx lcore's TSC cycles in the polls
# that brought packets over their packets (/ibvcap/stats busy_cycles and
# packets, read over telemetry at each window's ends). Windows of WINDOW
# seconds go in QUADS quads, off on on off / on off off on (ABBA), SETTLE
# seconds after each change; each quad gives a ratio on/off. Printed: every
# window, and the ratios' geometric mean with a 95 % bootstrap interval.
#
# Priorities: the capture runs at normal priority, its rx lcore (EAL lcore
# 1) alone on RX_CPU: under SCHED_RR a busy-polling lcore is stopped by the
# kernel's real-time limit (sched_rt_runtime_us: 50 ms of each second) and
# a poll stopped mid-way counts those ms as its own (consumer_rx_bench.sh's
# runs show 5 % of each run waited so). The main lcore, ringgen (chrt -r 11
# where allowed: it sleeps between paced bursts), the controller and WHAT
# run on OTHER_CPU. Printed with each window: the ms the host took the rx
# CPU (/proc/stat steal) and the ms the rx thread waited for it (schedstat).
#
# Counts checked (else exit 1): ringgen sent = packets = received = placed,
# none lost, duplicate, late or malformed; every on window had the consumer
# attached and handed it frames, over all on windows at least 90 % of
# theirs (bench/rx_paired.py);
# each consumer life ended terminated, its frames + overrun handed; the
# plugin was handed frames in every on window and none in an off one, and
# its end line agrees with its registry entry.
#
#   bench/consumer_rx_paired.sh [OUT] [QUADS (24)] [WINDOW (1 s)]
#   env: WHAT=consumer|plugin|none|hog|share RATE=250000 MODE=zerocopy|copy SIZE=8192
#        ANTENNAS=6 T=64 (the consumer's block) PLUGIN_T=8 (the plugin's)
#        RX_CPU=1 OTHER_CPU=0 SETTLE=0.3
#        SMOKE=1: 2 quads of 0.3 s windows (plugin: 1 s, settle 0.5 s),
#        1024-byte frames (unless SIZE
#        says), rings of 256 rows (checks the counts; the figures mean
#        nothing), as meson's benchmark consumer-rx-paired-smoke
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${1:-$ROOT/bench/results}
QUADS=${2:-24}
WIN=${3:-1}
WHAT=${WHAT:-consumer}
. "$ROOT/bench/consumer_rx_common.sh"
rx_env
# the beam plugin decodes every sample: at 8 KiB and 250,000 frames/s a
# block of 64 frames takes it longer than the ring gives a consumer that
# resumed after an overrun (a quarter of it), and each would be torn
PT=${PLUGIN_T:-8}
SETTLE=${SETTLE:-0.3}
if [ -n "${SMOKE:-}" ]; then
	QUADS=2 WIN=0.3 SETTLE=0.1 SIZE=${SIZE_SET:-1024} ROWS=256
	# the plugin decodes every sample of a block (a few % of this rate):
	# a window of a block or more, and a settle for the one in hand
	[ "$WHAT" = plugin ] && WIN=1 SETTLE=0.5 ROWS=1024
fi
[[ $QUADS =~ ^[1-9][0-9]*$ ]] ||
	{ echo "FAIL: QUADS '$QUADS': expected a positive integer" >&2; exit 1; }
if ! [[ $WIN =~ ^[0-9]*\.?[0-9]+$ ]] || [ "$(python3 -c "print($WIN > 0)")" != True ]; then
	echo "FAIL: WINDOW '$WIN': expected seconds, more than 0" >&2
	exit 1
fi
[[ $SETTLE =~ ^[0-9]*\.?[0-9]+$ ]] ||
	{ echo "FAIL: SETTLE=$SETTLE: expected seconds" >&2; exit 1; }
# the plugin's on windows are scans, 3 of every 2 quads; a capture keeps
# 64, and forgets a finished one a minute after its stop by the host's
# clock, which the data's (ahead of it, and faster) never lets pass
if [ "$WHAT" = plugin ] && [ "$QUADS" -gt 40 ]; then
	echo "FAIL: QUADS $QUADS with WHAT=plugin: expected at most 40 (3 scans every 2 quads; a capture keeps 64)" >&2
	exit 1
fi
case $WHAT in consumer | plugin | none | hog | share) ;; *)
	echo "FAIL: WHAT=$WHAT: expected consumer, plugin, none, hog or share" >&2; exit 1 ;;
esac
rx_check
mkdir -p "$OUT"
RES=$OUT/consumer_rx_paired.$WHAT.txt
W=$(mktemp -d /tmp/ibvcap-crxpaired.XXXXXX)
P=crxp$$
RING=crxpr$$
cleanup() {
	local pid
	for pid in ${GEN_PID:-} ${CAP_PID:-}; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -f /dev/hugepages/"$P"* 2>/dev/null || true
	rm -rf /var/run/dpdk/"$P"*
	if [ -n "${KEEP_W:-}" ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT

case $WHAT in
consumer) ON=(taskset -c "$OTHER_CPU" "$CONS" -i "$P" -n rxpaired -a "$MASK" -T "$TB" -o /dev/null) ;;
hog) ON=(taskset -c "$OTHER_CPU" dd if=/dev/zero of=/dev/null bs=32M) ;;
share) ON=(taskset -c "$RX_CPU" sh -c 'while :; do :; done') ;;
none | plugin) ON=(-) ;;
esac
LCORES=0@$OTHER_CPU,1@$RX_CPU CONSUMER=() START=()
if [ "$WHAT" = plugin ]; then
	# scans are data time and start no earlier than the host's now: the
	# data clock starts ahead of it by more than the run could lose (its
	# data rate can be below the host's: --rate over the frames a second
	# of a stream, 2315 of 8 KiB)
	START=(--start-ahead "$(python3 -c "print(int(60 + $QUADS * 4 * ($WIN + $SETTLE + 1)))")")
	LCORES=$LCORES,2@$OTHER_CPU
	CONSUMER=(--consumer "$PLUGIN,out=/dev/null,frames=$PT,name=rxpplug,scans=1,lcore=2")
fi
machine=$(rx_machine)
{
	echo "# consumer_rx_paired: the rx lcore's cycles per frame inside one capture, with $WHAT on and off in turns"
	echo "# machine: $machine"
	echo "# $MODE, $NANT antennas x $SPA streams, $SIZE data bytes, ring $ROWS rows; ringgen --rate $RATE; blocks of $([ "$WHAT" = plugin ] && echo "$PT" || echo "$TB") frames"
	echo "# rx lcore on CPU $RX_CPU (normal priority); main lcore, ringgen, controller and $WHAT on CPU $OTHER_CPU; $prio; $QUADS quads of 4 windows of $WIN s, $SETTLE s after each change"
} | tee "$RES"

taskset -c "$OTHER_CPU" "$CAP" --lcores "$LCORES" --main-lcore 0 --no-pci \
	--file-prefix "$P" --vdev "net_ring0,nodeaction=$RING:0:CREATE" \
	-- --antennas "$NANT" --groups "$NG" --ring "$ROWS" --data-bytes "$SIZE" \
	--idle-timeout 600s --stats-period 0 --zero-copy "$ZC" \
	"${CONSUMER[@]+"${CONSUMER[@]}"}" --summary-json "$W/sum.json" > "$W/cap.log" 2>&1 &
CAP_PID=$!
for _ in $(seq 300); do
	grep -qs 'capturing on' "$W/cap.log" && break
	kill -0 "$CAP_PID" 2>/dev/null || break
	sleep 0.1
done
grep -qs 'capturing on' "$W/cap.log" ||
	{ cat "$W/cap.log" >&2; echo "FAIL: the capture did not start" >&2; exit 1; }
# ringgen until told to stop (SIGINT): a count it would reach in an hour
"${RTG[@]}" "$GEN" -l "$OTHER_CPU" --proc-type secondary --file-prefix "$P" \
	--log-level 3 -- --ring "$RING" --count $((RATE * 3600)) --antennas "$NANT" \
	--data-bytes "$SIZE" --queues $((NANT + 1)) --pool "$POOL" --groups "$NG" \
	--rate "$RATE" "${START[@]+"${START[@]}"}" > "$W/gen.log" 2>&1 &
GEN_PID=$!
taskset -c "$OTHER_CPU" python3 "$ROOT/bench/rx_paired.py" "$P" "$CAP_PID" "$RX_CPU" "$WHAT" \
	"$QUADS" "$WIN" "$SETTLE" "$W/paired.json" -- "${ON[@]}" | tee -a "$RES" ||
	{ cat "$W/paired.json.other.log" 2>/dev/null >&2; exit 1; }
kill -INT "$GEN_PID"
wait "$GEN_PID" || { cat "$W/gen.log" >&2; echo "FAIL: ringgen" >&2; exit 1; }
GEN_PID=
kill -INT "$CAP_PID"
wait "$CAP_PID" || { cat "$W/cap.log" >&2; echo "FAIL: the capture failed" >&2; exit 1; }
CAP_PID=
python3 - "$W/sum.json" "$W/gen.log" "$W/paired.json" "$W/cap.log" <<'PY' | tee -a "$RES" || { cat "$W/cap.log" >&2; exit 1; }
import json, re, sys
su = json.load(open(sys.argv[1])); t = su["totals"]
g = open(sys.argv[2]).read()
m = re.search(r"ringgen: (\d+) frames and 0 garbage", g)
sent = int(m.group(1)) if m else -1
bad = []
placed = sum(a["placed"] for a in su["buffers"]["antennas"])
for k, want in (("packets", sent), ("received", sent), ("lost", 0), ("duplicate", 0),
                ("malformed", 0), ("late", 0)):
    if t.get(k) != want:
        bad.append("%s %s (expected %s)" % (k, t.get(k), want))
if placed != sent or sent <= 0:
    bad.append("placed %d, ringgen sent %d" % (placed, sent))
lives = json.load(open(sys.argv[3]))["lives"]
handed = sum(x["frames"] + x["overrun"] for x in lives)
if handed > placed:
    bad.append("consumers handed %d frames + overrun, more than %d placed" % (handed, placed))
plug = ""
m = re.search(r"--consumer rxpplug(?: on lcore \d+)?: (\d+) blocks, (\d+) frames, (\d+) overrun",
              open(sys.argv[4]).read())
w = [x for x in su["buffers"].get("writers", []) if x["name"] == "rxpplug"]
if m or w:
    if m is None or len(w) != 1 or int(m.group(2)) != w[0]["written"] or \
            int(m.group(3)) != w[0]["overrun"] or int(m.group(2)) == 0:
        bad.append("plugin: line %s, registry entries %s" % (m and m.group(0), w))
    else:
        plug = "; the plugin: %s blocks, %s frames, %s overrun (= its registry entry)" % m.groups()
if bad:
    sys.exit("FAIL: counts: " + ", ".join(bad))
print("# the capture: ringgen sent %d = packets = received = placed, 0 lost, duplicate, late, "
      "malformed%s" % (sent, "; the consumer's %d lives: %d frames + overrun handed (of %d "
                       "placed)" % (len(lives), handed, placed) if lives else "") + plug)
PY
