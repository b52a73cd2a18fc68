#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Streams own their ring slots (issue 21, item 1): a stream's slot is
# assigned by its full identity, first come first served up to --slots.
# Through the real capture on net_pcap, with streams tests/tools/
# streampcap.py makes and a truth it computes, checked by
# tests/tools/streamcheck.py (its own reader of codif, raw and pcap files):
#  1. streams of one antenna, group and thread that differ only in CODIF
#     groupid, or only in secondaryid: all wholly on disk, counts exact;
#  2. a stray station first on a real stream's slot: the real stream wholly
#     on disk, labelled as itself (codif, raw, pcap); codifcheck verify
#     --pattern fails a raw index whose labels disagree with its frames;
#  3. a threadid >= --threads beyond the slots, and a stream of frames
#     larger than --data-bytes: not_recorded by cause (no-slot, wrong-size)
#     per stream, received = recorded + not_recorded, logged once a stream,
#     in the summary, telemetry (/ibvcap/streams) and Prometheus;
#  4. a frame size 8192 -> 4096 -> 8192: three files in every format, no
#     placeholder where a frame was;
#  5. codifcheck verify DIR on a writer directory with scans descends into
#     DIR/SCAN/ and checks each scan index against its files.
. "$(dirname "$0")/../lib.sh"
set -e
SP=$SRC/tests/tools/streampcap.py
SC=$SRC/tests/tools/streamcheck.py
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
# main, rx, three writers on 2 CPUs
EAL="--lcores 0@0,1@1,2@0,3@1,4@0 $EAL_COMMON --no-huge -m 512"
python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"

# capture DIR NPKTS ARGS...: DIR/a0.pcap through one antenna, every format
# (a ring larger than what is sent: net_pcap replays at once, and a writer
# lcore that starts late on a busy machine must still find every row)
capture() {
	local d=$1 n=$2
	shift 2
	mkdir -p "$d/codif" "$d/raw" "$d/pcap"
	# shellcheck disable=SC2086
	"$CAP" $EAL --no-telemetry --vdev "net_pcap0,rx_pcap=$d/a0.pcap,rx_pcap=$T/empty.pcap" -- \
		--antennas 1 --groups 1 --count-packets "$n" --idle-timeout 30s --stats-period 0 \
		--ring 1024 --reorder-window 16 --write "codif:$d/codif" --write "raw:$d/raw" \
		--write "pcap:$d/pcap" --summary-json "$d/sum.json" "$@" > "$d/cap.log" 2>&1 ||
		{ cat "$d/cap.log"; fail "capture $d failed"; }
}
# check DIR ARGS...: streamcheck on every format
check() {
	local d=$1 f
	shift
	for f in codif raw pcap; do
		python3 "$SC" "$d/truth.json" --files "$f" "$d/$f" "$@" > "$d/$f.chk" ||
			{ cat "$d/$f.chk"; fail "$d: $f files"; }
	done
}

# 1. groupid and secondaryid: 1 group x 2 threads (auto: 3 slots)
d=$T/ids
mkdir -p "$d"
python3 "$SP" "$d/a0.pcap" "$d/truth.json" "name=a,sizes=8192:200" \
	"name=g,groupid=1,sizes=8192:200" "name=x,secondaryid=1,sizes=8192:200"
capture "$d" 600 --threads 2
grep -q '^slots = auto   # 3 slots per antenna buffer: 1 groups x 2 threads + 1 spare' "$d/cap.log" ||
	fail "auto slots not stated: $(grep '^slots' "$d/cap.log")"
check "$d" --whole a g x
python3 "$SC" "$d/truth.json" --summary "$d/sum.json" --expect \
	a:received=200,recorded=200,not_recorded=0 g:received=200,recorded=200,not_recorded=0 \
	x:received=200,recorded=200,not_recorded=0 > "$d/sum.chk" || { cat "$d/sum.chk"; fail "ids: summary"; }
ok "streams differing only in groupid / secondaryid on one group and thread: all 600 frames on disk ($(cat "$d/codif.chk"); $(cat "$d/raw.chk"); $(cat "$d/pcap.chk")), counts exact"

# 2. a stray station's 10 frames first on the real stream's group and
# thread (1 x 1: auto 2 slots): it takes the home slot, the real stream
# the spare; each labelled as itself
d=$T/stray
mkdir -p "$d"
python3 "$SP" "$d/a0.pcap" "$d/truth.json" "name=stray,station=ZZ,sizes=8192:10" \
	"name=a,start=5,sizes=8192:200"
capture "$d" 210 --threads 1
check "$d" --whole a stray
python3 "$SC" "$d/truth.json" --summary "$d/sum.json" --expect \
	a:received=200,recorded=200,not_recorded=0 stray:received=10,recorded=10 > "$d/sum.chk" ||
	{ cat "$d/sum.chk"; fail "stray: summary"; }
