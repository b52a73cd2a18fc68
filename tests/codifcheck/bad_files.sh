#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Bad inputs: zero-length, random, wrong-magic, truncated, VDIF, legacy,
# damaged codif/pcap/raw files get a clear message naming the file and
# what is wrong, a non-zero exit, and never a crash (also under ASan);
# directories: .part files are incomplete, unknown files skipped, --since.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck

# run_all NAME MESSAGE FILE: info, verify and convert (to codif from a
# .pcap, else to pcap) all refuse FILE with exit 1 (not a signal) and MESSAGE.
run_all() {
	local to=pcap
	case $3 in *.pcap) to=codif ;; esac
	run_expect_fail "$1: info" 1 "$2" "$CC" info "$3"
	run_expect_fail "$1: verify" 1 "$2" "$CC" verify "$3"
	run_expect_fail "$1: convert" 1 "$2" "$CC" convert --to $to --outdir "$T" "$3"
}

: > "$T/empty.codif"
run_all "zero-length" "empty file (0 bytes)" "$T/empty.codif"
head -c 4096 /dev/urandom > "$T/random.bin"
run_all "random" "not a recognised format (CODIF v3, raw + index, pcap or pcapng); first bytes: " "$T/random.bin"
cp /bin/true "$T/elf"
run_all "ELF binary" "first bytes: 7f 45 4c 46" "$T/elf"
run_expect_fail "random: message names the file" 1 "$T/random.bin: not a recognised" "$CC" info "$T/random.bin"
run_expect_fail "missing file" 1 "cannot read: No such file or directory" "$CC" verify "$T/nope.codif"
run_expect_fail "missing file: info" 1 "$T/nope.codif" "$CC" info "$T/nope.codif"
mkfifo "$T/fifo"
run_expect_fail "a FIFO" 1 "not a regular file" "$CC" verify "$T/fifo"

# a small codif file (2 antennas x 1 group x 2 threads, 20 rows) to damage
"$GEN" --antennas 1 --groups 1 --count 20 --pcap "$T/g.pcap" --quiet
"$CC" convert --to codif -o "$T/good.codif" "$T/g.pcap" > /dev/null
F=8256
expect_eq "good codif size" "$(stat -c %s "$T/good.codif")" $((40 * F))
"$CC" verify "$T/good.codif" > /dev/null || fail "the good file does not verify"
python3 - "$T" $F <<'PY'
import struct, sys
t, F = sys.argv[1], int(sys.argv[2])
g = open(t + "/good.codif", "rb").read()
def w(name, b):
    open(t + "/" + name, "wb").write(b)
