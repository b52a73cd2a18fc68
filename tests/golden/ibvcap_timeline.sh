#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: one timeline per stream that no bad header can break. codifgen's
# timeline events (a flipped header bit, a stray frame a month ahead or 3 h
# behind, a permanent clock step of +-3 h, a burst of 500 lost frames, new
# parameters) through dpdk-ibvcap with the codif, raw and pcap writers, and
# through codifcheck info, verify and convert: every count equal to the
# generator's ground truth field by field, every good frame written byte for
# byte (tests/tools/verify_outputs.py, an independent reader), no odd frame
# written, files split at resyncs and new parameters, all of them valid.
. "$(dirname "$0")/../lib.sh"
set -e
# 5 lcores on 2 CPUs: main, rx, three writers (they sleep when idle)
EAL="--lcores 0@0,1@1,2@0,3@1,4@0 $EAL_COMMON --no-huge -m 1024 --no-telemetry"
python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"

# run NAME "LAYOUT" "GEN-ARGS": per-antenna pcaps -> one queue each ->
# three writers (the ring holds the whole run: no writer may fall behind);
# counts, files and codifcheck against the truth. LAYOUT: --antennas N
# --groups G --threads T, for both programs.
run() {
	local name=$1 lay=$2 args="$2 $3" d="$T/$1" vdev n fmt nant
	nant=$(echo "$lay" | sed 's/.*--antennas \([0-9]*\).*/\1/')
	mkdir -p "$d/codif" "$d/raw" "$d/pcap" "$d/conv"
	# shellcheck disable=SC2086
	pcap_antennas "$d" "$nant" $args
	vdev=$VDEV n=$SENT
	# shellcheck disable=SC2086
	"$CAP" $EAL --vdev "$vdev" -- $lay --ring 4096 --count-packets "$n" --idle-timeout 20s \
		--stats-period 0 --write "codif:$d/codif" --write "raw:$d/raw" \
		--write "pcap:$d/pcap" --summary-json "$d/sum.json" > "$d/cap.log" 2>&1 ||
		{ cat "$d/cap.log"; fail "$name: dpdk-ibvcap failed"; }
	python3 "$CMP" "$d/truth.json" "$d/sum.json" --unattributed > "$d/cmp" ||
		{ cat "$d/cmp"; fail "$name: capture counts differ from the truth"; }
	ok "$name: capture = truth field by field ($(tail -1 "$d/cmp"))"
	for fmt in codif raw pcap; do
		python3 "$VER" "$d/sent.pcap" --truth "$d/truth.json" --format $fmt "$d/$fmt" \
			> "$d/$fmt.ver" || { cat "$d/$fmt.ver"; fail "$name: $fmt files"; }
		"$CHK" verify --pattern "$d/$fmt" > "$d/$fmt.chk" 2>&1 ||
			{ cat "$d/$fmt.chk"; fail "$name: codifcheck verify $fmt"; }
	done
	ok "$name: codif, raw, pcap: good frames byte for byte, gaps where lost, no odd frame; verify clean"
	expect_eq "$name: no .part left" "$(find "$d" -name '*.part' | wc -l)" 0
	# the writers' figures match the disk
	python3 - "$d/truth.json" "$d/sum.json" <<'PY' || fail "$name: writer counts"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
w = {x["format"]: x for x in json.load(open(sys.argv[2]))["buffers"]["writers"]}
for f in ("codif", "raw", "pcap"):
    assert w[f]["written"] == t["received"], (f, w[f], t["received"])
    assert w[f]["overrun"] == 0 and w[f]["error"] == 0, w[f]
assert w["codif"]["placeholders"] == t["lost"], (w["codif"], t["lost"])
assert w["raw"]["placeholders"] == t["lost"], (w["raw"], t["lost"])
PY
	# offline, the same rules: codifcheck on what was sent
	"$CHK" info --json "$d/sent.pcap" > "$d/info.json" || true
	python3 "$CMP" "$d/truth.json" "$d/info.json" --unattributed > "$d/icmp" ||
		{ cat "$d/icmp"; fail "$name: codifcheck info differs from the truth"; }
	"$CHK" convert --to codif --outdir "$d/conv" "$d/sent.pcap" > "$d/conv.log" 2>&1 || true
	python3 "$VER" "$d/sent.pcap" --truth "$d/truth.json" --format codif "$d/conv" \
		> "$d/conv.ver" || { cat "$d/conv.log" "$d/conv.ver"; fail "$name: convert"; }
	"$CHK" verify --pattern "$d/conv" > "$d/conv.chk" 2>&1 ||
		{ cat "$d/conv.chk"; fail "$name: converted files do not verify"; }
	ok "$name: codifcheck info = truth; convert: every good frame, verify clean ($(ls "$d/conv" | wc -l) files)"
}

