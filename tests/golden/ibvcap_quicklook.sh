#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: quick look. codifgen streams of known signal (noise of three
# levels, one dead antenna, one saturated; 16-bit complex and 2-bit real)
# replayed through net_pcap into dpdk-ibvcap: the figures in telemetry
# during the run (the last window, and the run so far), in the Prometheus
# export and in the summary JSON match the truth's expected figures within
# 6 standard errors (tests/tools/qlcheck.py says how), the dead and
# saturated antennas get those states, and the sampling is exact: per
# stream the first frame and then one in --quicklook (--quicklook-min off:
# the one-in-N rule alone; tests/mp/ibvcap_quicklook_live.sh tests the minimum).
. "$(dirname "$0")/../lib.sh"
set -e
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
QLC=$SRC/tests/tools/qlcheck.py
EVERY=8

# run NAME "L0 L1 L2" GEN-ARGS...: antennas 0-2 noise of levels L0-L2, 3 dead,
# 4 saturated, 5 the pattern (not a signal: not checked); one pcap,
# software steering, a 3 s window
run() {
	local name=$1 pid i n l
	local -a sig=()
	read -r -a l <<< "$2"
	for i in 0 1 2; do sig+=(--signal "$i:${l[$i]}"); done
	shift 2
	"$GEN" --count 96 "$@" "${sig[@]}" --signal 3:dead --signal 4:saturated --pcap "$T/$name.pcap" \
		--truth "$T/$name.json" --quiet
	n=$(json_get "$T/$name.json" totals sent)
	# telemetry on: the queries below; the first window ends 10 s after the
	# start and holds the whole replay (net_pcap delivers it at once); the
	# second, empty, ends at 20 s (its verdicts "no data": '-' on the
	# screen), so the checks of the first window below must end by then (a
	# loaded host runs each query slowly); SIGINT stops the capture after
	# them (--idle-timeout only if the test dies)
	# shellcheck disable=SC2086
	"$CAP" -l 0,1 $EAL_COMMON --no-huge -m 1024 --vdev "net_pcap0,rx_pcap=$T/$name.pcap" -- \
		--steer software --idle-timeout 90s --stats-period 0 --quicklook $EVERY \
		--quicklook-window 10s --quicklook-min off --summary-json "$T/$name.sum.json" > "$T/$name.log" 2>&1 &
	pid=$!
	CLEANUP_PIDS+=("$pid")
	wait_started "$T/$name.log" 60 "$name: no start"
	# the run so far, once the replay is in
	for ((i = 0; i < 50; i++)); do
		python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/stats > "$T/$name.st.json"
		[ "$(json_get "$T/$name.st.json" packets)" = "$n" ] && break
		sleep 0.1
	done
	python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/quicklook/run > "$T/$name.run.json"
	python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/counters,quicklook > "$T/$name.units.json"
	python3 "$QLC" "$T/$name.json" tel "$T/$name.run.json" "$T/$name.units.json" > "$T/$name.run.cmp" ||
		{ cat "$T/$name.run.cmp"; fail "$name: /ibvcap/quicklook/run differs from the truth"; }
	ok "$name: telemetry /ibvcap/quicklook/run = truth ($(tail -1 "$T/$name.run.cmp"))"
	# the last window, through the Prometheus export and on the status
	# screen at 80 columns (each antenna's signal column), once the first
	# window (the whole replay) is complete
	for ((i = 0; i < 80; i++)); do
		python3 "$STAT" --file-prefix "$PREFIX" --once --prom "$T/$name.prom"
		python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/quicklook,ant3 > "$T/$name.a3.json"
		COLUMNS=80 python3 "$STAT" --file-prefix "$PREFIX" --once > "$T/$name.screen"
		grep -q '^ibvcap_quicklook_verdict{.*antenna="ant0"} 1$' "$T/$name.prom" &&
			python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("bin_verdict", [0])[:1] != [2])' "$T/$name.a3.json" &&
			grep -Eq '^ant4 .* SAT *$' "$T/$name.screen" && break
		sleep 0.1
	done
	python3 "$SRC/tests/tools/promcheck.py" "$T/$name.prom" > "$T/$name.prom.json" ||
		{ cat "$T/$name.prom.json"; fail "$name: Prometheus format"; }
	python3 "$QLC" "$T/$name.json" prom "$T/$name.prom.json" > "$T/$name.prom.cmp" ||
		{ cat "$T/$name.prom.cmp"; grep quicklook "$T/$name.prom"; fail "$name: Prometheus quick look differs from the truth"; }
	expect_eq "$name: dead antenna's verdict (Prometheus)" \
		"$(grep '^ibvcap_quicklook_verdict{.*antenna="ant3"}' "$T/$name.prom" | cut -d' ' -f2)" 2
	expect_eq "$name: saturated antenna's verdict (Prometheus)" \
		"$(grep '^ibvcap_quicklook_verdict{.*antenna="ant4"}' "$T/$name.prom" | cut -d' ' -f2)" 3
	ok "$name: Prometheus window figures = truth ($(tail -1 "$T/$name.prom.cmp"))"
	expect_eq "$name: status screen at 80 columns, signal of ant0 ant3 ant4" \
		"$(awk '$1 ~ /^ant[034]$/ {print $1, $NF}' "$T/$name.screen" | tr '\n' ' ')" \
		"ant0 ok ant3 DEAD ant4 SAT "
	# the per-antenna query: the streams' rows and the channel bins
	python3 - "$T/$name.a3.json" "$T/$name.json" <<'PY' || fail "$name: /ibvcap/quicklook,ant3"
