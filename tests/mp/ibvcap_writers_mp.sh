#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Multi-process writers: dpdk-ibvcap on hugepages fed through memif, with
#  1. two dpdk-ibvcap-dump at once (codif of all antennas, pcap of one), and a
#     third killed mid-run and restarted: files byte for byte as sent, the
#     restarted one's valid, the capture's counts exact;
#  2. the primary killed mid-run: the writer finishes its files (valid, no
#     .part) and exits 0;
#  3. a throttled writer on a small ring: it loses frames with an exact
#     count (written + lost = placed) and never stalls the capture.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 400
need_cmd dpdk-telemetry.py
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --count 2500 --seed 13 --loss 0.01 --reorder 0.02 --duplicate 0.01 --invalid 0.01"

# packets the run will send (the generator is deterministic)
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)

start_primary() { # name, extra options...
	local name=$1
	shift
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
		--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 \
		--count-packets "$N" --idle-timeout 60s --summary-json "$T/$name.sum.json" "$@" \
		> "$T/$name.cap.log" 2>&1 &
	CPID=$!
	CLEANUP_PIDS+=("$CPID")
	wait_started "$T/$name.cap.log" 30 "$name: primary did not start"
}

start_gen() { # name, rate
	# stays connected (linger) until the capture has stopped: a memif
	# server must not poll while its client disconnects (22.11)
	# shellcheck disable=SC2086
	"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
		$GENARGS --rate-fps "$2" --linger 120s --pcap "$T/$1.sent.pcap" \
		--truth "$T/$1.truth.json" > "$T/$1.gen.log" 2>&1 &
	GPID=$!
	CLEANUP_PIDS+=("$GPID")
}

stop_gen() {
	kill -INT "$GPID" 2>/dev/null || true
	wait "$GPID" 2>/dev/null || true
}

# --- 1. two writers at once, a third killed and restarted -------------------
mkdir -p "$T/A" "$T/B" "$T/C" "$T/C2"
start_primary one --ring 4096 # holds the whole run: "oldest" is its first frame
start_dump "$T/A.log" --write "codif:$T/A" --name all-codif --summary-json "$T/A.json"
APID=$DPID
start_dump "$T/B.log" --write "pcap:$T/B" --antenna ant3 --name ant3-pcap --summary-json "$T/B.json" \
	--stats-period 200ms
