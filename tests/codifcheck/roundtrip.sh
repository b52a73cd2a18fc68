#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Conversions keep every byte: pcap -> codif -> pcap keeps each valid
# frame's CODIF header and data (first copy; compared by an independent
# Python reader), codif -> raw -> codif is byte-identical, pcapng reads as
# pcap; outputs follow formats.md names, are never replaced without
# --force, and leave no .part behind.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck
PT=$SRC/tests/codifcheck/pcaptool.py

# every fault codifgen makes, arrival order scrambled
"$GEN" --antennas 3 --count 80 --seed 5 --loss 0.03 --reorder 0.1 --reorder-depth 8 \
	--duplicate 0.03 --invalid 0.03 --vlan 0.03 --bad-sync 0.01 --bad-length 0.01 \
	--truncated 0.01 --non-codif 0.01 --non-ipv4 0.01 \
	--pcap "$T/in.pcap" --truth "$T/in.json" --quiet
mkdir "$T/codif" "$T/back"
set +e
"$CC" convert --to codif --outdir "$T/codif" "$T/in.pcap" > "$T/conv.out" 2> "$T/conv.err"
rc=$?
set -e
expect_eq "convert of a capture with malformed packets: exit" "$rc" 1
grep -q "problems in the input (frames that could not be read are not in the output)" "$T/conv.err" ||
	fail "convert does not say the input had problems"
ls "$T/codif" > "$T/names"
expect_eq "codif names (formats.md)" "$(tr '\n' ' ' < "$T/names")" \
	"ibvcap_ant0_20250101T000000.000000000Z.codif ibvcap_ant1_20250101T000000.000000000Z.codif ibvcap_ant2_20250101T000000.000000000Z.codif "

