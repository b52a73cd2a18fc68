#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# examples/beam.c (ibvcap-beam), an incoherent beam over libibvcap, during
# a live capture of codifgen's faulty streams (6 antennas x 2 streams of
# 2-bit complex samples, 4 channels): its beam (per stream, channel and
# frame, the sum of the antennas' powers, lost and invalid-flagged frames
# left out, each record saying how many antennas it sums) equals the beam
# check_beam.py computes from codifgen's pcap of what it sent.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
SIG="--nchan 4 --nbits 2 --complex --period 1 --total-samples 128000"
GENARGS="$LAYOUT $SIG --count 500 --seed 26 --loss 0.02 --reorder 0.03 --reorder-depth 6 \
--duplicate 0.01 --invalid 0.02"
cons_capture "$GENARGS" 1024 32
"$BUILD/examples/ibvcap-beam" -i "$PREFIX" -n beam -a 0x3f -T 50 -o "$T/beam" 2> "$T/beam.log" &
RPID=$!
CLEANUP_PIDS+=("$RPID")
wait_for_line "$T/beam.log" 30 'attached to' || { cat "$T/beam.log"; fail "ibvcap-beam did not attach"; }
cons_run "$GENARGS" 500
ok "capture and ibvcap-beam exited 0; capture counts = truth ($(tail -1 "$T/cmp"))"
grep -qE 'the capture stopped: [0-9]+ blocks, [0-9]+ frames, 0 overrun' "$T/beam.log" ||
	{ cat "$T/beam.log"; fail "ibvcap-beam's last line"; }
python3 "$SRC/tests/consumer/check_beam.py" "$T/beam" "$T/sent.pcap" > "$T/check" ||
	{ cat "$T/check"; fail "the beam differs from the one computed from the sent pcap"; }
ok "$(cat "$T/check")"
