#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Scans for dpdk-ibvcap-dump writers: one schedule, in the primary's shared
# memory, followed by its --write writer and by the dump writers through
# the same gate. A capture on hugepages fed through memif with one --write
# writer (w0), a dump writer D (codif, --name dumpD, following scans) and a
# dump writer F (--record always: scans ignored); a --schedule scan for all,
# a commanded scan for D alone (writer=dumpD: w0 writes nothing for it), a
# commanded scan for all, and a last scan that a second dump E joins in its
# middle (attached once D has begun writing it; the scan, 1.4 s to 2.55 s
# of the 2.59 s of data, takes 2.7 s of the paced sending, so that a
# secondary slow to attach on a loaded host still joins it). An unknown writer name is refused, nothing
# changed. At the end: w0 and D hold only their scans'
# directories, every frame inside the scan's bounds, per antenna the
# truth's frames and gap frames (tests/tools/scancheck.py); E holds only
# the last scan, from a frame after its start to its end, the truth's
# frames of that stretch; F holds every frame, in no scan directory.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
record_setup
LAYOUT="--antennas 2 --groups 1 --threads 2"
# 6000 frames a stream of 432 us: 2.6 s of data time, sent in 6 s
GENARGS="$LAYOUT --count 6000 --seed 11 --loss 0.01 --start @$T0"
jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)

echo "sched_a $(utc 100) $(utc 400)" > "$T/scans.txt"
mkdir -p "$T/w0" "$T/D" "$T/E" "$T/F"
# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --ring 8192 \
	--write "codif:$T/w0" --schedule "$T/scans.txt" --writer-drain 30s \
	--count-packets "$N" --duration 120s --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"

start_dump "$T/D.log" --write "codif:$T/D" --name dumpD --summary-json "$T/D.json"
DP=$DPID
start_dump "$T/F.log" --write "codif:$T/F" --name dumpF --record always --summary-json "$T/F.json"
FP=$DPID

$CTL status > "$T/st0.json" || fail "ctl status"
expect_eq "status: dump writers and their states" \
	"$(jq_ "$T/st0.json" 'd["dump_writer_names"], d["dump_writer_states"]')" \
	"(['dumpD', 'dumpF'], ['idle until sched_a', 'always (its --record always: scans ignored)'])"

# a scan for the dump writer alone, two for all
$CTL record on --scan cmd_d --at "$(utc 600)" --for 300ms --writer dumpD > "$T/on1.json" ||
	{ cat "$T/on1.json"; fail "record on cmd_d --writer dumpD"; }
$CTL record on --scan cmd_all --at "$(utc 1100)" --until "$(utc 1300)" > "$T/on2.json" ||
	{ cat "$T/on2.json"; fail "record on cmd_all"; }
$CTL record on --scan late --at "$(utc 1400)" --until "$(utc 2550)" > "$T/on3.json" ||
	{ cat "$T/on3.json"; fail "record on late"; }
$CTL status > "$T/st1.json"
expect_eq "status: scans and their writers" \
	"$(jq_ "$T/st1.json" 'd["scan_names"], d["scan_writers"]')" \
	"(['sched_a', 'cmd_d', 'cmd_all', 'late'], ['0,dumpD', 'dumpD', '0,dumpD', '0,dumpD'])"

# an unknown writer name: refused (exit 3), nothing changed
rc=0
$CTL record on --scan x1 --at "$(utc 3000)" --for 1s --writer nosuch > "$T/r.json" 2>/dev/null || rc=$?
expect_eq "unknown writer: exit, result, input, value, changed" \
	"$rc $(jq_ "$T/r.json" 'd["result"], d["input"], d["value"], d["changed"]')" \
	"3 ('refused', 'writer', 'nosuch', 'nothing')"
