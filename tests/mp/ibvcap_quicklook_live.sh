#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Quick look's live sampler statistics and spectra: codifgen, paced through
# memif (slow streams: <= 200 frames/s, so one in --quicklook 1024 alone
# would sample about one frame per stream in the run), sends 2-bit real
# noise of RMS 0.1, 1 and 3 steps and, on a fourth antenna, RMS 1 with a
# tone at 0.1875 cycles per sample. Checked against that truth:
#  - the sampling's minimum: each stream sampled more than one in N gives;
#  - /ibvcap/bstate,ANT: each state's share within 6 standard errors (of
#    the window's samples, + 1e-3) of the Gaussian's (computed here with
#    erfc), verdicts under-driven / ok / over-driven / ok, JSON numbers;
#  - /ibvcap/spectrum,ant3,128: "pending" when first asked, then every
#    channel's peak in bin 24 (0.1875 x 128) at 307.2 kHz, > 10 dB over the
#    median; a bad NFFT and a bad antenna are refused, naming the value;
#  - Prometheus (stat --prom): the verdicts, the occupancy per state;
#  - the status screen: the sampler column;
#  - stat --plot DIR: a bstate and a bandpass PNG per antenna, whose data
#    files hold the expected levels and the tone's peak.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
need_cmd gnuplot
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
MEMIF="socket=$T/memif.sock,socket-abstract=no,bsize=16384,rsize=9"
# 4 channels of 1 byte a time sample: 8192 time samples a frame; 200
# frames a second is the data rate (fs 1.6384 MHz a channel)
LAYOUT="--antennas 4 --groups 1 --threads 1"

# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --duration 300s \
	--quicklook 1024 --quicklook-window 1s --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 90 "capture did not start"
# shellcheck disable=SC2086
"$GEN" -l 0 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 $LAYOUT --nbits 2 --real --nchan 4 \
	--period 1 --total-samples 1638400 --signal 0:0.1 --signal 1:1 --signal 2:3 \
	--signal 3:1,tone=0.1875:1.5 --count 100000 --rate-fps 200 > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")

q() { python3 "$STAT" --file-prefix "$PREFIX" --query "$1"; }

# a window in which every antenna's kept frames were read
for ((i = 0; i < 600; i++)); do
	q /ibvcap/bstate > "$T/bs.json"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r.pop("fields"); sys.exit(not r or any(dict(zip(f, v))["samples"] < 32768 for v in r.values()))' "$T/bs.json" && break
	sleep 0.2
done
# each antenna's detail from a window with its frames (a loaded machine
# stretches the main lcore's loop: a window may miss a slow stream)
for a in 0 1 2 3; do
	for ((i = 0; i < 100; i++)); do
		q "/ibvcap/bstate,ant$a" > "$T/bs$a.json"
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(dict(zip(r["fields"], r["antenna"]))["samples"] < 32768)' "$T/bs$a.json" && break
		sleep 0.2
	done
done
python3 - "$T" <<'PY' || { cat "$T/bs.json" "$T"/bs?.json; fail "live occupancy or verdicts"; }
import json, math, sys
d = sys.argv[1]
def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))
def gauss(s):  # 2-bit mid-rise levels -3/2, -1/2, +1/2, +3/2: x < -1, [-1, 0), [0, 1), >= 1
    return [phi(-1 / s), phi(0) - phi(-1 / s), phi(1 / s) - phi(0), 1 - phi(1 / s)]
want = [(2, 0.1), (1, 1.0), (3, 3.0), (1, None)]  # under-driven, ok, over-driven, ok
names = ["nodata", "ok", "under-driven", "over-driven"]
for a, (v, rms) in enumerate(want):
    r = json.load(open("%s/bs%d.json" % (d, a)))
    row = dict(zip(r["fields"], r["antenna"]))
    assert all(isinstance(x, int) for x in r["antenna"] + r["occupancy_ppm"]), r  # JSON numbers
    assert row["verdict"] == v and r["verdict_name"] == names[v], (a, row, r["verdict_name"])
    assert r["state_value"] == [-1500, -500, 500, 1500], r["state_value"]
    assert r["expected_ppm"] == [158655, 341345, 341345, 158655], r["expected_ppm"]
    n = row["samples"]
    assert n >= 32768 and n % 32768 == 0 and row["frames"] == n // 32768, row
    occ = [x / 1e6 for x in r["occupancy_ppm"]]
    if rms is not None:
        for p, q in zip(occ, gauss(rms)):
            assert abs(p - q) <= 6 * math.sqrt(q * (1 - q) / n) + 1e-3, (a, occ, gauss(rms), n)
        if rms >= 1:
            assert abs(row["rms"] / 1e3 - rms) < 0.1 * rms, (a, row["rms"])
    groups = [k for k in r if k.startswith("group")]
    assert len(groups) == 4 and r["chan_per_group"] == 1, groups
    print("ant%d %s samples %d occupancy %s" % (a, r["verdict_name"], n,
          " ".join("%.4f" % p for p in occ)))
