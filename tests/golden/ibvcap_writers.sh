#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: codifgen streams with loss, reordering within the window,
# duplicates, invalid and malformed frames -> dpdk-ibvcap (net_pcap, one
# queue per antenna) with three writers on lcores of their own -> raw, codif
# and pcap files whose contents match what was sent byte for byte, with gap
# frames exactly where frames were lost (checked by an independent reader,
# tests/tools/verify_outputs.py, and by codifcheck verify --pattern).
. "$(dirname "$0")/../lib.sh"
set -e
# 5 lcores on 2 CPUs: main, rx, three writers (they sleep when idle)
EAL="--lcores 0@0,1@1,2@0,3@1,4@0 $EAL_COMMON --no-huge -m 1024 --no-telemetry"
python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"
FAULTS="--seed 41 --loss 0.03 --reorder 0.05 --reorder-depth 8 --duplicate 0.02 --invalid 0.03
	--vlan 0.02 --bad-sync 0.01 --bad-length 0.01 --truncated 0.01 --non-ipv4 0.01"
# shellcheck disable=SC2086
pcap_antennas "$T" 6 --count 120 $FAULTS
vdev=$VDEV n=$SENT
mkdir -p "$T/codif" "$T/raw" "$T/pcap" "$T/all" "$T/rot"
t_start=$(date +%s%N)
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$vdev" -- --count-packets "$n" --idle-timeout 30s --stats-period 0 \
	--ring 512 --reorder-window 32 \
	--write "codif:$T/codif" --write "raw:$T/raw" --write "pcap:$T/pcap" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 || { cat "$T/cap.log"; fail "capture failed"; }
