#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: the live fringe check. codifgen's common signal on antennas 0
# and 1 (2-bit complex, 4 channels, antenna 1 late by 3 samples, share
# 0.5) and an uncorrelated antenna 2, replayed through net_pcap into
# dpdk-ibvcap: /ibvcap/fringe,ant0,ant1 (a job on a control thread) and
# /ibvcap/fringe/status report every channel's lag exactly 3 samples
# (732.421 ns in ps) and the coefficient of codifgen's truth within 5
# sigma; ant0 x ant2 below 5 / sqrt(samples); the same frames through
# codifcheck fringe give the same lags and coefficients within 5 sigma
# (one implementation, other frames: the ring's); refusals name the input;
# the job's CPU time is reported (cpu_us); the same live result from
# zero-copy rows (--zero-copy yes).
. "$(dirname "$0")/../lib.sh"
set -e
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
N=300 # frames per antenna: more than the window of 64 rows (rows final), fewer than the ring of 512

"$GEN" --antennas 3 --groups 1 --threads 1 --period 1 --nbits 2 --nchan 4 --total-samples 4096000 \
	--count $N --signal 0:1,common=0.5 --signal 1:1,common=0.5,delay=3 --signal 2:1 \
	--pcap "$T/f.pcap" --truth "$T/f.json" --quiet
# an idle timeout no loaded machine reaches: the test stops it (SIGINT)
# shellcheck disable=SC2086
"$CAP" -l 0,1 $EAL_COMMON --no-huge -m 1024 --vdev "net_pcap0,rx_pcap=$T/f.pcap" -- \
	--antennas 3 --ring 512 --steer software --idle-timeout 600s --stats-period 0 > "$T/cap.log" 2>&1 &
pid=$!
CLEANUP_PIDS+=("$pid")
wait_started "$T/cap.log" 60 "no start"
p=$(packets_in $((3 * N)) 300)
[ "$p" = $((3 * N)) ] || fail "the replay: $p packets of $((3 * N))"

# fringe A B SECONDS: start, poll until done, the status in $T/A-B.json
fringe() {
	python3 "$STAT" --file-prefix "$PREFIX" --query "/ibvcap/fringe,$1,$2,$3" > "$T/$1-$2.start"
	grep -q '"state": "running"' "$T/$1-$2.start" || fail "fringe $1 $2: $(cat "$T/$1-$2.start")"
	for ((i = 0; i < 300; i++)); do
		sleep 0.2
		python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/fringe/status > "$T/$1-$2.json"
		grep -q '"state": "done"' "$T/$1-$2.json" && return 0
	done
	fail "fringe $1 $2: not done: $(cat "$T/$1-$2.json")"
}

# check STATUS A B: every channel against the truth (pair A < B, or none)
check() {
	python3 - "$T/f.json" "$1" "$2" "$3" <<'PY'
import json, math, sys
truth, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a, b = int(sys.argv[3]), int(sys.argv[4])
pair = [p for p in truth["fringe"] if p["a"] == a and p["b"] == b]
chans = [v for k, v in r.items() if k.startswith("t0_ch")]
assert len(chans) == 4 and r["pairs"] == 200 and "error" not in r, r
for c in chans:
    sigma = c["sigma_ppm"] / 1e6
    if pair:
        p = pair[0]
        assert c["lag_samples"] == p["lag_samples"], (c, p)
        assert abs(c["lag_ps"] - p["lag_ns"] * 1e3) <= 1, (c, p)
        assert abs(c["coefficient_ppm"] / 1e6 - p["coefficient"]) < 5 * sigma, (c, p)
    else:
        n = c["pairs"] * (4096 - abs(c["lag_samples"]))
        assert c["coefficient_ppm"] / 1e6 < 5 / math.sqrt(n), (c, 5 / math.sqrt(n))
c = chans[0]
print(f"{r['pairs']} pairs (rows {r['rows_a']}/{r['rows_b']}, unmatched {r['unmatched_a']}/"
      f"{r['unmatched_b']}), ch 0: lag {c['lag_samples']} ({c['lag_ps']} ps) coefficient "
      f"{c['coefficient_ppm'] / 1e6:.4f} (truth {pair[0]['coefficient'] if pair else 0:.4f}, "
      f"sigma {c['sigma_ppm'] / 1e6:.4f}); CPU {r['cpu_us'] / 1e3:.1f} ms in "
      f"{r['wall_us'] / 1e3:.0f} ms")
PY
}

# 30 s at most: each ends at its 200 pairs (the ring holds 236 final rows),
# however slowly a loaded machine runs its thread
fringe ant0 ant1 30
m=$(check "$T/ant0-ant1.json" 0 1) || { cat "$T/ant0-ant1.json"; fail "ant0 x ant1"; }
ok "live ant0 x ant1: $m"
fringe ant0 ant2 30
m=$(check "$T/ant0-ant2.json" 0 2) || { cat "$T/ant0-ant2.json"; fail "ant0 x ant2"; }
ok "live ant0 x ant2 (uncorrelated): $m"