w("trunc.codif", g[:7 * F + 1000])              # cut inside frame 7
w("short.codif", g[:50])                         # 50 bytes: sync word, no full header
w("hdr-only.codif", g[:40])                      # 40 bytes: no sync word at all
b = bytearray(g); b[5 * F + 40] ^= 0xff          # frame 5 sync
w("badsync.codif", b)
b = bytearray(g); b[40] ^= 0xff                   # the first frame's sync
w("firstsync.codif", b)
b = bytearray(g); b[9 * F + 24] = 2              # frame 9: nchan 4 -> 2 (still valid)
w("param.codif", b)
w("swap.codif", g[:4 * F] + g[6 * F:8 * F] + g[4 * F:6 * F] + g[8 * F:])  # rows 2, 3 swapped
w("garbage.codif", g[:3 * F] + b"\xab" * 1000 + g[3 * F:])
w("shortframe.codif", g[:2 * F] + g[2 * F:3 * F - 100] + g[3 * F:])
m = bytearray(g[:F]); m[40:44] = struct.pack("<I", 0xADEADBEE); m[28:32] = struct.pack("<I", 0xADEADBEE)
w("legacy.codif", bytes(m))
v = b"".join(struct.pack("<IIII", 100, f, (32 + 64) // 8, 0x414B) + bytes(16) + bytes(64) for f in range(4))
w("vdif.vdif", v)
p = open(t + "/g.pcap", "rb").read()
w("trunc.pcap", p[:24 + 3 * (16 + 8298) + 500])   # cut inside record 4
w("hdr.pcap", p[:10])
b = bytearray(p); b[0:4] = b"\x00\x00\x00\x00"
w("magic.pcap", b)
PY
run_expect_fail "truncated codif: info" 1 "damaged: final frame: 1000 of 8256 bytes" "$CC" info "$T/trunc.codif"
run_expect_fail "truncated codif: verify" 1 "offset $((7 * F)) (2025-01-01T00:00:00.001296000Z): truncated: final frame: 1000 of 8256 bytes" \
	"$CC" verify "$T/trunc.codif"
run_all "truncated header" "truncated CODIF: 50 bytes, a header needs 64" "$T/short.codif"
run_all "40-byte codif" "shorter than one CODIF header" "$T/hdr-only.codif"
run_all "VDIF" "VDIF, not CODIF (VDIF version 0, 96-byte frames, station 0x414b)" "$T/vdif.vdif"
run_all "legacy CODIF" "legacy CODIF (sync 0xADEADBEE at byte 28), not CODIF v3" "$T/legacy.codif"
run_all "wrong pcap magic" "not a recognised format" "$T/magic.pcap"
run_all "pcap header cut" "truncated dump file; tried to read 24 file header bytes" "$T/hdr.pcap"
run_expect_fail "truncated pcap: verify" 1 "truncated: pcap record damage after 3 records: truncated dump file" \
	"$CC" verify "$T/trunc.pcap"
run_expect_fail "truncated pcap: info" 1 "damaged: pcap record damage" "$CC" info "$T/trunc.pcap"
"$CC" info --json "$T/trunc.pcap" > "$T/trunc.json" 2>/dev/null || true
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['records'] == 3 and d['damaged'], d" \
	"$T/trunc.json" || fail "truncated pcap: the records before the damage are not counted"
ok "truncated pcap: 3 records read before the damage"

run_expect_fail "bad sync: verify" 1 "offset $((5 * F)) (2025-01-01T00:00:00.000864000Z): bad-sync: not CODIF v3: sync 0xFEEDCA01, expected 0xFEEDCAFE (a frame of 8256 bytes skipped)" \
	"$CC" verify "$T/badsync.codif"
"$CC" info --json "$T/badsync.codif" > "$T/badsync.json" 2>/dev/null && fail "bad sync: info exit 0"
python3 - "$T/badsync.json" <<'PY' || fail "bad sync: the frame after it is not read"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["frames_read"] == 39 and d["damaged"], d
lost = {(s["threadid"]): s["lost"] for s in d["streams"]}
assert lost == {0: 0, 1: 1}, lost          # frame 5 = row 2, thread 1
PY
ok "bad sync: one frame lost, the other 39 read"
run_expect_fail "first frame's sync" 1 "offset 0: bad-sync: not CODIF v3: sync 0xFEEDCA01, expected 0xFEEDCAFE; 8256 bytes skipped to the next CODIF header at offset 8256" \
	"$CC" verify "$T/firstsync.codif"
run_expect_fail "first frame's sync: info" 1 "CODIF v3 frames, the first valid header at byte 8256" \
	"$CC" info "$T/firstsync.codif"
run_expect_fail "parameter change" 1 "offset $((9 * F)) (2025-01-01T00:00:00.001728000Z): parameter-change: AK/257/0/1: parameter change: nchan 2, expected 4 (the stream's first frame)" \
	"$CC" verify "$T/param.codif"
run_expect_fail "time backwards" 1 "time-backwards: AK/257/0/0: frame index 2 (late) after index 3 (2025-01-01T00:00:00.001296000Z)" \
	"$CC" verify "$T/swap.codif"
run_expect_fail "garbage" 1 "offset $((3 * F)) (2025-01-01T00:00:00.000432000Z): bad-sync: not CODIF v3: sync 0xABABABAB, expected 0xFEEDCAFE; 1000 bytes skipped to the next CODIF header at offset $((3 * F + 1000))" \
	"$CC" verify "$T/garbage.codif"
run_expect_fail "short frame" 1 "offset $((2 * F)) (2025-01-01T00:00:00.000432000Z): wrong-length: the frame is 8156 bytes, its header says 8256" \
	"$CC" verify "$T/shortframe.codif"
run_expect_fail "convert of a damaged codif keeps going" 1 "1 problem in the input" \
	"$CC" convert --to pcap -o "$T/bs.pcap" "$T/badsync.codif"
expect_eq "convert of a damaged codif: the 39 good frames written" \
	"$("$CC" info --json "$T/bs.pcap" | json_get - records)" 39

# raw + index damage
"$CC" convert --to raw -o "$T/r.raw" "$T/good.codif" > /dev/null
cp "$T/r.raw" "$T/noidx.raw"
run_expect_fail "raw without index" 1 "raw index: $T/noidx.raw.json: No such file or directory" "$CC" verify "$T/noidx.raw"
head -c $((5 * 8192 + 100)) "$T/r.raw" > "$T/cut.raw"
cp "$T/r.raw.json" "$T/cut.raw.json"
run_expect_fail "raw shorter than its index" 1 "raw file is $((5 * 8192 + 100)) bytes, the index says 20 rows x 2 streams x 8192 bytes = $((40 * 8192))" \
	"$CC" verify "$T/cut.raw"
cp "$T/r.raw" "$T/bad.raw"
sed 's/"rows": 20/"rows": 20,,/' "$T/r.raw.json" > "$T/bad.raw.json"
run_expect_fail "raw index not JSON" 1 "raw index $T/bad.raw.json: byte " "$CC" info "$T/bad.raw"
sed 's/"format": "dpdk-ibvcap-raw"/"format": "other"/' "$T/r.raw.json" > "$T/bad.raw.json"
run_expect_fail "raw index wrong format" 1 "format: 'other', expected 'dpdk-ibvcap-raw'" "$CC" verify "$T/bad.raw"

# directories: .part incomplete, unknown skipped, bad files are problems
mkdir "$T/dir"
cp "$T/good.codif" "$T/dir/ibvcap_ant0_20250101T000000.000000000Z.codif"
cp "$T/good.codif" "$T/dir/ibvcap_ant0_20250101T000001.000000000Z.codif.part"
echo "notes" > "$T/dir/README"
"$CC" verify "$T/dir" > "$T/dir.txt" || { cat "$T/dir.txt"; fail "a directory with a .part file: exit $?"; }
grep -q "ibvcap_ant0_20250101T000001.000000000Z.codif.part: incomplete (.part: being written, or cut by a crash of its writer); not checked" "$T/dir.txt" ||
	fail ".part not reported as incomplete"
grep -q "README: not a recognised format; skipped" "$T/dir.txt" || fail "unknown file not reported as skipped"
grep -q "^verify: 1 files checked, 0 with problems, 0 problems, 2 skipped$" "$T/dir.txt" || fail "summary line"
ok "directory: .part incomplete, README skipped, the codif file checked"
run_expect_fail "directory --strict" 1 "problem (--strict): incomplete (.part" "$CC" verify --strict "$T/dir"
cp "$T/trunc.codif" "$T/dir/ibvcap_ant1_20250101T000002.000000000Z.codif"
run_expect_fail "directory with a truncated file" 1 "verify: 2 files checked, 1 with problems, 1 problems" \
	"$CC" verify "$T/dir"
"$CC" verify --since 2025-01-01T00:00:01Z "$T/dir" > "$T/since.txt" &&
	fail "--since: the truncated file (newer) was skipped"
grep -q "1 older than --since" "$T/since.txt" || fail "--since did not skip the older file"
"$CC" verify --since 2025-01-01T00:00:03Z "$T/dir" > "$T/since.txt" || fail "--since after all files"
grep -q "^verify: 0 files checked, 0 with problems, 0 problems, 1 skipped, 3 older than --since$" "$T/since.txt" ||
	fail "--since: all three older"
ok "--since skips files older than TIME by their names"
# --since reads the start of a file without a formats.md name from its content
"$CC" verify --since 2025-01-01T00:00:00.000000001Z "$T/good.codif" | grep -q "1 older than --since" ||
	fail "--since by content (codif)"
"$CC" verify --since 2025-01-01T00:00:00Z "$T/good.codif" | grep -q "1 files checked" ||
	fail "--since by content: a file starting at TIME is checked"
ok "--since by content"
echo "$CHECKS checks passed"
