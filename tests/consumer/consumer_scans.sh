#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A libibvcap consumer following the capture's scans (IBVCAP_OPEN_SCANS,
# as a dump writer does): codifgen's streams (6 antennas x 2, 600 frames of
# 1 ms from T0) into a capture with a --schedule of one scan from T0 + 100
# ms to T0 + 300 ms. The consumer's valid frames are exactly the frames
# sent in the scan, byte for byte; the capture's status shows it among the
# writers that follow scans, by name, idle until the scan; a consumer
# opened without the flag beside it gets every frame.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
record_setup
GENARGS="$LAYOUT $SIG --count 600 --seed 28 --loss 0.01 --start @$T0"
echo "sc_a $(utc 100) $(utc 300)" > "$T/scans.txt"
cons_capture "$GENARGS" 1024 32 --schedule "$T/scans.txt"
"$READ" -i "$PREFIX" -n scanner --scans -a 0x3f -T 32 -o "$T/scanner.recs" \
	> "$T/scanner.json" 2> "$T/scanner.log" &
SPID=$!
CLEANUP_PIDS+=("$SPID")
wait_for_line "$T/scanner.log" 30 'attached to' || { cat "$T/scanner.log"; fail "scanner did not attach"; }
cons_start everything "$T/all.log" -a 0x3f -T 32 -o "$T/everything.recs"
$CTL status > "$T/st.json" || fail "ctl status"
python3 - "$T/st.json" <<'PY' || { cat "$T/st.json"; fail "status: the consumer among the writers following scans"; }
import json, sys
d = json.load(open(sys.argv[1]))
names, states = d["dump_writer_names"], d["dump_writer_states"]
assert names == ["scanner", "everything"], names
assert states[0] == "idle until sc_a" and states[1].startswith("always"), states
print(names, states)
PY
ok "ctl status: consumer scanner idle until sc_a, consumer everything always"
cons_run "$GENARGS" 500
wait "$SPID" || { cat "$T/scanner.log"; fail "scanner exit status"; }
ok "capture and both consumers exited 0; capture counts = truth ($(tail -1 "$T/cmp"))"
cons_check scanner --window "$(ns 100)" "$(ns 300)"
cons_check everything --full
# a consumer records nothing to disk: no row of the scan's ledger (before,
# its row said "0 of N frames recorded ... not arrived N: frames not
# received" of frames it was handed), named on the scan's line instead
grep -q "scan sc_a added (schedule): .*, writers none; consumers following it (no ledger rows): scanner$" \
	"$T/cap.log" || { grep "scan sc_a" "$T/cap.log"; fail "the scan's line names consumer scanner"; }
if grep -q "scan sc_a ended, scanner\|^sc_a  *scanner" "$T/cap.log"; then
	grep "sc_a" "$T/cap.log"; fail "consumer scanner has a row of scan sc_a's ledger"
fi
grep -q "scan sc_a ended (no --write writer of this capture records it)" "$T/cap.log" ||
	{ grep "sc_a" "$T/cap.log"; fail "scan sc_a's end line"; }
ok "scan sc_a: consumer scanner named on its line, no row of its ledger (no false 'frames not received')"
