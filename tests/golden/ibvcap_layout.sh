#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden, an explicit layout on two ports: named antennas (--antenna-ip),
# groups with their ports (--group IP:PORT@P), 4 KiB frames, the sizing and
# tuning options, ring and window in time units, a writer with a prefix.
# Counts equal the generator's truth, each port sees exactly its antennas'
# packets, and the files (named after the antennas) hold every frame.
# Then the other ways to stop: --count per antenna, SIGTERM; --no-buffers.
. "$(dirname "$0")/../lib.sh"
set -e
EAL="--lcores 0@0,1@1,2@0 $EAL_COMMON --no-huge -m 1024 --no-telemetry"
python3 "$SRC/tests/tools/emptypcap.py" "$T/e.pcap"

IPS=10.1.0.11,10.1.0.12,10.1.0.13,10.1.0.14
GROUPS_GEN=239.5.0.1:40001,239.5.0.2:40002
# antennas 0, 1 send to group 0 (port 0), antennas 2, 3 to group 1 (port 1);
# 4096-byte frames: 256 samples of 4 x 16-bit complex, 125000 per 27 s
LAYOUT="--antenna-ip $IPS --group $GROUPS_GEN --map 0:0,1:0,2:1,3:1 --threads 2 --data-bytes 4096"
FAULTS="--seed 31 --loss 0.03 --reorder 0.05 --duplicate 0.02 --invalid 0.02 --bad-sync 0.01"
# shellcheck disable=SC2086
"$GEN" $LAYOUT $FAULTS --count 60 --pcap "$T/all.pcap" --truth "$T/truth.json" --quiet
for a in 0 1 2 3; do
	# shellcheck disable=SC2086
	"$GEN" $LAYOUT $FAULTS --count 60 --antenna $a --pcap "$T/a$a.pcap" --quiet
done
# each port: a queue per antenna and a default queue; its antennas' traffic
# on their queues (as rte_flow would steer), the others' queues empty
V0="net_pcap0,rx_pcap=$T/a0.pcap,rx_pcap=$T/a1.pcap,rx_pcap=$T/e.pcap,rx_pcap=$T/e.pcap,rx_pcap=$T/e.pcap"
V1="net_pcap1,rx_pcap=$T/e.pcap,rx_pcap=$T/e.pcap,rx_pcap=$T/a2.pcap,rx_pcap=$T/a3.pcap,rx_pcap=$T/e.pcap"
n=$(json_get "$T/truth.json" totals sent)
mkdir -p "$T/codif"
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$V0" --vdev "$V1" -- --port net_pcap0,net_pcap1 \
	--antenna-ip 10.1.0.11=ak01,10.1.0.12=ak02,10.1.0.13=ak03,10.1.0.14=ak04 \
	--group 239.5.0.1:40001@0 --group 239.5.0.2:40002@1 --threads 2 \
	--mtu 9000 --mbuf-size 9216 --mbufs 8191 --rx-desc 512 --burst 32 --link-timeout 2s \
	--window 1024 --data-bytes 4096 --frame-rate 4629.62963 --ring 0.5s --reorder-window 20ms \
	--write "codif:$T/codif,prefix=lay" --count-packets "$n" --idle-timeout 30s --stats-period 0 \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 || { cat "$T/cap.log"; fail "capture failed"; }
for want in 'port = net_pcap0' 'port = net_pcap1' 'antenna-ip = 10.1.0.13=ak03' \
	'group = 239.5.0.2:40002@1' 'rx-desc = 512' 'burst = 32' \
	'mbufs = 8191' 'mbuf-size = 9216' 'window = 1024' 'link-timeout = 2.000s' \
	'ring = 4096   # frames per antenna' 'reorder-window = 93'; do
	grep -qF -- "$want" "$T/cap.log" || { head -40 "$T/cap.log"; fail "effective configuration lacks '$want'"; }
done
ok "effective configuration: both ports, names, groups on their ports, sizes, ring 0.5 s = 4096 rows, window 20 ms = 93 frames"
python3 "$CMP" "$T/truth.json" "$T/sum.json" --unattributed > "$T/cmp" ||
	{ cat "$T/cmp"; fail "counts differ from the truth"; }
