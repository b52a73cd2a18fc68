#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# codifgen --socket sends real kernel UDP multicast from 6 antenna source
# addresses in one network namespace to another, where a receiver joined to
# the 4 groups counts every frame (and every injected fault) as the truth says.
. "$(dirname "$0")/../lib.sh"
set -e
need_netns
TX=${PREFIX}tx RX=${PREFIX}rx
ip netns add "$TX"; CLEANUP_NETNS+=("$TX")
ip netns add "$RX"; CLEANUP_NETNS+=("$RX")
ip link add "${PREFIX}a" netns "$TX" type veth peer name "${PREFIX}b" netns "$RX"
for ns in "$TX" "$RX"; do ip -n "$ns" link set lo up; done
ip -n "$TX" link set "${PREFIX}a" mtu 9000 up
ip -n "$RX" link set "${PREFIX}b" mtu 9000 up
for i in 211 212 213 214 215 216; do
	ip -n "$TX" addr add "10.17.0.$i/24" dev "${PREFIX}a"
done
ip -n "$RX" addr add 10.17.0.1/24 dev "${PREFIX}b"
ok "namespaces $TX, $RX joined by a 9000-MTU veth"

GROUPS_=239.17.0.1:36001,239.17.0.2:36002,239.17.0.3:36003,239.17.0.4:36004
run_pair() { # name, codifgen args...
	local name=$1
	shift
	ip netns exec "$RX" "$BUILD/tests/mcastrecv" -i "${PREFIX}b" -g "$GROUPS_" \
		-t 2000 -T 60000 > "$T/$name.count.json" &
	local rpid=$!
	CLEANUP_PIDS+=("$rpid")
	wait_for_line "$T/$name.count.json" 10 '^ready' || fail "$name: receiver not ready"
	ip netns exec "$TX" "$BUILD/app/codifgen" --socket --truth "$T/$name.json" --quiet "$@" ||
		fail "$name: codifgen --socket failed"
	wait "$rpid" || fail "$name: receiver failed"
	sed -i '1d' "$T/$name.count.json" # the 'ready' line
	python3 "$SRC/tests/tools/compare.py" "$T/$name.json" "$T/$name.count.json" > "$T/$name.cmp" ||
		{ cat "$T/$name.cmp"; fail "$name: received counts differ from the truth"; }
}

run_pair clean --count 30 --rate-fps 150
n=$(json_get "$T/clean.json" totals received)
expect_eq "frames sent = received by the kernel socket receiver" "$n" 1440
ok "clean: 6 antennas x 4 groups x 2 threads, every frame counted ($(tail -1 "$T/clean.cmp"))"

run_pair faults --count 40 --rate-fps 150 --seed 5 --loss 0.03 --reorder 0.05 \
	--duplicate 0.03 --invalid 0.03 --bad-sync 0.02 --bad-length 0.02 --non-codif 0.02
python3 - "$T/faults.json" <<'PY' || fail "faults run injected nothing"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["lost"] > 0 and t["late"] > 0 and t["duplicate"] > 0 and t["invalid"] > 0 and t["malformed"] > 0, t
PY
ok "faults over real sockets: lost, late, duplicate, invalid, malformed as the truth ($(tail -1 "$T/faults.cmp"))"

# faults below UDP have no socket form: a clear error
run_expect_fail "--truncated with --socket refused" 1 "not possible with --socket" \
	"$BUILD/app/codifgen" --socket --truncated 0.1 --count 10
# a source address that is not local: named in the error
run_expect_fail "non-local source address" 1 "cannot bind to source 10.99.0.1" \
	ip netns exec "$TX" "$BUILD/app/codifgen" --socket --antenna-base 10.99.0.1 --count 10
# a frame that does not fit the MTU: said so (never fragmented)
ip -n "$TX" link set "${PREFIX}a" mtu 1500
run_expect_fail "datagram over the MTU" 1 "does not fit the MTU" \
	ip netns exec "$TX" "$BUILD/app/codifgen" --socket --count 10 --rate-fps 100
echo "$CHECKS checks passed"