PY
ok "live /ibvcap/bstate: 2-bit noise at 0.1, 1, 3 steps -> occupancy = Gaussian (6 s.e.), under-driven / ok / over-driven; integers in JSON"

# the minimum: more sampled than one in 1024 gives (about 1 a stream here)
q /ibvcap/quicklook/run > "$T/ql.json"
python3 - "$T/ql.json" <<'PY' || fail "--quicklook-min: sampled frames"
import json, sys
r = json.load(open(sys.argv[1]))
f = r.pop("fields")
for k, x in r.items():
    assert all(type(v) is int and n in f for n, v in x.items()), (k, x)  # JSON integers
    assert x["sampled"] > 1 + x["offered"] // 1024 + 4, (k, x["sampled"], x["offered"])
    print(k, "offered", int(x["offered"]), "sampled", int(x["sampled"]))
PY
ok "--quicklook-min 8: slow streams sampled beyond one in --quicklook"

# the spectrum: pending when first asked, then the tone's bin
q /ibvcap/spectrum,ant3,128 > "$T/sp0.json"
grep -q '"state": "pending"' "$T/sp0.json" || { cat "$T/sp0.json"; fail "spectrum: first answer not pending"; }
for ((i = 0; i < 60; i++)); do
	q /ibvcap/spectrum,ant3,128 > "$T/sp.json"
	grep -q '"state": "ready"' "$T/sp.json" && break
	sleep 0.2
done
python3 - "$T/sp.json" <<'PY' || { cat "$T/sp.json"; fail "live spectrum"; }
import json, statistics, sys
r = json.load(open(sys.argv[1]))
assert r["state"] == "ready" and r["nfft"] == 128, r.get("state")
k = [x for x in r if x.endswith("_freq_hz")][0][:-len("_freq_hz")]
f = dict(zip(r["stream_fields"], r[k]))
assert f["nchan"] == 4 and f["nbin"] == 65 and f["sample_rate_hz"] == 1638400 and f["complex"] == 0, f
assert r[k + "_freq_hz"][24] == 307200 and r[k + "_freq_hz"][64] == 819200
assert r[k + "_peak_bin"] == [24] * 4 and r[k + "_peak_hz"] == [307200] * 4, r[k + "_peak_bin"]
for c in range(4):
    p = r["%s_c%d_power_mdb" % (k, c)]
    assert max(p) == p[24] and p[24] - statistics.median(p) > 10000, (c, p[24], statistics.median(p))
print("peak bin 24, 307200 Hz; blocks", f["blocks"])
PY
ok "live /ibvcap/spectrum,ant3,128: 'pending', then each channel's peak in bin 24 (307.2 kHz), > 10 dB over the floor"
q /ibvcap/spectrum,ant3,100 > "$T/bad.json"
grep -q "NFFT '100': expected a power of two, 16..512" "$T/bad.json" || { cat "$T/bad.json"; fail "NFFT 100 accepted"; }
q /ibvcap/spectrum,ant9 > "$T/bad.json"
grep -q "antenna 'ant9': no such antenna" "$T/bad.json" || { cat "$T/bad.json"; fail "ant9 accepted"; }
ok "spectrum: NFFT 100 and antenna ant9 refused, naming the value"

# Prometheus and the screen, from a window in which every antenna's frames
# were read (retried: a loaded machine may leave one out of a window)
prom_ok() {
	local a
	for a in 0:2 1:1 2:3 3:1; do  # antenna:verdict
		grep -Eq "^ibvcap_bstate_verdict\{.*antenna=\"ant${a%:*}\"\} ${a#*:}\$" "$T/q.prom" || return 1
	done
}
for ((i = 0; i < 60; i++)); do
	python3 "$STAT" --file-prefix "$PREFIX" --once --prom "$T/q.prom" && prom_ok && break
	sleep 0.3
done
prom_ok || { grep bstate_verdict "$T/q.prom"; fail "Prometheus: verdicts not 2/1/3/1"; }
python3 "$SRC/tests/tools/promcheck.py" "$T/q.prom" > "$T/prom.json" || { cat "$T/prom.json"; fail "Prometheus format"; }
python3 "$SRC/tests/tools/promcounters.py" "$SRC/docs/counters.md" "$T/q.prom" --skip writer > "$T/promfig.txt" ||
	{ cat "$T/promfig.txt"; fail "Prometheus: a figure of docs/counters.md missing"; }
expect_eq "Prometheus: ant1's occupancy states" \
	"$(grep -c '^ibvcap_bstate_occupancy_ratio{.*antenna="ant1",state=' "$T/q.prom")" 4
