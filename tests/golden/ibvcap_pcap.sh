#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: codifgen pcaps (clean and each fault kind) replayed through net_pcap
# into dpdk-ibvcap give per-antenna and per-stream counts exactly equal to
# the generator's ground truth, field by field. Each antenna's pcap feeds its
# own rx queue (as hardware steering would); net_pcap has no rte_flow, so
# the port falls back to software steering, saying so in exactly one line.
. "$(dirname "$0")/../lib.sh"
set -e
# 40 frames a stream: a 128-frame ring (twice the default reorder window)
# holds them, in 256 MiB (each capture starts in a quarter of the time)
EAL="-l 0,1 $EAL_COMMON --no-huge -m 256 --no-telemetry"
RING="--ring 128"
python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"

# run NAME GEN-ARGS...: per-antenna pcaps -> 7 queues -> summary vs truth
run() {
	local name=$1 vdev="net_pcap0" a n
	shift
	"$GEN" --count 40 "$@" --pcap "$T/$name.all.pcap" --truth "$T/$name.json" --quiet
	for a in 0 1 2 3 4 5; do
		"$GEN" --count 40 "$@" --antenna $a --pcap "$T/$name.$a.pcap" --quiet
		vdev="$vdev,rx_pcap=$T/$name.$a.pcap"
	done
	vdev="$vdev,rx_pcap=$T/empty.pcap"
	n=$(json_get "$T/$name.json" totals sent)
	# shellcheck disable=SC2086
	"$CAP" $EAL --vdev "$vdev" -- --count-packets "$n" --idle-timeout 30s --stats-period 0 $RING \
		--summary-json "$T/$name.sum.json" > "$T/$name.log" 2>&1 ||
		{ cat "$T/$name.log"; fail "$name: dpdk-ibvcap failed"; }
	python3 "$CMP" "$T/$name.json" "$T/$name.sum.json" --unattributed > "$T/$name.cmp" ||
		{ cat "$T/$name.cmp"; fail "$name: counts differ from the truth"; }
	expect_eq "$name: fallback log lines" "$(grep -c 'steering in software' "$T/$name.log")" 1
	ok "$name: $n packets on 7 queues, counts = truth ($(tail -1 "$T/$name.cmp"))"
}

run clean
run loss --seed 21 --loss 0.05
run reorder --seed 22 --reorder 0.1 --reorder-depth 6
run duplicate --seed 23 --duplicate 0.05
run invalid --seed 24 --invalid 0.05
run vlan --seed 25 --vlan 0.05
run bad-sync --seed 26 --bad-sync 0.05
run bad-length --seed 27 --bad-length 0.05
run truncated --seed 28 --truncated 0.05
run non-codif --seed 29 --non-codif 0.05
run non-ipv4 --seed 30 --non-ipv4 0.05
run all --seed 31 --loss 0.02 --reorder 0.05 --duplicate 0.02 --invalid 0.02 --vlan 0.02 \
	--bad-sync 0.01 --bad-length 0.01 --truncated 0.01 --non-codif 0.01 --non-ipv4 0.01

# the original tool's summary lines, with the same words and true values
python3 - "$T/all.json" "$T/all.sum.json" "$T/all.log" <<'PY' || fail "summary lines wrong"
import json, re, sys
t = json.load(open(sys.argv[1]))["totals"]
s = json.load(open(sys.argv[2]))["totals"]
log = open(sys.argv[3]).read()
def line(k):
    m = re.search(r"^" + re.escape(k) + r":\s+([0-9.]+)", log, re.M)
    assert m, k
    return m.group(1)
assert int(line("Total packets")) == t["sent"], (line("Total packets"), t["sent"])
assert int(line("Total bytes")) == t["sent_bytes"], (line("Total bytes"), t["sent_bytes"])
assert int(line("Num mismatches")) == t["lost"] + t["late"] + t["duplicate"]
assert int(line("Busy wait")) == s["busy_wait"]
assert abs(float(line("Average bytes per packet")) - t["sent_bytes"] / t["sent"]) < 0.1
PY
ok "Total bytes/packets, Busy wait, Num mismatches = lost+late+duplicate"

# one queue, software steering: the same counts (stopped by the count of
# packets in the file; --idle-timeout only if the replay stalls)
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "net_pcap0,rx_pcap=$T/all.all.pcap" -- --steer software \
	--count-packets "$(json_get "$T/all.json" totals sent)" --idle-timeout 30s $RING \
	--stats-period 0 --summary-json "$T/sw.sum.json" > "$T/sw.log" 2>&1 ||
	{ cat "$T/sw.log"; fail "software steering run failed"; }
python3 "$CMP" "$T/all.json" "$T/sw.sum.json" --unattributed > "$T/sw.cmp" ||
	{ cat "$T/sw.cmp"; fail "software steering: counts differ"; }
expect_eq "--steer software: no fallback line" "$(grep -c 'steering in software' "$T/sw.log")" 0
ok "one queue, --steer software: counts = truth"

# the seed tool's usage form as written (plus this test's EAL isolation and
# a summary file), stopped with Ctrl-C as its users did once the replay is
# in: one queue, 6 antennas, --steer auto by default: software steering,
# said in one line, the counts exact
want=$(json_get "$T/all.json" totals received)
# shellcheck disable=SC2086
"$CAP" -l 0-1 $EAL_COMMON --no-huge -m 1024 --vdev "net_pcap0,rx_pcap=$T/all.all.pcap" -- \
	--antennas 6 --summary-json "$T/seed.sum.json" > "$T/seed.log" 2>&1 &
seed=$!
CLEANUP_PIDS+=("$seed")
wait_for_line "$T/seed.log" 60 "\| received $want lost" ||
	{ tail "$T/seed.log"; fail "seed usage form: the replay was not all received"; }
kill -INT "$seed"
wait "$seed" || { cat "$T/seed.log"; fail "the seed's usage form failed"; }
python3 "$CMP" "$T/all.json" "$T/seed.sum.json" --unattributed > "$T/seed.cmp" ||
	{ cat "$T/seed.cmp"; fail "seed usage form: counts differ"; }
grep -q "port 0 (net_pcap0): rte_flow cannot steer antennas (the port has 1 rx queue, one per antenna and a default one need 7): steering in software" "$T/seed.log" ||
	{ grep dpdk-ibvcap: "$T/seed.log"; fail "seed usage form: no fallback line"; }
expect_eq "seed usage form: fallback lines" "$(grep -c 'steering in software' "$T/seed.log")" 1
ok "dpdk-ibvcap -l 0-1 --vdev net_pcap0,rx_pcap=F -- --antennas 6: software steering, counts = truth"

# -v's lines (one per packet, the malformed ones with their reason as text)
# are golden text: tests/golden/TESTLIST's capture-v and capture-v-malformed
# (test golden-capture), each line byte for byte, their number the truth's
echo "$CHECKS checks passed"
