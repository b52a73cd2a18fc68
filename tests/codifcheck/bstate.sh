#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifcheck bstate against codifgen's known signals: 2-bit Gaussian noise
# at RMS 0.1, 1 and 3 steps -> each state's share within 6 standard errors
# (+ 1e-4) of the Gaussian's (computed here, independently, with erfc) and
# the verdicts under-driven / ok / over-driven; a dead antenna and a stuck
# bit named; 8 and 16-bit histograms' width = the injected RMS (1 %);
# channel groups; thresholds set by options; exit 1 unless every stream is ok.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck
L2="--groups 1 --threads 1 --real --nchan 4 --period 1 --total-samples 8192000"
# shellcheck disable=SC2086
"$GEN" --antennas 6 $L2 --nbits 2 --count 25 --signal 0:0.1 --signal 1:1 --signal 2:3 \
	--signal 3:dead --signal 4:1,stuck=1:0 --signal 5:1.6 --pcap "$T/b2.pcap" --quiet
set +e
"$CC" bstate --json "$T/b2.pcap" > "$T/b2.json"
rc=$?
set -e
expect_eq "bstate of streams not all ok: exit" "$rc" 1
python3 - "$T/b2.json" <<'PY' || fail "2-bit occupancy or verdicts"
import json, math, sys
j = json.load(open(sys.argv[1]))
st = j["files"][0]["streams"]
assert not j["ok"] and len(st) == 6, len(st)
def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))
def gauss(s):
    # levels -3/2, -1/2, +1/2, +3/2 take x < -1, [-1, 0), [0, 1), >= 1
    return [phi(-1 / s), phi(0) - phi(-1 / s), phi(1 / s) - phi(0), 1 - phi(1 / s)]
want = {0: ("under-driven", 0.1), 1: ("ok", 1.0), 2: ("over-driven", 3.0), 3: ("dead", None),
        4: ("stuck bit", None), 5: ("ok", 1.6)}
for i, s in enumerate(st):
    v, rms = want[i]
    assert s["verdict"] == v, (i, s["verdict"], v)
    assert s["state_value"] == [-1.5, -0.5, 0.5, 1.5]
    n = s["samples"]
    assert n == 25 * 8192 * 4, n
    if rms is not None:
        for p, q in zip(s["occupancy"], gauss(rms)):
            assert abs(p - q) <= 6 * math.sqrt(q * (1 - q) / n) + 1e-4, (i, s["occupancy"], gauss(rms))
        if rms >= 1:
            assert abs(s["rms"] - rms) < 0.02 * rms, (i, s["rms"])
    print(i, v, " ".join("%.4f" % p for p in s["occupancy"]))
assert abs(st[1]["expected"][0] - 0.158655) < 1e-5 and abs(st[1]["expected"][1] - 0.341345) < 1e-5
assert st[0]["rms"] is None and st[0]["rms_below"]
assert st[3]["zero"] == 1.0
assert st[4]["stuck_mask"] == 2 and st[4]["stuck_value"] == 0
PY
ok "2-bit noise at 0.1, 1, 3 steps: occupancy = Gaussian (6 s.e.), under-driven / ok / over-driven; dead and stuck bit named"
"$CC" bstate "$T/b2.pcap" > "$T/b2.txt" || true
grep -q "stuck bit .* bits 0x2 stuck at 0x0" "$T/b2.txt" || { cat "$T/b2.txt"; fail "text: the stuck bit"; }
grep -q "expected   -1.5:15.87% -0.5:34.13% +0.5:34.13% +1.5:15.87%" "$T/b2.txt" || fail "text: the expected levels"
ok "text: the stuck bit and the expected 16/34/34/16 %"

