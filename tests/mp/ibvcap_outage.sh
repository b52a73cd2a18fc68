#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An outage is loss, a clock step a resync (lib/codif, "outage"). codifgen
# sends two antennas in real time (100 frames/s per stream: 1 s periods of
# 100 frames, so the test takes 4 s of wall time) through memif: antenna 0
# falls silent for 2 s (200 frames never sent, its data clock going on: an
# outage longer than --max-gap, 1 s), antenna 1 steps its clock 5 s ahead
# without a pause. The capture tells them apart by the packets' arrival
# times: antenna 0 lost exactly the 200 frames and did not resync, antenna 1
# resynced once and lost nothing (500 frames skipped), every count equal to
# the generator's ground truth; the journal names the outage and the
# resync. codifcheck on the sent pcap (its records' times = the arrivals)
# counts the same. Without arrival times (the pcap replayed by net_pcap, as
# fast as it can) the 2 s outage is a resync, as documented.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 200
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--antennas 2 --groups 1 --threads 1"
# 100 frames/s: 8192-byte frames of 512 samples, 51200 samples a 1 s period
GENARGS="$LAYOUT --period 1 --total-samples 51200 --count 400 --seed 3
	--event outage:2s@100,ant=0 --event step:+5s@100,ant=1"

# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)
# the truth, computed by the generator, against what this test expects of it
python3 - "$T/dry.json" <<'PY' || fail "the generator's truth"
import json, sys
a = json.load(open(sys.argv[1]))["antennas"]
assert (a[0]["lost"], a[0]["resyncs"], a[0]["resync_skipped"]) == (200, 0, 0), a[0]
assert (a[1]["lost"], a[1]["resyncs"], a[1]["resync_skipped"]) == (0, 1, 500), a[1]
PY

# shellcheck disable=SC2086
"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --no-buffers \
	--count-packets "$N" --duration 60s --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
t0=$(date +%s.%N)
# real time: no --rate-fps, each packet sent when its CODIF time says
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --linger 30s --pcap "$T/sent.pcap" --truth "$T/truth.json" \
	> "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
wait "$CPID" || { cat "$T/cap.log"; fail "capture exit status"; }
t1=$(date +%s.%N)
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
python3 -c 'import sys; d=float(sys.argv[2])-float(sys.argv[1]); sys.exit(not 2.5 < d < 30)' "$t0" "$t1" ||
	fail "the run took $t0..$t1: not paced in real time (4 s of data with a 2 s outage)"

python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" || { cat "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture = truth field by field ($(tail -1 "$T/cmp"))"
python3 - "$T/sum.json" <<'PY' || fail "outage and step"
import json, sys
s = json.load(open(sys.argv[1]))
a = {x["antenna"] if isinstance(x["antenna"], str) else x["antenna"]: x for x in s["antennas"]} \
    if isinstance(s["antennas"], list) else s["antennas"]
rows = sorted(a.values(), key=lambda x: x.get("src", ""))
got = [(x["lost"], x["resyncs"], x["resync_skipped"], x["received"]) for x in rows]
assert got == [(200, 0, 0, 200), (0, 1, 500, 400)], got
assert len(s["resyncs"]) == 1, s["resyncs"]
PY
ok "antenna 0: 2 s outage: lost 200 = the missing frames, no resync; antenna 1: +5 s step: one resync, 500 skipped, lost 0"
grep -q "antenna [^:]*: outage: no frames after .* (200 frames lost; silent 2\.[0-9]* s" "$T/cap.log" ||
	{ grep -i "outage\|resync" "$T/cap.log"; fail "no outage line in the journal"; }
expect_eq "one resync line (antenna 1)" "$(grep -c 'timeline resync' "$T/cap.log")" 1
ok "journal: the outage (200 frames lost, silent ~2 s) and one resync"

# offline, the same rules: the records' times are the arrivals
"$CHK" info --json "$T/sent.pcap" > "$T/info.json" || true
python3 "$CMP" "$T/truth.json" "$T/info.json" > "$T/icmp" ||
	{ cat "$T/icmp"; fail "codifcheck info differs from the truth"; }
ok "codifcheck info on the sent pcap = truth ($(tail -1 "$T/icmp"))"

# without arrival times that say anything (net_pcap replays as fast as it
# can) a jump of 2 s of data time is a clock step: a resync
"$CAP" -l 0,1 --no-pci --file-prefix="${PREFIX}r" --no-huge -m 256 --no-telemetry \
	--vdev "net_pcap0,rx_pcap=$T/sent.pcap" -- $LAYOUT --stats-period 0 --no-buffers \
	--count-packets "$N" --idle-timeout 10s --summary-json "$T/fast.json" > "$T/fast.log" 2>&1 ||
	{ cat "$T/fast.log"; fail "replay capture"; }
python3 - "$T/fast.json" <<'PY' || fail "fast replay"
import json, sys
s = json.load(open(sys.argv[1]))
t = s["totals"]
assert (t["resyncs"], t["lost"], t["resync_skipped"]) == (2, 0, 700), t
PY
ok "fast replay (no pacing): the outage reads as a resync, as documented"
