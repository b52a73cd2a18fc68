#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Start-up and stop as an operator meets them: no hugepage left behind by a
# run or by a start that fails after EAL init; a second primary on a busy
# --file-prefix named with the running one's pid; net_pcap infinite_rx=1
# sized for (auto mbufs) or refused with the reason (--mbufs too small);
# a capture that sees no packet says so in its periodic line.
. "$(dirname "$0")/../lib.sh"
set -e
C=$BUILD/app/dpdk-ibvcap
python3 "$SRC/tests/tools/emptypcap.py" "$T/e.pcap"
"$GEN" --antennas 1 --groups 1 --threads 1 --count 40 --pcap "$T/a.pcap" --quiet

# hugepage files of a prefix after its primary exits (they hold the pages)
left() { find /dev/hugepages/ -maxdepth 1 -name "$1map_*" 2>/dev/null | wc -l; }
if grep -qs hugetlbfs /proc/mounts &&
	[ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 160 ]; then
	"$C" -l 0,1 --no-pci --file-prefix "${PREFIX}a" -m 128 --no-telemetry \
		--log-level=lib.eal:error --vdev "net_pcap0,rx_pcap=$T/a.pcap" -- \
		--antennas 1 --steer software --idle-timeout 1s --stats-period 0 > "$T/h1.log" 2>&1 ||
		{ cat "$T/h1.log"; fail "a run on hugepages failed"; }
	grep -q "in hugepages" "$T/h1.log" || { cat "$T/h1.log"; fail "the run did not use hugepages"; }
	expect_eq "hugepage files left by a run" "$(left "${PREFIX}a")" 0
	# a start that fails after EAL init: two writers, one worker lcore
	run_expect_fail "two writers, too few lcores" 1 "2 writers need an lcore each" \
		"$C" -l 0,1 --no-pci --file-prefix "${PREFIX}b" -m 128 --no-telemetry \
		--log-level=lib.eal:error --vdev "net_pcap0,rx_pcap=$T/a.pcap" -- --antennas 1 \
		--steer software --write "codif:$T" --write "raw:$T"
	expect_eq "hugepage files left by a failed start" "$(left "${PREFIX}b")" 0
else
	echo "# no hugepages here: the hugepage checks need scripts/setup.sh" >&2
fi

EAL="-l 0,1 --no-pci --no-huge -m 512 --log-level=lib.eal:error"
# a second primary on a prefix in use: named, with the holder's pid
"$C" $EAL --file-prefix "${PREFIX}c" --vdev "net_pcap0,rx_pcap=$T/e.pcap" -- \
	--antennas 1 --steer software --duration 20s --stats-period 1s > "$T/first.log" 2>&1 &
first=$!
CLEANUP_PIDS+=("$first")
wait_started "$T/first.log" 20 "first primary did not start"
run_expect_fail "second primary, same --file-prefix" 1 \
	"another primary process (pid $first) runs with --file-prefix ${PREFIX}c" \
	"$C" $EAL --file-prefix "${PREFIX}c" --vdev "net_pcap0,rx_pcap=$T/e.pcap" -- --antennas 1
# ... which, seeing nothing, says so in its periodic line
wait_for_line "$T/first.log" 20 '\| no packet for [0-9]+ s \(senders, joins, cabling\?\)$' ||
	{ tail -3 "$T/first.log"; fail "no 'no packet for' in the periodic line"; }
ok "a capture that sees no packet says so: $(grep -m1 -o 'no packet for.*' "$T/first.log")"
kill -INT "$first"
wait "$first" || fail "first primary exit status"

# net_pcap infinite_rx=1 keeps its file in mbufs: auto mbufs make room
"$GEN" --antennas 2 --count 262 --pcap "$T/inf.pcap" --quiet
# (stopped once the file went round twice: a duration would depend on
# how much CPU the rx lcore got)
"$C" $EAL --file-prefix "${PREFIX}d" --vdev "net_pcap0,rx_pcap=$T/inf.pcap,infinite_rx=1" -- \
	--antennas 2 --count-packets 8384 --duration 120s --stats-period 0 \
	--summary-json "$T/inf.json" > "$T/inf.log" 2>&1 ||
	{ cat "$T/inf.log"; fail "infinite_rx capture failed"; }
grep -q "mbufs, as net_pcap infinite_rx=1 keeps its files' 4192 packets in mbufs" "$T/inf.log" ||
	{ grep dpdk-ibvcap: "$T/inf.log"; fail "no mbuf sizing line"; }
python3 - "$T/inf.json" <<'PY' || fail "infinite_rx: nothing received"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["received"] == 4192 and t["packets"] >= 8384, t
PY
ok "net_pcap infinite_rx=1, auto mbufs: sized for the file, every frame received, replayed"
run_expect_fail "--mbufs too small for infinite_rx" 1 \
	"--mbufs 4096 leaves none to receive with: net_pcap infinite_rx=1 keeps its files' 4192 packets in mbufs; give at least" \
	"$C" $EAL --file-prefix "${PREFIX}e" --vdev "net_pcap0,rx_pcap=$T/inf.pcap,infinite_rx=1" -- \
	--antennas 2 --mbufs 4096 --duration 2s
echo "$CHECKS checks passed"
