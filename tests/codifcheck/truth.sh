#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifcheck info/verify against codifgen's ground truth: pcap counts equal
# the truth (compare.py), clean and with each fault; verify's exit status and
# problem count follow the faults; codif files made by convert tell the same
# frames/lost/invalid per stream; arrival timing and --pattern are real.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck

# Every stream's gap runs add up to its lost count, received + lost =
# frames; gaps of kind $2 only, when given.
check_gaps() {
	python3 - "$1" "${2:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d.get("files", [d]):
    for s in f["streams"]:
        assert sum(g["count"] for g in s["gaps"]) == s["lost"], s
        assert s["gap_count"] == len(s["gaps"]), s
        assert s["received"] + s["lost"] == s["expected"], s
        for g in s["gaps"]:
            assert g["last"] - g["first"] + 1 == g["count"] and g["first_utc"] <= g["last_utc"], g
            assert sys.argv[2] in ("", g["kind"]), g
PY
}

# faults that make malformed packets: verify lists one problem per packet
malformed_faults="bad-sync bad-length truncated non-codif"
seed=40
for f in clean loss reorder duplicate invalid vlan bad-sync bad-length truncated non-codif non-ipv4 all; do
	seed=$((seed + 1))
	case $f in
	clean) args="" ;;
	all) args="--loss 0.02 --reorder 0.05 --reorder-depth 6 --duplicate 0.02 --invalid 0.02 --vlan 0.02
		--bad-sync 0.01 --bad-length 0.01 --truncated 0.01 --non-codif 0.01 --non-ipv4 0.01" ;;
	reorder) args="--reorder 0.1 --reorder-depth 5" ;;
	*) args="--$f 0.05" ;;
	esac
	# shellcheck disable=SC2086
	"$GEN" --count 50 --seed $seed $args --pcap "$T/$f.pcap" --truth "$T/$f.truth.json" --quiet
	"$CC" info --json "$T/$f.pcap" > "$T/$f.info.json" || fail "$f: info exit $?"
	python3 "$CMP" "$T/$f.truth.json" "$T/$f.info.json" --unattributed > "$T/$f.cmp" ||
		{ cat "$T/$f.cmp"; fail "$f: info counts differ from the truth"; }
	check_gaps "$T/$f.info.json" || fail "$f: gap lists do not add up"
	ok "$f: info equals the truth ($(tail -1 "$T/$f.cmp")); gaps add up"

	malformed=$(json_get "$T/$f.truth.json" totals malformed)
	set +e
	"$CC" verify --json --pattern "$T/$f.pcap" > "$T/$f.verify.json"
	rc=$?
	"$CC" verify --strict "$T/$f.pcap" > "$T/$f.strict.txt"
	src=$?
	set -e
	got=$(json_get "$T/$f.verify.json" problems)
	expect_eq "$f: verify problems = malformed packets" "$got" "$malformed"
	expect_eq "$f: verify exit" "$rc" "$([ "$malformed" = 0 ] && echo 0 || echo 1)"
	expect_eq "$f: verify --strict exit" "$src" "$(case $f in clean | vlan) echo 0 ;; *) echo 1 ;; esac)"
done

# each malformed packet is listed at its record's offset, with its arrival time
python3 - "$T/all.verify.json" "$T/all.pcap" <<'PY' || fail "problem offsets do not point at the packets"
import json, struct, sys
v = json.load(open(sys.argv[1]))["files"][0]
b = open(sys.argv[2], "rb").read()
assert v["problems"], v
for p in v["problems"]:
    sec, ns, cap, wire = struct.unpack_from("<IIII", b, p["offset"])
    assert cap == wire and cap > 0, p
    t = "%s" % p["utc"]
    assert t.endswith("%09dZ" % ns), (t, ns)
PY
ok "every problem's offset is its pcap record, its UTC the record's time"

# arrival timing: codifgen stamps each packet in its frame's slot, so clean
# streams arrive at a constant offset within one frame time (jitter 0) and
# a late frame arrives at least one frame time after its CODIF time
python3 - "$T/clean.info.json" "$T/reorder.info.json" <<'PY' || fail "arrival timing"
import json, sys
clean = json.load(open(sys.argv[1]))
reo = json.load(open(sys.argv[2]))
for s in clean["streams"]:
    a, fns = s["arrival"], s["params"]["frame_ns"]
    assert a["offset_ns"]["count"] == s["received"], a
    assert a["offset_ns"]["min"] == a["offset_ns"]["max"] and 0 <= a["offset_ns"]["min"] < fns, a
    assert a["jitter_ns"]["max"] == 0 and a["rfc3550_jitter_ns"] == 0, a
