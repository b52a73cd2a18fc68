#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --consumer: examples/beam_plugin.so, the incoherent beam as an in-process
# consumer, during a live capture of codifgen's faulty streams (6 antennas
# x 2 streams of 2-bit complex samples, 4 channels), with examples/beam.py
# (numpy, over libibvcap) and examples/ibvcap-beam (C) reading the same
# capture from other processes: each beam equals the one check_beam.py
# computes from the sent pcap, and the three files are identical; the
# plugin's registry entry (format plugin) is in telemetry while it runs and
# in the summary with its frames and no overrun, on lcore 2 (EAL lcores
# 0@0,1@1,2@0: main 0, rx 1, the plugin's the last free one). A slow plugin
# (tests/consumer/plugin_slow.c) behind a small ring: the capture loses
# nothing, the plugin's overrun = received - frames it was handed, exactly.
# One whose block call fails stops alone: the capture exits 2, its counts =
# truth. Then the refusals, each naming the file: no such file (also by
# --check-config), not a shared object, a .so without the symbols, another
# plugin ABI, init refusing, a key without '='.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
python3 -c 'import numpy' 2>/dev/null || skip "needs Debian's python3-numpy (scripts/setup.sh)"
export PYTHONPATH=$SRC/lib/consumer/python IBVCAP_LIB=$BUILD/lib/consumer/libibvcap.so.1
PLUGIN=$BUILD/examples/beam_plugin.so
CAP_LCORES="--lcores=0@0,1@1,2@0" # lcore 2 for the plugin (CPU 0, with main)
SLOWARGS="$LAYOUT $SIG --count 2000 --seed 25 --loss 0.01 --reorder 0.02 --reorder-depth 4 --invalid 0.01"
SIG="--nchan 4 --nbits 2 --complex --period 1 --total-samples 128000"
GENARGS="$LAYOUT $SIG --count 400 --seed 28 --loss 0.02 --reorder 0.03 --reorder-depth 6 \
--duplicate 0.01 --invalid 0.02"
cons_capture "$GENARGS" 1024 32 --consumer "$PLUGIN,out=$T/plbeam,frames=40,name=plbeam"
dpdk-telemetry.py -f "$PREFIX" <<< "/ibvcap/writer,plbeam" 2>&1 | tail -1 > "$T/tel.json"
python3 - "$T/tel.json" <<'PY' || { cat "$T/tel.json"; fail "/ibvcap/writer,plbeam"; }
import json, sys
w = json.load(open(sys.argv[1]))["/ibvcap/writer"]
assert w["name"] == "plbeam" and w["format"] == "plugin" and w["active"] == 1 and not w["dead"], w
assert w["lcore"] == 2, w
PY
ok "telemetry /ibvcap/writer,plbeam: the plugin's registry entry, format plugin, active, lcore 2"
python3 "$SRC/examples/beam.py" "$PREFIX" pybeam 0x3f 40 "$T/pybeam" 2> "$T/pybeam.log" &
PBPID=$!
CLEANUP_PIDS+=("$PBPID")
wait_for_line "$T/pybeam.log" 30 'attached to' || { cat "$T/pybeam.log"; fail "beam.py did not attach"; }
# the C example's pid is RPID, which cons_run waits for
"$BUILD/examples/ibvcap-beam" -i "$PREFIX" -n cbeam -a 0x3f -T 40 -o "$T/cbeam" 2> "$T/cbeam.log" &
RPID=$!
CLEANUP_PIDS+=("$RPID")
wait_for_line "$T/cbeam.log" 30 'attached to' || { cat "$T/cbeam.log"; fail "ibvcap-beam did not attach"; }
cons_run "$GENARGS" 400
wait "$PBPID" || { cat "$T"/*.log; fail "beam.py exited non-zero"; }
ok "capture (with the plugin) and two consumers exited 0; capture counts = truth ($(tail -1 "$T/cmp"))"
grep -qE -- '--consumer plbeam: [0-9]+ blocks, [0-9]+ frames, 0 overrun$' "$T/cap.log" ||
	{ cat "$T/cap.log"; fail "the capture's line for the plugin"; }
grep -qx -- "dpdk-ibvcap: --consumer plbeam on lcore 2: $PLUGIN" "$T/cap.log" ||
	{ cat "$T/cap.log"; fail "the capture's start line for the plugin: on lcore 2"; }
ok "$(grep -- '--consumer plbeam' "$T/cap.log" | tr '\n' ' ')"
for b in plbeam pybeam cbeam; do
	python3 "$SRC/tests/consumer/check_beam.py" "$T/$b" "$T/sent.pcap" > "$T/$b.check" ||
		{ cat "$T/$b.check"; fail "$b differs from the beam computed from the sent pcap"; }
	ok "$b: $(cat "$T/$b.check")"
done
cmp "$T/plbeam" "$T/cbeam" || fail "the plugin's beam file and the C example's differ"
cmp "$T/plbeam" "$T/pybeam" || fail "the plugin's beam file and the numpy example's differ"
ok "plugin, C and numpy beam files identical ($(stat -c %s "$T/plbeam") bytes each)"
python3 - "$T/sum.json" "$T/cap.log" <<'PY' || fail "the plugin's registry entry in the summary"
import json, re, sys
w = [x for x in json.load(open(sys.argv[1]))["buffers"]["writers"] if x["name"] == "plbeam"]
assert len(w) == 1, w
w = w[0]
log = open(sys.argv[2]).read()
m = re.search(r"--consumer plbeam: (\d+) blocks, (\d+) frames, (\d+) overrun", log)
assert w["format"] == "plugin" and w["written"] == int(m.group(2)) > 0 and w["overrun"] == 0, w
assert w["lcore"] == 2, w
assert re.search(r"^plbeam +plugin .* \(lcore 2\)$", log, re.M), "summary row of plbeam"
print(w["written"])
PY
ok "summary: writer plbeam, format plugin, lcore 2, its frames as the capture's line says, overrun 0"

# a slow plugin (40 ms per block of 16 frames at 1000 frames/s, a ring of
# 256): the capture loses nothing; the plugin's overrun (its registry
# entry, the capture's line) = the frames the truth says received minus
# the valid frames it was handed intact, exactly, and more than 0
cons_capture "$SLOWARGS" 256 16 --consumer \
	"$BUILD/tests/consumer/plugin_slow.so,out=$T/plslow.json,sleep_ms=40,frames=16,name=plslow"
sleep 0 &
RPID=$! # no consumer of another process this time
cons_run "$SLOWARGS" 1000
ok "the capture lost nothing beside a slow plugin: counts = truth ($(tail -1 "$T/cmp"))"
python3 - "$T/sum.json" "$T/plslow.json" "$T/truth.json" "$T/cap.log" <<'PY' > "$T/slow.check" ||
import json, re, sys
w = [x for x in json.load(open(sys.argv[1]))["buffers"]["writers"] if x["name"] == "plslow"]
p = json.load(open(sys.argv[2]))
received = json.load(open(sys.argv[3]))["totals"]["received"]
m = re.search(r"--consumer plslow: (\d+) blocks, (\d+) frames, (\d+) overrun$", open(sys.argv[4]).read(), re.M)
assert len(w) == 1 and m, (w, m)
w = w[0]
blocks, frames, overrun = map(int, m.groups())
assert w["format"] == "plugin" and w["written"] == frames == p["frames"], (w, p, m.groups())
assert w["overrun"] == overrun > 0, (w, overrun)
assert blocks == p["blocks"] and p["block_overrun"] <= overrun, (p, m.groups())
assert frames + overrun == received, "handed %d + overrun %d != received %d" % (frames, overrun, received)
assert (p["thread"], p["same_thread"], p["main_thread"]) == ("rte-worker-2", 1, 0), p
print("slow plugin: %d blocks, %d valid frames handed intact + overrun %d = %d received, "
      "exactly (the blocks' overrun fields sum to %d, the rest after its last block)" %
      (blocks, frames, overrun, received, p["block_overrun"]))
PY
	{ cat "$T/slow.check" "$T/cap.log"; fail "the slow plugin's counts"; }
ok "$(cat "$T/slow.check")"

# a plugin whose 3rd block call fails: it stops (fini runs, its file says 3
# blocks), the capture takes every frame (counts = truth) and exits 2,
# saying so
cons_capture "$SLOWARGS" 256 16 --consumer \
	"$BUILD/tests/consumer/plugin_slow.so,out=$T/plfail.json,fail_after=3,name=plfail"
sleep 0 &
RPID=$!
CAP_STATUS=2 cons_run "$SLOWARGS" 1000
expect_eq "the failing plugin's blocks (its fini's file)" "$(json_get "$T/plfail.json" blocks)" 3
for line in "--consumer plfail: 3 blocks, .* (it stopped itself)" \
	"--consumer $BUILD/tests/consumer/plugin_slow.so: its block call returned -5: it stopped, the capture went on"; do
	grep -q -- "$line" "$T/cap.log" || { cat "$T/cap.log"; fail "the capture's line: $line"; }
done
ok "a plugin's failing block call stops the plugin, not the capture: exit 2, counts = truth ($(tail -1 "$T/cmp"))"

# refusals: each a capture start that stops before any traffic, exit 1
refuse() {
	local what=$1 msg=$2 spec=$3
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	run_expect_fail "$what" 1 "$msg" "$CAP" $CAP_LCORES --no-pci --file-prefix="$PREFIX" \
		--log-level=lib.eal:error --vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT \
		--frame-rate "$FRAME_RATE" --ring 256 --consumer "$spec"
}
refuse "no such file" "--consumer $T/none.so: No such file or directory (expected a plugin's shared object" \
	"$T/none.so,out=$T/x"
# shellcheck disable=SC2086
run_expect_fail "--check-config: no such file" 1 "--consumer $T/none.so: No such file or directory" \
	"$CAP" --check-config -- $LAYOUT --frame-rate "$FRAME_RATE" --ring 256 --consumer "$T/none.so"
echo "not ELF" > "$T/text.so"
refuse "not a shared object" "--consumer $T/text.so: cannot load it: $T/text.so: " "$T/text.so"
refuse "no symbols" "--consumer $BUILD/tests/consumer/plugin_nosym.so: no symbol ibvcap_plugin_block" \
	"$BUILD/tests/consumer/plugin_nosym.so"
refuse "another ABI" "--consumer $BUILD/tests/consumer/plugin_abi9.so: plugin ABI 9 (its ibvcap_plugin_abi), this capture loads ABI 1" \
	"$BUILD/tests/consumer/plugin_abi9.so"
refuse "init refusing" "--consumer $PLUGIN: its init refused (-22): out=FILE: where the beam goes, missing" \
	"$PLUGIN,frames=8"
refuse "a bad key" "--consumer $PLUGIN: 'frames': expected key=value" "$PLUGIN,frames"
