#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifcheck spectrum: codifgen's noise with a tone at a known frequency
# (complex 16-bit at +0.125 and -0.25 cycles per sample; real 8-bit at
# 0.1875) -> each channel's peak in exactly its bin (nfft 256), at the
# frequency the header's sample rate gives, the tone's power and the noise
# floor as computed here; --plot writes a PNG whose data file holds the
# same peak; a bad --nfft is refused.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck
# complex, 4 channels of 256 kHz (totalsamples 256000 per 1 s period)
"$GEN" --antennas 2 --groups 1 --threads 1 --nbits 16 --nchan 4 --period 1 --total-samples 256000 \
	--signal 0:100,tone=0.125:60 --signal 1:100,tone=-0.25:60 --count 40 --pcap "$T/c.pcap" --quiet
"$CC" spectrum --json --nfft 256 --plot "$T/bp.png" "$T/c.pcap" > "$T/c.json" || fail "spectrum (complex)"
python3 - "$T/c.json" <<'PY' || fail "complex: peaks"
import json, math, sys
st = json.load(open(sys.argv[1]))["files"][0]["streams"]
assert len(st) == 2
for s, f, b in zip(st, (0.125, -0.25), (160, 64)):
    assert s["nfft"] == 256 and s["complex"] and s["sample_rate_hz"] == 256000.0
    assert len(s["freq_mhz"]) == 256 and s["blocks"] == 40 * 512 // 256, s["blocks"]  # 512 time samples a frame
    for c in s["channels"]:
        assert c["peak_bin"] == b, (c["channel"], c["peak_bin"], b)
        assert abs(c["peak_mhz"] - f * 0.256) < 1e-9, c["peak_mhz"]
        # tone: |60 * 256|^2 / 256; noise: 2 x 100^2 per bin
        assert abs(c["peak_db"] - 10 * math.log10(60 * 60 * 256 + 2e4)) < 0.5, c["peak_db"]
        assert abs(c["mean_db"] - 10 * math.log10(2e4)) < 0.5, c["mean_db"]
print("ok")
PY
ok "complex 16-bit: tones at +0.125 and -0.25 cycles/sample in bins 160 and 64 (+32 and -64 kHz) of every channel; tone and floor at their powers"
# the plot: a PNG, and the data it drew holds the peak at channel 0's
# +32 kHz (its centre at 128 kHz on the stream's band)
[ "$(head -c 8 "$T/bp.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "--plot: not a PNG"
[ "$(stat -c %s "$T/bp.png")" -gt 20000 ] || fail "--plot: $(stat -c %s "$T/bp.png") bytes"
python3 - "$T/bp.png.dat" <<'PY' || fail "--plot: its data"
import sys
blocks = open(sys.argv[1]).read().split("\n\n\n")
rows = [[tuple(map(float, l.split())) for l in b.splitlines() if l and l[0] != "#"] for b in blocks if b.strip()]
assert len(rows) == 2 and len(rows[0]) == 4 * 256, [len(r) for r in rows]
x, y = max(rows[0][:256], key=lambda r: r[1])
assert abs(x - (0.128 + 0.032)) < 1e-6, x
PY
ok "--plot: a PNG of $(stat -c %s "$T/bp.png") bytes; its data: channel 0's peak at 0.160 MHz of the band"
# real 8-bit, 2 channels: 0 .. fs/2
"$GEN" --antennas 1 --groups 1 --threads 1 --nbits 8 --real --nchan 2 --period 1 --total-samples 512000 \
	--signal 0:10,tone=0.1875:8 --count 20 --pcap "$T/r.pcap" --quiet
"$CC" spectrum --json --nfft 256 "$T/r.pcap" > "$T/r.json" || fail "spectrum (real)"
python3 - "$T/r.json" <<'PY' || fail "real: peaks"
import json, sys
s = json.load(open(sys.argv[1]))["files"][0]["streams"][0]
assert not s["complex"] and len(s["freq_mhz"]) == 129 and s["freq_mhz"][-1] == 0.256
for c in s["channels"]:
    assert c["peak_bin"] == 48 and abs(c["peak_mhz"] - 0.096) < 1e-9, c
PY
ok "real 8-bit: the tone at 0.1875 cycles/sample in bin 48 (96 kHz of 0..256 kHz)"
run_expect_fail "--nfft not a power of two" 2 "--nfft" "$CC" spectrum --nfft 100 "$T/r.pcap"
echo "$CHECKS checks passed"
