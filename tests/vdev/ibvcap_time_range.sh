#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Times beyond the int64-nanosecond range (after 2262-04-11T23:47:16Z,
# before 1677-09-21) are refused with a clear message wherever a time is
# read, never wrapped (9999-01-01 once read as 1816-03-30 and was refused
# as "not in the past"): the capture's --schedule, dpdk-ibvcap-ctl record
# --at/--until and trigger T0/T1 on a live capture, codifgen --start (and a
# run whose last frame would pass the end), codifcheck --since. A CODIF
# frame of epoch 255 whose seconds reach 2263 is refused as a bad header
# naming the range (once: a file named 1679), by the capture and codifcheck.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
FAR=9999-01-01T00:00:00Z
RANGE="out of range"
LAY="--antennas 1 --groups 1 --threads 1"

# codifgen --start, and a run that would end beyond the range
rc=0
"$GEN" $LAY --start "$FAR" --count 10 --pcap "$T/x.pcap" 2> "$T/gen.err" || rc=$?
[ $rc -ne 0 ] && grep -q "'$FAR': expected a UTC time within 1677-09-21.* .. 2262-04-11.*$RANGE" "$T/gen.err" ||
	{ cat "$T/gen.err"; fail "codifgen --start $FAR: exit $rc"; }
rc=0
"$GEN" $LAY --epoch 255 --start 2262-04-11T23:47:00Z --count 100000 --pcap "$T/x.pcap" \
	2> "$T/gen2.err" || rc=$?
[ $rc -ne 0 ] && grep -q "the last frame's time is after the times this program can hold" "$T/gen2.err" ||
	{ cat "$T/gen2.err"; fail "codifgen past 2262: exit $rc"; }
ok "codifgen: --start $FAR and a run ending after 2262-04-11 refused, naming the range"

# codifcheck --since
"$GEN" $LAY --count 20 --pcap "$T/good.pcap" --truth "$T/good.json" --quiet
rc=0
"$CHK" verify --since "$FAR" "$T/good.pcap" > "$T/cc.out" 2>&1 || rc=$?
[ $rc -ne 0 ] && grep -q "$RANGE" "$T/cc.out" || { cat "$T/cc.out"; fail "codifcheck --since $FAR: exit $rc"; }
ok "codifcheck --since $FAR: refused as out of range"

# an epoch-255 frame at 2263 (seconds 4289999997 after 2127-07-01) between
# good ones: a bad header, named with the range; the good ones counted
python3 - "$T/good.pcap" "$T/e255.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
hdr, off, recs = d[:24], 24, []
while off < len(d):
    ts1, ts2, cap, ln = struct.unpack("<IIII", d[off:off + 16])
    recs.append(bytearray(d[off:off + 16 + cap]))
    off += 16 + cap
bad = bytearray(recs[10])
c = 16 + 42  # record header + Ethernet/IPv4/UDP: the CODIF header
w0, w1 = struct.unpack("<QQ", bad[c:c + 16])
w0 = (w0 & 0xFFFFFFFF) | (4289999997 << 32)
w1 = (w1 & ~0xFF) | 255
bad[c:c + 16] = struct.pack("<QQ", w0, w1)
recs.insert(11, bad)
open(sys.argv[2], "wb").write(hdr + b"".join(recs))
PY
"$CHK" info --json "$T/e255.pcap" > "$T/e255.json" 2> "$T/e255.err" || true
rc=0
"$CHK" verify "$T/e255.pcap" > "$T/e255.ver" 2>&1 || rc=$?
[ $rc -ne 0 ] && grep -q "seconds 4289999997 of epoch 255: a time after 2262-04-11T23:47:16.854775807Z, beyond the int64-nanosecond range" "$T/e255.ver" ||
	{ cat "$T/e255.ver"; fail "codifcheck verify: the epoch-255 frame"; }
! grep -q "16[0-9][0-9]-\|17[0-9][0-9]-" "$T/e255.ver" "$T/e255.json" ||
	{ grep "16[0-9][0-9]-\|17[0-9][0-9]-" "$T/e255.ver" "$T/e255.json"; fail "a wrapped time printed"; }
python3 - "$T/e255.json" <<'PY' || fail "codifcheck info: the epoch-255 frame"
import json, sys
s = json.load(open(sys.argv[1]))
a = s["files"][0]["antennas"][0] if "files" in s else s["antennas"][0]
assert a["malformed"] == 1 and a["malformed_by_cause"]["bad-header"] == 1, a
PY
ok "codifcheck: an epoch-255 frame of 2263: a bad header naming the range, no 1679 anywhere"

# the capture: that frame a bad header too; its --schedule refuses the far time
"$CAP" -l 0,1 $EAL_COMMON --no-huge -m 256 --no-telemetry --vdev "net_pcap0,rx_pcap=$T/e255.pcap" \
	-- $LAY --no-buffers --count-packets 21 --idle-timeout 10s --stats-period 0 \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 || { cat "$T/cap.log"; fail "capture of the epoch-255 frame"; }
python3 - "$T/sum.json" <<'PY' || fail "capture: the epoch-255 frame"
import json, sys
a = json.load(open(sys.argv[1]))["antennas"][0]
assert (a["received"], a["malformed"], a["malformed_by_cause"]["bad-header"]) == (20, 1, 1), a
PY
ok "dpdk-ibvcap: the epoch-255 frame of 2263 counted malformed bad-header, the 20 good ones received"
printf 's1 %s +10s\n' "$FAR" > "$T/scans.txt"
mkdir -p "$T/w"
rc=0
"$CAP" -l 0,1 --no-huge -m 256 -- --check-config $LAY --write "codif:$T/w" --schedule "$T/scans.txt" \
	> "$T/sched.log" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q "line 1: at '$FAR': expected a UTC time within .*$RANGE" "$T/sched.log" &&
	! grep -q "in the past\|1816" "$T/sched.log" || { cat "$T/sched.log"; fail "--schedule with $FAR: exit $rc"; }
ok "--schedule with $FAR: refused at start-up as out of range (not 'in the past')"

# a live capture: ctl record --at/--until and trigger T0/T1
CTL="python3 $BUILD/app/dpdk-ibvcap-ctl --file-prefix $PREFIX"
"$CAP" --lcores 0@0,1@1,2@0 $EAL_COMMON --no-huge -m 512 --vdev "net_pcap0,rx_pcap=$T/good.pcap" \
	-- $LAY --ring 1024 --write "codif:$T/w" --record idle --duration 60s --stats-period 0 \
	> "$T/live.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/live.log" 30 "capture did not start"
for args in "record on --scan far --at $FAR --for 1s" "record on --scan far2 --until $FAR" \
	"trigger $FAR 9999-01-01T00:00:01Z --dir $T/w" "trigger 2025-01-01T00:00:00Z $FAR --dir $T/w"; do
	rc=0
	# shellcheck disable=SC2086
	$CTL $args > "$T/ctl.out" 2>&1 || rc=$?
	[ $rc -ne 0 ] && grep -q "$RANGE" "$T/ctl.out" && ! grep -q "in the past\|1816" "$T/ctl.out" ||
		{ cat "$T/ctl.out"; fail "ctl $args: exit $rc"; }
done
ok "dpdk-ibvcap-ctl record --at/--until and trigger T0/T1 $FAR: refused as out of range, exit non-zero"
kill -INT "$CPID"
wait "$CPID" || true