import json, sys
r, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
nchan = t["config"]["nchan"]
streams = [k for k in r if k.startswith("g")]
assert len(streams) == t["config"]["groups"] * t["config"]["threads"], streams
assert r["bin_first_chan"] == list(range(nchan)), r["bin_first_chan"]
assert r["bin_verdict"] == [2] * nchan, r["bin_verdict"]
assert r["bin_zero"] == [1000000] * nchan, r["bin_zero"]  # ppm
# every sample the zero code: 16 bits 0 (power 0, its dB left out), 2 bits
# the level +0.5 (0.25 steps^2, -6.02 dB)
p = 0 if t["config"]["nbits"] > 2 else 250000  # micro-steps^2
assert r["bin_power"] == [p] * nchan, r["bin_power"]
for k in streams + ["antenna"]:  # rows of JSON integers
    x = r[k]
    assert all(type(v) is int for v in x.values()), (k, x)
    assert x["verdict"] == 2 and x["zero"] == 1000000 and x["power"] == p, (k, x)
    assert x.get("power_db") == (None if p == 0 else -6021), (k, x)  # milli-dB
PY
	ok "$name: /ibvcap/quicklook,ant3: a row per stream, every channel dead"
	kill -INT "$pid"
	wait "$pid" || { cat "$T/$name.log"; fail "$name: dpdk-ibvcap failed"; }
	python3 "$QLC" "$T/$name.json" summary "$T/$name.sum.json" $EVERY > "$T/$name.cmp" ||
		{ cat "$T/$name.cmp"; fail "$name: summary quick look differs from the truth"; }
	ok "$name: summary JSON: sampling exact, figures = truth ($(tail -1 "$T/$name.cmp"))"
}

# levels well inside "ok" for each encoding: 2-bit noise of RMS 1.5 steps
# has 50% of its samples at the outer levels (saturated from 80%)
run q16 "100 30dB 7.5" --nbits 16 --complex
run q2 "0.6 -3dB 1.5" --nbits 2 --real --nchan 8 --total-samples 32768000

# --quicklook off: no figures, no cost; the summary says so
# shellcheck disable=SC2086
"$CAP" -l 0,1 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev "net_pcap0,rx_pcap=$T/q2.pcap" \
	-- --steer software --idle-timeout 1s --stats-period 0 --quicklook off \
	--summary-json "$T/off.sum.json" > "$T/off.log" 2>&1 || { cat "$T/off.log"; fail "--quicklook off"; }
expect_eq "--quicklook off: summary" \
	"$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["quicklook"]))' "$T/off.sum.json")" \
	'{"every": 0}'

# --sampler-levels: the verdict's thresholds are the capture's to set. 2-bit
# noise of RMS 3 steps is over-driven at the default over=2 (x the optimal
# RMS), ok with over=4; the summary's verdict over the run says which
# shellcheck disable=SC2086
"$GEN" --antennas 1 --groups 1 --threads 1 --nbits 2 --real --nchan 4 --period 1 \
	--total-samples 8192000 --count 30 --signal 0:3 --pcap "$T/rms3.pcap" --quiet
for lv in "default:" "over4:--sampler-levels over=4"; do
	# shellcheck disable=SC2086
	"$CAP" -l 0,1 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev "net_pcap0,rx_pcap=$T/rms3.pcap" \
		-- --antennas 1 --steer software --idle-timeout 1s --stats-period 0 ${lv#*:} \
		--summary-json "$T/lv-${lv%%:*}.json" > "$T/lv.log" 2>&1 || { cat "$T/lv.log"; fail "--sampler-levels ${lv#*:}"; }
done
expect_eq "RMS 3 steps: the verdict at the default levels, and with over=4" \
	"$(json_get "$T/lv-default.json" quicklook antennas 0 bstate state) $(json_get "$T/lv-over4.json" quicklook antennas 0 bstate state)" \
	"over-driven ok"
run_expect_fail "--sampler-levels over below 1" 1 "--sampler-levels over: '0.5': expected a number between 1 and 1000" \
	"$CAP" --check-config --sampler-levels over=0.5
run_expect_fail "--sampler-levels: an unknown key" 1 "'nope': unknown key, expected under, over, dead, saturated or min-samples" \
	"$CAP" --check-config --sampler-levels nope=1
echo "$CHECKS checks passed"
