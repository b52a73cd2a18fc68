#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Recording control without restarting the capture: a capture on hugepages
# fed through memif, two --write writers, a --schedule file with two scans,
# and scans commanded through telemetry with dpdk-ibvcap-ctl before the
# data comes (the generator's data time starts 10 minutes ahead of the
# wall clock, so every scan is in the future). Invalid commands (unknown
# writer, stop before start, a time in the past, a malformed time,
# overlapping scans, an unknown scan to stop, a bad name) are refused with
# the input, the value and what was expected, and change nothing (the
# status after is the status before). At the end each writer's directory
# holds only its scans' directories, named by scan, every frame in them
# inside the scan's [start, stop) of data time, and per antenna the frames
# and gap frames the generator's pcap and truth say (tests/tools/scancheck.py),
# also in each scan's index.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
record_setup
LAYOUT="--antennas 2 --groups 1 --threads 2"
GENARGS="$LAYOUT --count 2400 --seed 7 --loss 0.01 --start @$T0"

# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)

cat > "$T/scans.txt" <<EOF
# name  start  stop|+duration  [writer=] [antenna=]
sched_a $(utc 100) $(utc 300)
sched_b $(utc 900) +100ms writer=1 antenna=ant0
EOF

# a bad schedule stops the capture before it takes a device, naming the line
printf 'ok1 %s %s\nbad %s %s\n' "$(utc 100)" "$(utc 200)" "$(utc 300)" "$(utc 250)" > "$T/bad.txt"
mkdir -p "$T/x"
rc=0
"$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="${PREFIX}b" --no-huge -m 256 --no-telemetry \
	--log-level=lib.eal:error --vdev net_null0 -- $LAYOUT --write "codif:$T/x" \
	--schedule "$T/bad.txt" > "$T/bad.log" 2>&1 || rc=$?
rm -rf /var/run/dpdk/"${PREFIX}b"
[ $rc = 1 ] && grep -q "schedule $T/bad.txt line 2: until '.*': expected a stop after the start" \
	"$T/bad.log" || { cat "$T/bad.log"; fail "a stop before the start in --schedule: exit $rc"; }
ok "--schedule: a stop before the start refused at start-up, naming line 2 (exit 1)"
rc=0
"$CAP" --lcores 0@0,1@1,2@0 --no-huge -m 256 -- --check-config $LAYOUT --write "codif:$T/x" \
	--schedule "$T/bad.txt" \
	> "$T/chk.log" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q "schedule $T/bad.txt line 2: until" "$T/chk.log" ||
	{ cat "$T/chk.log"; fail "--check-config of a bad --schedule: exit $rc"; }
ok "--check-config: the same line refused (exit 1)"

mkdir -p "$T/w0" "$T/w1"
# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0,3@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --ring 4096 \
	--write "codif:$T/w0" --write "codif:$T/w1" --schedule "$T/scans.txt" \
	--count-packets "$N" --duration 120s --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"


$CTL status > "$T/st0.json" || fail "ctl status"
expect_eq "status before any data: next scan" "$(json_eval "$T/st0.json" 'j["next_scan"], j["current_scan"]')" "('sched_a', '')"
expect_eq "status: writers idle until their scans" "$(json_eval "$T/st0.json" 'j["writer_states"]')" \
	"['idle until sched_a', 'idle until sched_a']"

# the status screen at 80 columns: the current and next scan, no line wider
COLUMNS=80 python3 "$BUILD/app/dpdk-ibvcap-stat" --file-prefix "$PREFIX" --once > "$T/screen.txt" ||
	fail "dpdk-ibvcap-stat --once"
grep -q "^.*scan none  next sched_a at $(utc 100)" "$T/screen.txt" ||
	{ cat "$T/screen.txt"; fail "the status screen does not show the next scan"; }
[ "$(awk 'length > 80' "$T/screen.txt" | wc -l)" = 0 ] || { cat "$T/screen.txt"; fail "a line over 80 columns"; }
ok "status screen (80 columns): $(grep 'next sched_a' "$T/screen.txt")"

# commanded scans
$CTL record on --scan cmd_a --at "$(utc 500)" --for 200ms --writer 0 > "$T/on1.json" ||
	{ cat "$T/on1.json"; fail "record on cmd_a"; }
expect_eq "record on: answer" "$(json_eval "$T/on1.json" 'j["result"], j["did"], j["stop_utc"]')" \
	"('done', 'scan cmd_a added', '$(utc 700 | sed 's/Z$/000000Z/')')"
$CTL record on --scan cmd_b --at "$(utc 450)" --until "$(utc 650)" --writer primary-1-codif \
	--antenna 1 > "$T/on2.json" || { cat "$T/on2.json"; fail "record on cmd_b"; }
