#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Network namespaces: 6 antenna namespaces send real kernel UDP multicast
# (codifgen --socket) to a capture namespace where dpdk-ibvcap runs on
# net_af_packet over a bridge, joins the 4 groups (seen in that namespace's
# /proc/net/igmp while it runs, gone after) and counts every frame by
# antenna, equal to the senders' ground truth (paced so 2 vCPUs keep up).
. "$(dirname "$0")/../lib.sh"
set -e
need_netns
need_hugepages 300
CAPNS=${PREFIX}cap
ip netns add "$CAPNS"; CLEANUP_NETNS+=("$CAPNS")
ip -n "$CAPNS" link set lo up
ip -n "$CAPNS" link add br0 type bridge mcast_snooping 0
ip -n "$CAPNS" link set br0 mtu 9000 up
ip -n "$CAPNS" addr add 10.17.0.1/24 dev br0
for a in 0 1 2 3 4 5; do
	ns=${PREFIX}a$a
	ip netns add "$ns"; CLEANUP_NETNS+=("$ns")
	ip -n "$ns" link set lo up
	ip link add "${PREFIX}x$a" netns "$ns" type veth peer name "${PREFIX}y$a" netns "$CAPNS"
	ip -n "$ns" link set "${PREFIX}x$a" mtu 9000 up
	ip -n "$ns" addr add "10.17.0.$((211 + a))/24" dev "${PREFIX}x$a"
	ip -n "$CAPNS" link set "${PREFIX}y$a" mtu 9000 master br0 up
done
ok "6 antenna namespaces bridged into $CAPNS (MTU 9000)"

ip netns exec "$CAPNS" "$BUILD/app/dpdk-ibvcap" -l 0,1 --no-pci --file-prefix="$PREFIX" \
	--log-level=lib.eal:error --vdev "net_af_packet0,iface=br0,blocksz=20480,framesz=10240,framecnt=512" \
	-- --mbuf-size 12288 --steer software --idle-timeout 4s --stats-period 1s \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
cpid=$!
CLEANUP_PIDS+=("$cpid")
wait_started "$T/cap.log" 30 "dpdk-ibvcap did not start"
grep -q 'joined 4 groups on br0' "$T/cap.log" || { cat "$T/cap.log"; fail "no join message"; }
ip netns exec "$CAPNS" cat /proc/net/igmp > "$T/igmp.txt"
# /proc/net/igmp lists groups in hex, host byte order: 239.17.0.1 = 010011EF
for g in 010011EF 020011EF 030011EF 040011EF; do
	awk '/br0/ {on=1; next} /^[0-9]/ {on=0} on' "$T/igmp.txt" | grep -q "$g" ||
		{ cat "$T/igmp.txt"; fail "group $g not joined on br0"; }
done
ok "the 4 groups appear on br0 in $CAPNS's /proc/net/igmp while it runs"

pids=()
for a in 0 1 2 3 4 5; do
	ip netns exec "${PREFIX}a$a" "$BUILD/app/codifgen" --socket --antenna $a --count 60 \
		--rate-fps 100 --seed 77 --loss 0.02 --duplicate 0.02 --reorder 0.05 --bad-sync 0.02 \
		--truth "$T/truth$a.json" --quiet &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a sender failed"; done
ok "6 senders done"
wait "$cpid" || { cat "$T/cap.log"; fail "dpdk-ibvcap exit status"; }
python3 - "$T" <<'PY'
import json, sys, os
d = sys.argv[1]
parts = [json.load(open(os.path.join(d, "truth%d.json" % a))) for a in range(6)]
m = {"streams": [s for p in parts for s in p["streams"]],
     "antennas": [s for p in parts for s in p["antennas"]],
     "counters": parts[0]["counters"]}
json.dump(m, open(os.path.join(d, "truth.json"), "w"))
PY
python3 "$SRC/tests/tools/compare.py" "$T/truth.json" "$T/sum.json" > "$T/cmp" ||
	{ head -20 "$T/cmp"; fail "counts differ from the senders' truth"; }
ok "every frame counted by antenna and stream: $(tail -1 "$T/cmp")"
python3 - "$T/truth.json" <<'PY' || fail "no faults reached the capture"
import json, sys
a = json.load(open(sys.argv[1]))["antennas"]
assert sum(x["lost"] for x in a) > 0 and sum(x["late"] for x in a) > 0
assert sum(x["duplicate"] for x in a) > 0 and sum(x["malformed"] for x in a) > 0
PY
ok "lost, late, duplicate and malformed frames crossed the kernel and were counted"
grep -q '^\[ *[0-9.]*s\] .* Gb/s .* Mpps | received' "$T/cap.log" || fail "no periodic stats line"
ok "periodic one-line report printed"
ip netns exec "$CAPNS" cat /proc/net/igmp > "$T/igmp-after.txt"
if awk '/br0/ {on=1; next} /^[0-9]/ {on=0} on' "$T/igmp-after.txt" | grep -q 010011EF; then
	fail "group still joined after exit"
fi
ok "groups left at exit"
echo "$CHECKS checks passed"
