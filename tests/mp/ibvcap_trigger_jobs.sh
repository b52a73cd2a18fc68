#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Triggers as jobs (/ibvcap/trigger answers an id at once; ctl polls
# /ibvcap/trigger/status,ID, holding no telemetry connection while it
# waits), through a memif-fed capture on hugepages and dpdk-ibvcap-ctl:
# (a) 16 triggers waiting at once for a window not sent yet while
# `dpdk-ibvcap-ctl status` and `dpdk-ibvcap-stat --once` still answer; the
# data comes and each of the 16 writes the whole window (frames = rows x
# streams, the 16 files of an antenna byte for byte the same); (b) a
# trigger blocked for one antenna (its .part exists) writes the other and
# reports that antenna blocked with the reason (partial, ctl exits 4);
# (c) at most 32 running (the 33rd refused, named), 64 kept (the oldest
# finished aged out, its id refused naming the ids kept); (d) a trigger
# waiting at the capture's stop gets its result (empty: not arrived, every
# frame of its window counted) and the capture stops cleanly.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 200
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
CTL=("python3" "$BUILD/app/dpdk-ibvcap-ctl" --file-prefix "$PREFIX")
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
MEMIF="socket=$T/memif.sock,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--antennas 2 --groups 1 --threads 2"
N=2000
GENARGS="$LAYOUT --count $N --seed 11"
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/truth.json" --quiet
n=$(json_get "$T/truth.json" totals sent)
mkdir -p "$T/jobs" "$T/blk" "$T/lim" "$T/stop" "$T/png"

# a ring of 2048 rows holds all 2000 frames of each stream
# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --ring 2048 \
	--duration 1000s --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "capture did not start"

# (a) 16 triggers for [0.5 s, 0.55 s) of data time, before it is sent
PIDS=()
for i in $(seq 16); do
	"${CTL[@]}" trigger 2025-01-01T00:00:00.5Z 2025-01-01T00:00:00.55Z --dir "$T/jobs" \
		--prefix "j$i" --timeout 120s --wait 200s > "$T/j$i.json" 2> "$T/j$i.err" &
	PIDS+=($!)
	CLEANUP_PIDS+=($!)
done
for _ in $(seq 600); do
	[ "$(grep -c 'trigger [0-9]* started' "$T/cap.log")" = 16 ] && break
	sleep 0.1
done
expect_eq "triggers started" "$(grep -c 'trigger [0-9]* started' "$T/cap.log")" 16
rc=0
timeout 60 "${CTL[@]}" status > "$T/status.json" 2> "$T/status.err" || rc=$?
expect_eq "dpdk-ibvcap-ctl status with 16 triggers waiting: exit" "$rc" 0
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/status.json" || fail "ctl status: $(cat "$T/status.json" "$T/status.err")"
rc=0
timeout 60 python3 "$STAT" --file-prefix "$PREFIX" --once > "$T/once.txt" 2> "$T/once.err" || rc=$?
expect_eq "dpdk-ibvcap-stat --once with 16 triggers waiting: exit" "$rc" 0
grep -q 'ant0' "$T/once.txt" || fail "stat --once: $(cat "$T/once.txt" "$T/once.err")"
"${CTL[@]}" trigger-status > "$T/list.json"
python3 - "$T/list.json" <<'PY' || fail "trigger list: $(cat "$T/list.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["running"] == 16 and r["kept"] == 16, r
assert r["max_running"] == 32 and r["max_kept"] == 64, r
assert all(r[str(i)] == "running" for i in range(1, 17)), r
PY
ok "16 triggers waiting, none holding a telemetry connection: ctl status, stat --once and the trigger list answer"

# the data: frame i of each stream at 2025-01-01T00:00:00 + i x 432 us,
# 1000 frames a second a stream: 2 s of sending
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --rate-fps 1000 --linger 1000s > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
for i in $(seq 16); do
	rc=0
	wait "${PIDS[$((i - 1))]}" || rc=$?
	[ "$rc" = 0 ] || fail "trigger j$i: exit $rc: $(cat "$T/j$i.json" "$T/j$i.err")"
