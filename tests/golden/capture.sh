#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden capture: the rows of tests/golden/TESTLIST of TOOL capture, run by
# tests/golden/golden.sh: dpdk-ibvcap's summary and -v lines on codifgen
# pcaps replayed through net_pcap, masked by mask.sed (times, rates, the
# poll loop's figures, the pid), each equal byte for byte to out/NAME.out;
# and against codifgen's truth: the run's --summary-json field by field
# (tests/tools/compare.py), the summary's Total packets, Total bytes, Num
# mismatches and average size, its Busy wait the JSON's, and with -v a line
# per packet sent and one per malformed packet.
# UPDATE=1 (tests/golden/update.sh) rewrites the .out files instead.
. "$(dirname "$0")/../lib.sh"
set -e
. "$(dirname "$0")/golden.sh"
while read -r name tool cols input args; do
	# shellcheck disable=SC2086 # the row's arguments, split as written
	golden_run "$name" "$tool" "$cols" "$input" $args
	golden_check "$name" "$G/out"
	python3 "$CMP" "$T/$name.truth.json" "$T/$name.sum.json" --unattributed > "$T/$name.cmp" ||
		{ cat "$T/$name.cmp" "$T/$name.raw"; fail "$name: the summary's counts differ from the truth"; }
	# the summary's lines (unmasked) and -v's against the truth
	# shellcheck disable=SC2086 # the row's arguments, as given
	python3 - "$T/$name.truth.json" "$T/$name.sum.json" "$T/$name.raw" $args <<'PY' ||
import json, re, sys
t = json.load(open(sys.argv[1]))["totals"]
s = json.load(open(sys.argv[2]))["totals"]
text = open(sys.argv[3]).read()
def line(k):
    m = re.search(r"^" + re.escape(k) + r":\s+([0-9.]+)", text, re.M)
    assert m, "no line '%s:'" % k
    return m.group(1)
assert int(line("Total packets")) == t["sent"], (line("Total packets"), t["sent"])
assert int(line("Total bytes")) == t["sent_bytes"], (line("Total bytes"), t["sent_bytes"])
assert int(line("Num mismatches")) == t["lost"] + t["late"] + t["duplicate"]
assert int(line("Busy wait")) == s["busy_wait"], (line("Busy wait"), s["busy_wait"])
assert abs(float(line("Average bytes per packet")) - t["sent_bytes"] / t["sent"]) < 0.1
v = ""
if "-v" in sys.argv[4:]:
    # one line per packet; the malformed ones with their reason
    pk = re.findall(r"^lcore [0-9]+ port [0-9]+ queue [0-9]+ len [0-9]+ .*$", text, re.M)
    assert len(pk) == t["sent"], ("-v lines", len(pk), t["sent"])
    bad = [l for l in pk if re.search(r"\| ant [0-9]+ malformed [a-z-]+: |\| bad-length: UDP payload ", l)]
    assert len(bad) == t["malformed"], ("-v malformed lines", len(bad), t["malformed"])
    v = "; -v: %d lines, %d malformed with their reason" % (len(pk), len(bad))
print("Total packets %d, Total bytes %d, Num mismatches %s = the truth's%s" % (
    t["sent"], t["sent_bytes"], line("Num mismatches"), v))
PY
		fail "$name: the summary's lines against the truth"
	ok "$name: the text = out/$name.out; counts = truth ($(tail -1 "$T/$name.cmp"))"
done < <(golden_rows capture)
[ "$GOLDEN_ROWS" -ge 3 ] || fail "$G/TESTLIST: $GOLDEN_ROWS capture rows"
echo "$CHECKS checks passed"
