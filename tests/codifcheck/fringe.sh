#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifcheck fringe: codifgen's common signal (--signal A:RMS,common=RHO,
# delay=D) on two antennas, each antenna's frames in its own pcap ->
# every channel's peak at exactly lag D_B - D_A samples (and ns from the
# header's rate) with the coefficient of codifgen's truth (after
# quantisation) within 5 noise sigmas; complex 2-bit (lag +3, 10 % of the
# frames lost on each antenna: pairs by time whatever is lost), real 8-bit
# (lag -5), complex 16-bit (rho 0.3 and 0.8: sqrt(0.24)); uncorrelated
# antennas -> |coefficient| < 5 / sqrt(samples) on every channel; the
# --plot PNG and its data; files that do not pair are refused, naming both
# values.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck

# gen NAME "codifgen options": one pcap per antenna (NAME0.pcap ...), the truth
gen() {
	local a
	for a in 0 1 2; do
		# shellcheck disable=SC2086
		"$GEN" --antennas 3 --antenna $a --groups 1 --threads 1 --period 1 $2 \
			--truth "$T/$1.json" --pcap "$T/$1$a.pcap" --quiet
	done
}

# check NAME A B: fringe of antennas A and B against the truth's pair
check() {
	"$CC" fringe --json "$T/$1$2.pcap" "$T/$1$3.pcap" > "$T/$1$2$3.out" ||
		fail "$1: fringe $2 $3"
	python3 - "$T/$1.json" "$T/$1$2$3.out" "$2" "$3" <<'PY' || fail "$1: antennas $2, $3"
import json, math, sys
truth = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
a, b = int(sys.argv[3]), int(sys.argv[4])
# the truth lists a < b: B behind A by lag, so A behind B by -lag
pair = [p for p in truth["fringe"] if p["a"] == a and p["b"] == b] or \
       [dict(p, lag_samples=-p["lag_samples"], lag_ns=-p["lag_ns"])
        for p in truth["fringe"] if p["a"] == b and p["b"] == a]
st = r["streams"][0]
n_chan = len(st["channels"])
assert r["pairs"] > 0 and r["unmatched_a"] == r["frames_a"] - r["pairs"], r
for c in st["channels"]:
    if pair:
        p = pair[0]
        assert c["lag_samples"] == p["lag_samples"], (c, p)
        assert abs(c["lag_ns"] - p["lag_ns"]) < 1e-6, (c, p)
        assert abs(c["coefficient"] - p["coefficient"]) < 5 * c["sigma"], (c, p)
    else:
        n = st["pairs"] * (st["samples_per_frame"] - abs(c["lag_samples"]))
        assert abs(c["coefficient"]) < 5 / math.sqrt(n), (c, 5 / math.sqrt(n))
c = st["channels"][0]
print(f"{r['pairs']} pairs (unmatched {r['unmatched_a']}/{r['unmatched_b']}), ch 0: lag "
      f"{c['lag_samples']} ({c['lag_ns']:.3f} ns) coefficient {c['coefficient']:.4f} "
      f"(truth {pair[0]['coefficient'] if pair else 0:.4f}, sigma {c['sigma']:.4f}), "
      f"{n_chan} channels")
PY
}

# complex 2-bit, 4 channels of 4 MHz: antenna 1 late by 3 samples
gen c2 "--nbits 2 --nchan 4 --total-samples 4096000 --count 60 --loss 0.1 \
	--signal 0:1,common=0.5 --signal 1:1,common=0.5,delay=3 --signal 2:1"
m=$(check c2 0 1); ok "complex 2-bit, 10 % lost: $m"
m=$(check c2 1 0); ok "the other way round: $m"
m=$(check c2 0 2); ok "uncorrelated: $m"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["fringe"]; assert len(p) == 1 and p[0]["lag_samples"] == 3 and abs(p[0]["coefficient"] - 0.4443) < 1e-4, p' \
	"$T/c2.json" || fail "truth: the 2-bit pair"