# refusals: the input, its value and what was expected
python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/fringe,ant0,ant0 > "$T/r1.json"
grep -q '"expected": "an antenna other than A"' "$T/r1.json" || fail "A = B: $(cat "$T/r1.json")"
python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/fringe,ant0,nope > "$T/r2.json"
grep -q '"value": "nope"' "$T/r2.json" || fail "an unknown antenna: $(cat "$T/r2.json")"
python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/fringe,ant0,ant1,-3 > "$T/r3.json"
grep -q '"input": "SECONDS"' "$T/r3.json" || fail "negative seconds: $(cat "$T/r3.json")"
ok "refused: A = B, an unknown antenna, negative seconds"

# Prometheus: the chosen baselines, checked in turn
python3 "$STAT" --file-prefix "$PREFIX" --once --prom "$T/f.prom" --fringe ant0-ant1 \
	--fringe ant0-ant2 --fringe-seconds 30 || fail "stat --fringe"
python3 "$SRC/tests/tools/promcheck.py" "$T/f.prom" > "$T/prom.json" ||
	{ cat "$T/prom.json"; fail "Prometheus format"; }
python3 - "$T/f.prom" "$T/f.json" <<'PY' || { grep fringe "$T/f.prom"; fail "Prometheus fringe"; }
import json, re, sys
t = json.load(open(sys.argv[2]))["fringe"][0]
m = {}
for l in open(sys.argv[1]):
    g = re.match(r'ibvcap_fringe_(\w+)\{.*a="(\w+)",b="(\w+)",thread="0",channel="(\d)"\} (\S+)', l)
    if g:
        m[(g[1], g[2], g[3], int(g[4]))] = float(g[5])
for ch in range(4):
    assert m[("lag_samples", "ant0", "ant1", ch)] == 3
    assert abs(m[("lag_seconds", "ant0", "ant1", ch)] - t["lag_ns"] * 1e-9) < 1e-12
    assert abs(m[("coefficient", "ant0", "ant1", ch)] - t["coefficient"]) < \
        5 * m[("coefficient_sigma", "ant0", "ant1", ch)]
    assert abs(m[("coefficient", "ant0", "ant2", ch)]) < 5 * m[("coefficient_sigma", "ant0", "ant2", ch)]
PY
ok "dpdk-ibvcap-stat --prom --fringe ant0-ant1 --fringe ant0-ant2: lag 3 (732.42 ns), coefficients as the truth"

kill -INT "$pid"
wait "$pid" || true

# the same frames offline, one antenna per file: the same lag, the
# coefficient within 5 sigma of the live one
for a in 0 1; do
	"$GEN" --antennas 3 --antenna $a --groups 1 --threads 1 --period 1 --nbits 2 --nchan 4 \
		--total-samples 4096000 --count $N --signal 0:1,common=0.5 \
		--signal 1:1,common=0.5,delay=3 --signal 2:1 --pcap "$T/a$a.pcap" --quiet
done
"$CHK" fringe --json "$T/a0.pcap" "$T/a1.pcap" > "$T/off.json" || fail "codifcheck fringe"
python3 - "$T/off.json" "$T/ant0-ant1.json" <<'PY' || fail "offline and live differ"
import json, sys
off, live = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for c in off["streams"][0]["channels"]:
    l = live["t0_ch%d" % c["channel"]]
    assert c["lag_samples"] == l["lag_samples"], (c, l)
    assert abs(c["coefficient"] - l["coefficient_ppm"] / 1e6) < 5 * c["sigma"], (c, l)
PY
ok "codifcheck fringe of the same frames: the same lags, coefficients within 5 sigma"

# zero-copy rows (the payloads stay in the mbufs the ring holds): the same
# live result, read through the payload layer as the writers read them
# shellcheck disable=SC2086
"$CAP" -l 0,1 $EAL_COMMON --no-huge -m 1024 --vdev "net_pcap0,rx_pcap=$T/f.pcap" -- \
	--antennas 3 --ring 512 --steer software --idle-timeout 600s --stats-period 0 \
	--zero-copy yes > "$T/cap-zc.log" 2>&1 &
pid=$!
CLEANUP_PIDS+=("$pid")
wait_started "$T/cap-zc.log" 60 "zero-copy: no start"
grep -q -- "--zero-copy: one mbuf pool of" "$T/cap-zc.log" || { cat "$T/cap-zc.log"; fail "zero-copy: no pool line"; }
p=$(packets_in $((3 * N)) 300)
[ "$p" = $((3 * N)) ] || fail "zero-copy replay: $p packets of $((3 * N))"
fringe ant0 ant1 30
m=$(check "$T/ant0-ant1.json" 0 1) || { cat "$T/ant0-ant1.json"; fail "zero-copy: ant0 x ant1"; }
ok "zero-copy rows, live ant0 x ant1: $m"
kill -INT "$pid"
wait "$pid" || true
echo "$CHECKS checks passed"