# files of antenna A (name ant<A>) in directory D with extension X
nfiles() { ls "$1" | grep -c "_ant$2_.*\.$3\$" || true; }

ONE="--groups 1 --threads 1"
F="--count 2000"

# one bit-flipped header in 2000 good frames, four antennas, four fields:
# in place of the frame (its slot lost, the odd one counted) ...
run flip "--antennas 4 $ONE" "$F --event flip:frame.14@1000,ant=0 --event flip:seconds.20@1000,ant=1
	--event flip:epoch.0@1000,ant=2 --event flip:period.3@1000,ant=3"
python3 - "$T/flip/sum.json" <<'PY' || fail "flip: counts"
import json, sys
for a in json.load(open(sys.argv[1]))["antennas"]:
    assert a["received"] == 1999 and a["lost"] == 1, a
    assert a["implausible"] + a["param_change"] == 1 and a["malformed"] == 1, a
    assert a["resyncs"] == 0, a
PY
ok "flip (frame bit 14, seconds bit 20, epoch, period): 1999 received, 1 counted by cause, its slot lost, no resync"
# ... and besides it (the good frame arrives too): nothing lost
run flip-extra "--antennas 4 $ONE" "$F --event flip:frame.14@1000,ant=0,extra
	--event flip:seconds.20@1000,ant=1,extra --event flip:epoch.0@1000,ant=2,extra
	--event flip:period.3@1000,ant=3,extra"
python3 - "$T/flip-extra/sum.json" <<'PY' || fail "flip-extra: counts"
import json, sys
for a in json.load(open(sys.argv[1]))["antennas"]:
    assert a["received"] == 2000 and a["lost"] == 0, a
    assert a["implausible"] + a["param_change"] == 1, a
PY
ok "flip besides a good frame: 2000 received, 1 counted by cause, lost 0"

# a frame a month ahead, one 3 h behind: nothing lost, every good frame written
run stray "--antennas 2 $ONE" "$F --event stray:+30d@1000,ant=0,extra --event stray:-3h@1000,ant=1,extra"
python3 - "$T/stray/sum.json" <<'PY' || fail "stray: counts"
import json, sys
for a in json.load(open(sys.argv[1]))["antennas"]:
    assert a["received"] == 2000 and a["lost"] == 0 and a["implausible"] == 1, a
PY
ok "stray frames +30 d and -3 h: nothing lost, every good frame written, each counted implausible"

# permanent clock steps of -3 h and +3 h, antennas of 8 streams: one resync
# per stream, files split there, every frame (the confirming ones too) written
run step "--antennas 2 --groups 2 --threads 2" "$F --event step:+3h@1000,ant=0
	--event step:-3h@1000,ant=1"
python3 - "$T/step/sum.json" <<'PY' || fail "step: counts"
import json, sys
j = json.load(open(sys.argv[1]))
for s in j["streams"]:
    assert s["received"] == 2000 and s["lost"] == 0 and s["resyncs"] == 1, s
    assert s["resync_skipped"] == (25000000 if s["src"] == "10.17.0.211" else 0), s
ev = j["resyncs"]
assert len(ev) == 2 and {e["antenna"] for e in ev} == {"ant0", "ant1"}, ev
PY
for a in 0 1; do
	expect_eq "step: ant$a codif/raw/pcap files (split at the resync)" \
		"$(nfiles "$T/step/codif" $a codif) $(nfiles "$T/step/raw" $a raw) $(nfiles "$T/step/pcap" $a pcap)" "2 2 2"
done
grep -q "antenna ant0: timeline resync 1: newest frame 2025-01-01T00:00:00.431568000Z, next 2025-01-01T03:00:00.432000000Z (25000000 frames skipped)" \
	"$T/step/cap.log" || { grep resync "$T/step/cap.log"; fail "step: resync line"; }
ok "step +3 h and -3 h: one resync per stream (both UTC times logged), 25000000 frames skipped forward, files split, every frame written"
# the same with --zero-copy (held frames are mbufs the rings then keep):
# the same counts, byte-identical codif and raw files, every mbuf back
d=$T/step
mkdir -p "$d/zc/codif" "$d/zc/raw"
vdev=net_pcap0,rx_pcap=$d/a0.pcap,rx_pcap=$d/a1.pcap,rx_pcap=$T/empty.pcap
n=$(json_get "$d/truth.json" totals sent)
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$vdev" -- --antennas 2 --groups 2 --threads 2 --ring 4096 --count-packets "$n" \
	--idle-timeout 20s --stats-period 0 --zero-copy yes --write "codif:$d/zc/codif" \
	--write "raw:$d/zc/raw" --summary-json "$d/zc/sum.json" > "$d/zc/cap.log" 2>&1 ||
	{ cat "$d/zc/cap.log"; fail "step, zero-copy: dpdk-ibvcap failed"; }