$CTL status > "$T/st2.json"
python3 - "$T/st1.json" "$T/st2.json" <<'PY' || fail "the refused command changed the status"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("scan_names", "scan_starts_utc", "scan_stops_utc", "scan_writers", "writer_states",
          "dump_writer_names", "dump_writer_states"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
ok "unknown writer: the status after is the status before"

# the data, paced (6000 frames per stream at 1000 a second)
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --rate-fps 1000 --linger 60s --pcap "$T/sent.pcap" --truth "$T/truth.json" \
	> "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
# E attaches once D writes the last scan: it joins it in its middle
for ((i = 0; i < 300; i++)); do
	[ -d "$T/D/late" ] && break
	kill -0 "$GPID" 2>/dev/null || { tail -5 "$T/gen.log"; fail "the generator ended early"; }
	sleep 0.1
done
[ -d "$T/D/late" ] || fail "D never began the scan late"
start_dump "$T/E.log" --write "codif:$T/E" --name dumpE --summary-json "$T/E.json"
EP=$DPID
wait "$CPID" || { cat "$T/cap.log"; fail "capture exit status"; }
for p in "$DP" "$EP" "$FP"; do
	wait "$p" || { cat "$T/D.log" "$T/E.log" "$T/F.log"; fail "a dump writer's exit status"; }
done
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" ||
	{ head "$T/cmp"; tail -5 "$T/gen.log" "$T/cap.log"; fail "capture counts differ from the truth"; }
ok "capture counts = truth ($(tail -1 "$T/cmp"))"
python3 - "$T/D.json" "$T/E.json" "$T/F.json" <<'PY' || fail "a dump writer lost frames"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    assert d["overrun"] == 0 and d["error"] == 0, (f, d)
PY

SC=$SRC/tests/tools/scancheck.py
python3 "$SC" "$T/sent.pcap" "$T/truth.json" "$T/w0" ibvcap \
	"sched_a:$(ns 100):$(ns 400)" "cmd_all:$(ns 1100):$(ns 1300)" "late:$(ns 1400):$(ns 2550)" \
	> "$T/w0.chk" || { cat "$T/w0.chk"; find "$T/w0"; fail "--write writer's scans"; }
while read -r l; do ok "--write writer: $l"; done < "$T/w0.chk"
[ ! -e "$T/w0/cmd_d" ] || fail "the --write writer wrote the scan of dumpD alone"
ok "--write writer: nothing for cmd_d (writer=dumpD)"
python3 "$SC" "$T/sent.pcap" "$T/truth.json" "$T/D" ibvcap \
	"sched_a:$(ns 100):$(ns 400)" "cmd_d:$(ns 600):$(ns 900)" "cmd_all:$(ns 1100):$(ns 1300)" \
	"late:$(ns 1400):$(ns 2550)" > "$T/D.chk" || { cat "$T/D.chk"; find "$T/D"; fail "dump D's scans"; }
while read -r l; do ok "dump writer dumpD: $l"; done < "$T/D.chk"

# E: only late, from a frame after its start (joined in the middle) to its
# end, per antenna the truth's valid frames of that stretch
python3 - "$T/E" "$(ns 1400)" "$(ns 2550)" <<'PY' > "$T/E1.chk" || { cat "$T/E1.chk"; find "$T/E"; fail "dump E's scan"; }
import glob, json, os, sys
sys.path.insert(0, os.environ["SRC"] + "/tests/tools")
from scancheck import codif_frames
d, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
assert os.listdir(d) == ["late"], os.listdir(d)
idx = json.load(open(d + "/late/ibvcap_scan.codif.json"))
assert (idx["scan"], idx["start_ns"], idx["stop_ns"]) == ("late", lo, hi), idx
out = []
for a in idx["antennas"]:
    files = glob.glob("%s/late/ibvcap_%s_*.codif" % (d, a["antenna"]))
    ts = [t for f in files for t, valid, _ in codif_frames(f) if valid]
    assert ts and all(lo <= t < hi for t in ts), (a, min(ts), max(ts))
    assert a["first_ns"] > lo, ("not joined in the middle", a, lo)
    assert len(ts) == a["frames"], (len(ts), a)
    out.append("%s %d frames from %+.1f ms" % (a["antenna"], len(ts), (a["first_ns"] - lo) / 1e6))
print("; ".join(out))
PY
ok "dump writer dumpE (attached in scan late): only late/, every frame inside, joined after its start: $(cat "$T/E1.chk")"
# its frames: the truth's valid frames in [its first frame, stop) per antenna
python3 - "$T/sent.pcap" "$T/truth.json" "$T/E" "$(ns 2550)" <<'PY' > "$T/E.chk" || { cat "$T/E.chk"; fail "dump E's counts"; }
import json, os, struct, sys
sys.path.insert(0, os.environ["SRC"] + "/tests/tools")
from pcaprec import records, src, codif_time_ns
truth = json.load(open(sys.argv[2]))
ant_of = {x["src"]: i for i, x in enumerate(truth["antennas"])}
idx = json.load(open(sys.argv[3] + "/late/ibvcap_scan.codif.json"))
hi = int(sys.argv[4])
seen = set()
for p in records(sys.argv[1]):
    t, s = codif_time_ns(p), src(p)
    if t is None or s is None:
        continue
    o = 14 if p[12:14] != b"\x81\x00" else 18
    w1, w2 = struct.unpack("<QQ", p[o + 36:o + 52])
    if not (w1 >> 17) & 1:
        seen.add((ant_of[".".join(str(b) for b in s)], p[o + 16:o + 20], w2 & 0xFFFFFFFF, t))
for a in idx["antennas"]:
    ant = int(a["antenna"][3:])
    want = sum(1 for (x, _, _, t) in seen if x == ant and a["first_ns"] <= t < hi)
    print("%s: %d frames, the truth %d" % (a["antenna"], a["frames"], want))
    if want != a["frames"]:
        sys.exit(1)
PY
while read -r l; do ok "dumpE: $l"; done < "$T/E.chk"

# F (--record always): every frame, no scan directory
python3 - "$T/F" "$T/truth.json" "$T/F.json" <<'PY' || { find "$T/F"; fail "dump F (--record always)"; }
import glob, json, os, sys
d = sys.argv[1]
assert all(f.endswith(".codif") for f in os.listdir(d)), os.listdir(d)
t = json.load(open(sys.argv[2]))["totals"]
s = json.load(open(sys.argv[3]))
assert s["record"] == "always" and s["scans"] == [], s
assert s["written"] == t["received"], (s["written"], t)
print(s["written"])
PY
ok "dump writer dumpF (--record always): every frame ($(jq_ "$T/F.json" 'd["written"]')), no scan directory"
python3 - "$T/D.json" <<'PY' || fail "dump D's summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["record"] == "follow" and [x["scan"] for x in s["scans"]] == \
    ["sched_a", "cmd_d", "cmd_all", "late"] and s["rows_not_recorded"] > 0, s
PY
ok "dump D's summary: record follow, its scans in order, rows not recorded"