done
python3 - "$T" <<'PY' || fail "the 16 triggers' results"
import glob, json, sys
T = sys.argv[1]
P = 432000
i0, i1 = -(-500 * 10**6 // P), -(-550 * 10**6 // P)
ids = set()
for i in range(1, 17):
    r = json.load(open("%s/j%d.json" % (T, i)))
    assert r["state"] == "done" and r["result"] == "complete", r
    assert r["ended"] == "window done" and r["prefix"] == "j%d" % i, r
    ids.add(r["id"])
    for a in ("ant0", "ant1"):
        x = r[a]
        assert x["complete"] == "yes" and x["window_frames"] == (i1 - i0) * 2, x
        # no loss was sent: every frame of the window, none a gap
        assert x["frames"] == (i1 - i0) * 2 and x["placeholders"] == 0, x
        assert x["files"] == 1 and x["lost_while_dumping"] == 0, x
assert ids == set(range(1, 17)), ids
for a in ("ant0", "ant1"):
    fs = sorted(glob.glob("%s/jobs/j*_%s_*.codif" % (T, a)))
    assert len(fs) == 16, fs
    data = [open(f, "rb").read() for f in fs]
    assert all(d == data[0] for d in data) and len(data[0]) == (i1 - i0) * 2 * (64 + 8192), a
print("each: %d frames an antenna" % ((i1 - i0) * 2))
PY
ok "the 16 triggers completed when their data came: each antenna's window whole (rows x streams), the 16 files of an antenna the same bytes"

got=$(packets_in "$n" 600)
expect_eq "packets in" "$got" "$n"

# (b) [0.6 s, 0.65 s): ant1's first file is there already (a .part)
i0=$(( (600000000 + 431999) / 432000 ))
first=$(python3 -c 'import sys; ns = int(sys.argv[1]) * 432000; print("20250101T000000.%09dZ" % ns)' "$i0")
: > "$T/blk/trigger_ant1_$first.codif.part"
rc=0
"${CTL[@]}" trigger 2025-01-01T00:00:00.6Z 2025-01-01T00:00:00.65Z --dir "$T/blk" \
	> "$T/blk.json" 2> "$T/blk.err" || rc=$?
expect_eq "a trigger blocked for ant1: ctl's exit (not complete)" "$rc" 4
python3 - "$T/blk.json" "$T/blk/trigger_ant1_$first.codif.part" <<'PY' || fail "blocked trigger: $(cat "$T/blk.json")"
import json, sys
r = json.load(open(sys.argv[1]))
P = 432000
i0, i1 = -(-600 * 10**6 // P), -(-650 * 10**6 // P)
assert r["result"] == "partial" and r["ended"] == "window done", r
assert r["antennas_blocked"] == 1 and r["files_written"] == 1, r
a0, a1 = r["ant0"], r["ant1"]
assert a0["complete"] == "yes" and a0["frames"] == (i1 - i0) * 2 and a0["files"] == 1, a0
assert "blocked" not in a0, a0
assert a1["complete"] == "no" and a1["frames"] == 0 and a1["files"] == 0, a1
assert a1["blocked"] == sys.argv[2] + ": exists: another writer, or a cut run", a1
assert a1["blocked_frames"] == a1["window_frames"] == (i1 - i0) * 2, a1
assert a1["blocked_from"] == "2025-01-01T00:00:00.600000000Z", a1
assert a1["blocked_to"] == "2025-01-01T00:00:00.650000000Z", a1
# arrived, so not "not arrived"; not overwritten either
assert "not_arrived_frames" not in a1 and "overwritten_frames" not in a1, a1
assert r["not_arrived_frames"] == 0 and r["blocked_frames"] == (i1 - i0) * 2, r
PY
grep -q "not the whole window: ant1: blocked $(( (1505 - i0) * 2 )) frames, blocked: $T/blk/trigger_ant1_$first.codif.part: exists" "$T/blk.err" ||
	fail "ctl's line of the blocked antenna: $(cat "$T/blk.err")"
grep -Eq "trigger [0-9]+: ant1: blocked \[2025-01-01T00:00:00.600000000Z, 2025-01-01T00:00:00.650000000Z\): $(( (1505 - i0) * 2 )) frames: $T/blk/trigger_ant1_$first.codif.part: exists" "$T/cap.log" ||
	{ grep trigger "$T/cap.log" | tail -3; fail "no log line of the blocked antenna"; }
expect_eq "the .part left as it was" "$(stat -c %s "$T/blk/trigger_ant1_$first.codif.part")" 0
expect_eq "ant0's file written" "$(find "$T/blk" -name 'trigger_ant0_*.codif' | wc -l)" 1
ok "a trigger blocked for ant1 (its .part exists) wrote ant0 whole and said ant1 blocked, why, and its $(( (1505 - i0) * 2 )) frames"

# pcapng too: one file per antenna, every frame of the window
"${CTL[@]}" trigger 2025-01-01T00:00:00.7Z 2025-01-01T00:00:00.72Z --dir "$T/png" --format pcapng \
	> "$T/png.json" 2> "$T/png.err" || fail "pcapng trigger: $(cat "$T/png.json" "$T/png.err")"
python3 - "$T/png.json" <<'PY' || fail "pcapng trigger: $(cat "$T/png.json")"
import json, sys
r = json.load(open(sys.argv[1]))
P = 432000
rows = -(-720 * 10**6 // P) - -(-700 * 10**6 // P)
assert r["result"] == "complete" and r["format"] == "pcapng", r
assert sorted(f.split("_")[1] for f in r["files"]) == ["ant0", "ant1"], r
assert all(f.endswith(".pcapng") for f in r["files"]), r
for a in ("ant0", "ant1"):
    assert r[a]["frames"] == r[a]["window_frames"] == rows * 2, r[a]
PY
expect_eq "pcapng trigger files" "$(find "$T/png" -name 'trigger_ant*.pcapng' -size +0 | wc -l)" 2

# (c) the limits, on one connection: 33 triggers of a window that never
# comes (15 s timeout: none ends before the 33rd is asked, however loaded
# the machine): 32 run, the 33rd is refused; then 40 more that end
# at once (timeout 0; asked again once they have, where 32 were still
# running): 64 kept, the oldest aged out
python3 - "$STAT" "$PREFIX" "$T/lim" <<'PY' || fail "trigger limits"
import importlib.machinery, importlib.util, sys, time
loader = importlib.machinery.SourceFileLoader("st", sys.argv[1])
spec = importlib.util.spec_from_loader("st", loader)
st = importlib.util.module_from_spec(spec)
loader.exec_module(st)
tel = st.Telemetry(sys.argv[2])
spec = "/ibvcap/trigger,2025-01-01T00:10:00Z,2025-01-01T00:10:01Z,codif,%s,timeout=%s,prefix=l%d"
ids = []
for i in range(33):
    r = tel.query(spec % (sys.argv[3], "15s", i))
    if i < 32:
        assert r.get("state") == "running", (i, r)
        ids.append(r["id"])
    else:
        assert r["input"] == "trigger" and r["expected"].startswith(
            "at most 32 triggers running at once"), r
def idle():
    for _ in range(900):
        r = tel.query("/ibvcap/trigger/status")
        if r["running"] == 0:
            return r
        time.sleep(0.1)
    raise AssertionError(r)
idle()
r = tel.query("/ibvcap/trigger/status,%d" % ids[0])
assert r["result"] == "empty" and r["ended"] == "timeout", r
for i in range(40):
    r = tel.query(spec % (sys.argv[3], "0s", 100 + i))
    if r.get("expected", "").startswith("at most 32 triggers running at once"):
        # each ends at once, but its thread must run first: on a loaded
        # host 32 can be asked before any ended (a refusal takes no id)
        idle()
        r = tel.query(spec % (sys.argv[3], "0s", 100 + i))
    assert r.get("state") == "running", r
    ids.append(r["id"])
r = idle()
last = ids[-1]
assert r["kept"] == 64 and last == ids[0] + 71, (r, ids)
# the last 64: every id before them aged out (those read first, then
# the oldest)
assert str(last - 64) not in r and str(last - 63) in r and str(last) in r, r
r = tel.query("/ibvcap/trigger/status,1")
assert r["input"] == "id" and r["value"] == "1", r
assert r["expected"] == ("a trigger's id: ids %d .. %d are kept (the last 64; older "
                         "finished ones aged out)" % (last - 63, last)), r
open(sys.argv[3] + "/../last_id", "w").write("%d\n" % last)
print("32 ran, the 33rd refused; ids %d .. %d kept" % (last - 63, last))
PY
last=$(cat "$T/last_id")
expect_eq "nothing written by triggers whose window never came" "$(find "$T/lim" -type f | wc -l)" 0
ok "at most 32 triggers run at once (the 33rd refused, said why), 64 kept (the oldest aged out, its id refused naming those kept)"

# (d) a trigger waiting when the capture stops: its result still comes
"${CTL[@]}" trigger 2025-01-01T00:10:00Z 2025-01-01T00:10:00.1Z --dir "$T/stop" \
	--timeout 100s > "$T/stop.json" 2> "$T/stop.err" &
SPID=$!
CLEANUP_PIDS+=("$SPID")
wait_for_line "$T/cap.log" 60 "trigger $((last + 1)) started" || fail "the last trigger did not start"
sleep 1
kill -INT "$CPID"
rc=0
wait "$CPID" || rc=$?
expect_eq "capture's exit with a trigger waiting" "$rc" 0
rc=0
wait "$SPID" || rc=$?
expect_eq "the waiting trigger's ctl exit (not complete)" "$rc" 4
python3 - "$T/stop.json" "$((last + 1))" <<'PY' || fail "the trigger at the stop: $(cat "$T/stop.json" "$T/stop.err")"
import json, sys
r = json.load(open(sys.argv[1]))
P = 432000
rows = -(-600100 * 10**6 // P) - -(-600000 * 10**6 // P)
assert r["id"] == int(sys.argv[2]) and r["state"] == "done", r
assert r["result"] == "empty" and r["ended"] == "capture stopped", r
for a in ("ant0", "ant1"):
    x = r[a]
    assert x["window_frames"] == rows * 2 == x["not_arrived_frames"], x
    assert x["frames"] == 0 and x["complete"] == "no", x
PY
ok "a trigger waiting at the stop: result empty, ended 'capture stopped', every frame of its window not arrived; the capture stopped cleanly"
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" || { head "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture counts = truth with $((last + 1)) triggers"