grep -Eq '^ibvcap_bstate_rms_optimal_steps\{.*antenna="ant1"\} 1$' "$T/q.prom" || fail "Prometheus: rms_optimal in steps"
grep -Eq '^ibvcap_bstate_zero_ratio\{.*antenna="ant1",group="3"\} 0\.[0-9]+$' "$T/q.prom" || fail "Prometheus: a group's zero share"
ok "Prometheus: ibvcap_bstate_verdict 2/1/3/1, occupancy per state, groups, base units"
for ((i = 0; i < 60; i++)); do
	COLUMNS=200 python3 "$STAT" --file-prefix "$PREFIX" --once > "$T/screen"
	[ "$(awk '$1 ~ /^ant[012]$/ {print $1, $NF}' "$T/screen" | tr '\n' ' ')" = "ant0 UNDER ant1 ok ant2 OVER " ] && break
	sleep 0.3
done
expect_eq "screen: sampler column of ant0 ant1 ant2" \
	"$(awk '$1 ~ /^ant[012]$/ {print $1, $NF}' "$T/screen" | tr '\n' ' ')" "ant0 UNDER ant1 ok ant2 OVER "

# the figures
# (an antenna's bandpass comes with the quick look's next window: on a
# loaded host after its sampler state; --plot says so and draws the rest)
for ((i = 0; i < 60; i++)); do
	python3 "$STAT" --file-prefix "$PREFIX" --plot "$T/fig" > "$T/plot.out" 2> "$T/plot.err" ||
		{ cat "$T/plot.out" "$T/plot.err"; fail "--plot"; }
	[ "$(find "$T/fig" -name 'ant*-*.png' | wc -l)" -ge 8 ] && break
	sleep 0.3
done
for a in 0 1 2 3; do
	for w in bstate bandpass; do
		[ "$(head -c 8 "$T/fig/ant$a-$w.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			fail "--plot: ant$a-$w.png not a PNG"
	done
done
python3 - "$T/fig" <<'PY' || fail "--plot: the data drawn"
import sys
d = sys.argv[1]
def rows(f):
    return [tuple(map(float, l.split())) for l in open(f) if l.strip() and l[0] != "#"]
b = rows(d + "/ant2-bstate.dat")
assert [x[0] for x in b] == [-1.5, -0.5, 0.5, 1.5] and abs(sum(x[1] for x in b) - 1) < 1e-5, b
assert [round(x[2], 6) for x in b] == [0.158655, 0.341345, 0.341345, 0.158655], b
assert b[0][1] > 0.3 and b[3][1] > 0.3, b  # RMS 3: 37% at each outer level
p = rows(d + "/ant3-bandpass.dat")
assert len(p) == 4 * 65, len(p)
for c in range(4):
    ch = p[65 * c:65 * (c + 1)]
    top = max(ch, key=lambda x: x[1])
    assert abs(top[0] - (c * 0.8192 + 0.3072)) < 1e-6, (c, top)
print("ok")
PY
ok "stat --plot: bstate and bandpass PNGs of 4 antennas; the data: expected 16/34/34/16 %, ant2's outer states > 30 %, ant3's peaks at 0.3072 MHz of each channel"
# a directory gnuplot could not be given (its script quotes the names)
rc=0
python3 "$STAT" --file-prefix "$PREFIX" --plot "$T/it's" > "$T/plotq.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && [ ! -e "$T/it's" ] &&
	grep -qF "it's\": expected a directory name without \"'\" (gnuplot" "$T/plotq.out" ||
	{ cat "$T/plotq.out"; fail "stat --plot DIR with a quote: exit $rc"; }
ok "stat --plot DIR with a quote: refused, named, nothing created"
# QL_FIGURES=DIR keeps the figures for a person to look at
[ -z "${QL_FIGURES:-}" ] || cp -r "$T/fig/." "$QL_FIGURES/"
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
kill -INT "$CPID"
wait "$CPID" || { tail -20 "$T/cap.log"; fail "capture exit"; }
# the summary: each antenna's sampler statistics over the run
python3 - "$T/sum.json" <<'PY' || fail "summary JSON: quicklook.antennas[].bstate"
import json, sys
q = json.load(open(sys.argv[1]))["quicklook"]
got = [(a["name"], a["bstate"]["state"]) for a in q["antennas"]]
assert got == [("ant0", "under-driven"), ("ant1", "ok"), ("ant2", "over-driven"), ("ant3", "ok")], got
for a in q["antennas"]:
    b = a["bstate"]
    assert b["samples"] == 32768 * b["frames"] > 0 and abs(sum(b["occupancy"]) - 1) < 1e-9, b
assert q["kept_frames_read"] == sum(a["bstate"]["frames"] for a in q["antennas"]), q["kept_frames_read"]
print(got, q["kept_frames_read"], "kept frames read in", q["kept_cycles"], "cycles")
PY
ok "summary JSON: each antenna's sampler verdict over the run; kept frames read = the antennas' frames"
echo "$CHECKS checks passed"
