#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden: --write FORMAT:DIR,lcores=N spreads one writer's antennas over N
# writer lcores (antenna i on the (i mod N)th). codifgen streams of 6
# antennas with loss, reordering and duplicates -> dpdk-ibvcap (net_pcap,
# one queue per antenna) with, for each format, one writer and the same
# writer on 2 (codif, raw) or 4 (pcap) lcores, under one scan of a
# --schedule: the spread writers' files (the scan's index too) are byte
# for byte the single writer's, which match what was sent; the summary's
# writer table has an entry per lcore, primary-W-FORMAT-J, whose figures
# add up to the single writer's.
. "$(dirname "$0")/../lib.sh"
set -e
# 13 lcores on 2 CPUs: main, rx, 1+2 codif, 1+2 raw, 1+4 pcap writers (they
# sleep when idle)
EAL="--lcores 0@0,1@1,2@0,3@1,4@0,5@1,6@0,7@1,8@0,9@1,10@0,11@1,12@0 $EAL_COMMON --no-huge -m 1024 --no-telemetry"
python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"
T0=$(($(date +%s) + 600))
FAULTS="--seed 43 --loss 0.03 --reorder 0.05 --reorder-depth 8 --duplicate 0.02 --invalid 0.03 --start @$T0"
# shellcheck disable=SC2086
pcap_antennas "$T" 6 --count 120 $FAULTS
vdev=$VDEV n=$SENT
# one scan over every frame (the first is on the frame grid just before
# T0): the writers write into DIR/all_of_it/ and
# keep its index there
echo "all_of_it $(utc_ms "$T0" -1000) +1h" > "$T/scans.txt"
for d in codif1 codif2 raw1 raw2 pcap1 pcap4; do mkdir -p "$T/$d"; done
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$vdev" -- --count-packets "$n" --idle-timeout 30s --stats-period 0 \
	--ring 512 --reorder-window 32 --schedule "$T/scans.txt" \
	--write "codif:$T/codif1" --write "codif:$T/codif2,lcores=2" \
	--write "raw:$T/raw1" --write "raw:$T/raw2,lcores=2" \
	--write "pcap:$T/pcap1" --write "pcap:$T/pcap4,lcores=4" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 || { cat "$T/cap.log"; fail "capture failed"; }
python3 "$CMP" "$T/truth.json" "$T/sum.json" --unattributed > "$T/cmp" ||
	{ head "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture counts = truth with 3 writers and the same 3 on 2, 2 and 4 lcores"

for fmt in codif raw pcap; do
	python3 "$VER" "$T/sent.pcap" --format $fmt "$T/${fmt}1/all_of_it" > "$T/$fmt.ver" ||
		{ cat "$T/$fmt.ver"; fail "$fmt files (one writer) differ from what was sent"; }
	ok "$fmt, one writer: $(cat "$T/$fmt.ver")"
done
for pair in codif1:codif2 raw1:raw2 pcap1:pcap4; do
	one=${pair%:*} many=${pair#*:}
	nf=$(find "$T/$one" -type f | wc -l)
	[ "$nf" -ge 7 ] || fail "$one: $nf files (expected 6 antennas' and the scan's index)"
	diff -r "$T/$one" "$T/$many" > "$T/$many.diff" || { head -20 "$T/$many.diff"; fail "$many differs from $one"; }
	ok "$many (lcores=${many#"${many%?}"}): the same $nf files, byte for byte, as one writer's ($(cd "$T/$one" && find . -type f | sort | tr '\n' ' '))"
done
expect_eq "no .part left" "$(find "$T" -name '*.part' | wc -l)" 0

# the writer table: an entry per lcore, named by its part; the parts add
# up to the single writer, each holds only its antennas
python3 - "$T/truth.json" "$T/sum.json" <<'PY' || fail "writer entries"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
s = json.load(open(sys.argv[2]))
w = {x["name"]: x for x in s["buffers"]["writers"]}
want = ["primary-0-codif", "primary-1-codif-0", "primary-1-codif-1", "primary-2-raw",
        "primary-3-raw-0", "primary-3-raw-1", "primary-4-pcap"] + \
       ["primary-5-pcap-%d" % j for j in range(4)]
assert sorted(w) == sorted(want), sorted(w)
for one, parts in (("primary-0-codif", ["primary-1-codif-0", "primary-1-codif-1"]),
                   ("primary-2-raw", ["primary-3-raw-0", "primary-3-raw-1"]),
                   ("primary-4-pcap", ["primary-5-pcap-%d" % j for j in range(4)])):
    assert w[one]["written"] == t["received"], (one, w[one], t["received"])
    for k in ("written", "placeholders", "bytes", "files"):
        assert sum(w[p][k] for p in parts) == w[one][k], (k, one, [w[p][k] for p in parts])
    # antenna i on part i mod N: 6 antennas over 2 parts: 3 files each; over 4: 2, 2, 1, 1
    n = len(parts)
    assert [w[p]["files"] for p in parts] == [len(range(j, 6, n)) for j in range(n)], \
        [w[p]["files"] for p in parts]
    assert all(w[p]["overrun"] == 0 and w[p]["error"] == 0 for p in parts)
# each entry's lcore: the last 11 worker lcores (2..12) are the writers',
# in the order of --write and its parts
assert [w[k].get("lcore") for k in want] == list(range(2, 13)), [w[k].get("lcore") for k in want]
# the schedule's writers: one bit a --write, every part of it recording the scan
rec = s["recording"]["writers"]
assert [x["writer"] for x in rec] == [0, 1, 1, 2, 3, 3, 4, 5, 5, 5, 5], rec
assert [x.get("part") for x in rec] == [None, 0, 1, None, 0, 1, None, 0, 1, 2, 3], rec
print("entries: " + " ".join("%s=%d" % (k, w[k]["written"]) for k in want))
PY
ok "writer table: an entry per lcore (primary-W-FORMAT-J, its lcore said), antenna i on the (i mod N)th, the parts' figures add up to the single writer's"
