#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifgen's pcap: tshark sees UDP to the right groups and ports from the
# right antennas, in a nanosecond file; lib/codif decodes it back with the
# stream parameters and ground-truth counts given: clean and each fault kind.
. "$(dirname "$0")/../lib.sh"
set -e
need_cmd tshark
COUNT=$BUILD/tests/pcapcount

# clean run, default ASKAP-like layout: 6 antennas x 4 groups x 2 threads
"$GEN" --count 40 --pcap "$T/clean.pcap" --truth "$T/clean.json" --quiet
magic=$(od -An -tx1 -N4 "$T/clean.pcap" | tr -d ' ')
expect_eq "pcap magic (nanosecond, little-endian)" "$magic" "4d3cb2a1"

tshark -r "$T/clean.pcap" -T fields -e ip.src -e ip.dst -e udp.dstport -e frame.len \
	2>/dev/null > "$T/fields.txt"
expect_eq "tshark packets" "$(wc -l < "$T/fields.txt")" "$((6 * 4 * 2 * 40))"
expect_eq "tshark frame lengths" "$(cut -f4 "$T/fields.txt" | sort -u)" "8298"
expect_eq "tshark sources" "$(cut -f1 "$T/fields.txt" | sort -u | tr '\n' ' ')" \
	"10.17.0.211 10.17.0.212 10.17.0.213 10.17.0.214 10.17.0.215 10.17.0.216 "
expect_eq "tshark group:port pairs" "$(cut -f2,3 "$T/fields.txt" | sort -u | tr '\t\n' ': ')" \
	"239.17.0.1:36001 239.17.0.2:36002 239.17.0.3:36003 239.17.0.4:36004 "
expect_eq "packets per antenna and group" \
	"$(cut -f1,2 "$T/fields.txt" | sort | uniq -c | awk '{print $1}' | sort -u)" "80"
# timestamps: the first at 2025-01-01T00:00:00Z to the ns, spread within frames
first_ts=$(tshark -r "$T/clean.pcap" -c 1 -T fields -e frame.time_epoch 2>/dev/null)
expect_eq "first timestamp" "$first_ts" "1735689600.000000000"

"$COUNT" "$T/clean.pcap" > "$T/clean.count.json"
python3 "$CMP" "$T/clean.json" "$T/clean.count.json" --unattributed || fail "clean counts differ"
ok "clean run decodes to the truth"
python3 - "$T/clean.count.json" <<'PY' || fail "decoded parameters differ"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["payload_mismatch"] == 0, c["payload_mismatch"]
assert len(c["streams"]) == 48
for s in c["streams"]:
    got = (s["nchan"], s["nbits"], s["complex"], s["period"], s["totalsamples"], s["data_bytes"], s["epoch"], s["station"])
    assert got == (4, 16, True, 27, 32000000, 8192, 50, "AK"), got
    assert s["groupid"] == 257 + int(s["src"].split(".")[3]) - 211
PY
ok "decoded stream parameters are the generator's; payload matches"

# non-default parameters are read from the headers, not assumed
"$GEN" --antennas 3 --threads 1 --groups 2 --data-bytes 4096 --nchan 8 --nbits 8 --real \
	--period 10 --total-samples 4096000 --station XY --count 30 --start 2026-07-04T10:00:00Z \
	--pcap "$T/p.pcap" --truth "$T/p.json" --quiet
"$COUNT" "$T/p.pcap" > "$T/p.count.json"
python3 "$CMP" "$T/p.json" "$T/p.count.json" || fail "custom parameters: counts differ"
python3 - "$T/p.count.json" <<'PY' || fail "custom parameters not decoded"
import json, sys
c = json.load(open(sys.argv[1]))
assert len(c["streams"]) == 6
for s in c["streams"]:
    got = (s["nchan"], s["nbits"], s["complex"], s["period"], s["totalsamples"], s["data_bytes"], s["epoch"], s["station"])
    assert got == (8, 8, False, 10, 4096000, 4096, 53, "XY"), got
    assert s["first_frame_utc"] == "2026-07-04T10:00:00.000000000Z", s["first_frame_utc"]
PY
ok "custom parameters decode (epoch 53, 4096 data bytes, real 8-bit)"

# each fault kind alone, then all together
seed=11
for f in loss reorder duplicate invalid vlan bad-sync bad-length truncated non-codif non-ipv4 all; do
	seed=$((seed + 1))
	case $f in
	all) args="--loss 0.02 --reorder 0.05 --reorder-depth 6 --duplicate 0.02 --invalid 0.02 --vlan 0.02
		--bad-sync 0.01 --bad-length 0.01 --truncated 0.01 --non-codif 0.01 --non-ipv4 0.01" ;;
	reorder) args="--reorder 0.1 --reorder-depth 5" ;;
	*) args="--$f 0.05" ;;
	esac
	# shellcheck disable=SC2086
	"$GEN" --count 60 --seed $seed $args --pcap "$T/$f.pcap" --truth "$T/$f.json" --quiet
	"$COUNT" "$T/$f.pcap" > "$T/$f.count.json"
	python3 "$CMP" "$T/$f.json" "$T/$f.count.json" --unattributed > "$T/$f.cmp" ||
		{ cat "$T/$f.cmp"; fail "fault $f: counts differ from the truth"; }
	python3 - "$T/$f.json" "$f" <<'PY' || fail "fault $f: nothing injected"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
f = sys.argv[2]
key = {"loss": "lost", "reorder": "late", "duplicate": "duplicate", "invalid": "invalid",
       "vlan": "vlan", "bad-sync": "malformed", "bad-length": "malformed",
       "truncated": "malformed", "non-codif": "malformed", "non-ipv4": "non_ipv4", "all": "lost"}[f]
assert t[key] > 0, (key, t)
PY
	ok "fault $f: decoded counts equal the truth ($(tail -1 "$T/$f.cmp"))"
done
# the same seed gives the same file
"$GEN" --count 60 --seed 23 --loss 0.02 --reorder 0.05 --pcap "$T/a.pcap" --quiet
"$GEN" --count 60 --seed 23 --loss 0.02 --reorder 0.05 --pcap "$T/b.pcap" --quiet
cmp -s "$T/a.pcap" "$T/b.pcap" || fail "same seed, different files"
ok "deterministic for a seed"
echo "$CHECKS checks passed"
