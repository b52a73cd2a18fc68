#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifcheck extract: a recording of two antennas with lost and invalid
# frames, rotated every 48 rows into a scan directory (codif, raw and pcap
# recordings of the same frames); a window of 90 rows that spans two
# rotations and gaps gives, in each output format (pcap sources: to codif
# and raw as well as pcap and pcapng), exactly the frames of
# the window as codifgen sent them (compared by an independent reader with
# the generator's own pcap), gaps as each format writes them (codif invalid
# zero frames, raw zeros listed in gaps, pcap nothing), and reads only the
# 3 files per antenna the window reaches; a window partly before the
# recording says so; one outside it writes nothing and exits 1.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck
export PYTHONPATH=$SRC/tests/codifcheck
FNS=432000 # codifgen's frame: 27 s / 62500
"$GEN" --antennas 2 --groups 2 --threads 2 --count 200 --seed 7 --loss 0.03 --invalid 0.02 \
	--pcap "$T/sent.pcap" --truth "$T/truth.json" --quiet
mkdir -p "$T/whole" "$T/rec/scan1" "$T/recraw/scan1" "$T/recpcap/scan1"
"$CC" convert --to codif --outdir "$T/whole" "$T/sent.pcap" > /dev/null || fail "pcap -> codif"
# rotation as a writer rotates: every 48 rows, each file named by its first frame
python3 - "$T/whole" "$T/rec/scan1" <<'PY' || fail "rotation"
import datetime, os, struct, sys
src, dst = sys.argv[1:3]
row = 4 * (64 + 8192)
for n in sorted(os.listdir(src)):
    b = open(os.path.join(src, n), "rb").read()
    assert len(b) == 200 * row, (n, len(b))
    ant = n.split("_")[1]
    for r in range(0, 200, 48):
        w0 = struct.unpack_from("<Q", b, r * row)[0]
        sec, frame = (w0 >> 32) & 0x3FFFFFFF, w0 & 0xFFFFFFFF
        ns = (1735689600 + sec) * 10**9 + frame * 432000
        t = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
        name = "ibvcap_%s_%s.%09dZ.codif" % (ant, t.strftime("%Y%m%dT%H%M%S"), ns % 10**9)
        open(os.path.join(dst, name), "wb").write(b[r * row:(r + 48) * row])