"$CHK" verify --pattern "$d/raw" > "$d/raw.ver" 2>&1 || { cat "$d/raw.ver"; fail "stray: raw verify"; }
ok "a stray station first on the real stream's slot: the real stream whole and labelled as itself ($(cat "$d/codif.chk"); $(cat "$d/raw.chk"); $(cat "$d/pcap.chk")); codifcheck verify --pattern passes"
# the raw index relabelled (the real stream's slot labelled station QQ,
# labels and header agreeing, the rows the real stream's: what the old
# first-frame labelling did with the stray's name): verify --pattern fails
# it, as streamcheck does
mkdir -p "$d/bad"
cp "$d"/raw/*.raw "$d"/raw/*.raw.json "$d/bad/"
python3 - "$d"/bad/*.raw.json <<'PY'
import json, sys
for p in sys.argv[1:]:
    ix = json.load(open(p))
    for s in ix["streams"]:
        if s["station"] == "AA":
            s["station"] = "QQ"
            h = bytearray.fromhex(s["header"])
            h[22], h[23] = ord("Q"), ord("Q")   # stationid: word 2 bits 48-63
            s["header"] = h.hex()
    json.dump(ix, open(p, "w"), indent=1)
PY
if "$CHK" verify --pattern "$d/bad" > "$d/bad.ver" 2>&1; then
	cat "$d/bad.ver"
	fail "codifcheck verify passed a raw index whose labels disagree with its frames"
fi
grep -q "pattern" "$d/bad.ver" || { cat "$d/bad.ver"; fail "the relabelled raw index: no pattern problem"; }
if python3 "$SC" "$d/truth.json" --files raw "$d/bad" > "$d/bad.chk"; then fail "streamcheck passed the relabelled raw files"; fi
ok "a raw index relabelled: codifcheck verify --pattern fails it ($(grep -c pattern "$d/bad.ver") pattern lines; $(tail -1 "$d/bad.ver"))"

# 3. not recorded, by cause: --slots 2, --data-bytes 4096: a (4096) takes
# slot 0, w (8192 bytes: more than a slot holds) slot 1 (its frames
# refused: wrong-size), t (threadid 5 >= --threads 1) finds none (no-slot)
d=$T/nr
mkdir -p "$d"
python3 "$SP" "$d/a0.pcap" "$d/truth.json" "name=a,sizes=4096:200" \
	"name=w,groupid=1,start=1,sizes=8192:200" "name=t,threadid=5,start=2,sizes=4096:200"
mkdir -p "$d/codif" "$d/raw" "$d/pcap"
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "net_pcap0,rx_pcap=$d/a0.pcap,rx_pcap=$T/empty.pcap" -- \
	--antennas 1 --groups 1 --threads 1 --slots 2 --data-bytes 4096 --duration 60s \
	--stats-period 0 --ring 1024 --reorder-window 16 --write "codif:$d/codif" \
	--write "raw:$d/raw" --write "pcap:$d/pcap" --summary-json "$d/sum.json" > "$d/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$d/cap.log" 30 "nr: capture did not start"
got=$(packets_in 600 100)
expect_eq "nr: packets taken" "$got" 600
python3 "$STAT" --file-prefix "$PREFIX" --query /ibvcap/streams,0 > "$d/tel.json"
python3 - "$d/tel.json" <<'PY' || fail "nr: telemetry /ibvcap/streams"
import json, sys
t = json.load(open(sys.argv[1]))
f = t["fields"]
rows = [dict(zip(f, v)) for k, v in t.items() if k != "fields"]
by = {(r["groupid"], r["threadid"]): r for r in rows}
a, w, x = by[(0, 0)], by[(1, 0)], by[(0, 5)]
assert a["received"] == a["recorded"] == 200 and a["not_recorded"] == 0, a
assert w["received"] == 200 and w["recorded"] == 0 and w["not_recorded_wrong_size"] == 200, w
assert x["received"] == 200 and x["recorded"] == 0 and x["not_recorded_no_slot"] == 200, x
assert x["slot"] == 65535 and a["slot"] == 0 and w["slot"] == 1, (a["slot"], w["slot"], x["slot"])
PY
ok "telemetry /ibvcap/streams,0: per stream not_recorded_no_slot 200 (threadid 5), not_recorded_wrong_size 200 (8192 > 4096), the recorded one 200"
python3 "$STAT" --file-prefix "$PREFIX" --once --prom "$d/ibvcap.prom"
python3 "$SRC/tests/tools/promcheck.py" "$d/ibvcap.prom" > "$d/prom.json" || { cat "$d/prom.json"; fail "nr: Prometheus format"; }
python3 - "$d/ibvcap.prom" <<'PY' || fail "nr: Prometheus figures"
import re, sys
text = open(sys.argv[1]).read()
def val(metric, **lab):
    for line in text.splitlines():
        m = re.match(r"^%s\{(.*)\} (\S+)$" % metric, line)
        if m and all('%s="%s"' % kv in m.group(1) for kv in lab.items()):
            return float(m.group(2))
    raise SystemExit("no %s %s" % (metric, lab))
assert val("ibvcap_stream_not_recorded_by_cause_frames_total", threadid="5", cause="no-slot") == 200
assert val("ibvcap_stream_not_recorded_by_cause_frames_total", groupid="1", cause="wrong-size") == 200
assert val("ibvcap_stream_not_recorded_frames_total", groupid="0", threadid="0") == 0
assert val("ibvcap_stream_recorded_frames_total", groupid="0", threadid="0") == 200
assert val("ibvcap_antenna_not_recorded_frames_total", antenna="ant0") == 400
PY
ok "Prometheus (dpdk-ibvcap-stat --prom): per stream not_recorded by cause (no-slot 200, wrong-size 200), antenna not_recorded 400"
kill -INT "$CPID"
wait "$CPID" || { cat "$d/cap.log"; fail "nr: capture exit"; }
python3 "$SC" "$d/truth.json" --summary "$d/sum.json" --expect \
	a:received=200,recorded=200,not_recorded=0 w:received=200,recorded=0,not_recorded=200,wrong-size=200 \
	t:received=200,recorded=0,not_recorded=200,no-slot=200 > "$d/sum.chk" || { cat "$d/sum.chk"; fail "nr: summary"; }
check "$d" --whole a --absent w t
expect_eq "nr: one log line a stream and cause" \
	"$(grep -c 'received but not recorded (no-slot' "$d/cap.log") $(grep -c 'received but not recorded (wrong-size' "$d/cap.log")" "1 1"
grep -q 'stream station AA groupid 0 secondaryid 0 threadid 5 .*(no-slot, .*raise --slots' "$d/cap.log" ||
	fail "nr: no-slot line: $(grep 'not recorded' "$d/cap.log")"
grep -q '^all antennas: not_recorded_by_cause:no-slot 200, not_recorded_by_cause:wrong-size 200' "$d/cap.log" ||
	fail "nr: text summary: $(grep '^all antennas' "$d/cap.log")"
ok "summary (JSON and text): per stream received = recorded + not_recorded by cause (no-slot 200, wrong-size 200); one warning each"

# 4. a frame size that changes and comes back: three files each format
d=$T/size
mkdir -p "$d"
python3 "$SP" "$d/a0.pcap" "$d/truth.json" "name=a,sizes=8192:100/4096:100/8192:100"
capture "$d" 300 --threads 1
check "$d" --whole a --files-count 3
python3 "$SC" "$d/truth.json" --summary "$d/sum.json" --expect \
	a:received=300,recorded=300,not_recorded=0,new_params=2 > "$d/sum.chk" || { cat "$d/sum.chk"; fail "size: summary"; }
ok "8192 -> 4096 -> 8192 bytes: every frame placed and on disk, three files each, no placeholder ($(cat "$d/codif.chk"); $(cat "$d/raw.chk"); $(cat "$d/pcap.chk"))"

# 5. scans: the data time ahead of the host clock (a schedule must be)
d=$T/scan
mkdir -p "$d"
T0=$(($(date +%s) + 600))
python3 "$SP" --start "$T0" "$d/a0.pcap" "$d/truth.json" "name=a,sizes=8192:300"
u() { date -u -d "@$T0" "+%Y-%m-%dT%H:%M:%S.$1Z"; }
printf 's1 %s %s\ns2 %s +50ms\n' "$(u 050)" "$(u 150)" "$(u 200)" > "$d/sched.txt"
capture "$d" 300 --threads 1 --schedule "$d/sched.txt"
for f in codif raw pcap; do
	"$CHK" verify "$d/$f" > "$d/$f.ver" 2>&1 || { cat "$d/$f.ver"; fail "scan: verify $f"; }
	expect_eq "scan: $f: scan indexes checked" "$(grep -c "_scan.$f.json: OK (scan index of s[12]: 1 antenna" "$d/$f.ver")" 2
	grep -q '^verify: 4 files checked, 0 with problems' "$d/$f.ver" || { cat "$d/$f.ver"; fail "scan: $f: files checked"; }
done
cp -r "$d/codif" "$d/bad"
sed -i 's/"frames": 100,/"frames": 99,/' "$d/bad/s1/ibvcap_scan.codif.json"
if "$CHK" verify "$d/bad" > "$d/bad.ver" 2>&1; then cat "$d/bad.ver"; fail "a scan index that disagrees with its files passed"; fi
grep -q 'antenna ant0: 99 frames in the index, 100 in its files' "$d/bad.ver" || { cat "$d/bad.ver"; fail "scan: no reason"; }
"$CHK" verify "$d/codif/s1" > "$d/s1.ver" 2>&1 && grep -q '_scan.codif.json: OK' "$d/s1.ver" ||
	{ cat "$d/s1.ver"; fail "scan: verify inside a scan directory"; }
ok "codifcheck verify DIR descends into DIR/SCAN/ (4 files: 2 scans' files and indexes, each format); an index that disagrees fails; inside a scan directory its index is checked"
echo "$CHECKS checks passed"