python3 "$CMP" "$T/truth.json" "$T/sum.json" --unattributed > "$T/cmp" ||
	{ head "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture counts = truth with three writers attached"
t_end=$(date +%s%N)
# arrival times (net_pcap gives no NIC stamps: the host clock read once per
# burst when the rx lcore took it, docs/formats.md): no time shared by more
# packets than one burst holds (--burst, 64), all inside the run, the source
# said
python3 - "$T/pcap" "$t_start" "$t_end" "$T/sum.json" <<'PY' || fail "arrival times"
import collections, glob, json, struct, sys
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
ts = []
for f in glob.glob(sys.argv[1] + "/*.pcap"):
    d = open(f, "rb").read()
    off = 24
    while off < len(d):
        s, ns, cl, _ = struct.unpack("<IIII", d[off:off + 16])
        ts.append(s * 10**9 + ns)
        off += 16 + cl
shared = max(collections.Counter(ts).values())
assert len(ts) > 600 and shared <= 64, (len(ts), shared)
assert t0 <= min(ts) and max(ts) <= t1, (t0, min(ts), max(ts), t1)
p = json.load(open(sys.argv[4]))["ports"][0]
assert p["time_source"] == "host", p
PY
grep -q "port 0 (net_pcap0): arrival times from the host clock (the port gives no rx timestamps)" \
	"$T/cap.log" || fail "no time source line"
ok "pcap arrival times: one per burst (at most 64 packets share one), inside the run, source said (host)"

for fmt in codif raw pcap; do
	python3 "$VER" "$T/sent.pcap" --format $fmt "$T/$fmt" > "$T/$fmt.ver" ||
		{ cat "$T/$fmt.ver"; fail "$fmt files differ from what was sent"; }
	ok "$fmt: $(cat "$T/$fmt.ver")"
	"$CHK" verify --pattern "$T/$fmt" > "$T/$fmt.chk" 2>&1 || { cat "$T/$fmt.chk"; fail "codifcheck verify $fmt"; }
	ok "$fmt: codifcheck verify --pattern: $(tail -1 "$T/$fmt.chk")"
done
expect_eq "files per format (one per antenna)" \
	"$(ls "$T/codif" | wc -l) $(ls "$T/raw"/*.raw | wc -l) $(ls "$T/raw"/*.raw.json | wc -l) $(ls "$T/pcap" | wc -l)" "6 6 6 6"
expect_eq "no .part left" "$(find "$T" -name '*.part' | wc -l)" 0

# the writers' own counts, in the primary's summary: frames = received, gaps = lost
python3 - "$T/truth.json" "$T/sum.json" <<'PY' || fail "writer counts"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
w = {x["format"]: x for x in json.load(open(sys.argv[2]))["buffers"]["writers"]}
assert w["codif"]["written"] == t["received"], (w["codif"], t)
assert w["codif"]["placeholders"] == t["lost"], (w["codif"], t)
assert w["raw"]["written"] == t["received"] and w["pcap"]["written"] == t["received"]
assert all(x["overrun"] == 0 and x["error"] == 0 for x in w.values())
PY
ok "writer counts in the summary: frames = received, codif gap frames = lost, none lost to overrun"

# raw index gap runs = the truth's lost frames, per antenna
python3 - "$T/truth.json" "$T/raw" <<'PY' || fail "raw index gaps"
import glob, json, sys
t = {a["src"]: a for a in json.load(open(sys.argv[1]))["antennas"]}
for idx in glob.glob(sys.argv[2] + "/*.raw.json"):
    j = json.load(open(idx))
    src = j["antenna"]["src"]
    assert sum(g["count"] for g in j["gaps"]) == t[src]["lost"], (idx, t[src]["lost"])
    assert sum(g["count"] for g in j["invalid"]) == t[src]["invalid"], (idx, t[src]["invalid"])
PY
ok "raw indexes: gap runs = lost frames, invalid runs = invalid frames, per antenna"

# rotation by size, pcap of every antenna in one file
# shellcheck disable=SC2086
# (and by size for all=yes, by time for raw)
mkdir -p "$T/allrot" "$T/rawrot"
"$CAP" --lcores 0@0,1@1,2@0,3@1,4@0,5@1 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev "$vdev" -- \
	--count-packets "$n" --idle-timeout 30s --stats-period 0 --ring 512 --reorder-window 32 \
	--write "codif:$T/rot,rotate-size=1M,prefix=rot" --write "pcap:$T/all,all=yes" \
	--write "pcap:$T/allrot,all=yes,rotate-size=64K" --write "raw:$T/rawrot,rotate-time=20ms" \
	--summary-json "$T/sum2.json" > "$T/cap2.log" 2>&1 || { cat "$T/cap2.log"; fail "second capture failed"; }
python3 - "$T/sum2.json" <<'PY' || fail "second capture: a writer reported an error"
import json, sys
w = json.load(open(sys.argv[1]))["buffers"]["writers"]
assert len(w) == 4 and all(x["error"] == 0 and x["overrun"] == 0 for x in w), w
PY
python3 "$VER" "$T/sent.pcap" --format codif "$T/rot" > "$T/rot.ver" || { cat "$T/rot.ver"; fail "rotated codif"; }
nrot=$(ls "$T/rot" | wc -l)
[ "$nrot" -gt 6 ] || fail "rotate-size=1M made only $nrot files"
ok "rotate-size=1M: $nrot files, together byte for byte as sent"
expect_eq "all=yes: one pcap" "$(ls "$T/all" | wc -l)" 1
python3 "$VER" "$T/sent.pcap" --format pcap "$T/all" > "$T/all.ver" || { cat "$T/all.ver"; fail "all=yes pcap"; }
ok "all=yes: $(cat "$T/all.ver")"
nrot=$(ls "$T/allrot" | wc -l)
[ "$nrot" -gt 10 ] || fail "all=yes,rotate-size=64K made only $nrot files"
python3 "$VER" "$T/sent.pcap" --format pcap "$T/allrot" > "$T/allrot.ver" || { cat "$T/allrot.ver"; fail "all=yes rotated pcap"; }
ok "all=yes,rotate-size=64K: $nrot files, together: $(cat "$T/allrot.ver")"
# rotation keeps names unique and in time order: each file starts at a data
# time later than everything in the files before it, and every antenna's
# frames stay in time order across the files
python3 - "$T/allrot" "$SRC/tests/tools" <<'PY' || fail "all=yes rotation: files out of time order"
import os, sys
sys.path.insert(0, sys.argv[2])
from pcaprec import records, src, codif_time
d = sys.argv[1]
seen_max = None
last = {}
for name in sorted(os.listdir(d)):
    first = None
    for pkt in records(os.path.join(d, name)):
        a, t = src(pkt), codif_time(pkt)
        if first is None:
            first = t
            assert seen_max is None or t > seen_max, (name, t, seen_max)
        assert a not in last or t >= last[a], (name, a, t, last[a])
        last[a] = t
        seen_max = t if seen_max is None else max(seen_max, t)
    assert first is not None, name
PY
ok "all=yes rotation: each file starts after all before it; every antenna in time order"
nrot=$(ls "$T/rawrot"/*.raw | wc -l)
[ "$nrot" -gt 6 ] || fail "rotate-time=20ms made only $nrot raw files"
python3 "$VER" "$T/sent.pcap" --format raw "$T/rawrot" > "$T/rawrot.ver" || { cat "$T/rawrot.ver"; fail "raw rotated by time"; }
ok "raw,rotate-time=20ms: $nrot files, together: $(cat "$T/rawrot.ver")"
# --zero-copy: the rings keep the received mbufs; the same counts and
# byte-identical codif and raw files (pcap: the same packets), and every
# mbuf back in its pool at exit
mkdir -p "$T/zc/codif" "$T/zc/raw" "$T/zc/pcap"
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$vdev" -- --count-packets "$n" --idle-timeout 30s --stats-period 0 \
	--ring 512 --reorder-window 32 --zero-copy yes \
	--write "codif:$T/zc/codif" --write "raw:$T/zc/raw" --write "pcap:$T/zc/pcap" \
	--summary-json "$T/zc/sum.json" > "$T/zc/cap.log" 2>&1 || { cat "$T/zc/cap.log"; fail "zero-copy capture failed"; }
python3 "$CMP" "$T/truth.json" "$T/zc/sum.json" --unattributed > "$T/zc/cmp" ||
	{ head "$T/zc/cmp"; fail "zero-copy: counts differ from the truth"; }
diff -r "$T/codif" "$T/zc/codif" > /dev/null || fail "zero-copy: codif files differ from the copy mode's"
diff -r "$T/raw" "$T/zc/raw" > /dev/null || fail "zero-copy: raw files differ from the copy mode's"
python3 "$VER" "$T/sent.pcap" --format pcap "$T/zc/pcap" > "$T/zc/pcap.ver" ||
	{ cat "$T/zc/pcap.ver"; fail "zero-copy pcap files"; }
grep -q "^dpdk-ibvcap: mbufs at exit: all [0-9]* back in their pool" "$T/zc/cap.log" ||
	{ grep mbufs "$T/zc/cap.log"; fail "zero-copy: mbufs not all returned"; }
# net_pcap offers no buffer split: --zero-copy-split auto says so and keeps whole mbufs
grep -qF -- "--zero-copy: port 0 (net_pcap0): no buffer split (rx offloads lack BUFFER_SPLIT): the rings keep whole mbufs" "$T/zc/cap.log" ||
	{ grep -i split "$T/zc/cap.log"; fail "zero-copy: no line on buffer split's fallback"; }
ok "--zero-copy: counts = truth, codif and raw files byte-identical to the copy mode's, pcap as sent, every mbuf back"
echo "$CHECKS checks passed"