# --plot: a PNG, and the data it drew = the occupancy and the expectation
"$CC" bstate --plot "$T/bs.png" "$T/b2.pcap" > /dev/null || true
[ "$(head -c 8 "$T/bs.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "--plot: not a PNG"
[ "$(stat -c %s "$T/bs.png")" -gt 20000 ] || fail "--plot: $(stat -c %s "$T/bs.png") bytes"
python3 - "$T/bs.png.dat" "$T/b2.json" <<'PY' || fail "--plot: its data"
import json, sys
blocks = [b for b in open(sys.argv[1]).read().split("\n\n\n") if b.strip()]
st = json.load(open(sys.argv[2]))["files"][0]["streams"]
assert len(blocks) == 6, len(blocks)
for b, s in zip(blocks, st):
    head, *rows = b.strip().splitlines()
    assert head == "# %s: %s" % (s["stream"], s["verdict"]), head
    rows = [tuple(map(float, r.split())) for r in rows]
    assert [r[0] for r in rows] == s["state_value"]
    assert all(abs(r[1] - 100 * o) < 1e-5 and abs(r[2] - 100 * e) < 1e-5
               for r, o, e in zip(rows, s["occupancy"], s["expected"]))
PY
ok "--plot: a PNG of $(stat -c %s "$T/bs.png") bytes; its data = each stream's occupancy and the expected levels"

# --plot's path: a FIFO (as a device would be) and a quote refused before
# any input is read, nothing written beside them
mkfifo "$T/fifo.png"
run_expect_fail "--plot a FIFO" 2 "is a FIFO: expected a regular file" \
	"$CC" bstate --plot "$T/fifo.png" "$T/b2.pcap"
run_expect_fail "--plot a quote" 2 "expected a path without quotes or line breaks" \
	"$CC" spectrum --plot "$T/it's.png" "$T/b2.pcap"
mkfifo "$T/f.png.dat"
run_expect_fail "--plot's data file a FIFO" 2 "f.png.dat' is a FIFO" \
	"$CC" fringe --plot "$T/f.png" "$T/b2.pcap" "$T/b2.pcap"
expect_eq "nothing written beside a refused --plot" "$(ls "$T" | grep -c -E "^fifo.png.dat$|^it|^f.png$")" 0

# one stream, ok: exit 0; thresholds and groups from options
"$CC" bstate --antenna-ip 10.17.0.212 "$T/b2.pcap" > /dev/null || fail "an ok stream: exit not 0"
set +e
"$CC" bstate --json --antenna-ip 10.17.0.212 --under 0.9 --over 1.001 --groups 2 "$T/b2.pcap" > "$T/g.json"
set -e
python3 - "$T/g.json" "$T/b2.json" <<'PY' || fail "groups or thresholds"
import json, sys
s = json.load(open(sys.argv[1]))["files"][0]["streams"][0]
assert [(g["first_chan"], g["last_chan"]) for g in s["groups"]] == [(0, 1), (2, 3)], s["groups"]
assert sum(g["samples"] for g in s["groups"]) == s["samples"]
# RMS 1.0 estimated within 2 %: above 1.001 x optimal (1 step) or not,
# it is over-driven or ok; below 0.9 never
assert s["verdict"] in ("over-driven", "ok") and s["rms"] > 0.98, (s["verdict"], s["rms"])
t = json.load(open(sys.argv[2]))["files"][0]["streams"][5]  # RMS 1.6
assert t["verdict"] == "ok"
PY
"$CC" bstate --json --antenna-ip 10.17.0.216 --over 1.5 "$T/b2.pcap" > "$T/o.json" || true
expect_eq "--over 1.5: RMS 1.6 steps is over-driven" \
	"$(json_get "$T/o.json" files 0 streams 0 verdict)" \
	"over-driven"

# 8 and 16 bits: the histogram's width is the injected RMS
for spec in "8 20" "16 3000"; do
	set -- $spec
	# shellcheck disable=SC2086
	"$GEN" --antennas 1 $L2 --nbits "$1" --count 40 --signal "0:$2" --pcap "$T/w$1.pcap" --quiet
	"$CC" bstate --json "$T/w$1.pcap" > "$T/w$1.json" || fail "$1-bit RMS $2: not ok"
	python3 - "$T/w$1.json" "$1" "$2" <<'PY' || fail "$1-bit width"
import json, math, sys
s = json.load(open(sys.argv[1]))["files"][0]["streams"][0]
nb, rms = int(sys.argv[2]), float(sys.argv[3])
assert s["states"] == 64 and abs(sum(s["occupancy"]) - 1) < 1e-9
assert abs(s["rms"] - rms) < 0.01 * rms, (s["rms"], rms)
w = 2 ** (nb - 6)
m = sum(p * v for p, v in zip(s["occupancy"], s["state_value"]))
m2 = sum(p * v * v for p, v in zip(s["occupancy"], s["state_value"]))
width = math.sqrt(max(m2 - m * m - w * w / 12, 0))
if nb == 8:  # 4 codes a bin: the bins tell the width (Sheppard's correction)
    assert abs(width - rms) < 0.02 * rms, (width, rms)
print(nb, s["rms"], width)
PY
done
ok "8-bit RMS 20, 16-bit RMS 3000: width within 1 % (8 bits: the bins' too, 2 %)"
echo "$CHECKS checks passed"
