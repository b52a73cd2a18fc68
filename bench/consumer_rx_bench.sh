#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): what a consumer attached to a capture costs its rx
# lcore. dpdk-ibvcap takes bench/ringgen's frames (a DPDK secondary putting
# fresh, valid, in-order CODIF frames straight into the rx rings of the
# capture's net_ring port, paced at RATE frames/s: the same offered load in
# every run) on one rx lcore, in three set-ups:
#   A  no consumer (the baseline);
#   B  a libibvcap C consumer in a process of its own
#      (tests/consumer/consumer_read: aligned blocks of T frames of every
#      antenna, every valid frame's data copied out, written to /dev/null);
#   C  the in-process plugin examples/beam_plugin.so (--consumer: the
#      incoherent beam of every block of T frames, decoded and summed);
#   D  B's consumer attached but nearly idle (consumer_read -s IDLE_MS:
#      one block, then asleep IDLE_MS, and so on): its registry entry,
#      cursor and heartbeat without the CPU and memory traffic of reading,
#      which tells what attaching costs the rx lcore from what a reading
#      consumer's work on shared cores does.
# The figure is the capture's own: the rx lcore's TSC cycles in the polls
# that brought packets, per packet (the summary's lcores[].busy_cycles /
# packets of the rx lcore: rx.c's counters), as bench/capture_bench.sh's.
# Runs alternate A B C D D C B A (ABBA) in each of ROUNDS rounds, so that the
# machine's drift falls on all alike; printed: min / median / max cycles
# per frame of each, and the ratios B/A and C/A (per round, the mean of
# the round's two runs of each; and of the medians).
#
# CPUs: the rx lcore (EAL lcore 1) alone on CPU RX_CPU (1); the main
# lcore (0), ringgen, the consumer of B and the plugin on CPU OTHER_CPU
# (0): where --consumer runs a plugin on an EAL worker lcore of its own
# (its help says lcore=N), C's capture has a third lcore, 2, on OTHER_CPU
# and the plugin lcore=2; else its thread is an EAL control thread, which
# EAL puts on the main lcore's CPU when the lcores take every CPU. The
# capture and the consumer run at normal priority, ringgen under chrt -r 11
# (SCHED_RR: it sleeps between its paced bursts, so a consumer on its CPU
# cannot delay the offered load) where the caller may set real-time
# priorities (said in the header). Until 2026-11-28 the capture ran under
# chrt -r 10: the kernel's real-time limit (sched_rt_runtime_us, 950 ms of
# each second) then stopped the busy-polling rx lcore 50 ms a second, and
# a poll stopped so counts those ms in its busy cycles (the "waited"
# figure below was that: 5-9 % of each run).
#
# Each run checks its counts, else the bench fails (exit 1): the capture's
# packets = received = placed = the frames ringgen sent (FRAMES), none
# lost, duplicate, late or malformed; B, D: the consumer's frames handed
# out + its overrun = placed; C: the capture's "--consumer" line and the
# plugin's registry entry in the summary agree, and its frames + overrun =
# placed. The rate ringgen reached is printed per set-up (it falls short
# when its CPU is taken: then the runs did not offer the same load), and
# how long the rx thread waited for its CPU while another task of this
# machine held it (its schedstat): a run with much of that measured the
# sharing, not the consumer.
#
#   bench/consumer_rx_bench.sh [OUT] [ROUNDS (3)] [SECONDS (3)]
#   env: RATE=250000 (frames/s, all antennas) MODE=zerocopy|copy SIZE=8192
#        ANTENNAS=6 T=64 (frames per block) RX_CPU=1 OTHER_CPU=0
#        IDLE_MS=200 (D's consumer's sleep between blocks; it reads what the ring still holds at the end so, too)
#        CONS_CPU=OTHER_CPU (B's and D's consumer; on a host with more CPUs give
#        it one of its own; C's plugin thread, an EAL control thread, then
#        runs on the CPUs that are not the capture's lcores)
#        SMOKE=1: one round of A B C D, 0.4 s each, 1024-byte frames (unless
#        SIZE says), rings of 256 rows (checks the counts; the figures
#        mean nothing), as meson's benchmark consumer-rx-smoke
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${1:-$ROOT/bench/results}
ROUNDS=${2:-3}
SECS=${3:-3}
. "$ROOT/bench/consumer_rx_common.sh"
rx_env
CONS_CPU=${CONS_CPU:-$OTHER_CPU}
ORDER="A B C D D C B A"
IDLE_MS=${IDLE_MS:-200}
if [ -n "${SMOKE:-}" ]; then
	# small frames and rings: the captures start fast, the memory is small
	ROUNDS=1 SECS=0.4 ORDER="A B C D" SIZE=${SIZE_SET:-1024} ROWS=256
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] ||
	{ echo "FAIL: ROUNDS '$ROUNDS': expected a positive integer" >&2; exit 1; }