# each codif back to a pcap, with the antenna's own source address
i=0
for f in "$T"/codif/*.codif; do
	"$CC" convert --to pcap --src "10.17.0.$((211 + i))" --outdir "$T/back" "$f" > /dev/null ||
		fail "codif -> pcap of $f"
	i=$((i + 1))
done
expect_eq "pcap outputs" "$(find "$T/back" -name 'ibvcap_ant?_20250101T000000.000000000Z.pcap' | wc -l)" 3
python3 "$PT" frames "$T/in.pcap" > "$T/in.frames"
python3 "$PT" frames "$T"/back/*.pcap > "$T/back.frames"
python3 - "$T/in.frames" "$T/back.frames" "$T/in.json" <<'PY' || fail "pcap -> codif -> pcap changed frames"
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
truth = json.load(open(sys.argv[3]))["totals"]
assert len(a) == truth["received"], (len(a), truth["received"])
assert set(a) == set(b), (len(set(a) - set(b)), len(set(b) - set(a)))
diff = [k for k in a if a[k][0] != b[k][0]]
assert not diff, diff[:5]
print(len(a))
PY
ok "pcap -> codif -> pcap: all $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$T/in.frames") received frames, CODIF header + data byte for byte"

# the new pcap: frame times as timestamps, in frame order, readable by tshark
python3 - "$T/back/ibvcap_ant0_20250101T000000.000000000Z.pcap" <<'PY' || fail "pcap timestamps are not the frame times"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<I", b)[0] == 0xa1b23c4d  # nanosecond pcap
off, last = 24, 0
while off < len(b):
    sec, ns, cap, wire = struct.unpack_from("<IIII", b, off)
    c = b[off + 16 + 42:off + 16 + cap]
    w0, w1 = struct.unpack_from("<QQ", c)
    seconds, frame, epoch = w0 >> 32, w0 & 0xffffffff, w1 & 0xff
    t = (1735689600 + seconds) * 10**9 + frame * 27 * 10**9 // 62500
    assert epoch == 50 and sec * 10**9 + ns == t, (sec, ns, seconds, frame)
    assert t >= last
    last = t
    off += 16 + cap
PY
if command -v tshark > /dev/null 2>&1; then
	tshark -r "$T/back/ibvcap_ant0_20250101T000000.000000000Z.pcap" -T fields -e ip.src \
		-e ip.dst -e udp.dstport 2>/dev/null | sort -u > "$T/tshark.txt"
	expect_eq "tshark reads the synthesised headers" "$(tr '\t\n' ':;' < "$T/tshark.txt")" \
		"10.17.0.211:239.17.0.1:36001;10.17.0.211:239.17.0.2:36002;10.17.0.211:239.17.0.3:36003;10.17.0.211:239.17.0.4:36004;"
fi
ok "codif -> pcap: nanosecond pcap, timestamps = CODIF frame times, in order"

# codif -> raw -> codif: every byte
for f in "$T"/codif/*.codif; do
	"$CC" convert --to raw --outdir "$T" "$f" > /dev/null || fail "codif -> raw of $f"
done
expect_eq "raw + index pairs" "$(ls "$T"/*.raw "$T"/*.raw.json | wc -l)" 6
for r in "$T"/*.raw; do
	"$CC" convert --to codif --outdir "$T/back" "$r" > /dev/null || fail "raw -> codif of $r"
	b=$(basename "$r" .raw)
	cmp "$T/codif/$b.codif" "$T/back/$b.codif" || fail "codif -> raw -> codif changed $b"
done
ok "codif -> raw -> codif: 3 files byte-identical"
# raw and codif tell the same counts
"$CC" info --json "$T/ibvcap_ant1_20250101T000000.000000000Z.raw" > "$T/raw.json"
"$CC" info --json "$T/codif/ibvcap_ant1_20250101T000000.000000000Z.codif" > "$T/codif.json"
python3 - "$T/raw.json" "$T/codif.json" <<'PY' || fail "raw and codif infos differ"
import json, sys
r, c = (json.load(open(p)) for p in sys.argv[1:3])
assert r["format"] == "raw" and c["format"] == "codif"
keys = ("station", "groupid", "secondaryid", "threadid", "expected", "received", "lost",
        "invalid", "filled", "first_frame_utc", "last_frame_utc", "params", "gaps")
assert [{k: s[k] for k in keys} for s in r["streams"]] == [{k: s[k] for k in keys} for s in c["streams"]]
assert sum(s["lost"] for s in r["streams"]) > 0 and sum(s["invalid"] for s in r["streams"]) > 0
PY
python3 - "$T/ibvcap_ant1_20250101T000000.000000000Z.raw.json" <<'PY' || fail "raw index fields"
import json, sys
i = json.load(open(sys.argv[1]))
assert i["format"] == "dpdk-ibvcap-raw" and i["version"] == 1
assert i["antenna"] == {"index": 0, "name": "ant1", "src": "10.17.0.211"}, i["antenna"]
assert i["data_bytes"] == 8192 and i["rows"] == 80 and len(i["streams"]) == 8
assert [s["slot"] for s in i["streams"]] == list(range(8))
assert i["first_frame"] == {"seconds": 0, "frame": 0, "utc": "2025-01-01T00:00:00.000000000Z"}
assert i["params"]["frames_per_period"] == 62500 and len(i["streams"][0]["header"]) == 128
assert i["gaps"] and i["invalid"]
PY
ok "raw and codif infos agree (counts, gaps, params); the index has formats.md's fields"

# clean pcap -> codif -> pcap -> codif: the codif files are identical
"$GEN" --antennas 1 --groups 2 --count 30 --pcap "$T/c.pcap" --quiet
mkdir "$T/c1" "$T/c2" "$T/c3"
"$CC" convert --to codif --outdir "$T/c1" "$T/c.pcap" > /dev/null
"$CC" convert --to pcap --outdir "$T/c2" "$T"/c1/*.codif > /dev/null
"$CC" convert --to codif --outdir "$T/c3" "$T"/c2/*.pcap > /dev/null
cmp "$T"/c1/*.codif "$T"/c3/*.codif || fail "codif -> pcap -> codif changed bytes"
ok "clean: codif -> pcap -> codif byte-identical"

# a converted file keeps its antenna's name: ant3's pcap (a one-antenna
# capture named as formats.md says) -> codif -> pcap -> codif stays ant3
mkdir "$T/n0" "$T/n1" "$T/n2" "$T/n3"
cp "$T"/c2/*.pcap "$T/n0/ibvcap_ant3_20250101T000000.000000000Z.pcap"
"$CC" convert --to codif --outdir "$T/n1" "$T"/n0/*.pcap > /dev/null || fail "ant3 pcap -> codif"
"$CC" convert --to pcap --outdir "$T/n2" "$T"/n1/*.codif > /dev/null || fail "ant3 codif -> pcap"
"$CC" convert --to codif --outdir "$T/n3" "$T"/n2/*.pcap > /dev/null || fail "ant3 pcap -> codif again"
expect_eq "names through pcap -> codif -> pcap -> codif" \
	"$(cd "$T" && ls n1 n2 n3 | grep -v : | grep . | tr '\n' ' ')" \
	"ibvcap_ant3_20250101T000000.000000000Z.codif ibvcap_ant3_20250101T000000.000000000Z.pcap ibvcap_ant3_20250101T000000.000000000Z.codif "

# pcapng input reads as the pcap does
python3 "$PT" to-pcapng "$T/in.pcap" "$T/in.pcapng"
"$CC" info --json "$T/in.pcapng" > "$T/ng.json"
python3 "$SRC/tests/tools/compare.py" "$T/in.json" "$T/ng.json" --unattributed > /dev/null ||
	fail "pcapng counts differ from the truth"
mkdir "$T/ng"
"$CC" convert --to codif --outdir "$T/ng" "$T/in.pcapng" > /dev/null 2>&1 || true
for f in "$T"/codif/*.codif; do
	cmp "$f" "$T/ng/$(basename "$f")" || fail "pcapng -> codif differs from pcap -> codif"
done
ok "pcapng: counts equal the truth; converts to the same codif files"

# tcpdump -i any: microsecond timestamps, Linux cooked headers
python3 "$PT" to-sll-us "$T/in.pcap" "$T/sll.pcap"
"$CC" info --json "$T/sll.pcap" > "$T/sll.json"
python3 "$SRC/tests/tools/compare.py" "$T/in.json" "$T/sll.json" --unattributed > /dev/null ||
	fail "microsecond Linux-cooked capture: counts differ from the truth"
mkdir "$T/sll"
"$CC" convert --to codif --outdir "$T/sll" "$T/sll.pcap" > /dev/null 2>&1 || true
for f in "$T"/codif/*.codif; do
	cmp "$f" "$T/sll/$(basename "$f")" || fail "SLL pcap -> codif differs from pcap -> codif"
done
ok "microsecond Linux-cooked (SLL) capture: counts equal the truth; same codif files"

# outputs are never replaced without --force; no .part stays behind
before=$(md5sum "$T/back/ibvcap_ant0_20250101T000000.000000000Z.pcap")
run_expect_fail "existing output" 1 "exists (give --force to replace it)" \
	"$CC" convert --to pcap --outdir "$T/back" "$T/codif/ibvcap_ant0_20250101T000000.000000000Z.codif"
expect_eq "existing output untouched" "$(md5sum "$T/back/ibvcap_ant0_20250101T000000.000000000Z.pcap")" "$before"
"$CC" convert --to pcap --force --src 10.17.0.99 --outdir "$T/back" \
	"$T/codif/ibvcap_ant0_20250101T000000.000000000Z.codif" > /dev/null || fail "--force"
[ "$(md5sum "$T/back/ibvcap_ant0_20250101T000000.000000000Z.pcap")" != "$before" ] ||
	fail "--force did not replace the file"
ok "--force replaces an existing output"
"$CC" convert --to raw -o "$T/named.raw" "$T/codif/ibvcap_ant2_20250101T000000.000000000Z.codif" > /dev/null
[ -f "$T/named.raw" ] && [ -f "$T/named.raw.json" ] || fail "-o FILE not written"
run_expect_fail "leftover .part refused" 1 "exists: another writer, or a cut run" \
	sh -c "touch '$T/x.raw.part' && '$CC' convert --to raw -o '$T/x.raw' '$T/codif/ibvcap_ant2_20250101T000000.000000000Z.codif'"
rm -f "$T/x.raw.part"
# names and addresses: --prefix, --antenna-name, --dst (secondaryid k to IP+k, PORT+k)
mkdir "$T/named"
"$CC" convert --to pcap --prefix site --antenna-name ak07 --src 10.9.0.7 --dst 239.9.0.1:50000 \
	--outdir "$T/named" "$T/codif/ibvcap_ant1_20250101T000000.000000000Z.codif" > /dev/null ||
	fail "convert --prefix --antenna-name --dst"
f=$(ls "$T"/named/*.pcap)
expect_eq "--prefix and --antenna-name name the output" "$(basename "$f")" "site_ak07_20250101T000000.000000000Z.pcap"
expect_eq "--src and --dst: the packets' addresses (secondaryid 0..3)" \
	"$(python3 - "$f" <<'PY'
import socket, struct, sys
seen = set()
with open(sys.argv[1], "rb") as f:
    f.read(24)
    while True:
        h = f.read(16)
        if not h:
            break
        p = f.read(struct.unpack("<IIII", h)[2])
        seen.add((socket.inet_ntoa(p[26:30]), socket.inet_ntoa(p[30:34]),
                  struct.unpack(">H", p[36:38])[0]))
print(" ".join("%s>%s:%d" % x for x in sorted(seen)))
PY
)" "10.9.0.7>239.9.0.1:50000 10.9.0.7>239.9.0.2:50001 10.9.0.7>239.9.0.3:50002 10.9.0.7>239.9.0.4:50003"
expect_eq ".part files left" "$(find "$T" -name '*.part' | wc -l)" 0
echo "$CHECKS checks passed"