late = [s for s in reo["streams"] if s["late"] > 0]
assert late
for s in late:
    a, fns = s["arrival"], s["params"]["frame_ns"]
    assert a["offset_ns"]["max"] >= fns, a
    assert a["offset_ns"]["min"] <= a["offset_ns"]["median"] <= a["offset_ns"]["p99"] <= a["offset_ns"]["max"], a
    assert a["jitter_ns"]["max"] >= fns and a["rfc3550_jitter_ns"] > 0, a
PY
ok "arrival offset and jitter: constant when clean, >= one frame for late frames"

# text info lists every gap of the loss run
ngaps=$(python3 -c "import json,sys; print(sum(s['gap_count'] for s in json.load(open(sys.argv[1]))['streams']))" "$T/loss.info.json")
"$CC" info "$T/loss.pcap" > "$T/loss.info.txt"
expect_eq "text info gap lines" "$(grep -c '^    gap  ' "$T/loss.info.txt")" "$ngaps"
"$CC" info "$T/clean.pcap" | grep -q "^  antenna 10.17.0.211: 8 streams, 400 packets, malformed 0$" ||
	fail "text info lacks the antenna line"
"$CC" info "$T/bad-sync.pcap" | grep -q "^  antenna 10.17.0.21[1-6]: 8 streams, [0-9]* packets, malformed [1-9][0-9]* (not-codif [1-9]" ||
	fail "text info lacks malformed packets per antenna and cause"
ok "text info: antennas with malformed counts by cause"

# --pattern finds one flipped payload byte, at its file offset
python3 - "$T/clean.pcap" "$T/flip.pcap" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
off = 24 + 16 + 42 + 64 + 1000      # record 0: header, L2-L4, CODIF header
b[off] ^= 0x40
open(sys.argv[2], "wb").write(b)
print(off)
PY
flip_off=$((24 + 16 + 42 + 64 + 1000))
"$CC" verify "$T/flip.pcap" > /dev/null || fail "without --pattern a payload flip is no problem"
run_expect_fail "--pattern: flipped byte" 1 "offset $flip_off (2025-01-01T00:00:00.000000000Z): pattern: 10.17.0.211>239.17.0.1:36001 AK/257/0/0: frame index 0: payload differs from codifgen's pattern at data byte 1000" \
	"$CC" verify --pattern "$T/flip.pcap"

# non-default parameters are read from the headers
"$GEN" --antennas 3 --threads 1 --groups 2 --data-bytes 4096 --nchan 8 --nbits 8 --real \
	--period 10 --total-samples 4096000 --station XY --count 30 --loss 0.05 --seed 3 \
	--start 2026-07-04T10:00:00Z --pcap "$T/p.pcap" --truth "$T/p.truth.json" --quiet
"$CC" info --json "$T/p.pcap" > "$T/p.info.json"
python3 "$CMP" "$T/p.truth.json" "$T/p.info.json" > /dev/null || fail "custom parameters: counts differ"
python3 - "$T/p.info.json" <<'PY' || fail "custom parameters not reported"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["streams"]) == 6
for s in d["streams"]:
    p = s["params"]
    got = (p["nchan"], p["nbits"], p["complex"], p["period"], p["totalsamples"], p["data_bytes"],
           p["epoch"], s["station"], p["frames_per_period"], p["frame_ns"])
    assert got == (8, 8, False, 10, 4096000, 4096, 53, "XY", 8000, 1250000), got
    assert abs(p["data_rate_bps"] - 4096 * 8 * 800) < 1e-6, p
    assert s["first_frame_utc"] == "2026-07-04T10:00:00.000000000Z", s
PY
ok "custom parameters: counts equal the truth; nchan, nbits, real, period, FPP, frame, rate reported"