[[ $IDLE_MS =~ ^[1-9][0-9]*$ ]] ||
	{ echo "FAIL: IDLE_MS=$IDLE_MS: expected milliseconds, a positive integer" >&2; exit 1; }
[[ $SECS =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
	{ echo "FAIL: SECONDS '$SECS': expected a number of seconds" >&2; exit 1; }
FRAMES=$(python3 -c "print(int($RATE * $SECS))")
[ "$FRAMES" -ge 1 ] || { echo "FAIL: RATE x SECONDS = $FRAMES frames: expected at least 1" >&2; exit 1; }
rx_check
mkdir -p "$OUT"
RES=$OUT/consumer_rx.txt
W=$(mktemp -d /tmp/ibvcap-crxbench.XXXXXX)
P=crx$$
cleanup() {
	local pid
	for pid in ${CAP_PID:-} ${CONS_PID:-}; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -f /dev/hugepages/"$P"* 2>/dev/null || true
	rm -rf /var/run/dpdk/"$P"*
	if [ -n "${KEEP_W:-}" ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT

# this script and all it starts on OTHER_CPU (EAL moves the rx lcore to
# RX_CPU): at normal priority, nothing of the bench's own may take the rx
# lcore's CPU
taskset -pc "$OTHER_CPU" $$ > /dev/null
prio="the capture and consumer at normal priority, $prio"
# the plugin on a worker lcore of its own (lcore=N), or on a control thread
PLUGIN_KEY='' plugin_where="an EAL control thread"
if "$CAP" --help 2>&1 | grep -q 'lcore=N'; then
	PLUGIN_KEY=,lcore=2 plugin_where="EAL lcore 2 on CPU $OTHER_CPU"
fi
machine=$(rx_machine)
{
	echo "# consumer_rx_bench: the rx lcore's cycles per frame, A no consumer, B a libibvcap consumer (consumer_read, other process), C --consumer beam_plugin.so, D B's consumer asleep $IDLE_MS ms between blocks"
	echo "# machine: $machine"
	echo "# $MODE, $NANT antennas x $SPA streams, $SIZE data bytes, ring $ROWS rows; ringgen --rate $RATE: $FRAMES frames a run ($SECS s); blocks of $TB frames"
	echo "# rx lcore on CPU $RX_CPU; main lcore, ringgen on CPU $OTHER_CPU; consumer on CPU $CONS_CPU; plugin on $plugin_where; $prio; order per round: $ORDER; rounds: $ROUNDS"
} | tee "$RES"

# process pid is up when its log says pattern, within 30 s; else it failed
up() { # pid log pattern what
	for _ in $(seq 300); do
		grep -qs "$3" "$2" && return
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	cat "$2" >&2; echo "FAIL: $4 did not start" >&2; exit 1
}

# the capture of run r (set-up s) up: its log says so
capture_start() { # setup run
	local cons=() lcores=0@$OTHER_CPU,1@$RX_CPU
	if [ "$1" = C ]; then
		cons=(--consumer "$PLUGIN,out=$W/beam,frames=$TB,name=rxbplug$PLUGIN_KEY")
		[ -n "$PLUGIN_KEY" ] && lcores=$lcores,2@$OTHER_CPU
	fi
	rm -f "$W/cap.log" "$W/sum.json" "$W/gen.log" "$W/cons.json" "$W/cons.log" "$W/beam"
	"$CAP" --lcores "$lcores" --main-lcore 0 --no-pci \
		--file-prefix "$PFX" --vdev "net_ring0,nodeaction=$RING:0:CREATE" \
		-- --antennas "$NANT" --groups "$NG" --ring "$ROWS" --data-bytes "$SIZE" \
		--count-packets "$FRAMES" --idle-timeout 60s --stats-period 0 --zero-copy "$ZC" \
		"${cons[@]+"${cons[@]}"}" --summary-json "$W/sum.json" > "$W/cap.log" 2>&1 &
	CAP_PID=$!
	up "$CAP_PID" "$W/cap.log" 'capturing on' "the capture ($1)"
}

# B's (D's: asleep between blocks) consumer on CPU CONS_CPU, up when it
# says it attached
consumer_start() { # setup
	local idle=()
	[ "$1" = D ] && idle=(-s "$IDLE_MS")
	taskset -c "$CONS_CPU" "$CONS" -i "$PFX" -n rxbcons -a "$MASK" -T "$TB" \
		"${idle[@]+"${idle[@]}"}" -o /dev/null > "$W/cons.json" 2> "$W/cons.log" &
	CONS_PID=$!
	up "$CONS_PID" "$W/cons.log" 'attached to' "the consumer"
}

# the rx thread's (rte-worker-1) scheduler figures
# (/proc/.../schedstat: ns on the CPU, ns runnable but waiting for it,
# timeslices) now in sched.0 and, until the capture ends, every 0.1 s in
# sched.1: their difference says how long another task of this machine
# held the rx lcore's CPU during the run (not the hypervisor's steal,
# which this VM does not report)
rx_sched_start() {
	local t f=
	for t in /proc/"$CAP_PID"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "rte-worker-1" ] && f=$t/schedstat
	done
	rm -f "$W/sched.0" "$W/sched.1"
	[ -n "$f" ] || { echo "FAIL: no thread rte-worker-1 (the rx lcore) in the capture" >&2; exit 1; }
	cp "$f" "$W/sched.0"
	while cp "$f" "$W/sched.1.new" 2>/dev/null; do
		mv "$W/sched.1.new" "$W/sched.1"
		sleep 0.1
	done &
	SCHED_PID=$!
}

# one run; prints "cycles_per_frame ringgen_frames_per_s handed+overrun|- waited_ms capture_s
# packets_per_busy_poll"
run_one() { # setup run
	local s=$1 r=$2
	PFX=$P$s$r RING=crxr$s$r
	# (a subshell: the caller's trap cannot see what it starts)
	# shellcheck disable=SC2086
	trap 'kill ${CAP_PID:-} ${CONS_PID:-} 2>/dev/null || true' EXIT
	capture_start "$s"
	case $s in B | D) consumer_start "$s" ;; esac
	rx_sched_start
	"${RTG[@]}" timeout 120 "$GEN" -l "$OTHER_CPU" --proc-type secondary --file-prefix "$PFX" \
		--log-level 3 -- --ring "$RING" --count "$FRAMES" --antennas "$NANT" \
		--data-bytes "$SIZE" --queues $((NANT + 1)) --pool "$POOL" --groups "$NG" \
		--rate "$RATE" > "$W/gen.log" 2>&1 ||
		{ cat "$W/gen.log" >&2; echo "FAIL: ringgen ($s)" >&2; exit 1; }
	wait "$CAP_PID" || { cat "$W/cap.log" >&2; echo "FAIL: the capture ($s) failed" >&2; exit 1; }
	CAP_PID=
	if [ "$s" = B ] || [ "$s" = D ]; then
		wait "$CONS_PID" || { cat "$W/cons.log" >&2; echo "FAIL: the consumer failed" >&2; exit 1; }
		CONS_PID=
	fi
	wait "$SCHED_PID" || true
	rm -f /dev/hugepages/"$PFX"* 2>/dev/null || true
	python3 - "$s" "$W/sum.json" "$FRAMES" "$W/gen.log" "$W/cons.json" \
		"$W/cap.log" "$W/sched.0" "$W/sched.1" <<'PY' || { cat "$W/cap.log" >&2; exit 1; }
import json, re, sys
s, sumf, n, genlog, consf, caplog, sched0, sched1 = sys.argv[1:]
n = int(n)
su = json.load(open(sumf)); t = su["totals"]
bad = []
g = open(genlog).read()
m = re.search(r"ringgen: (\d+) frames and 0 garbage", g)
sent = int(m.group(1)) if m else -1
r = re.search(r"ringgen: [0-9.]+ s, ([0-9.]+) frames/s", g)
if sent != n:
    bad.append("ringgen sent %d (expected %d)" % (sent, n))
placed = sum(a["placed"] for a in su["buffers"]["antennas"])
for k, want in (("packets", n), ("received", n), ("lost", 0), ("duplicate", 0),
                ("malformed", 0), ("late", 0)):
    if t.get(k) != want:
        bad.append("%s %s (expected %s)" % (k, t.get(k), want))
if placed != n:
    bad.append("placed %d (expected %d)" % (placed, n))
# the rx lcore is EAL lcore 1 (on CPU RX_CPU), the only one with packets
lc = [x for x in su["lcores"] if x["lcore"] == 1]
if len(lc) != 1 or lc[0]["packets"] != n or len(su["lcores"]) != 1:
    bad.append("rx lcores %s (expected lcore 1 alone, with %d packets)" % (su["lcores"], n))
if s in "BD":
    c = json.load(open(consf))
    if c["frames"] + c["overrun"] != placed:
        bad.append("consumer: %d frames + %d overrun, %d placed"
                   % (c["frames"], c["overrun"], placed))
if s == "C":
    # (where a plugin has an lcore of its own the line names it: lcore 2)
    m = re.search(r"--consumer rxbplug(?: on lcore (2)\b)?: (\d+) blocks, (\d+) frames, "
                  r"(\d+) overrun", open(caplog).read())
    w = [x for x in su["buffers"].get("writers", []) if x["name"] == "rxbplug"]
    if m is None or len(w) != 1:
        bad.append("plugin: line %s, registry entries %s" % (m and m.group(0), w))
    else:
        blocks, fr, ov = map(int, m.groups()[1:])
        w = w[0]
        if w["written"] != fr or w["overrun"] != ov or fr + ov != placed or blocks == 0:
            bad.append("plugin: %d blocks, %d frames + %d overrun (registry %d + %d), "
                       "%d placed" % (blocks, fr, ov, w["written"], w["overrun"], placed))
if bad:
    sys.exit("FAIL: run %s: counts: %s" % (s, ", ".join(bad)))
lc = lc[0]
got = "-"
if s in "BD":
    got = "consumer:%d+%d" % (c["frames"], c["overrun"])
if s == "C":
    got = "plugin:%d+%d" % (fr, ov)
# the ms the rx thread was runnable but another task had its CPU
try:
    waited = (int(open(sched1).read().split()[1]) - int(open(sched0).read().split()[1])) / 1e6
except (OSError, IndexError, ValueError):
    waited = -1
# packets per poll that brought any: a poll's own cost is shared by them
busy = lc["polls"] - lc["busy_wait"]
print("%.1f %s %s %.1f %.2f %.1f" % (lc["busy_cycles"] / lc["packets"], r.group(1) if r else "0",
                                     got, waited, su["duration_s"], n / busy if busy else 0))
PY
}

declare -A cyc=() rate=() wt=()
for r in $(seq "$ROUNDS"); do
	k=0
	for s in $ORDER; do
		k=$((k + 1))
		x=$(run_one "$s" "$r$k")
		read -r c f got waited dur pp <<< "$x"
		cyc[$s]="${cyc[$s]:-} $c"
		rate[$s]="${rate[$s]:-} $f"
		wt[$s]="${wt[$s]:-} $waited"
		[ "$got" = - ] && got= || got=", $got (frames handed + overrun)"
		echo "# round $r run $k: $s $c cycles/frame ($pp packets/busy poll), ringgen $f frames/s$got, rx thread waited $waited ms of the capture's $dur s for its CPU" | tee -a "$RES"
	done
done
python3 - "$ROUNDS" "${cyc[A]}" "${cyc[B]}" "${cyc[C]}" "${cyc[D]}" "${rate[A]}" "${rate[B]}" \
	"${rate[C]}" "${rate[D]}" "${wt[A]}" "${wt[B]}" "${wt[C]}" "${wt[D]}" <<'PY' | tee -a "$RES"
import statistics as st, sys
rounds = int(sys.argv[1])
v = {k: list(map(float, sys.argv[2 + i].split())) for i, k in enumerate("ABCD")}
f = {k: list(map(float, sys.argv[6 + i].split())) for i, k in enumerate("ABCD")}
w = {k: list(map(float, sys.argv[10 + i].split())) for i, k in enumerate("ABCD")}
name = {"A": "A no consumer", "B": "B libibvcap consumer", "C": "C --consumer plugin",
        "D": "D consumer, asleep"}
print("%-22s %-26s %-26s %s" % ("set-up", "cycles/frame min/med/max",
                                "ringgen frames/s (median)", "rx thread waited, ms min/med/max"))
for k in "ABCD":
    x, y = sorted(v[k]), sorted(w[k])
    print("%-22s %-26s %-26.0f %s" % (name[k], "%.0f/%.0f/%.0f" % (x[0], st.median(x), x[-1]),
                                      st.median(f[k]), "%.0f/%.0f/%.0f" % (y[0], st.median(y), y[-1])))
for k in "BCD":
    # per round: the mean of the round's runs of each set-up
    n = len(v[k]) // rounds
    rr = sorted(st.mean(v[k][i * n:(i + 1) * n]) / st.mean(v["A"][i * n:(i + 1) * n])
                for i in range(rounds))
    print("ratio %s/A: per round %.3f/%.3f/%.3f (min/med/max), of the medians %.3f, "
          "of the minima %.3f" % (k, rr[0], st.median(rr), rr[-1],
                                  st.median(v[k]) / st.median(v["A"]), min(v[k]) / min(v["A"])))
PY
echo "# every run: ringgen sent = packets = received = placed = the frames of a run, 0 lost, duplicate, late, malformed; B, D: consumer frames + overrun = placed; C: plugin frames + overrun = placed (its line = its registry entry)" | tee -a "$RES"
