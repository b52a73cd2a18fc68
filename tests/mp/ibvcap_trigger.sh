#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: triggered dumps (/ibvcap/trigger) from the rings of a running
# capture on hugepages, fed through memif by a paced codifgen (streams with
# loss and reordering), the ring sized by --retain, a --write codif writer
# recording everything beside it. (a) a past window still in the rings is
# byte for byte the same window cut by CODIF time from the full recording;
# a window asked before its data was sent waits for it; (b) a window partly
# overwritten (a ring of 1024 rows) writes exactly the rows the ring still
# had and reports the rest as overwritten (rows x streams, from the
# generator's frame count and the ring size); a window past the final rows
# reports what had not arrived after its timeout, and one that waits while
# the capture stops is completed by the rows the stop makes final; (c) the
# capture's counts equal the truth; (d) bad triggers are refused naming the
# input, its value and what was expected, and write nothing.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
CTL=("python3" "$BUILD/app/dpdk-ibvcap-ctl")
# dpdk-ibvcap-ctl trigger from the telemetry command's own spelling
# T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T][,prefix=P]
ctl_trigger() {
	local f x ants=() args
	IFS=, read -r -a f <<< "$1"
	args=(trigger "${f[0]}" "${f[1]}" --format "${f[2]}" --dir "${f[3]}")
	for x in "${f[@]:4}"; do
		case $x in
		timeout=*) args+=(--timeout "${x#*=}") ;;
		prefix=*) args+=(--prefix "${x#*=}") ;;
		*) ants+=("$x") ;;
		esac
	done
	[ ${#ants[@]} = 0 ] || args+=(--antenna "$(IFS=,; echo "${ants[*]}")")
	"${CTL[@]}" --file-prefix "$PREFIX" "${args[@]}"
}
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
MEMIF="socket=$T/memif.sock,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--antennas 2 --groups 1 --threads 2"
N=3000
GENARGS="$LAYOUT --count $N --seed 7 --loss 0.01 --reorder 0.02 --reorder-depth 4"
# what the run sends (the generator is deterministic)
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/truth.json" --quiet
n=$(json_get "$T/truth.json" totals sent)
mkdir -p "$T/full" "$T/a" "$T/araw" "$T/b" "$T/early" "$T/wait" "$T/late" "$T/bad" "$T/over"

# the ring is sized at --frame-rate; the first frame tells the stream's own
# rate: 0.1 s at 1000 frames/s is 100 + 64 rows, 256, which hold 192 frames
# of 432 us (82.944 ms) of this stream: said once per antenna
python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"
"$GEN" $LAYOUT --count 200 --antenna 0 --pcap "$T/w0.pcap" --quiet
"$CAP" -l 0,1 --no-pci --file-prefix="${PREFIX}w" --log-level=lib.eal:error --no-huge -m 512 \
	--no-telemetry --vdev "net_pcap0,rx_pcap=$T/w0.pcap,rx_pcap=$T/empty.pcap,rx_pcap=$T/empty.pcap" -- \
	$LAYOUT --stats-period 0 --retain 0.1s --frame-rate 1000 --count-packets 200 \
	--idle-timeout 2s > "$T/warn.log" 2>&1 || { cat "$T/warn.log"; fail "capture with a wrong --frame-rate"; }
grep -q "warning: --retain 0.1s: antenna ant0's ring of 256 frames holds 0.082944 s of its data (192 frames of 432 us: 62500 frames per 27 s in its headers, 2314.81 frames/s, not the 1000 of --frame-rate): triggered dumps reach 0.082944 s back, not 0.1 s; give --frame-rate 2314.81" \
	"$T/warn.log" || { grep -e warning -e '^ring' "$T/warn.log"; fail "no --retain warning at the first frame"; }
expect_eq "--retain warnings (ant0 only had frames)" "$(grep -c 'warning: --retain' "$T/warn.log")" 1

# --retain 0.25s: 579 frames at --frame-rate 2314.8 (the generator's 62500
# frames per 27 s) + the window of 64: a ring of 1024 rows, 2 s of sending
# (a writer or trigger starved of CPU that long on this shared machine
# loses rows). Main, rx and the writer on 2 CPUs; telemetry on (the
# trigger's way in).
# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --retain 0.25s \
	--duration 1000s --write "codif:$T/full" --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "capture did not start"
grep -q "^ring = 1024   # frames per antenna, from --retain" "$T/cap.log" || { grep '^ring\|^retain' "$T/cap.log"; fail "ring not sized from --retain"; }
grep -q "^retain = 0.250s   # 579 frames" "$T/cap.log" || { grep '^retain' "$T/cap.log"; fail "retain line"; }
ok "--retain 0.25s: a ring of 1024 rows (579 frames + the reorder window, a power of two)"

# a window asked before its frames are sent: it waits for them
ctl_trigger \
	"2025-01-01T00:00:01.0Z,2025-01-01T00:00:01.1Z,codif,$T/early,timeout=60s" \
	> "$T/early.json" 2> "$T/early.err" &
EPID=$!
CLEANUP_PIDS+=("$EPID")
# the trigger is a job before the first frame is sent (a loaded machine
# may start the generator before ctl)
wait_for_line "$T/cap.log" 30 'trigger 1 started' || { cat "$T/early.err"; fail "the early trigger did not start"; }
# 500 frames a second a stream: 6 s of sending, 1.3 s of data
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --rate-fps 500 --linger 1000s --pcap "$T/sent.pcap" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
got=$(packets_in "$n" 600)
expect_eq "packets in before the triggers" "$got" "$n"
! grep -q "warning: --retain" "$T/cap.log" || fail "--retain warned, though the stream's rate is --frame-rate's"
wait "$EPID" || { cat "$T/early.json" "$T/early.err"; fail "the early trigger failed"; }
python3 - "$T/early.json" <<'PY' || fail "early trigger: $(cat "$T/early.json")"
import json, sys
r = json.load(open(sys.argv[1]))
P = 432000
i0, i1 = -(-1000 * 10**6 // P), -(-1100 * 10**6 // P)
assert r["state"] == "done" and r["ended"] == "window done" and r["wall_ms"] > 500, r
overs = 0
for a in ("ant0", "ant1"):
    x = r[a]
    # whole, unless the dump was starved of CPU for longer than the ring
    # while it passed over the rows before T0: then exactly what it missed
    # is said to be overwritten, from T0 to its first row
    over = x.get("overwritten_frames", 0)
    overs += over
    assert x["window_frames"] == (i1 - i0) * 2, x
    assert x["complete"] == ("yes" if over == 0 else "no"), x
    assert x["frames"] + x["placeholders"] + over == (i1 - i0) * 2, x
    if over:
        assert x["overwritten_from"] == "2025-01-01T00:00:01.000000000Z", x
        assert x["overwritten_to"] == x["written_from"], x
    assert x["lost_while_dumping"] == 0, x
    print("%s: %d frames, %d gap frames, %d overwritten" % (a, x["frames"], x["placeholders"], over))
assert r["result"] == ("complete" if overs == 0 else "partial"), r
PY
ok "a trigger asked before its data was sent waited for it ($(json_get "$T/early.json" wall_ms) ms): all of it written (or what it missed said exactly)"

trig() { # DIR-NAME SPEC... -> $T/DIR-NAME.json
	local name=$1
	shift
	local rc=0
	ctl_trigger "$*" > "$T/$name.json" 2> "$T/$name.err" || rc=$?
	echo "$rc" > "$T/$name.rc"
}
# the data: frame i at 2025-01-01T00:00:00 + i x 432 us
trig a "2025-01-01T00:00:01.1Z,2025-01-01T00:00:01.2Z,codif,$T/a"
trig araw "@1735689601.1,@1735689601.2,raw,$T/araw,ant0+ant1,prefix=w"
trig b "2025-01-01T00:00:00.5Z,2025-01-01T00:00:01.2Z,codif,$T/b,ant0,1"
trig late "2025-01-01T00:00:01.2Z,2025-01-01T00:00:01.4Z,codif,$T/late,timeout=1s"
# long gone from the rings (1024 rows of 3000): nothing to write
trig over "2025-01-01T00:00:00.1Z,2025-01-01T00:00:00.2Z,codif,$T/over"
python3 - "$T" "$N" <<'PY' || fail "trigger replies"
import json, sys
T, N = sys.argv[1], int(sys.argv[2])
P, R, W = 432000, 1024, 64         # frame ns, ring rows, reorder window
def idx(ns):                        # the first frame at or after ns (from 00:00:00)
    return -(-ns // P)
def utc(i):
    ns = i * P
    return "2025-01-01T00:00:%02d.%09dZ" % (ns // 10**9, ns % 10**9)
oldest, final = N - R, N - W        # what the ring held: [oldest, final)
# b is partly overwritten, late partly not arrived: partial (ctl exits 4)
for name, t0, t1, want, ended in (("a", 1100, 1200, "complete", "window done"),
                                  ("araw", 1100, 1200, "complete", "window done"),
                                  ("b", 500, 1200, "partial", "window done"),
                                  ("late", 1200, 1400, "partial", "timeout")):
    r = json.load(open("%s/%s.json" % (T, name)))
    assert r["result"] == want and r["ended"] == ended and r["state"] == "done", (name, r)
    assert int(open("%s/%s.rc" % (T, name)).read()) == (0 if want == "complete" else 4), name
    i0, i1 = idx(t0 * 10**6), idx(t1 * 10**6)
    for a in ("ant0", "ant1"):
        x = r[a]
        w0, w1 = max(i0, oldest), min(i1, final)
        assert x["frames"] + x["placeholders"] == (w1 - w0) * 2, (name, a, x, w0, w1)
        assert x["written_from"] == utc(w0) and x["written_to"] == utc(w1), (name, a, x)
        assert x["ring_oldest"] == utc(oldest), (name, a, x)
        assert x["files"] == 1 and x["lost_while_dumping"] == 0, (name, a, x)
        # every frame of the window accounted for: written, overwritten or
        # not arrived
        assert x["window_frames"] == (i1 - i0) * 2, (name, a, x)
        assert x["frames"] + x["placeholders"] + x.get("overwritten_frames", 0) + \
            x.get("not_arrived_frames", 0) == x["window_frames"], (name, a, x)
        if i0 < oldest:
            # from T0 itself (data time) to the oldest row the ring had
            assert x["overwritten_from"] == "2025-01-01T00:00:%02d.%09dZ" % (
                t0 // 1000, t0 % 1000 * 10**6) and x["overwritten_to"] == utc(oldest), x
            assert x["overwritten_frames"] == (oldest - i0) * 2, (name, a, x)
        else:
            assert "overwritten_frames" not in x, (name, a, x)
        if i1 > final:
            assert x["not_arrived_from"] == utc(final), (name, a, x)
            assert x["not_arrived_frames"] == (i1 - final) * 2, (name, a, x)
            assert x["complete"] == "no", x
        else:
            assert "not_arrived_frames" not in x, (name, a, x)
        # an antenna is complete when its whole window is in its files
        assert x["complete"] == ("yes" if i0 >= oldest and i1 <= final else "no"), (name, a, x)
    assert len(r["files"]) == 2 and r["files_written"] == 2, r
    assert r["lost_while_dumping"] == 0, r
# the whole window overwritten: result overwritten, nothing written, every
# frame of it counted as overwritten; ctl exits 4
r = json.load(open(T + "/over.json"))
assert r["result"] == "overwritten" and r["ended"] == "window done", r
assert int(open(T + "/over.rc").read()) == 4
assert r["files_written"] == 0 and r["frames"] == 0 and r["placeholders"] == 0, r
i0, i1 = idx(100 * 10**6), idx(200 * 10**6)
for a in ("ant0", "ant1"):
    x = r[a]
    assert x["complete"] == "no" and x["files"] == 0, x
    assert x["window_frames"] == (i1 - i0) * 2 == x["overwritten_frames"], x
    assert x["overwritten_from"] == "2025-01-01T00:00:00.100000000Z", x
    assert x["overwritten_to"] == "2025-01-01T00:00:00.200000000Z", x
    assert "not_arrived_frames" not in x and "blocked" not in x, x
assert r["overwritten_frames"] == (i1 - i0) * 4, r
print("over: overwritten %d frames, exit 4" % r["overwritten_frames"])
b = json.load(open(T + "/b.json"))
print("b: overwritten %d frames an antenna (%s .. %s), written %d + %d gap frames" % (
    b["ant0"]["overwritten_frames"], b["ant0"]["overwritten_from"], b["ant0"]["overwritten_to"],
    b["ant0"]["frames"], b["ant0"]["placeholders"]))
PY
ok "replies: files, frames + gap frames = rows x streams written, the overwritten part (ring of 1024) and what had not arrived (timeout 1s), each exact"
grep -Eq "trigger [0-9]+: ant0: already overwritten \[2025-01-01T00:00:00.500000000Z, 2025-01-01T00:00:00.853632000Z\): 1636 frames" "$T/cap.log" || { grep trigger "$T/cap.log"; fail "no log line of the overwritten part"; }
grep -Eq "trigger [0-9]+ \[2025-01-01T00:00:01.200000000Z, 2025-01-01T00:00:01.400000000Z\) codif to $T/late: partial \(timeout\)" "$T/cap.log" || fail "no log line of the timeout"
grep -q "not the whole window: ant0: overwritten 1636 frames; ant1: overwritten 1636 frames" "$T/b.err" || fail "ctl's line of the partial trigger: $(cat "$T/b.err")"
ok "the log says each trigger's result and the overwritten and not arrived parts"

# (d) bad triggers: refused, named, nothing written
touch "$T/afile"
bad() { # EXIT INPUT VALUE EXPECTED-SUBSTRING SPEC
	local rc=0
	ctl_trigger "$5" > "$T/bad.json" 2> "$T/bad.err" || rc=$?
	[ "$rc" = "$1" ] || fail "trigger '$5': exit $rc, expected $1"
	python3 - "$T/bad.json" "$2" "$3" "$4" <<'PY' || fail "trigger '$5': reply $(cat "$T/bad.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["error"].startswith("trigger refused"), r
assert r["input"] == sys.argv[2] and r["value"] == sys.argv[3], r
assert sys.argv[4] in r["expected"], r
PY
	grep -qF "refused, nothing changed: $2 '$3': expected" "$T/bad.err" || fail "trigger '$5': stderr $(cat "$T/bad.err")"
	ok "refused: $2 '$3' ($4)"
}
bad 3 T1 "2025-01-01T00:00:01Z" "a time after T0 (2025-01-01T00:00:01.000000000Z)" \
	"2025-01-01T00:00:01Z,2025-01-01T00:00:01Z,codif,$T/bad"
bad 3 T1 "@1735689600" "a time after T0" "@1735689601,@1735689600,codif,$T/bad"
bad 3 T0 "yesterday" "a UTC time" "yesterday,@1735689601,codif,$T/bad"
bad 3 antenna ant7 "one of ant0 .. ant1, or an index 0 .. 1" "@1735689601,@1735689601.1,codif,$T/bad,ant7"
bad 3 antenna 2 "one of ant0" "@1735689601,@1735689601.1,codif,$T/bad,ant0+2"
bad 3 FORMAT vdif "codif, raw, pcap or pcapng" "@1735689601,@1735689601.1,vdif,$T/bad"
bad 3 DIR "$T/nothere" "a directory that takes new files; it does not exist" \
	"@1735689601,@1735689601.1,codif,$T/nothere"
bad 3 DIR "$T/afile" "a directory that takes new files; it is a regular file" \
	"@1735689601,@1735689601.1,codif,$T/afile"
# a relative DIR, straight to the socket (dpdk-ibvcap-ctl makes it absolute)
python3 "$STAT" --file-prefix "$PREFIX" --query "/ibvcap/trigger,@1735689601,@1735689601.1,codif,bad" > "$T/rel.json"
python3 - "$T/rel.json" <<'PY' || fail "relative DIR: $(cat "$T/rel.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["input"] == "DIR" and r["value"] == "bad" and "an absolute path" in r["expected"], r
PY
ok "refused: DIR 'bad' (relative: the capture's working directory is not the caller's)"
bad 3 timeout "soon" "a duration" "@1735689601,@1735689601.1,codif,$T/bad,timeout=soon"
bad 3 timeout "11m" "a duration of at most 600 s (10 min)" "@1735689601,@1735689601.1,codif,$T/bad,timeout=11m"
bad 3 T1 "@1735693201.1" "at most 3600 s (1 h) after T0" "@1735689601,@1735693201.1,codif,$T/bad"
# a newline in the prefix (past ctl_trigger's read: straight to ctl)
rc=0
"${CTL[@]}" --file-prefix "$PREFIX" trigger @1735689601 @1735689601.1 --dir "$T/bad" \
	--prefix $'a\nb' > "$T/bad.json" 2> "$T/bad.err" || rc=$?
expect_eq "a prefix with a newline: ctl's exit" "$rc" 3
python3 - "$T/bad.json" <<'PY' || fail "prefix with a newline: reply $(cat "$T/bad.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["input"] == "prefix" and r["value"] == "a\\nb", r
assert r["expected"] == "a file name prefix: a name of 1 to 63 characters, without control characters or '/'", r
PY
grep -qF "refused, nothing changed: prefix 'a\nb': expected a file name prefix" "$T/bad.err" || fail "prefix with a newline: stderr $(cat "$T/bad.err")"
ok "refused: prefix 'a\nb' (a newline, shown escaped)"
bad 3 prefix "a/b" "a file name prefix: a name of 1 to 63 characters, without control characters or '/'" \
	"@1735689601,@1735689601.1,codif,$T/bad,prefix=a/b"
expect_eq "nothing written by refused triggers" "$(find "$T/bad" -type f | wc -l)" 0
grep -q "trigger @1735689601,@1735689600,codif,$T/bad refused: T1 '@1735689600': expected a time after T0" \
	"$T/cap.log" || fail "no log line of a refusal"
ok "refusals logged with the parameters"

# a window past the final rows, waiting while the capture stops: the stop
# makes its rows final and it completes
ctl_trigger \
	"2025-01-01T00:00:01.26Z,2025-01-01T00:00:01.29Z,codif,$T/wait,timeout=60s" \
	> "$T/wait.json" 2> "$T/wait.err" &
WPID=$!
CLEANUP_PIDS+=("$WPID")
# the capture has it (ctl may be slow to start on a loaded machine)
wait_for_line "$T/cap.log" 60 "trigger [0-9]+ started: \[2025-01-01T00:00:01.260000000Z" ||
	{ cat "$T/wait.json" "$T/wait.err"; fail "the waiting trigger did not start"; }
sleep 2
kill -0 "$WPID" 2>/dev/null || { cat "$T/wait.json" "$T/wait.err"; fail "the waiting trigger did not wait"; }
"${CTL[@]}" --file-prefix "$PREFIX" trigger-status > "$T/list.json"
python3 - "$T/list.json" <<'PY' || fail "trigger list: $(cat "$T/list.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["running"] == 1 and r["7"] == "running", r
assert r["2"] == "complete" and r["4"] == "partial" and r["6"] == "overwritten", r
PY
ok "a trigger for rows not final yet waits (2 s; the list: it running, the others' results)"
kill -INT "$CPID"
wait "$CPID" || { tail "$T/cap.log"; fail "capture exit status"; }
wait "$WPID" || { cat "$T/wait.json" "$T/wait.err"; fail "waiting trigger failed"; }
python3 - "$T/wait.json" <<'PY' || fail "waiting trigger: $(cat "$T/wait.json")"
import json, sys
r = json.load(open(sys.argv[1]))
P = 432000
i0, i1 = -(-1260 * 10**6 // P), -(-1290 * 10**6 // P)
assert r["result"] == "complete" and r["state"] == "done", r
for a in ("ant0", "ant1"):
    assert r[a]["frames"] + r[a]["placeholders"] == (i1 - i0) * 2, r[a]
    assert r[a]["complete"] == "yes", r[a]
PY
ok "the waiting trigger completed when the stop made its rows final ($(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["frames"], "frames,", r["placeholders"], "gap frames")' "$T/wait.json"))"

# (c) the capture's counts are the truth's, triggers or not
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" || { head "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture counts = truth with six triggers and a writer"
# the writer's own account first: frames it lost to the ring (a writer
# starved of CPU for the ring's 0.25 s on a loaded host) are counted
# there, and a recording short of them is not a silent loss
python3 - "$T/sum.json" <<'PY' || fail "the full writer lost frames (counted)"
import json, sys
w = json.load(open(sys.argv[1]))["buffers"]["writers"]
assert len(w) == 1 and w[0]["overrun"] == 0 and w[0]["error"] == 0, w
PY
python3 "$VER" "$T/dry.pcap" --format codif "$T/full" > "$T/full.ver" ||
	{ cat "$T/full.ver"; fail "the full recording (its writer counted no loss)"; }

# (a, b) byte for byte: each trigger file = the full recording's frames in
# the same window of CODIF time (b: from the oldest row the ring had)
python3 - "$T" "$SRC/tests/tools" <<'PY' || fail "triggered dumps differ from the full recording"
import glob, json, os, sys
T = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from pcaprec import codif_time_ns
FR = 64 + 8192
def frames(path):
    d = open(path, "rb").read()
    assert len(d) % FR == 0, path
    for o in range(0, len(d), FR):
        f = d[o:o + FR]
        # a fake Ethernet + IPv4 + UDP head for pcaprec's reader
        yield codif_time_ns(b"\0" * 12 + b"\x08\x00" + b"\0" * 28 + f), f
def cut(ant, t0, t1):
    out = b""
    for p in sorted(glob.glob("%s/full/ibvcap_%s_*.codif" % (T, ant))):
        out += b"".join(f for t, f in frames(p) if t0 <= t < t1)
    return out
def utc_ns(s):  # 2025-01-01T00:00:SS.nnnnnnnnnZ
    return 1735689600 * 10**9 + int(s[17:19]) * 10**9 + int(s[20:29])
n = 0
for name in ("a", "b", "early", "wait"):
    r = json.load(open("%s/%s.json" % (T, name)))
    for ant in ("ant0", "ant1"):
        x = r[ant]
        got = b"".join(open(p, "rb").read() for p in sorted(glob.glob("%s/%s/trigger_%s_*.codif" % (T, name, ant))))
        want = cut(ant, utc_ns(x["written_from"]), utc_ns(x["written_to"]))
        assert len(got) == (x["frames"] + x["placeholders"]) * FR, (name, ant, len(got))
        assert got == want, (name, ant, len(got), len(want))
        n += len(got) // FR
print(n)
PY
ok "triggered codif files = the full recording cut by CODIF time, byte for byte"
python3 - "$T" <<'PY' || fail "raw trigger"
import glob, json, sys
T = sys.argv[1]
r = json.load(open(T + "/araw.json"))
for ant in ("ant0", "ant1"):
    raw = glob.glob("%s/araw/w_%s_*.raw" % (T, ant))
    idx = glob.glob("%s/araw/w_%s_*.raw.json" % (T, ant))
    assert len(raw) == 1 and len(idx) == 1, (raw, idx)
    j = json.load(open(idx[0]))
    rows = (r[ant]["frames"] + r[ant]["placeholders"]) // 2
    import os
    assert os.path.getsize(raw[0]) == rows * 2 * 8192, (raw, rows)
    assert sum(g["count"] for g in j["gaps"]) == r[ant]["placeholders"], j["gaps"]
PY
ok "raw trigger: one file and index per antenna (prefix=w), rows x streams of data, gaps as the reply says"
"$CHK" verify --pattern "$T/a" "$T/b" "$T/early" "$T/araw" > "$T/chk" 2>&1 || { cat "$T/chk"; fail "codifcheck verify"; }
ok "codifcheck verify --pattern: the triggered files"
expect_eq "no .part left" "$(find "$T/full" "$T/a" "$T/araw" "$T/b" "$T/early" "$T/wait" "$T/late" -name '*.part' | wc -l)" 0
expect_eq "nothing written by the overwritten trigger" "$(find "$T/over" -type f | wc -l)" 0