# a capture with other traffic: --antenna-ip and --group name the antennas
"$GEN" --antennas 3 --count 30 --seed 9 --loss 0.05 --pcap "$T/a.pcap" --truth "$T/a.truth.json" --quiet
"$GEN" --antennas 2 --groups 1 --count 30 --antenna-base 10.99.0.1 --group-base 239.99.0.1 \
	--udp-port-base 5000 --pcap "$T/other.pcap" --quiet
"$GEN" --antennas 1 --groups 1 --count 30 --antenna-base 10.98.0.1 --pcap "$T/other2.pcap" --quiet
python3 "$SRC/tests/codifcheck/pcaptool.py" merge "$T/mixed.pcap" "$T/a.pcap" "$T/other.pcap" "$T/other2.pcap"
"$CC" info --json "$T/mixed.pcap" > "$T/mixed.all.json"
python3 "$CMP" "$T/a.truth.json" "$T/mixed.all.json" > /dev/null &&
	fail "without a filter the other traffic should count as antennas"
"$CC" info --json --antenna-ip 10.17.0.211,10.17.0.212,10.17.0.213 \
	--group 239.17.0.1:36001,239.17.0.2:36002,239.17.0.3:36003,239.17.0.4:36004 \
	"$T/mixed.pcap" > "$T/mixed.json"
python3 "$CMP" "$T/a.truth.json" "$T/mixed.json" > "$T/mixed.cmp" ||
	{ cat "$T/mixed.cmp"; fail "filtered capture: counts differ from the truth"; }
python3 - "$T/mixed.json" <<'PY' || fail "filtered packets not counted as from no antenna"
import json, sys
d = json.load(open(sys.argv[1]))
u = d["unattributed"]
# 10.99.0.1-2: 2 x 2 threads x 30; 10.98.0.1 (to the antennas' group 1): 2 x 30
assert u["unknown-source"] == 120 + 60 and u["unknown-group"] == 0 and u["unknown-port"] == 0, u
assert [a["src"] for a in d["antennas"]] == ["10.17.0.211", "10.17.0.212", "10.17.0.213"], d["antennas"]
PY
"$CC" info --json --antenna-ip 10.17.0.211,10.17.0.212,10.17.0.213 \
	--group 239.17.0.1:36001,239.17.0.2:36002,239.17.0.3:36003,239.17.0.4:36005 \
	"$T/mixed.pcap" > "$T/mixed2.json"
python3 - "$T/mixed2.json" "$T/a.truth.json" <<'PY' || fail "--group: wrong port not counted"
import json, sys
u = json.load(open(sys.argv[1]))["unattributed"]
sent = sum(s["sent"] for s in json.load(open(sys.argv[2]))["streams"] if s["port"] == 36004)
assert u["unknown-port"] == sent and u["unknown-source"] == 180, (u, sent)
PY
ok "--antenna-ip/--group: other sources and groups count as from no antenna; the rest equals the truth"
# --antenna: of the --antenna-ip antennas (named as the capture names them),
# only those chosen by name or index; the third counts as from no antenna
"$CC" info --json --antenna-ip 10.17.0.211=ak01,10.17.0.212=ak02,10.17.0.213=ak03 --antenna ak02,0 \
	"$T/mixed.pcap" > "$T/sel.json" || fail "info --antenna ak02,0"
python3 - "$T/sel.json" "$T/a.truth.json" <<'PY' || fail "--antenna ak02,0: not antennas 0 and 1 alone"
import json, sys
d = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
assert [a["src"] for a in d["antennas"]] == ["10.17.0.211", "10.17.0.212"], d["antennas"]
# the third antenna's packets as they reached the wire, and the 180 others
third = sum(s["sent"] + s["duplicate"] for s in t["streams"] if s["antenna"] == 2)
assert d["unattributed"]["unknown-source"] == 180 + third, (d["unattributed"], third)
PY
mkdir "$T/sel"
"$CC" convert --to codif --antenna-ip 10.17.0.211=ak01,10.17.0.212=ak02,10.17.0.213=ak03 --antenna 2 \
	--outdir "$T/sel" "$T/a.pcap" > "$T/sel.log" 2>&1 || { cat "$T/sel.log"; fail "convert --antenna 2"; }
expect_eq "convert --antenna 2: one file, named by --antenna-ip" "$(cd "$T/sel" && ls)" \
	"ibvcap_ak03_20250101T000000.000000000Z.codif"