BPID=$DPID
start_dump "$T/C.log" --write "raw:$T/C" --name doomed
KPID=$DPID
start_gen one 1000
# until it writes (a loaded host may take seconds to start the generator)
for ((i = 0; i < 300; i++)); do
	ls "$T/C"/*.part > /dev/null 2>&1 && break
	sleep 0.1
done
sleep 0.5
kill -0 "$KPID" 2>/dev/null || { cat "$T/C.log"; fail "the third writer ended before it was killed"; }
kill -9 "$KPID"
wait "$KPID" 2>/dev/null || true
# its successor from the oldest row the ring still holds (the ring holds the
# whole run): live, it could attach after the 5 s of data ended when the
# host is loaded (seen: the first .part 2 s late, the successor attached as
# the primary stopped, 0 frames)
start_dump "$T/C2.log" --write "raw:$T/C2,oldest=yes" --name reborn --summary-json "$T/C2.json"
CPID2=$DPID
# a late writer of antenna 1 by index, from the oldest frame in the ring
# (the run's first: the ring holds all 2500 rows),
# 128 bytes per packet, 500 frames
mkdir -p "$T/E"
start_dump "$T/E.log" --write "pcap:$T/E,snaplen=128,oldest=yes,direct=no" --antenna 1 \
	--count 500 --name ant1-head --summary-json "$T/E.json"
EPID=$DPID
wait "$CPID" || { cat "$T/one.cap.log"; fail "primary exit status"; }
for p in $APID $BPID $CPID2 $EPID; do
	wait "$p" || fail "a writer exited non-zero"
done
ok "primary and writers exited 0"
stop_gen
python3 "$SRC/tests/tools/compare.py" "$T/one.truth.json" "$T/one.sum.json" > "$T/one.cmp" ||
	{ head "$T/one.cmp"; fail "capture counts differ with writers coming and going"; }
ok "capture counts = truth ($(tail -1 "$T/one.cmp"))"
python3 "$VER" "$T/one.sent.pcap" --format codif "$T/A" > "$T/A.ver" || { cat "$T/A.ver"; fail "writer A"; }
ok "writer 1 (codif, all antennas): $(cat "$T/A.ver")"
python3 "$VER" "$T/one.sent.pcap" --format pcap --only 10.17.0.214 "$T/B" > "$T/B.ver" || { cat "$T/B.ver"; fail "writer B"; }
ok "writer 2 at the same time (pcap, antenna 3 only): $(cat "$T/B.ver")"
ls "$T/C"/*.part > /dev/null 2>&1 || fail "the killed writer left no .part (did it write at all?)"
ok "the killed writer's file in progress stays NAME.part (never mistaken for complete)"
python3 "$VER" "$T/one.sent.pcap" --format raw --partial "$T/C2" > "$T/C2.ver" || { cat "$T/C2.ver"; fail "restarted writer"; }
"$CHK" verify "$T/C2" > "$T/C2.chk" 2>&1 || { cat "$T/C2.chk"; fail "restarted writer's files"; }
frames=$(json_get "$T/C2.json" written)
[ "$frames" -gt 0 ] || fail "restarted writer wrote nothing"
ok "restarted writer: $frames frames, valid and as sent ($(cat "$T/C2.ver"))"

python3 - "$T/E.json" <<'PY' || fail "writer E summary"
import json, sys
j = json.load(open(sys.argv[1]))
# whole rows (2 streams each): 500 or 501 frames
assert j["stop_reason"] == "--count" and 500 <= j["written"] <= 501, j
PY
f=$(ls "$T"/E/*.pcap)
expect_eq "--antenna 1, snaplen=128: sources, captured and wire lengths" \
	"$(tshark -r "$f" -T fields -e ip.src -e frame.cap_len -e frame.len 2>/dev/null | sort -u | tr '\t' ' ')" \
	"10.17.0.212 128 8298"
python3 - "$f" "$T/one.sent.pcap" "$SRC/tests/tools" <<'PY' || fail "oldest=yes: the late writer did not start at the oldest frame"
import sys
sys.path.insert(0, sys.argv[3])
from pcaprec import records, src, codif_time
first = codif_time(next(records(sys.argv[1])))
sent = min(codif_time(p) for p in records(sys.argv[2]) if src(p) == bytes([10, 17, 0, 212]))
assert first == sent, (first, sent)
PY
ok "a late writer (--antenna 1, oldest=yes, snaplen=128, --count 500, direct=no): from the oldest frame, 128-byte records, stopped at 500"
grep -qE 'ant3-pcap: [0-9]+ frames taken, [0-9]+ written, [0-9]+ files, backlog [0-9]+ rows, overrun 0' "$T/B.log" ||
	{ cat "$T/B.log"; fail "--stats-period: no progress line"; }
ok "--stats-period: progress lines while writing"

# --- 2. the primary killed mid-run -------------------------------------------
mkdir -p "$T/D"
start_primary two
start_dump "$T/D.log" --write "codif:$T/D,rotate-size=4M" --name survivor
DPID2=$DPID
start_gen two 1000
# until it writes (a loaded host may take seconds to start the generator)
for ((i = 0; i < 300; i++)); do
	ls "$T/D"/*.part > /dev/null 2>&1 && break
	sleep 0.1
done
sleep 1
kill -9 "$CPID"
wait "$CPID" 2>/dev/null || true
wait "$DPID2" || { cat "$T/D.log"; fail "writer exit status after the primary died"; }
grep -q 'the primary exited' "$T/D.log" || { cat "$T/D.log"; fail "writer did not notice the primary's death"; }
ok "primary killed: the writer noticed, finished and exited 0"
expect_eq "no .part files after the primary died" "$(ls "$T/D" | grep -c '\.part$' || true)" 0
# the reference: the dry run's pcap, the same frames (the generator is
# deterministic). Not the sender's own: a memif client whose server was
# killed may crash in 22.11's PMD as it disconnects, its pcap unwritten
stop_gen
"$CHK" verify "$T/D" > "$T/D.chk" 2>&1 || { cat "$T/D.chk"; fail "files after primary death"; }
python3 "$VER" "$T/dry.pcap" --format codif --partial "$T/D" > "$T/D.ver" || { cat "$T/D.ver"; fail "files after primary death"; }
ok "its $(ls "$T/D" | wc -l) files are complete and valid: $(tail -1 "$T/D.chk")"
rm -f /dev/hugepages/"$PREFIX"* /dev/hugepages/"$GP"*

# --- 3. a throttled writer on a small ring ------------------------------------
mkdir -p "$T/E" "$T/R"
start_primary three --ring 256 --reorder-window 16
start_dump "$T/E.log" --write "codif:$T/E" --name slow --max-rate 2000 --summary-json "$T/E.json"
EPID=$DPID
# raw beside it, its rows written from the ring (no copy): the primary
# overwrites rows it takes, some while their writes are in flight
start_dump "$T/R.log" --write "raw:$T/R" --name slow-raw --max-rate 2000 --summary-json "$T/R.json"
RPID=$DPID
grep -q "slow-raw: raw: rows written from the ring (no copy)" "$T/R.log" ||
	{ cat "$T/R.log"; fail "the raw writer does not write from the ring"; }
start_gen three 1000
# what the writer publishes to shared memory (the primary's telemetry, which
# dpdk-ibvcap-stat and Prometheus read), sampled while it runs behind
: > "$T/E.tel"
# one connection, a sample every 0.1 s (a Python start per sample took
# longer than the throttled writer, which recovers now, stays behind)
python3 - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" "$EPID" "$T/E.tel" <<'PY' &
import os, socket, sys, time
path, pid, out = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "a")
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(path)
s.recv(1 << 16)  # the greeting
while os.path.exists("/proc/%d" % pid):
    s.send(b"/ibvcap/writers")
    out.write(s.recv(1 << 20).decode() + "\n")
    out.flush()
    time.sleep(0.1)
PY
SPID=$!
CLEANUP_PIDS+=("$SPID")
wait "$CPID" || { cat "$T/three.cap.log"; fail "primary exit status (throttled writer)"; }
wait "$EPID" || fail "throttled writer exit status"
wait "$RPID" || { cat "$T/R.log"; fail "throttled raw writer exit status"; }
wait "$SPID" || true
stop_gen
python3 "$SRC/tests/tools/compare.py" "$T/three.truth.json" "$T/three.sum.json" > "$T/three.cmp" ||
	{ head "$T/three.cmp"; fail "capture counts differ with a slow writer"; }
python3 - "$T/three.sum.json" "$T/E.json" "$T/E.tel" "$T/E" <<'PY' || fail "throttled writer counts"
import glob, json, os, sys
s = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
placed = sum(a["placed"] for a in s["buffers"]["antennas"])
assert e["overrun"] > 0, e
assert e["cut"] == 0, e
assert e["written"] + e["overrun"] == placed, (e["written"], e["overrun"], placed)
# what it lost is not written as placeholders (formats.md): its file ends
# there and a new one begins where it resumed (more files than antennas),
# every frame on disk counted
files = glob.glob(sys.argv[4] + "/*.codif")
ants = [os.path.basename(f).split("_")[1] for f in files]
assert len(files) > 6 and len(set(ants)) == 6, files
assert e["discontinuities"] == 0 and e["overrun_placeholders"] == 0, e
size = sum(os.path.getsize(f) for f in files)
assert size == e["bytes"], (size, e["bytes"])
assert size // 8256 == e["written"] + e["placeholders"] + e["overrun_placeholders"], (size, e)
# the primary's summary shows the figures the writer published last: its own
w = [x for x in s["buffers"]["writers"] if x["name"] == "slow"]
assert len(w) == 1, s["buffers"]["writers"]
for k in ("written", "placeholders", "overrun", "bytes", "files", "cut"):
    assert w[0][k] == e[k], (k, w[0][k], e[k])
# and while it ran behind: samples of shared memory, overrun among them
seen = []
for line in open(sys.argv[3]):
    try:
        r = json.loads(line)["/ibvcap/writers"]
    except (ValueError, KeyError, TypeError):
        continue
    if not isinstance(r, dict):  # null: the capture was stopping
        continue
    f = r["fields"]
    for key, v in r.items():
        if key != "fields" and key.endswith("_codif"):
            seen.append(dict(zip(f, v)))
mid = [x for x in seen if x["active"] == 1]
assert len(mid) >= 3, ("too few samples while it ran", len(mid))
assert any(x["overrun"] > 0 and x["written"] > 0 for x in mid), mid
assert all(x["written"] <= e["written"] and x["overrun"] <= e["overrun"] for x in mid), mid
print("written %d + overrun %d = placed %d; %d samples of shared memory while it ran, "
      "overrun up to %d" % (e["written"], e["overrun"], placed, len(mid),
                            max(x["overrun"] for x in mid)))
PY
python3 "$VER" "$T/three.sent.pcap" --format codif --partial "$T/E" > "$T/E.ver" || { cat "$T/E.ver"; fail "slow writer files"; }
python3 - "$T/three.sum.json" "$T/R.json" "$T/R" <<'PY' || { cat "$T/R.log"; fail "throttled raw writer counts"; }
import glob, json, os, sys
s = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
placed = sum(a["placed"] for a in s["buffers"]["antennas"])
assert e["overrun"] > 0 and e["cut"] == 0, e
assert e["written"] + e["overrun"] == placed, (e["written"], e["overrun"], placed)
files = glob.glob(sys.argv[3] + "/*.raw")
assert len(files) >= 6, files
size = sum(os.path.getsize(f) for f in files)
assert size == e["bytes"], (size, e["bytes"])
assert size // 8192 == e["written"] + e["placeholders"] + e["overrun_placeholders"], (size, e)
print("raw: written %d + overrun %d = placed %d" % (e["written"], e["overrun"], placed))
PY
"$CHK" verify "$T/R" > "$T/R.chk" 2>&1 || { cat "$T/R.chk"; fail "slow raw writer files"; }
python3 "$VER" "$T/three.sent.pcap" --format raw --partial "$T/R" > "$T/R.ver" || { cat "$T/R.ver"; fail "slow raw writer files"; }
ok "throttled raw writer from the ring: written + overrun = placed, exactly; files valid ($(tail -1 "$T/R.chk"))"
ok "throttled writer: written + overrun = placed, exactly; published while it ran (overrun > 0 mid-run, the summary = its JSON); capture counts = truth; files valid"
echo "$CHECKS checks passed"
