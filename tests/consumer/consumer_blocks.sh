#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# libibvcap's aligned blocks during a live capture (issue 24): codifgen's
# faulty streams (loss, reordering, duplicates, invalid-flagged frames) of
# 6 antennas x 2 streams through memif into dpdk-ibvcap on hugepages; a C
# consumer (consumer_read, linked with libibvcap.so), attached before the
# first frame, reads blocks of 32 frames of all 6 antennas until the
# capture stops. check_blocks.py compares every frame of every block with
# codifgen's pcap of what it sent: each frame received is valid in exactly
# one block at its index, byte for byte, each lost frame masked invalid,
# nothing twice; the consumer's figures agree and it lost nothing. The
# capture's status and summary show the consumer by name. Then the same
# with --zero-copy yes (the ring keeps the received mbufs).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
GENARGS="$LAYOUT $SIG --count 600 --seed 24 --loss 0.02 --reorder 0.03 --reorder-depth 6 \
--duplicate 0.01 --invalid 0.02"
# the ring holds the whole run: a consumer slowed by a loaded host still
# loses nothing here (losing is consumer_slow.sh's test)
cons_capture "$GENARGS" 1024 32
cons_start blocks6 "$T/cons.log" -a 0x3f -T 32 -o "$T/blocks6.recs"
# the consumer's registry entry, by name, while it runs
dpdk-telemetry.py -f "$PREFIX" <<< "/ibvcap/writer,blocks6" > "$T/tel.json" 2>&1 || true
python3 - "$T/tel.json" <<'PY' || { cat "$T/tel.json"; fail "telemetry: no consumer entry"; }
import json, sys
t = open(sys.argv[1]).read()
w = json.loads(t[t.index("{"):t.rindex("}") + 1])["/ibvcap/writer"]
assert w["name"] == "blocks6" and w["format"] == "reader", w
PY
ok "telemetry /ibvcap/writer,blocks6: the consumer by name, format reader"
# refusals, each naming the input, the value and what was expected
run_expect_fail "a second consumer under a name in use" 1 \
	"consumer name 'blocks6': in use by a running writer or consumer, pid $RPID" \
	"$READ" -i "$PREFIX" -n blocks6 -a 1 -T 8 -o "$T/x.recs"
run_expect_fail "a block longer than a quarter of the ring" 1 \
	"block length 300 frames: expected 1 to 256" \
	"$READ" -i "$PREFIX" -n toolong -a 1 -T 300 -o "$T/x.recs"
run_expect_fail "an antenna the capture lacks" 1 "antennas 0x40: expected bits of antennas 0..5" \
	"$READ" -i "$PREFIX" -n noant -a 0x40 -T 8 -o "$T/x.recs"
run_expect_fail "no capture of that instance" 1 "instance '${PREFIX}none': cannot attach" \
	"$READ" -i "${PREFIX}none" -n lost -a 1 -T 8 -o "$T/x.recs"
cons_run "$GENARGS" 500
ok "capture and consumer exited 0 (the consumer at the capture's stop); capture counts = truth ($(tail -1 "$T/cmp"))"
cons_check blocks6 --full
python3 - "$T/sum.json" "$T/blocks6.json" <<'PY' || fail "summary's consumer row"
import json, sys
s = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
w = [x for x in s["buffers"]["writers"] if x["name"] == "blocks6"]
assert len(w) == 1 and w[0]["format"] == "reader", w
assert w[0]["written"] == c["frames"] and w[0]["overrun"] == 0, (w, c)
PY
grep -qE '^blocks6 +reader ' "$T/cap.log" || { cat "$T/cap.log"; fail "no consumer row in the capture's summary"; }
ok "the capture's summary (text and JSON): blocks6, format reader, frames = the consumer's"

# the same with --zero-copy: the rows hold the received mbufs (the payload
# layer's mbuf memory: offsets that are hugepage addresses in every process)
cons_capture "$GENARGS" 1024 32 --zero-copy yes
grep -q -- "--zero-copy: one mbuf pool of" "$T/cap.log" || { cat "$T/cap.log"; fail "no zero-copy pool line"; }
cons_start zc6 "$T/zc.log" -a 0x3f -T 32 -o "$T/zc6.recs"
cons_run "$GENARGS" 500
ok "zero-copy capture and consumer exited 0; capture counts = truth ($(tail -1 "$T/cmp"))"
cons_check zc6 --full