ok "truth: 2 bits at RMS 1, rho 0.5 -> 0.4443 after quantisation"

# real 8-bit: antenna 0 late by 2, antenna 1 early by 3 -> B behind A by -5
gen r8 "--nbits 8 --real --nchan 2 --total-samples 8192000 --count 40 \
	--signal 0:10,common=0.5,delay=2 --signal 1:10,common=0.5,delay=-3 --signal 2:10"
m=$(check r8 0 1); ok "real 8-bit: $m"
m=$(check r8 1 2); ok "real 8-bit uncorrelated: $m"

# complex 16-bit: different shares, sqrt(0.3 * 0.8)
gen c16 "--nbits 16 --nchan 4 --total-samples 512000 --count 40 \
	--signal 0:300,common=0.3,delay=-7 --signal 1:300,common=0.8,delay=5 --signal 2:300"
m=$(check c16 0 1); ok "complex 16-bit, rho 0.3 x 0.8: $m"

# --channels and --plot
"$CC" fringe --channels 1,3 --max-lag 16 --plot "$T/f.png" "$T/c20.pcap" "$T/c21.pcap" \
	> "$T/f.txt" || fail "--plot"
[ "$(grep -c 'lag +3 samples' "$T/f.txt")" = 2 ] || fail "--channels 1,3: $(cat "$T/f.txt")"
[ "$(head -c 8 "$T/f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "--plot: not a PNG"
python3 - "$T/f.png.dat" <<'PY' || fail "--plot: its data"
import sys
blocks = [b for b in open(sys.argv[1]).read().split("\n\n\n") if b.strip()]
assert len(blocks) == 2, len(blocks)
for b in blocks:
    rows = [tuple(map(float, l.split())) for l in b.splitlines() if l and l[0] != "#"]
    assert len(rows) == 33, len(rows)
    assert max(rows, key=lambda r: r[1])[0] == 3
PY
ok "--channels 1,3 --max-lag 16: two channels; --plot: a PNG of $(stat -c %s "$T/f.png") bytes, its data peaks at lag 3"

# refusals
"$GEN" --antennas 1 --groups 1 --threads 1 --period 1 --nbits 2 --nchan 8 --total-samples 2048000 \
	--signal 0:1 --count 5 --pcap "$T/ch8.pcap" --quiet
run_expect_fail "different channel counts" 1 "channels differ: A 4, B 8" \
	"$CC" fringe "$T/c20.pcap" "$T/ch8.pcap"
"$GEN" --antennas 1 --groups 1 --threads 1 --period 1 --nbits 2 --nchan 4 --total-samples 4096000 \
	--signal 0:1 --count 5 --start 2025-06-01T00:00:00Z --pcap "$T/late.pcap" --quiet
run_expect_fail "no common frame" 1 "has the time and thread of one of" \
	"$CC" fringe "$T/c20.pcap" "$T/late.pcap"
"$GEN" --antennas 2 --groups 1 --threads 1 --period 1 --nbits 2 --nchan 4 --total-samples 4096000 \
	--signal 0:1 --signal 1:1 --count 5 --pcap "$T/both.pcap" --quiet
run_expect_fail "a file of two antennas" 1 "both.pcap holds frames of more than one source on thread 0 (station 16715 group 257 secondary 0, and station 16715 group 258" \
	"$CC" fringe "$T/c20.pcap" "$T/both.pcap"
run_expect_fail "a missing file" 1 "nope.pcap: cannot read" "$CC" fringe "$T/c20.pcap" "$T/nope.pcap"
run_expect_fail "one file" 2 "expected two files" "$CC" fringe "$T/c20.pcap"
run_expect_fail "a bad --channels" 2 "--channels" "$CC" fringe --channels 2-x "$T/c20.pcap" "$T/c21.pcap"
run_expect_fail "a channel beyond nchan" 1 "channel 9 asked, the frames have channels 0..3" \
	"$CC" fringe --channels 9 "$T/c20.pcap" "$T/c21.pcap"
echo "$CHECKS checks passed"
