#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Python module (import ibvcap, numpy views over libibvcap) during a
# live capture of codifgen's faulty streams (6 antennas x 2 streams of
# 2-bit complex samples, 4 channels), four consumers at once:
#  - consumer_read.py reads aligned blocks of the 6 antennas: every frame
#    received is valid in exactly one block at its index, byte for byte as
#    sent, every lost frame masked invalid (check_blocks.py --full), as the
#    C consumer_read beside it does;
#  - examples/beam.py (numpy) and examples/ibvcap-beam (C) form the
#    incoherent beam: each equals the beam check_beam.py computes from the
#    sent pcap, and they equal each other.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
python3 -c 'import numpy' 2>/dev/null || skip "needs Debian's python3-numpy (scripts/setup.sh)"
export PYTHONPATH=$SRC/lib/consumer/python IBVCAP_LIB=$BUILD/lib/consumer/libibvcap.so.1
SIG="--nchan 4 --nbits 2 --complex --period 1 --total-samples 128000"
GENARGS="$LAYOUT $SIG --count 400 --seed 27 --loss 0.02 --reorder 0.03 --reorder-depth 6 \
--duplicate 0.01 --invalid 0.02"
cons_capture "$GENARGS" 1024 32
python3 "$SRC/tests/consumer/consumer_read.py" "$PREFIX" pyblocks 0x3f 40 "$T/pyblocks.recs" \
	> "$T/pyblocks.json" 2> "$T/pyblocks.log" &
PYPID=$!
CLEANUP_PIDS+=("$PYPID")
wait_for_line "$T/pyblocks.log" 30 'attached to' || { cat "$T/pyblocks.log"; fail "consumer_read.py did not attach"; }
python3 "$SRC/examples/beam.py" "$PREFIX" pybeam 0x3f 40 "$T/pybeam" 2> "$T/pybeam.log" &
PBPID=$!
CLEANUP_PIDS+=("$PBPID")
wait_for_line "$T/pybeam.log" 30 'attached to' || { cat "$T/pybeam.log"; fail "beam.py did not attach"; }
"$BUILD/examples/ibvcap-beam" -i "$PREFIX" -n cbeam -a 0x3f -T 40 -o "$T/cbeam" 2> "$T/cbeam.log" &
CBPID=$!
CLEANUP_PIDS+=("$CBPID")
wait_for_line "$T/cbeam.log" 30 'attached to' || { cat "$T/cbeam.log"; fail "ibvcap-beam did not attach"; }
# and the C consumer_read beside them (its pid RPID, waited for by cons_run)
cons_start cblocks "$T/cblocks.log" -a 0x3f -T 40 -o "$T/cblocks.recs"
cons_run "$GENARGS" 400
for p in $PYPID $PBPID $CBPID; do
	wait "$p" || { cat "$T"/*.log; fail "a consumer exited non-zero"; }
done
ok "capture and four consumers (two in Python) exited 0; capture counts = truth ($(tail -1 "$T/cmp"))"
cons_check pyblocks --full
cons_check cblocks --full
for b in pybeam cbeam; do
	python3 "$SRC/tests/consumer/check_beam.py" "$T/$b" "$T/sent.pcap" > "$T/$b.check" ||
		{ cat "$T/$b.check"; fail "$b differs from the beam computed from the sent pcap"; }
	ok "$b: $(cat "$T/$b.check")"
done
python3 - "$T/pybeam" "$T/cbeam" <<'PY' || fail "the numpy beam and the C beam differ"
import struct, sys
def recs(p):
    d, off, out = open(p, "rb").read(), 0, {}
    while off < len(d):
        idx, t, th, nchan, n, _ = struct.unpack_from("<qqHHHH", d, off)
        off += 24
        out[(th, idx)] = (n, struct.unpack_from("<%df" % nchan, d, off))
        off += 4 * nchan
    return out
a, b = recs(sys.argv[1]), recs(sys.argv[2])
assert a == b, (len(a), len(b), [k for k in a if a[k] != b.get(k)][:5])
print(len(a))
PY
ok "the numpy beam (examples/beam.py) = the C beam (examples/ibvcap-beam), record for record"