ok "--antenna: by name and index among the --antenna-ip antennas (info: the others from no antenna; convert: one file named ak03)"

# codif files made by convert: per stream what a codif file can tell
for f in all loss invalid reorder duplicate; do
	mkdir -p "$T/$f.codif.d"
	"$CC" convert --to codif --outdir "$T/$f.codif.d" "$T/$f.pcap" > /dev/null 2>&1 || [ $f = all ] ||
		fail "$f: convert failed"
	n=$(find "$T/$f.codif.d" -name 'ibvcap_ant*_20250101T000000.000000000Z.codif' | wc -l)
	expect_eq "$f: one codif file per antenna" "$n" 6
	"$CC" info --json "$T/$f.codif.d"/*.codif > "$T/$f.codif.json" || fail "$f: info on codif files"
	check_gaps "$T/$f.codif.json" filled || fail "$f: codif gaps do not add up"
	python3 - "$T/$f.truth.json" "$T/$f.codif.json" <<'PY' || fail "$f: codif counts differ from the truth"
import json, sys
truth = json.load(open(sys.argv[1]))
files = json.load(open(sys.argv[2]))["files"]
got = {}
for d in files:
    assert d["format"] == "codif" and d["problems_total"] == 0, d["problems"]
    for s in d["streams"]:
        got[(s["groupid"], s["secondaryid"], s["threadid"])] = s
assert len(got) == len(truth["streams"]), (len(got), len(truth["streams"]))
for t in truth["streams"]:
    s = got[(t["groupid"], t["secondaryid"], t["threadid"])]
    for k in ("expected", "lost", "invalid", "first_frame_utc", "last_frame_utc"):
        assert s[k] == t[k], (k, s[k], t[k], t)
    assert s["received"] == t["received"] and s["late"] == 0 and s["duplicate"] == 0, s
    assert s["filled"] == t["lost"], s
print("%d streams" % len(got))
PY
	"$CC" verify --pattern "$T/$f.codif.d" > "$T/$f.codif.verify" ||
		{ cat "$T/$f.codif.verify"; fail "$f: codif files do not verify"; }
	ok "$f: codif files by convert: frames, lost, invalid, times per stream equal the truth; --pattern clean"
done
run_expect_fail "codif with gaps: verify --strict" 1 "problem (--strict): " \
	"$CC" verify --strict "$T/loss.codif.d"

# one frame 270 s ahead in a capture: reported, held, dropped; never turned
# into a gap: convert writes no placeholder for it (it once wrote 625,000)
"$GEN" --antennas 1 --groups 1 --threads 1 --count 2000 --event stray:+270s@1000,extra \
	--pcap "$T/stray.pcap" --truth "$T/stray.truth.json" --quiet
mkdir -p "$T/stray.d"
"$CC" info --json "$T/stray.pcap" > "$T/stray.json"
python3 "$CMP" "$T/stray.truth.json" "$T/stray.json" > "$T/stray.cmp" ||
	{ cat "$T/stray.cmp"; fail "stray frame: info differs from the truth"; }
run_expect_fail "stray frame: verify names it" 1 \
	"implausible-time: 10.17.0.211>239.17.0.1:36001 AK/257/0/0: a frame at 2025-01-01T00:04:30.432000000Z (seconds 270, frame 1000) fits no timeline" \
	"$CC" verify "$T/stray.pcap"
"$CC" convert --to codif --outdir "$T/stray.d" "$T/stray.pcap" > "$T/stray.conv" 2>&1 || true
expect_eq "stray frame: convert writes one file of 2000 frames, no placeholder" \
	"$(ls "$T/stray.d" | wc -l) $(stat -c %s "$T/stray.d"/*.codif)" "1 $((2000 * 8256))"
# an outage longer than --max-gap (1 s = 2314 frames): the records' times
# go on through it as the data time does (the sender was silent 1.3 s), so
# it is loss, however long, not a resync (lib/codif, "outage"): convert
# writes one file, the 3000 lost frames as placeholders (before arrival
# times were used this was a resync that split the output); with
# --max-gap 2s the same
"$GEN" --antennas 1 --groups 1 --threads 1 --count 6000 --event burst:3000@1000 \
	--pcap "$T/long.pcap" --truth "$T/long.truth.json" --quiet
mkdir -p "$T/long.d" "$T/long2.d"
"$CC" info --json "$T/long.pcap" > "$T/long.json"
python3 "$CMP" "$T/long.truth.json" "$T/long.json" > "$T/long.cmp" ||
	{ cat "$T/long.cmp"; fail "outage beyond --max-gap: info differs from the truth"; }
python3 - "$T/long.json" <<'PY' || fail "outage beyond --max-gap: lost, no resync"
import json, sys
s = json.load(open(sys.argv[1]))["streams"]
assert [(x["lost"], x["resyncs"], x["resync_skipped"]) for x in s] == [(3000, 0, 0)], s
PY
"$CC" convert --to codif --outdir "$T/long.d" "$T/long.pcap" > /dev/null
expect_eq "outage of 3000 frames > --max-gap: one file, the 3000 lost frames as placeholders" \
	"$(ls "$T/long.d" | wc -l) $(stat -c %s "$T/long.d"/*.codif)" "1 $((6000 * 8256))"
"$CC" convert --to codif --max-gap 2s --outdir "$T/long2.d" "$T/long.pcap" > /dev/null
expect_eq "--max-gap 2s: one file, the 3000 lost frames written as placeholders" \
	"$(ls "$T/long2.d" | wc -l) $(stat -c %s "$T/long2.d"/*.codif)" "1 $((6000 * 8256))"

# --window: a packet further behind the newest than the window is held as a
# suspect; nothing agrees with it, so it is dropped as implausible, counted,
# and its frame lost (as the capture program does)
"$GEN" --count 400 --seed 77 --reorder 0.05 --reorder-depth 150 --pcap "$T/deep.pcap" \
	--truth "$T/deep.truth.json" --quiet
"$CC" info --json "$T/deep.pcap" > "$T/deep.json"
python3 "$CMP" "$T/deep.truth.json" "$T/deep.json" --unattributed > "$T/deep.cmp" ||
	{ cat "$T/deep.cmp"; fail "reordered 150 deep: info (window 4096) differs from the truth"; }
"$CC" info --json --window 64 "$T/deep.pcap" > "$T/deep64.json"
python3 - "$T/deep.truth.json" "$T/deep64.json" <<'PY' || fail "--window 64"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
s = json.load(open(sys.argv[2]))["streams"]
old = sum(x["implausible"] for x in s)
assert old > 0, "nothing held and dropped with --window 64"
assert sum(x["received"] for x in s) + old == t["received"], (old, t)
assert sum(x["lost"] for x in s) == old
assert sum(x["resyncs"] for x in s) == 0
PY
ok "--window: 4096 = truth; 64 holds packets 150 frames late, drops them as implausible, counted and lost, no resync"

# --max-gaps and --max-problems cap the lists, never the counts
"$CC" info --json --max-gaps 1 "$T/loss.pcap" > "$T/mg.json"
python3 - "$T/loss.info.json" "$T/mg.json" <<'PY' || fail "--max-gaps 1"
import json, sys
full = {(x["src"], x["dst"], x["threadid"]): x for x in json.load(open(sys.argv[1]))["streams"]}
capped = json.load(open(sys.argv[2]))["streams"]
assert any(len(full[(x["src"], x["dst"], x["threadid"])]["gaps"]) > 1 for x in capped)
for x in capped:
    f = full[(x["src"], x["dst"], x["threadid"])]
    assert len(x["gaps"]) == min(1, len(f["gaps"])) and x["gap_count"] == f["gap_count"]
    assert x["lost"] == f["lost"], (x, f)
PY
ok "--max-gaps 1: one gap listed per stream, gap counts and lost unchanged"
set +e
"$CC" verify --json --max-problems 2 "$T/bad-sync.pcap" > "$T/mp.json"
set -e
python3 - "$T/mp.json" "$T/bad-sync.verify.json" <<'PY' || fail "--max-problems 2"
import json, sys
capped = json.load(open(sys.argv[1]))
full = json.load(open(sys.argv[2]))
assert full["problems"] > 2, full["problems"]
assert capped["problems"] == full["problems"]
assert len(capped["files"][0]["problems"]) == 2 and capped["files"][0]["problems_total"] == full["problems"]
PY
ok "--max-problems 2: two listed, all $(json_get "$T/mp.json" problems) counted"
echo "$CHECKS checks passed"
