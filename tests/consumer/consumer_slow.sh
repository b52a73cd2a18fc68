#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A slow libibvcap consumer (issue 24): it sleeps 40 ms after each block of
# 16 frames of 6 antennas while codifgen sends 1000 frames/s per stream
# into a capture with a small ring (256 frames): it falls behind the ring
# again and again. The capture loses nothing (its counts = the truth); the
# consumer's overrun = the frames the truth says received minus the valid
# frames it delivered, exactly, and every frame it delivered is as sent.
# Before that, a consumer killed with -9 under the same name: the capture
# shows it dead, and the slow consumer reopens under its name.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
GENARGS="$LAYOUT $SIG --count 2000 --seed 25 --loss 0.01 --reorder 0.02 --reorder-depth 4 --invalid 0.01"
cons_capture "$GENARGS" 256 16

# a consumer killed with -9 holding its entry
set +e
"$READ" -i "$PREFIX" -n slow -a 0x3f -T 16 -o "$T/dead.recs" -k 0 > /dev/null 2> "$T/dead.log"
rc=$?
set -e
expect_eq "the first consumer killed (-9)" "$rc" 137
dpdk-telemetry.py -f "$PREFIX" <<< "/ibvcap/writers" > "$T/tel.json" 2>&1 || true
wait_for_line "$T/cap.log" 10 'writer slow \(pid [0-9]+\) died without ending' ||
	{ cat "$T/cap.log"; fail "the capture did not find the killed consumer dead"; }
ok "the capture shows the killed consumer dead: $(grep -o 'writer slow (pid [0-9]*) died without ending' "$T/cap.log")"

cons_start slow "$T/cons.log" -a 0x3f -T 16 -s 40 -o "$T/slow.recs"
ok "a consumer reopens under the dead one's name (its entry reclaimed)"
cons_run "$GENARGS" 1000
ok "the capture lost nothing beside a slow consumer: counts = truth ($(tail -1 "$T/cmp"))"
cons_check slow --slow
python3 - "$T/sum.json" "$T/slow.json" <<'PY' || fail "summary's consumer row"
import json, sys
s = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
w = [x for x in s["buffers"]["writers"] if x["name"] == "slow"]
assert len(w) == 1 and w[0]["overrun"] == c["overrun"] and w[0]["written"] == c["frames"], (w, c)
PY
ok "the capture's summary: consumer slow's overrun and frames as it counted them"

# a capture killed with -9 under a waiting consumer: the consumer's
# acquire says the capture is gone (EPIPE) within its liveness look
cons_capture "$GENARGS" 256 16
cons_start orphan "$T/orphan.log" -a 0x3f -T 16 -o "$T/orphan.recs"
kill -9 "$CPID"
wait "$CPID" 2>/dev/null || true
set +e
timeout 10 tail --pid="$RPID" -f /dev/null
wait "$RPID"
rc=$?
set -e
expect_eq "the orphaned consumer's exit status" "$rc" 1
expect_eq "why it ended" "$(json_get "$T/orphan.json" end)" "Broken pipe"
ok "a consumer whose capture was killed ends: acquire says EPIPE (the capture is gone)"
