#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --consumer ...,scans=1: an in-process plugin following the capture's
# scans (lib/consumer's rule, as libibvcap's IBVCAP_OPEN_SCANS): codifgen's
# streams (6 antennas x 2, 600 frames of 1 ms from T0, none lost) into a
# capture with a --schedule of one scan from T0 + 100 ms to T0 + 300 ms,
# two plugins (tests/consumer/plugin_slow.so, times=1: the start of each
# frame it was handed valid, and how many views): "scanner" with scans=1
# was handed exactly the frames k = 100..299 (T0 + k ms, computed here
# from the scan's start and stop and the frame rate), all 12 streams of
# each; "everything" beside it, without scans=, every frame k = 0..599.
# ctl status lists both, by name and lcore, scanner idle until the scan,
# everything always.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
record_setup
SLOW=$BUILD/tests/consumer/plugin_slow.so
GENARGS="$LAYOUT $SIG --count 600 --seed 28 --start @$T0"
echo "sc_a $(utc 100) $(utc 300)" > "$T/scans.txt"
CAP_LCORES="--lcores=0@0,1@1,2@0,3@1"
cons_capture "$GENARGS" 1024 32 --schedule "$T/scans.txt" \
	--consumer "$SLOW,out=$T/scanner.json,times=1,name=scanner,scans=1,frames=32" \
	--consumer "$SLOW,out=$T/everything.json,times=1,name=everything,frames=32"
$CTL status > "$T/st.json" || fail "ctl status"
python3 - "$T/st.json" <<'PY' || { cat "$T/st.json"; fail "status: the plugins among the writers following scans"; }
import json, sys
d = json.load(open(sys.argv[1]))
names, states, lcores = d["dump_writer_names"], d["dump_writer_states"], d["dump_writer_lcores"]
assert names == ["scanner", "everything"], names
assert states[0] == "idle until sc_a" and states[1].startswith("always"), states
assert lcores == [3, 2], lcores
PY
ok "ctl status: plugin scanner (lcore 3) idle until sc_a, plugin everything (lcore 2) always"
sleep 0 &
RPID=$! # no consumer of another process
cons_run "$GENARGS" 1000
ok "capture with the two plugins exited 0; counts = truth ($(tail -1 "$T/cmp"))"
for line in "--consumer scanner on lcore 3, following its scans: $SLOW" \
	"--consumer everything on lcore 2: $SLOW"; do
	grep -qx -- "dpdk-ibvcap: $line" "$T/cap.log" || { cat "$T/cap.log"; fail "start line: $line"; }
done
ok "the capture's start lines: scanner on lcore 3 following its scans, everything on lcore 2"
python3 - "$T/scanner.json" "$T/everything.json" "$T/sum.json" "$T0" "$FRAME_RATE" \
	<<'PY' > "$T/sc.check" || { cat "$T/sc.check"; fail "the plugins' frames"; }
import json, sys
scanner, everything, summ = (json.load(open(p)) for p in sys.argv[1:4])
t0_ns, rate = int(sys.argv[4]) * 10**9, int(sys.argv[5])
views = 12  # 6 antennas x 2 streams, none lost
def expect(first_ms, stop_ms):
    # frames whose start is in [first, stop): k / rate s after T0
    return {t0_ns + k * 10**9 // rate: views for k in range(600)
            if first_ms * 10**6 <= k * 10**9 // rate < stop_ms * 10**6}
for name, got, want in (("scanner", scanner, expect(100, 300)),
                        ("everything", everything, expect(0, 600))):
    times = {}
    for t, n in got["times"]:
        assert t not in times, "%s: frame at %d handed twice" % (name, t)
        times[t] = n
    extra = sorted(set(times) - set(want))
    missing = sorted(set(want) - set(times))
    assert not extra and not missing, (name, "extra", [(t - t0_ns) // 10**6 for t in extra][:10],
                                       "missing", [(t - t0_ns) // 10**6 for t in missing][:10])
    assert times == want, (name, [(t, n) for t, n in times.items() if want[t] != n][:10])
    assert got["frames"] == views * len(want), (name, got["frames"])
    w = [x for x in summ["buffers"]["writers"] if x["name"] == name][0]
    assert w["written"] == got["frames"] and w["overrun"] == 0, (name, w)
    ks = sorted((t - t0_ns) * rate // 10**9 for t in times)
    print("%s: frames k = %d..%d (T0 + k ms), %d frame times x %d streams = %d frames, "
          "exactly those computed from %s" % (name, ks[0], ks[-1], len(times), views,
          got["frames"], "the scan's start and stop" if name == "scanner" else "the sending"))
PY
while read -r line; do ok "$line"; done < "$T/sc.check"
# a plugin records nothing to disk: named on the scan's line, no row of
# its ledger (before, a plugin was on neither)
grep -q "scan sc_a added (schedule): .*, writers none; consumers following it (no ledger rows): scanner$" \
	"$T/cap.log" || { grep "scan sc_a" "$T/cap.log"; fail "the scan's line names plugin scanner"; }
grep -q "scan sc_a ended (no --write writer of this capture records it)" "$T/cap.log" ||
	{ grep "sc_a" "$T/cap.log"; fail "scan sc_a's end line"; }
ok "scan sc_a: plugin scanner named on its line, no row of its ledger"