$CTL record off --scan cmd_a --at "$(utc 650)" > "$T/off1.json" || { cat "$T/off1.json"; fail "record off cmd_a"; }
expect_eq "record off --at: answer" "$(json_eval "$T/off1.json" 'j["result"], j["did"]')" \
	"('done', '1 scan stops, 0 writers recording everything stop')"

$CTL status > "$T/st1.json"
# refused: exit 3, the input, the value and what was expected; nothing changed
refused() { # WHAT INPUT VALUE-PATTERN ARGS...
	local what=$1 input=$2 pat=$3 rc=0
	shift 3
	$CTL "$@" > "$T/r.json" 2> "$T/r.err" || rc=$?
	[ $rc = 3 ] || { cat "$T/r.json" "$T/r.err"; fail "$what: exit $rc, expected 3"; }
	python3 - "$T/r.json" "$input" "$pat" <<'PY' || { cat "$T/r.json"; fail "$what: reply"; }
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "refused" and d["changed"] == "nothing", d
assert d["input"] == sys.argv[2], d
assert re.search(sys.argv[3], d["value"]), d
assert d["expected"], d
PY
	$CTL status > "$T/st.json"
	python3 - "$T/st1.json" "$T/st.json" <<'PY' || fail "$what: the status changed"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("scan_names", "scan_starts_utc", "scan_stops_utc", "scan_writers", "writer_states"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
	ok "$what: refused ($input '$(json_eval "$T/r.json" 'j["value"]')': expected $(json_eval "$T/r.json" 'j["expected"]')), nothing changed"
}
refused "unknown writer" writer '^7$' record on --scan x1 --at "$(utc 2000)" --for 1s --writer 7
refused "stop before start" until . record on --scan x2 --at "$(utc 2000)" --until "$(utc 1500)"
refused "time in the past" at '^2020' record on --scan x3 --at 2020-01-01T00:00:00Z --for 1s
refused "malformed time" at '^tomorrow$' record on --scan x4 --at tomorrow --for 1s
refused "month 13" at '^2026-13' record on --scan x5 --at 2026-13-01T00:00:00Z --for 1s
refused "overlapping scans" scan '^x6$' record on --scan x6 --at "$(utc 200)" --for 1s --writer 0
refused "scan name taken" scan '^sched_a$' record on --scan sched_a --at "$(utc 3000)" --for 1s
refused "a bad scan name" scan '^a/b$' record on --scan a/b --at "$(utc 3000)" --for 1s
refused "unknown scan to stop" scan '^nope$' record off --scan nope
refused "stop before the scan's start" at . record off --scan cmd_b --at "$(utc 400)"
refused "zero duration" for '^0s$' record on --scan x7 --at "$(utc 3000)" --for 0s
expect_eq "status: scans" "$(json_eval "$T/st1.json" 'j["scan_names"], j["scan_writers"]')" \
	"(['sched_a', 'sched_b', 'cmd_a', 'cmd_b'], ['0,1', '1', '0', '1'])"

# the data, paced (2400 frames per stream at 1000 a second)
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --rate-fps 1000 --linger 60s --pcap "$T/sent.pcap" --truth "$T/truth.json" \
	> "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
# a generator that cannot start (hugepages taken, say) fails here, not after --duration
while kill -0 "$CPID" 2>/dev/null; do
	if ! kill -0 "$GPID" 2>/dev/null; then
		rc=0
		wait "$GPID" || rc=$?
		[ $rc = 0 ] || { tail -5 "$T/gen.log"; fail "the generator exited $rc"; }
		break
	fi
	sleep 0.2
done
wait "$CPID" || { cat "$T/cap.log"; fail "capture exit status"; }
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" ||
	{ head "$T/cmp"; tail -5 "$T/gen.log" "$T/cap.log"; fail "capture counts differ from the truth"; }
ok "capture counts = truth ($(tail -1 "$T/cmp"))"
python3 - "$T/sum.json" <<'PY' || fail "writers lost frames"
import json, sys
w = json.load(open(sys.argv[1]))["buffers"]["writers"]
assert len(w) == 2 and all(x["overrun"] == 0 and x["error"] == 0 for x in w), w
PY

SC=$SRC/tests/tools/scancheck.py
python3 "$SC" "$T/sent.pcap" "$T/truth.json" "$T/w0" ibvcap \
	"sched_a:$(ns 100):$(ns 300)" "cmd_a:$(ns 500):$(ns 650)" > "$T/w0.chk" ||
	{ cat "$T/w0.chk"; find "$T/w0"; fail "writer 0's scans"; }
while read -r l; do ok "writer 0: $l"; done < "$T/w0.chk"
python3 "$SC" "$T/sent.pcap" "$T/truth.json" "$T/w1" ibvcap \
	"sched_a:$(ns 100):$(ns 300)" "cmd_b:$(ns 450):$(ns 650):1" "sched_b:$(ns 900):$(ns 1000):0" \
	> "$T/w1.chk" || { cat "$T/w1.chk"; find "$T/w1"; fail "writer 1's scans"; }
while read -r l; do ok "writer 1: $l"; done < "$T/w1.chk"

# the summary: each writer's scans, and what was not recorded
python3 - "$T/sum.json" <<'PY' || fail "summary's recording"
import json, sys
r = json.load(open(sys.argv[1]))["recording"]
assert r["record"] == "always" and [s["scan"] for s in r["schedule_scans"]] == \
    ["sched_a", "sched_b", "cmd_a", "cmd_b"], r
got = [[s["scan"] for s in w["scans"]] for w in r["writers"]]
assert got == [["sched_a", "cmd_a"], ["sched_a", "cmd_b", "sched_b"]], got
assert all(w["rows_not_recorded"] > 0 for w in r["writers"]), r["writers"]
PY
ok "summary 'recording': the schedule, each writer's scans in order, rows not recorded"

# live: --record idle, data time = wall time (the generator's start is now,
# paced as its CODIF times say); record on now, record off now; the scan's
# bounds are what the answers said, its files hold exactly the truth's
# frames inside them, nothing was recorded outside
GENRT="$LAYOUT --count 15000 --seed 9 --loss 0.01"
mkdir -p "$T/rt" "$T/rtp"
LP=${PREFIX}l # a primary of its own (and a memif socket: the first's is still bound)
CLEANUP_CMDS+=("rm -f /dev/hugepages/${LP}*; rm -rf /var/run/dpdk/${LP}")
CTL="python3 $BUILD/app/dpdk-ibvcap-ctl --file-prefix $LP"
MEMIF="socket=$T/memif2.sock,socket-abstract=no,bsize=16384,rsize=9"
# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0,3@1 --no-pci --file-prefix="$LP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --ring 4096 \
	--write "codif:$T/rt" --write "pcap:$T/rtp,all=yes" --record idle --duration 60s --idle-timeout 2s \
	--summary-json "$T/sum_rt.json" > "$T/cap_rt.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap_rt.log" 30 "primary (live) did not start"
expect_eq "--record idle: writer state" "$($CTL status | json_get - writer_states)" "['idle', 'idle']"
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENRT --start "@$(date +%s)" --linger 30s --pcap "$T/sent_rt.pcap" --truth "$T/truth_rt.json" \
	> "$T/gen_rt.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
sleep 0.7
$CTL record on --scan live1 > "$T/on_rt.json" || { cat "$T/on_rt.json"; fail "record on now"; }
sleep 0.5
$CTL record off > "$T/off_rt.json" || { cat "$T/off_rt.json"; fail "record off now"; }
rc=0
$CTL record off > "$T/off_rt2.json" 2>/dev/null || rc=$?
expect_eq "record off again (nothing recording): exit, input" \
	"$rc $(json_eval "$T/off_rt2.json" 'j["input"]')" "3 writer"
wait "$CPID" || { cat "$T/cap_rt.log"; fail "capture (live) exit status"; }
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
bounds=$(python3 - "$T/on_rt.json" "$T/off_rt.json" <<'PY'
import calendar, json, sys, time
def ns(s):
    return calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(s[20:29])
print("%d:%d" % (ns(json.load(open(sys.argv[1]))["start_utc"]), ns(json.load(open(sys.argv[2]))["stop_utc"])))
PY
)
python3 "$SC" "$T/sent_rt.pcap" "$T/truth_rt.json" "$T/rt" ibvcap "live1:$bounds" > "$T/rt.chk" ||
	{ cat "$T/rt.chk"; find "$T/rt"; fail "the live scan"; }
ok "live: record on now .. record off now: $(cat "$T/rt.chk")"
# the same scan in one pcap of every antenna (all=yes): only its packets
python3 - "$T/rtp" "$bounds" "$T/rt/live1/ibvcap_scan.codif.json" <<'PY' || fail "the live scan's pcap"
import glob, json, os, sys
sys.path.insert(0, os.environ["SRC"] + "/tests/tools")
from pcaprec import records, codif_time_ns
lo, hi = (int(x) for x in sys.argv[2].split(":"))
assert sorted(os.listdir(sys.argv[1])) == ["live1"], os.listdir(sys.argv[1])
files = glob.glob(sys.argv[1] + "/live1/*.pcap")
ts = [codif_time_ns(p) for f in files for p in records(f)]
assert len(files) == 1 and all(lo <= t < hi for t in ts), (files, min(ts), max(ts), lo, hi)
want = json.load(open(sys.argv[3]))["frames"]
idx = json.load(open(sys.argv[1] + "/live1/ibvcap_scan.pcap.json"))
assert len(ts) == want == idx["frames"] and idx["antennas"][0]["antenna"] == "all", (len(ts), want, idx)
print(len(ts))
PY
ok "live, pcap all=yes: one file in live1/, every packet inside the bounds, as many as the codif scan's frames"
