#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Writers that cannot keep up recover (issue 21, "a writer behind the ring"):
# 60 s of CODIF data (2 streams of 1000 frames/s of 256 data bytes: 120,000
# frames; small frames, so that 60 s of data go in a few seconds of wall
# time) from codifgen through memif into a capture with a small ring
# (--ring 256) whose own --write codif writer runs on the rx lcore's CPU
# (--lcores 0@0,1@1,2@1: the busy-polling rx lcore and the writer share
# CPU 1; CFS gives the writer half of it, less on a loaded host), beside a
# dpdk-ibvcap-dump held to 1500 frames/s (--max-rate). The generator sends
# at its full speed (--rate-fps 0: as fast as the capture takes them
# through memif, 0.3 M frames/s here: the 60 s of data in well under a
# second of wall time). Each writer falls more than a ring behind (the
# dump again and again). For each:
#  - its files hold real frames, no placeholder for what it lost: every
#    frame in them is a real one, counted by codifcheck over the files
#    (the capture lost nothing on the wire here: a frame the capture lost
#    would be a gap frame, and none is);
#  - it kept writing real frames to the end: its last file's last frame is
#    in the data's last tenth;
#  - written + overrun + cut = the frames the capture placed, exactly (the
#    summary), and written = the frames in its files (codifcheck);
#  - where it fell behind its file ended: each file is contiguous
#    (codifcheck finds no frame lost in any), and the throttled dump, which
#    writes from the first frame, has 2 files at least.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 200
DUMP=$BUILD/app/dpdk-ibvcap-dump
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
# 4000 frames/s per stream: 256 data bytes x 4000 = 1,024,000 samples (8-bit
# real, one channel) a 1 s period
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --antennas 1 --data-bytes 256 --nchan 1 --nbits 8 --real --period 1 \
--total-samples 256000 --data-duration 60s --seed 3"
mkdir -p "$T/cw" "$T/dw"
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)
rm -f "$T/dry.pcap"
expect_eq "frames of 60 s of data" "$N" 120000

# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --antennas 1 --data-bytes 256 --frame-rate 1000 --stats-period 0 \
	--count-packets "$N" \
	--idle-timeout 5s --ring 256 --write "codif:$T/cw,rotate-size=16M,buffer=1M" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
# the capture's writer lcore (lcore 2: its thread rte-worker-2) on the rx
# lcore's CPU (1): there
WTID=
for t in /proc/$CPID/task/*; do
	[ "$(cat "$t/comm")" = rte-worker-2 ] && WTID=${t##*/}
done
[ -n "$WTID" ] || fail "no writer lcore thread (rte-worker-2) in the capture"
[ "$(taskset -cp "$WTID" | sed 's/.*: *//')" = 1 ] || fail "the writer lcore is not on CPU 1"
start_dump "$T/dw.log" --write "codif:$T/dw,rotate-size=16M,buffer=1M" --name slow \
	--max-rate 1500 --summary-json "$T/dw.json"
DWPID=$DPID
t0=$(date +%s.%N)
# shellcheck disable=SC2086
"$GEN" -l 0 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna $GENARGS --rate-fps 0 \
	--linger 60s --truth "$T/truth.json" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
set +e
wait "$CPID"
crc=$?
wait "$DWPID"
drc=$?
set -e
t1=$(date +%s.%N)
kill -INT "$GPID" 2>/dev/null; wait "$GPID" || true
expect_eq "capture exit status" "$crc" 0
expect_eq "dump exit status" "$drc" 0

for d in cw dw; do
	expect_eq "no .part left in $d" "$(find "$T/$d" -name '*.part' | wc -l)" 0
	"$CHK" info --json "$T/$d" > "$T/info.$d.json" 2> "$T/info.$d.err" ||
		{ cat "$T/info.$d.err"; fail "codifcheck info $d"; }
done
python3 - "$T" "$N" "$t0" "$t1" <<'PY' || fail "the writers' figures and their files"
import json, sys
T, N, t0, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
s = json.load(open(T + "/sum.json"))
placed = sum(a["placed"] for a in s["buffers"]["antennas"])
assert placed == N, (placed, N)  # the capture itself lost nothing here
cw = [w for w in s["buffers"]["writers"] if w["name"].startswith("primary-")]
assert len(cw) == 1, cw
dw = json.load(open(T + "/dw.json"))
T0 = 1735689600 * 10**9
for name, d, j in (("capture's --write (CPU shared with rx)", "cw", cw[0]),
                   ("dump --max-rate 1500", "dw", dw)):
    info = json.load(open("%s/info.%s.json" % (T, d)))
    files = info.get("files", [info])
    received = lost = 0
    last_ns = 0
    tenths = set()  # the tenths of the data (6 s each) its files hold frames of
    for f in files:
        for st in f["streams"]:
            received += st["received"]
            lost += st["lost"]
            last_ns = max(last_ns, st["last_frame_ns"] or 0)
            if st["received"]:
                a = (st["first_frame_ns"] - T0) // (6 * 10**9)
                b = (st["last_frame_ns"] - T0) // (6 * 10**9)
                tenths.update(range(a, b + 1))
    assert j["error"] == 0 and j["cut"] == 0, (name, j)
    # exact: every frame placed is written or overrun
    assert j["written"] + j["overrun"] + j["cut"] == placed, \
        (name, j["written"], j["overrun"], j["cut"], placed)
    # it fell behind (the point of the test) ...
    assert j["overrun"] > 0, (name, j["overrun"])
    # ... and its files hold real frames only: as many as it says written
    assert received == j["written"], (name, received, j["written"])
    assert j["placeholders"] == 0 and j.get("overrun_placeholders", 0) == 0, (name, j)
    assert lost == 0, (name, lost)
    # it kept writing real frames to the end: its last frame is in the
    # data's last tenth (the data: 60 s from 2025-01-01T00:00:00Z)
    assert last_ns >= T0 + 54 * 10**9, (name, last_ns - T0)
    assert len(files) == j["files"], (name, len(files), j["files"])
    # where it fell behind after writing, its file ended: the throttled
    # dump takes frames from the first and falls behind again and again (2
    # files at least). The capture's writer gets CPU 1 only when CFS takes
    # it from the busy-polling rx lcore: on a quiet host it can fall behind
    # before its first frame (a file opened late) and next run only near
    # the end (CI saw 1 file, contiguous, with the last tenth in it); each
    # file is contiguous either way (lost == 0 above)
    assert j["files"] >= (2 if d == "dw" else 1), (name, j["files"])
    print("%s: %d of %d frames written (%.1f %%), %d overrun, %d files, all frames in them "
          "real (codifcheck: %d received, 0 lost), the last at %.3f s of 60, frames in %d of the "
          "data's 10 tenths" %
          (name, j["written"], placed, 100.0 * j["written"] / placed, j["overrun"],
           j["files"], received, (last_ns - T0) / 1e9, len(tenths)))
print("60 s of data (%d frames) sent and written in %.1f s of wall time" % (N, t1 - t0))
PY
ok "writers behind the ring: files of real frames, written + overrun = placed exactly"