ok "two ports, explicit layout: counts = truth ($(tail -1 "$T/cmp"))"
python3 - "$T/truth.json" "$T/sum.json" <<'PY' || fail "per-port packets"
import json, sys
t = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
sent = {a["src"]: a["sent"] for a in t["antennas"]}
ports = {p["name"]: p for p in s["ports"]}
assert ports["net_pcap0"]["ipackets"] == sent["10.1.0.11"] + sent["10.1.0.12"], ports
assert ports["net_pcap1"]["ipackets"] == sent["10.1.0.13"] + sent["10.1.0.14"], ports
assert [a["name"] for a in s["antennas"]] == ["ak01", "ak02", "ak03", "ak04"]
PY
ok "each port received exactly its antennas' packets; antennas named as given"
expect_eq "writer files named prefix_antenna_time" \
	"$(ls "$T/codif" | sed 's/_2025.*//' | tr '\n' ' ')" "lay_ak01 lay_ak02 lay_ak03 lay_ak04 "
python3 "$VER" "$T/all.pcap" --format codif \
	--antennas ak01=10.1.0.11,ak02=10.1.0.12,ak03=10.1.0.13,ak04=10.1.0.14 "$T/codif" > "$T/ver" || { cat "$T/ver"; fail "codif files"; }
ok "codif files: $(cat "$T/ver")"

# --count: stops once every antenna has that many frames; --lcore-map puts
# port 0's antenna queues on lcore 1 and port 1's on lcore 2
MAP=0.0@1,0.1@1,0.2@1,0.3@1,0.4@1,1.0@2,1.1@2,1.2@2,1.3@2,1.4@2
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$V0" --vdev "$V1" -- --port 0,1 --antenna-ip $IPS \
	--group 239.5.0.1:40001@0 --group 239.5.0.2:40002@1 --threads 2 --data-bytes 4096 \
	--lcore-map $MAP --count 20 --idle-timeout 30s --stats-period 0 --summary-json "$T/f.json" \
	> "$T/f.log" 2>&1 || { cat "$T/f.log"; fail "--count run failed"; }
python3 - "$T/f.json" <<'PY' || fail "--count"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["stop_reason"] == "--count", s["stop_reason"]
assert all(a["received"] >= 20 for a in s["antennas"]), [a["received"] for a in s["antennas"]]
lc = {(x["antenna"], x["lcore"]) for x in s["streams"]}
assert lc == {(0, 1), (1, 1), (2, 2), (3, 2)}, lc
PY
ok "--count 20: stopped by --count with at least 20 frames per antenna (ports given by id); --lcore-map: each port's antennas on their lcore"

# SIGTERM: a clean stop with the summary, exit 0; --no-join says so
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$V0" --vdev "$V1" -- --antenna-ip $IPS \
	--group 239.5.0.1:40001@0 --group 239.5.0.2:40002@1 --threads 2 --data-bytes 4096 \
	--no-join --duration 60s --stats-period 100ms --summary-json "$T/t.json" > "$T/t.log" 2>&1 &
cpid=$!
CLEANUP_PIDS+=("$cpid")
wait_started "$T/t.log" 30 "primary did not start"
# the stop comes once everything replayed was taken (the periodic line says so)
received=$(json_get "$T/truth.json" totals received)
wait_for_line "$T/t.log" 60 "\| received $received lost" || { tail "$T/t.log"; fail "the replay was not all received"; }
kill -TERM "$cpid"
wait "$cpid" || fail "exit status $? after SIGTERM"
grep -q 'stopped by SIGTERM' "$T/t.log" || { tail "$T/t.log"; fail "no 'stopped by SIGTERM'"; }
grep -q 'not joining multicast groups (--no-join)' "$T/t.log" || fail "--no-join not reported"
python3 "$CMP" "$T/truth.json" "$T/t.json" --unattributed > "$T/t.cmp" ||
	{ cat "$T/t.cmp"; fail "SIGTERM run: counts differ from the truth"; }
ok "SIGTERM: exit 0, summary written, counts = truth; --no-join reported"

# --no-buffers: counting only, no antenna buffers; a writer needs them
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$V0" --vdev "$V1" -- --antenna-ip $IPS \
	--group 239.5.0.1:40001@0 --group 239.5.0.2:40002@1 --threads 2 \
	--no-buffers --count-packets "$n" --idle-timeout 30s --stats-period 0 --summary-json "$T/nb.json" \
	> "$T/nb.log" 2>&1 || { cat "$T/nb.log"; fail "--no-buffers run failed"; }
python3 "$CMP" "$T/truth.json" "$T/nb.json" --unattributed > "$T/nb.cmp" ||
	{ cat "$T/nb.cmp"; fail "--no-buffers: counts differ from the truth"; }
grep -q 'antenna buffers' "$T/nb.log" && fail "--no-buffers still made antenna buffers"
ok "--no-buffers: counts = truth, no antenna buffers"
run_expect_fail "--no-buffers with --write" 1 "--write needs the antenna buffers: it excludes --no-buffers" \
	"$CAP" --check-config --no-buffers --write "codif:$T"
echo "$CHECKS checks passed"
