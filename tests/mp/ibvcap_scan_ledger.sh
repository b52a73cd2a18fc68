#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The scan ledger and the data clock: a capture on hugepages fed through
# memif by codifgen in real time, its data clock 30 s ahead of the host's,
# 1000 frames a second per stream, one --write codif writer under scans (--record idle). (30 s less the
# generator's start-up: the offset is measured here, from the newest
# frame's data time and this host's clock, and the capture's figures are
# compared with it.)
#  1. The offset: a warning naming the antenna and ~30 s ahead; the offset
#     in telemetry, Prometheus (with --clock-warn beside it) and the summary JSON.
#  2. `record on --scan s1 --for 3s` (host time now: data that never comes,
#     the data being 30 s on): logged when added, begun and at its end as a
#     warning "0 of N frames recorded" with the reason "data clock ... ahead
#     of the host clock"; N = the frames of the 3 s for both streams, from
#     the stream's frame period and its first frame (computed here); no
#     directory s1; in the summary (text and JSON), telemetry and
#     Prometheus (ibvcap_scan_short 1); the summary's text at 80 columns
#     (COLUMNS=80): each scan's row a record of lines that fit.
#  3. A scan s2 placed in the data's time (2 s of it, a little ahead): its
#     ledger expected = N2 (computed here), = recorded + lost + not_recorded
#     + overrun + cut + not_arrived, recorded = the frames received in s2's
#     files and lost = the placeholders in them (codifcheck); the third
#     stream (the generator sends threads 0-2, the capture has slots for
#     two: --slots 2) received and not recorded: not_recorded + not_arrived
#     = its third of N2 (its frames lost on the wire never arrived), and
#     not_recorded at least 95 % of it (--loss 0.01). A dpdk-ibvcap-dump
#     following the scans (--name scanner) is in both ledgers by its name:
#     s1 0 of N1, s2 the same expected with recorded and lost = its own
#     files' frames and placeholders (codifcheck).
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
record_setup
LAYOUT="--antennas 1 --groups 1 --threads 2"
STREAMS=3 # the generator's threads 0-2; the third has no slot (--slots 2)
STAT="python3 $BUILD/app/dpdk-ibvcap-stat --file-prefix $PREFIX"
mkdir -p "$T/w" "$T/d"
# COLUMNS=80: the summary's text as an 80-column terminal has it (the scans
# as records of lines that fit)
# shellcheck disable=SC2086
COLUMNS=80 "$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --slots 2 --stats-period 0 --ring 4096 \
	--write "codif:$T/w" --record idle --duration 400s --summary-json "$T/sum.json" \
	> "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
start_dump "$T/dump.log" --write "codif:$T/d" --name scanner --summary-json "$T/dump.json"
DUMPPID=$DPID
AHEAD=$(($(date +%s) + 30))
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	--antennas 1 --groups 1 --threads $STREAMS --period 1 --total-samples 512000 --seed 3 --loss 0.01 --start "@$AHEAD" \
	--data-duration 400s --linger 60s \
	--truth "$T/truth.json" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")

# 1. the offset warning, once data flows
wait_for_line "$T/cap.log" 60 'antenna ant0: its data time is' ||
	{ tail "$T/cap.log" "$T/gen.log"; fail "no data-clock warning"; }