python3 "$CMP" "$d/truth.json" "$d/zc/sum.json" --unattributed > "$d/zc/cmp" ||
	{ cat "$d/zc/cmp"; fail "step, zero-copy: counts differ from the truth"; }
diff -r "$d/codif" "$d/zc/codif" > /dev/null && diff -r "$d/raw" "$d/zc/raw" > /dev/null ||
	fail "step, zero-copy: files differ from the copy mode's"
grep -q "^dpdk-ibvcap: mbufs at exit: all [0-9]* back in their pool" "$d/zc/cap.log" ||
	{ grep mbufs "$d/zc/cap.log"; fail "step, zero-copy: mbufs not all returned"; }
ok "step with --zero-copy: counts = truth, codif and raw byte-identical to the copy mode's, every mbuf back"

# a burst of 500 lost frames on every stream of an antenna (longer than the
# reorder window): exactly 500 lost per stream, every other frame written
run burst "--antennas 1 --groups 2 --threads 2" "$F --event burst:500@1000"
python3 - "$T/burst/sum.json" <<'PY' || fail "burst: counts"
import json, sys
for s in json.load(open(sys.argv[1]))["streams"]:
    assert s["lost"] == 500 and s["received"] == 1500 and s["resyncs"] == 0, s
    assert s["implausible"] == 0, s
PY
expect_eq "burst: one file per format (the gap written as placeholders)" \
	"$(nfiles "$T/burst/codif" 0 codif) $(nfiles "$T/burst/raw" 0 raw)" "1 1"
ok "burst of 500 frames: exactly 500 lost per stream, nothing held aside, one file"

# new parameters: nchan 4 -> 8 (a new clock: a resync of the antenna) and,
# on another antenna, one stream's representation (same clock): new files
# with the new parameters, all of them valid
run param "--antennas 2 --groups 1 --threads 2" "$F --event param:nchan=8@1000,ant=0
	--event param:representation=3@1000,ant=1,stream=1"
python3 - "$T/param/sum.json" <<'PY' || fail "param: counts"
import json, sys
for s in json.load(open(sys.argv[1]))["streams"]:
    new = s["src"] == "10.17.0.211" or s["threadid"] == 1
    assert s["received"] == 2000 and s["lost"] == 0, s
    assert s["new_params"] == (1 if new else 0), s
    assert s["resyncs"] == (1 if s["src"] == "10.17.0.211" else 0), s
PY
for a in 0 1; do
	expect_eq "param: ant$a codif files (new parameters: a new file)" "$(nfiles "$T/param/codif" $a codif)" 2
done
python3 - "$T/param/codif" <<'PY' || fail "param: the new files hold the new parameters"
import glob, struct, sys
files = sorted(glob.glob(sys.argv[1] + "/*_ant0_*.codif"))
w3 = [struct.unpack("<Q", open(f, "rb").read(64)[24:32])[0] & 0xFFFF for f in files]
assert w3 == [4, 8], w3
PY
ok "param: nchan 4 -> 8 and representation 1 -> 3: new epoch after K frames, new files with the new parameters, all valid"
# a clock that flaps: 16 steps of alternately +3 h and -3 h, 40 frames
# apart (the confirming frames of one step are the next step's first):
# 16 resyncs of the one timeline, 17 files per format, every frame written
EV=""
for ((i = 0; i < 16; i++)); do
	EV="$EV --event step:$( ((i % 2)) && echo -3h || echo +3h)@$((100 + 40 * i))"
done
run flap "--antennas 1 --groups 2 --threads 2" "--count 800 $EV"
python3 - "$T/flap/sum.json" <<'PY' || fail "flap: counts"
import json, sys
j = json.load(open(sys.argv[1]))
a = j["antennas"][0]
assert a["timeline_resyncs"] == 16 and a["resyncs"] == 64, a
assert a["received"] == 3200 and a["lost"] == 0 and a["malformed"] == 0, a
assert a["resync_skipped"] == 4 * 8 * 25000000, a
assert len(j["resyncs"]) == 16, j["resyncs"]
PY
expect_eq "flap: codif/raw/pcap files (17 stretches of one clock)" \
	"$(nfiles "$T/flap/codif" 0 codif) $(nfiles "$T/flap/raw" 0 raw) $(nfiles "$T/flap/pcap" 0 pcap)" "17 17 17"
grep -q "^all antennas: resyncs 64, resync_skipped 800000000, timeline_resyncs 16, " "$T/flap/cap.log" ||
	{ grep "all antennas:" "$T/flap/cap.log"; fail "flap: summary line"; }
ok "flap: 16 clock steps 40 frames apart: 16 resyncs, 17 files per format, every frame written"
echo "$CHECKS checks passed"