open(os.path.join(dst, "ibvcap_scan.codif.json"), "w").write("{}\n")
PY
for f in "$T"/rec/scan1/*.codif; do
	"$CC" convert --to raw --outdir "$T/recraw/scan1" "$f" > /dev/null || fail "codif -> raw $f"
	case $f in *ant0*) src=10.17.0.211 ;; *) src=10.17.0.212 ;; esac
	"$CC" convert --to pcap --src $src --outdir "$T/recpcap/scan1" "$f" > /dev/null || fail "codif -> pcap $f"
done
expect_eq "recorded files (codif, raw, pcap)" \
	"$(ls "$T"/rec/scan1/*.codif | wc -l) $(ls "$T"/recraw/scan1/*.raw | wc -l) $(ls "$T"/recpcap/scan1/*.pcap | wc -l)" "10 10 10"

utc() { python3 -c 'import datetime,sys; n=1735689600*10**9+int(sys.argv[1])*432000; t=datetime.datetime.fromtimestamp(n//10**9,datetime.timezone.utc); print(t.strftime("%Y-%m-%dT%H:%M:%S")+".%09dZ" % (n%10**9))' "$1"; }
FROM=$(utc 60)
TO=$(utc 150)

# CHECK DIR FORMAT ROW0 ROW1: the outputs hold exactly rows [ROW0, ROW1) of
# what was sent; pcap: its packets exactly the frames sent in the window
check() {
	python3 - "$T/sent.pcap" "$1" "$2" "$3" "$4" <<'PY'
import os, struct, sys
from pcaptool import read_pcap
sent, d, fmt, r0, r1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def key(c):
    w = struct.unpack_from("<4Q", c)
    sec, frame = (w[0] >> 32) & 0x3FFFFFFF, w[0] & 0xFFFFFFFF
    row = (sec * 62500 // 27) + frame
    return row, (w[2] >> 16) & 0xFFFF, (w[2] >> 32) & 0xFFFF, (w[1] >> 32) & 0xFFFF, w[2] & 0xFFFF
ref = {}
for _, cap, _, p in read_pcap(sent):
    src = p[26:30]
    c = p[42:]
    if len(c) != 64 + 8192 or struct.unpack_from("<I", c, 40)[0] != 0xFEEDCAFE:
        continue
    k = key(c)  # antennas differ by groupid: a codif file has no address
    ref.setdefault(k, c)
win = {k: v for k, v in ref.items() if r0 <= k[0] < r1}
frames = gaps = 0
if fmt in ("pcap", "pcapng"):
    seen = set()
    for n in sorted(os.listdir(d)):
        if not n.endswith("." + fmt):
            continue
        for _, cap, _, p in read_pcap(os.path.join(d, n)):
            k = key(p[42:])
            assert k in win and win[k] == p[42:], ("not sent in the window", k)
            assert k not in seen, ("twice", k)
            seen.add(k)
    assert seen == set(win), ("missing", len(set(win) - seen))
    frames = len(seen)
else:
    for n in sorted(os.listdir(d)):
        if not n.endswith(".codif"):
            continue
        b = open(os.path.join(d, n), "rb").read()
        fr = [b[i:i + 8256] for i in range(0, len(b), 8256)]
        assert len(b) % 8256 == 0 and len(fr) == (r1 - r0) * 4, (n, len(fr))
        for i, c in enumerate(fr):
            k = key(c)
            assert k[0] == r0 + i // 4, (n, i, k)
            if k in win:
                assert c == win[k], ("differs from what was sent", k)
                frames += 1
            else:
                # a gap frame: the invalid bit, zero data
                assert (struct.unpack_from("<Q", c, 8)[0] >> 17) & 1 and c[64:] == bytes(8192), k
                gaps += 1
    assert frames == len(win), (frames, len(win))
print(frames, gaps)
PY
}
# pcap sources (recpcap) to codif and raw: the window's packets as rows by
# frame index, the lost frames as placeholders (the same outputs as rec's)
for src in rec recraw recpcap; do
	fmts="codif raw pcap pcapng"
	[ $src = recpcap ] && fmts="codif raw"
	for fmt in $fmts; do
		o=$T/out_${src}_$fmt
		mkdir -p "$o"
		"$CC" extract --from "$FROM" --to "$TO" --format $fmt --out "$o" "$T/$src" > "$o.log" 2>&1 ||
			{ cat "$o.log"; fail "extract $src -> $fmt"; }
		d=$o
		if [ $fmt = raw ]; then
			mkdir -p "$o/codif"
			for r in "$o"/*.raw; do
				"$CC" convert --to codif --outdir "$o/codif" "$r" > /dev/null || fail "$r -> codif"
			done
			d=$o/codif
			python3 - "$o" <<'PY' || fail "$src -> raw: the indexes' gaps"
import glob, json, sys
for i in glob.glob(sys.argv[1] + "/*.raw.json"):
    j = json.load(open(i))
    assert j["rows"] == 90 and j["gaps"], (i, j["rows"])
PY
		fi
		got=$(check "$d" $fmt 60 150) || fail "$src -> $fmt: not the window's frames as sent"
		r=$(json_eval "$o/codifcheck_extract.json" '(j["result"], j["frames"], j["placeholders"], j["inputs_read"], j["files_written"])')
		set -- $got
		# pcap, pcapng: gap frames are counted (the codif's), not written
		[ "$fmt" = codif ] && GAPS=$2
		expect_eq "$src -> $fmt: report (result, frames, gap frames, files read, files)" "$r" \
			"('complete', $1, $GAPS, 6, 2)"
		[ "$GAPS" -gt 0 ] || fail "no gap in the window"
	done
	ok "$src: rows 60..149 across rotations at 96 and 144, in $fmts: the frames sent, gap frames where lost ($got)"
done
o=$T/out_pcap
mkdir -p "$o" "$o/ng"
"$CC" extract --from "$FROM" --to "$TO" --out "$o" "$T/recpcap" > "$o.log" 2>&1 || { cat "$o.log"; fail "extract pcap"; }
"$CC" extract --from "$FROM" --to "$TO" --format pcapng --out "$o/ng" "$T/recpcap" > "$o.log" 2>&1 ||
	{ cat "$o.log"; fail "extract pcap -> pcapng"; }
check "$o" pcap 60 150 > /dev/null || fail "pcap -> pcap: not the window's packets"
check "$o/ng" pcapng 60 150 > /dev/null || fail "pcap -> pcapng: not the window's packets"
expect_eq "pcap sources: files read" "$(json_eval "$o/codifcheck_extract.json" 'j["inputs_read"]')" 6
ok "pcap sources -> pcap, pcapng: the packets sent in the window, no other"
expect_eq "pcap sources to codif: no packet directory left" \
	"$(find "$T" -name '.codifcheck_extract.*' | wc -l)" 0

# --antenna, and a window beginning before the recording
o=$T/out_part
mkdir -p "$o"
"$CC" extract --from "2024-12-31T23:59:59.99Z" --to "$(utc 10)" --antenna ant1 --out "$o" "$T/rec" > "$o.log" 2>&1 ||
	{ cat "$o.log"; fail "partial window"; }
expect_eq "partial: files" "$(ls "$o" | tr '\n' ' ')" "codifcheck_extract.json ibvcap_ant1_20250101T000000.000000000Z.codif "
expect_eq "partial: result, before the recording (ceil(10 ms / 432 us) = 24 rows x 4)" \
	"$(json_eval "$o/codifcheck_extract.json" '(j["result"], j["before_capture_frames"], j["antennas"]["ant1"]["before_capture_to"], j["inputs_read"])')" \
	"('partial', 96, '2025-01-01T00:00:00.000000000Z', 1)"
# outside the recording: nothing written, said, exit 1
o=$T/out_none
mkdir -p "$o"
run_expect_fail "a window after the recording" 1 "holds no frame of the sources" \
	"$CC" extract --from "$(utc 1000)" --to "$(utc 1100)" --out "$o" "$T/rec"
expect_eq "outside: result, files" "$(json_eval "$o/codifcheck_extract.json" '(j["result"], j["files_written"])') $(ls "$o" | wc -l)" "('empty', 0) 1"
run_expect_fail "a window before it" 1 "holds no frame of the sources" \
	"$CC" extract --from "2024-01-01T00:00:00Z" --to "2024-01-02T00:00:00Z" --out "$o" "$T/rec"
run_expect_fail "--to before --from" 2 "expected a time after --from" \
	"$CC" extract --from "$TO" --to "$FROM" --out "$o" "$T/rec"
run_expect_fail "no --out" 2 "--from, --to and --out are required" \
	"$CC" extract --from "$FROM" --to "$TO" "$T/rec"
expect_eq ".part files left" "$(find "$T" -name '*.part' | wc -l)" 0
echo "$CHECKS checks passed"
