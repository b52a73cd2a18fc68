#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifgen's DPDK mode sends a given number of frames on a net_pcap port:
# read back, they are byte for byte the frames of its pcap mode, and count
# to the truth; rate control never runs ahead of its schedule.
. "$(dirname "$0")/../lib.sh"
set -e
EAL="$EAL_COMMON --no-huge -m 512 --no-telemetry"

# shellcheck disable=SC2086
"$GEN" $EAL --vdev "net_pcap0,tx_pcap=$T/tx.pcap" -- --tx-port 0 --count 25 --rate-fps 0 \
	--seed 3 --loss 0.02 --duplicate 0.02 --reorder 0.05 --vlan 0.02 --truncated 0.02 \
	--truth "$T/tx.json" 2> "$T/tx.log" || { cat "$T/tx.log"; fail "codifgen DPDK mode failed"; }
"$GEN" --count 25 --seed 3 --loss 0.02 --duplicate 0.02 --reorder 0.05 --vlan 0.02 \
	--truncated 0.02 --pcap "$T/ref.pcap" --quiet
want=$(json_get "$T/tx.json" totals sent)
grep -q "port 0: $want frames sent" "$T/tx.log" || { cat "$T/tx.log"; fail "frames sent not $want"; }
ok "codifgen says it sent $want frames on port 0"
python3 "$SRC/tests/tools/pcapdiff.py" "$T/tx.pcap" "$T/ref.pcap" > "$T/diff" || { cat "$T/diff"; fail "DPDK output differs from pcap mode"; }
ok "frames read back from net_pcap are the pcap mode's, byte for byte ($(cat "$T/diff"))"
"$BUILD/tests/pcapcount" "$T/tx.pcap" > "$T/tx.count.json"
python3 "$SRC/tests/tools/compare.py" "$T/tx.json" "$T/tx.count.json" > "$T/cmp" || { cat "$T/cmp"; fail "counts differ"; }
ok "read back, they count to the truth ($(cat "$T/cmp"))"

# pacing: 20 frames per stream at 200 frames/s cannot take less than 19/200 s
# shellcheck disable=SC2086
"$GEN" $EAL --vdev "net_pcap0,tx_pcap=$T/paced.pcap" -- --tx-port 0 --antennas 1 --groups 1 \
	--threads 1 --count 20 --rate-fps 200 2> "$T/paced.log"
el=$(sed -n 's/.* bytes in \([0-9.]*\) s .*/\1/p' "$T/paced.log")
python3 -c "import sys; sys.exit(0 if float('$el') >= 0.09 else 1)" || fail "paced run took $el s, expected >= 0.09 s"
ok "rate control: 20 frames at 200 fps took $el s (>= 0.09 s)"

# --rate-gbps: 20 frames of 8298 bytes on the wire at 0.01 Gb/s take at least
# 19 x 8298 x 8 / 1e7 = 0.126 s; a pool of 100 mbufs is enough
# shellcheck disable=SC2086
"$GEN" $EAL --vdev "net_pcap0,tx_pcap=$T/gbps.pcap" -- --tx-port 0 --antennas 1 --groups 1 \
	--threads 1 --count 20 --rate-gbps 0.01 --mbufs 100 2> "$T/gbps.log" ||
	{ cat "$T/gbps.log"; fail "--rate-gbps 0.01 --mbufs 100 failed"; }
el=$(sed -n 's/.* bytes in \([0-9.]*\) s .*/\1/p' "$T/gbps.log")
python3 -c "import sys; sys.exit(0 if float('$el') >= 0.12 else 1)" || fail "--rate-gbps run took $el s, expected >= 0.12 s"
expect_eq "--rate-gbps 0.01 --mbufs 100: frames read back" \
	"$(python3 "$SRC/tests/tools/pcapdiff.py" "$T/gbps.pcap" "$T/gbps.pcap" | grep -o '^pcapdiff: [0-9]*')" "pcapdiff: 20"
ok "rate control: 20 frames at 0.01 Gb/s took $el s (>= 0.12 s)"

# no such port, no EAL: clear errors
# shellcheck disable=SC2086
run_expect_fail "no such DPDK port" 1 "--tx-port 3: no such DPDK port" \
	"$GEN" $EAL -- --tx-port 3 --count 5
run_expect_fail "--tx-port without EAL options" 1 "--tx-port needs EAL options before '--'" \
	"$GEN" --tx-port 0 --count 5
echo "$CHECKS checks passed"