line=$(grep -m1 'antenna ant0: its data time is' "$T/cap.log")
# the offset as seen here: the newest frame's data time minus this host's
# clock (30 s less the generator's start-up on a loaded machine)
OFF=$($STAT --query /ibvcap/antennas | python3 -c '
import json, sys, time
d = json.load(sys.stdin)
print("%.1f" % (dict(zip(d["fields"], d["ant0"]))["last_frame_ns"] / 1e9 - time.time()))')
python3 -c 'import sys; assert 12 < float(sys.argv[1]) <= 30.5, sys.argv[1]' "$OFF" ||
	fail "the generator's data is $OFF s ahead, not about 30 s"
near() { # WHAT VALUE: VALUE within 2.5 s of OFF
	python3 -c 'import sys; assert abs(float(sys.argv[1]) - float(sys.argv[2])) < 2.5, sys.argv' "$2" "$OFF" ||
		fail "$1: $2 s, the data is $OFF s ahead"
}
w=$(echo "$line" | sed -n 's/^dpdk-ibvcap: warning: antenna ant0: its data time is \([0-9.]*\) s ahead of the host clock (newest frame .*; --clock-warn 1.000 s).*/\1/p')
[ -n "$w" ] || fail "the warning: $line"
near "the warning's offset" "$w"
ok "offset warning ($OFF s measured here): $line"

# 2. a scan on the host's clock: data that never comes
$CTL record on --scan s1 --for 3s > "$T/on1.json" || { cat "$T/on1.json"; fail "record on s1"; }
wait_for_line "$T/cap.log" 30 'scan s1 ended' || { tail "$T/cap.log"; fail "scan s1 never ended"; }
for w in added begun; do
	grep -q "dpdk-ibvcap: scan s1 $w" "$T/cap.log" || fail "scan s1: no '$w' line"
done
end1=$(grep -m1 'scan s1 ended' "$T/cap.log")
ok "s1 logged: $(grep -m1 'scan s1 added' "$T/cap.log")"

# the frames a span should hold: the three streams' frames (1000 a second:
# --period 1 --total-samples 512000 of 512 a frame; on the grid of any frame
# received: the newest) with data time in [start, stop)
newest_ns() { $STAT --query /ibvcap/antennas | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(dict(zip(d["fields"], d["ant0"]))["last_frame_ns"])'; }
FIRST=$(newest_ns) || fail "the newest frame time"
span_frames() { # START_NS STOP_NS
	python3 -c '
import sys
first, lo, hi = (int(x) for x in sys.argv[1:4])
F = 10**6  # ns a frame
def idx(t):  # the first frame index at or after t (frame k at first + k F)
    return -((first - t) // F)
print(int(sys.argv[4]) * (idx(hi) - idx(lo)))' "$FIRST" "$1" "$2" "$STREAMS"
}
utc_ns() { python3 -c '
import calendar, sys, time
s = sys.argv[1]
print(calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) * 10**9 + int((s[20:].rstrip("Z") + "000000000")[:9]))' "$1"; }
S1=$(utc_ns "$(json_get "$T/on1.json" start_utc)")
E1=$(utc_ns "$(json_get "$T/on1.json" stop_utc)")
N1=$(span_frames "$S1" "$E1")
r=$(echo "$end1" | sed -n "s/^dpdk-ibvcap: warning: scan s1 ended, primary-0-codif: 0 of $N1 frames recorded (missing: lost 0, not recorded 0, overrun 0, cut 0, not arrived $N1): data clock \([0-9.]*\) s ahead of the host clock$/\1/p")
[ -n "$r" ] || fail "s1's end line: '$end1' (expected 0 of $N1 and the reason)"
near "s1's reason" "$r"
ok "s1 end: $end1"
[ ! -e "$T/w/s1" ] || fail "a directory for s1: $(ls -R "$T/w/s1")"

# telemetry and Prometheus: s1's ledger, the offset
$STAT --once --prom "$T/x.prom" || fail "stat --prom"
grep -q "^ibvcap_scan_short{instance_prefix=\"$PREFIX\",scan=\"s1\",writer=\"primary-0-codif\"} 1$" "$T/x.prom" ||
	{ grep scan "$T/x.prom"; fail "Prometheus: s1 not short"; }
grep -q "^ibvcap_scan_frames{instance_prefix=\"$PREFIX\",scan=\"s1\",writer=\"primary-0-codif\",what=\"expected\"} $N1$" "$T/x.prom" ||
	{ grep scan "$T/x.prom"; fail "Prometheus: s1 expected"; }
off=$(sed -n 's/^ibvcap_data_clock_offset_seconds{.*antenna="ant0"} //p' "$T/x.prom")
near "Prometheus: ibvcap_data_clock_offset_seconds" "$off"
# the capture's --clock-warn (default 1 s) beside it: the array's alert
# (IbvcapDataClockOffset) compares the offset with it
grep -q "^ibvcap_data_clock_warn_seconds{instance_prefix=\"$PREFIX\"} 1$" "$T/x.prom" ||
	{ grep clock "$T/x.prom"; fail "Prometheus: ibvcap_data_clock_warn_seconds is not the default 1 s"; }
ok "Prometheus: ibvcap_scan_short{scan=s1} 1, expected $N1; ibvcap_data_clock_offset_seconds{ant0} $off, ibvcap_data_clock_warn_seconds 1"
$CTL status > "$T/st.json"
python3 - "$T/st.json" "$N1" "$OFF" <<'PY' || fail "telemetry: s1's ledger"
import json, sys
d = json.load(open(sys.argv[1]))
i = d["ledger_scan"].index("s1")
assert d["ledger_expected"][i] == int(sys.argv[2]) and d["ledger_recorded"][i] == 0, d
assert d["ledger_not_arrived"][i] == int(sys.argv[2]) and "ahead" in d["ledger_reason"][i], d
assert abs(d["data_offset_ms"][0] / 1000 - float(sys.argv[3])) < 2.5 and d["data_offset_known"] == [1], d
PY
ok "telemetry (/ibvcap/record,status): s1's ledger and data_offset_ms"

# 3. a scan in the data's time: 2 s of it, starting 10 s past the newest
# frame (ctl takes seconds to start on a loaded machine)
NEWEST=$(newest_ns)
S2=$((NEWEST + 10000000000))
E2=$((S2 + 2000000000))
$CTL record on --scan s2 --at "@$((S2 / 1000000000)).$(printf %09d $((S2 % 1000000000)))" \
	--until "@$((E2 / 1000000000)).$(printf %09d $((E2 % 1000000000)))" > "$T/on2.json" ||
	{ cat "$T/on2.json"; fail "record on s2"; }
wait_for_line "$T/cap.log" 60 'scan s2 ended' || { tail "$T/cap.log"; fail "scan s2 never ended"; }
ok "s2: $(grep -m1 'scan s2 ended' "$T/cap.log")"
# /ibvcap/scan: s2's rows per writer, and per antenna (what the array's
# agent writes): the --write writer's antenna row = its writer row (one
# antenna), known; the dump's per antenna unknown (it publishes sums)
$STAT --query "/ibvcap/scan,s2" > "$T/sc2.json"
$STAT --query "/ibvcap/scan,s2,primary-0-codif" > "$T/sc2w.json"
$STAT --query "/ibvcap/scan,s2,scanner" > "$T/sc2d.json"
$STAT --query "/ibvcap/scan,nosuch" > "$T/scx.json"
python3 - "$T" <<'PY' || fail "/ibvcap/scan: s2's ledger per antenna"
import json, sys
T = sys.argv[1]
w, a, d, x = (json.load(open(T + f)) for f in ("/sc2.json", "/sc2w.json", "/sc2d.json", "/scx.json"))
assert w["state"] == "ended" and w["writer"] == ["primary-0-codif", "scanner"], w
figs = ("expected", "recorded", "lost", "not_recorded", "overrun", "cut", "not_arrived")
assert a["antenna"] == ["ant0"] and a["known"] == [1] and a["streams"] == [3], a
assert [a[f][0] for f in figs] == [w[f][0] for f in figs], (a, w)
assert d["antenna"] == ["ant0"] and d["known"] == [0] and d["expected"] == [w["expected"][1]], d
assert d["not_recorded"] == [w["not_recorded"][1]] and d["recorded"] == [0], d
assert x["result"] == "refused" and x["input"] == "scan" and x["value"] == "nosuch", x
print("ant0: " + ", ".join("%s %d" % (f, a[f][0]) for f in figs))
PY
ok "/ibvcap/scan,s2[,WRITER]: per antenna = the writer's row ($(python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); print("expected %d, recorded %d, not_recorded %d" % (a["expected"][0], a["recorded"][0], a["not_recorded"][0]))' "$T/sc2w.json")); the dump's unknown; an unknown scan refused"
kill -INT "$CPID"
wait "$CPID" || { tail -30 "$T/cap.log"; fail "capture exit status"; }
wait "$DUMPPID" || { tail "$T/dump.log"; fail "dump exit status"; }
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
N2=$(span_frames "$S2" "$E2")
for f in "$T"/w/s2/*.codif "$T"/d/s2/*.codif; do
	"$CHK" info --json "$f" > "$f.info.json" || fail "codifcheck info $f"
done
res=$(python3 - "$T/sum.json" "$T/w/s2" "$N1" "$N2" "$OFF" "$T/d/s2" <<'PY'
import glob, json, sys
r = json.load(open(sys.argv[1]))["recording"]
n1, n2 = int(sys.argv[3]), int(sys.argv[4])
sc = {s["scan"]: s for s in r["schedule_scans"]}
assert sc["s1"]["writers"][0] == "primary-0-codif" and sc["s1"]["state"] == "ended", sc["s1"]
l1 = sc["s1"]["ledger"][0]
assert (l1["writer"], l1["expected"], l1["recorded"], l1["missing"]["not_arrived"], l1["result"]) == \
    ("primary-0-codif", n1, 0, n1, "short") and "ahead of the host clock" in l1["reason"], l1
l2 = sc["s2"]["ledger"][0]
m = l2["missing"]
assert l2["expected"] == n2, (l2, n2)
assert l2["expected"] == l2["recorded"] + m["lost"] + m["not_recorded"] + m["overrun"] + \
    m["cut"] + m["not_arrived"], l2
st = [x for f in glob.glob(sys.argv[2] + "/*.info.json") for x in json.load(open(f))["streams"]]
got, lost = sum(x["received"] for x in st), sum(x["lost"] for x in st)
assert (l2["recorded"], m["lost"], m["overrun"], m["cut"]) == (got, lost, 0, 0), (l2, got, lost)
# the third stream: received, not recorded, or lost on the wire (not arrived)
third = n2 // 3
assert m["not_recorded"] + m["not_arrived"] == third and m["not_recorded"] >= 0.95 * third, (l2, third)
assert "received, not recorded" in l2["reason"], l2
# within the capture's own count of the stream (the whole run)
assert json.load(open(sys.argv[1]))["antennas"][0]["not_recorded"] >= m["not_recorded"], l2
# the dump writer, by its name, in both scans' ledgers
assert sc["s1"]["writers"] == ["primary-0-codif", "scanner"], sc["s1"]["writers"]
d1 = sc["s1"]["ledger"][1]
assert (d1["writer"], d1["expected"], d1["recorded"], d1["missing"]["not_arrived"]) == \
    ("scanner", n1, 0, n1), d1
d2 = sc["s2"]["ledger"][1]
dm = d2["missing"]
dst = [x for f in glob.glob(sys.argv[6] + "/*.info.json") for x in json.load(open(f))["streams"]]
dgot, dlost = sum(x["received"] for x in dst), sum(x["lost"] for x in dst)
assert (d2["writer"], d2["expected"], d2["recorded"], dm["lost"], dm["overrun"], dm["cut"],
        dm["not_recorded"], dm["not_arrived"]) == \
    ("scanner", n2, dgot, dlost, 0, 0, m["not_recorded"], m["not_arrived"]), (d2, dgot, dlost)
off = r["data_clock"][0]["offset_s"]
assert abs(off - float(sys.argv[5])) < 4, r["data_clock"]  # at the end: the generator may lag
print("s2: expected %d = recorded %d + lost %d + not recorded %d + overrun %d + cut %d + not "
      "arrived %d; its files: %d received, %d lost (codifcheck); the dump 'scanner': recorded "
      "%d, lost %d = its files'; s1: 0 of %d, '%s'; offset %.3f s"
      % (n2, l2["recorded"], m["lost"], m["not_recorded"], m["overrun"], m["cut"],
         m["not_arrived"], got, lost, d2["recorded"], dm["lost"], n1, l1["reason"], off))
PY
) || fail "the summary's ledgers: $res"
ok "summary JSON: $res"
grep -A2 -E "^s1, writer primary-0-codif: expected $N1, recorded 0$" "$T/cap.log" > "$T/s1.txt" || true
python3 - "$T/s1.txt" "$N1" <<'PY' || { grep -A8 '^scans' "$T/cap.log"; fail "the text summary's s1 record"; }
import sys
l = open(sys.argv[1]).read().splitlines()
n = sys.argv[2]
assert len(l) == 3, l
assert l[1] == "  lost 0, not-rec 0, overrun 0, cut 0, not-arrived %s" % n, l[1]
assert l[2].startswith("  SHORT: data clock"), l[2]
assert max(len(x) for x in l[:2]) <= 80, l
PY
ok "text summary at 80 columns: $(tr '\n' '|' < "$T/s1.txt")"
echo "$CHECKS checks passed"
