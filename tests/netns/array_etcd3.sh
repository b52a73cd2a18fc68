#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The array on a three-member etcd cluster (an observatory's): two hosts'
# captures (idle: an empty pcap, no hugepages) and agents given every
# member. A command goes through; the member the agents and the tool use
# first is stopped (by pid); the agents move to another member, and the
# next command is accepted by both hosts, each command applied once.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_cmd etcd
/usr/bin/python3 -c 'import etcd3' 2>/dev/null || skip "needs Debian's python3-etcd3 (run scripts/setup.sh --test)"
# loopback ports of our own: 3 members x (client, peer)
B=$((21000 + ($$ % 400) * 10))
EPS=127.0.0.1:$B,127.0.0.1:$((B + 1)),127.0.0.1:$((B + 2))
CLUSTER=e0=http://127.0.0.1:$((B + 5)),e1=http://127.0.0.1:$((B + 6)),e2=http://127.0.0.1:$((B + 7))
declare -A EPID APID CPID
for m in 0 1 2; do
	etcd --name "e$m" --data-dir "$T/etcd$m" --initial-cluster-token "t$$" \
		--listen-client-urls "http://127.0.0.1:$((B + m))" \
		--advertise-client-urls "http://127.0.0.1:$((B + m))" \
		--listen-peer-urls "http://127.0.0.1:$((B + 5 + m))" \
		--initial-advertise-peer-urls "http://127.0.0.1:$((B + 5 + m))" \
		--initial-cluster "$CLUSTER" --initial-cluster-state new > "$T/etcd$m.log" 2>&1 &
	EPID[$m]=$!
	CLEANUP_PIDS+=("${EPID[$m]}")
done
for _ in $(seq 150); do
	/usr/bin/python3 - "$B" <<'PY' 2>/dev/null && break
import etcd3, sys
b = int(sys.argv[1])
for m in range(3):
    c = etcd3.client(host="127.0.0.1", port=b + m, timeout=1)
    c.put("/probe", "x")
    assert len(list(c.members)) == 3
PY
	sleep 0.2
done
/usr/bin/python3 - "$B" <<'PY' || { tail -5 "$T"/etcd*.log; fail "the 3-member cluster did not form"; }
import etcd3, sys
b = int(sys.argv[1])
for m in range(3):
    etcd3.client(host="127.0.0.1", port=b + m, timeout=2).put("/probe", "x")
PY
ok "a 3-member etcd cluster on 127.0.0.1:$B-$((B + 2))"

"$GEN" --antennas 1 --groups 1 --threads 1 --count 2 --pcap "$T/one.pcap" --quiet
for h in h0 h1; do
	mkdir -p "$T/$h"
	"$CAP" --lcores 0@0,1@1,2@0 --no-pci --no-huge -m 256 --file-prefix="$PREFIX$h" \
		--log-level=lib.eal:error --vdev "net_pcap0,rx_pcap=$T/one.pcap" -- \
		--antennas 1 --groups 1 --threads 1 --stats-period 0 --duration 300s --record idle \
		--write "codif:$T/$h" > "$T/$h.log" 2>&1 &
	CPID[$h]=$!
	CLEANUP_PIDS+=("${CPID[$h]}")
done
for h in h0 h1; do
	wait_started "$T/$h.log" 60 "$h did not start"
	/usr/bin/python3 "$BUILD/app/dpdk-ibvcap-agent" --etcd "$EPS" --array "a$$" --host "$h" \
		--file-prefix "$PREFIX$h" --ttl 3 --period 1 --rpc-timeout 2 > "$T/$h.agent.log" 2>&1 &
	APID[$h]=$!
	CLEANUP_PIDS+=("${APID[$h]}")
done
for h in h0 h1; do
	wait_for_line "$T/$h.agent.log" 30 "member of array .* at etcd 127.0.0.1:$B " ||
		{ cat "$T/$h.agent.log"; fail "$h: the agent did not join at the first member"; }
done
ARRAY() { /usr/bin/python3 "$BUILD/app/dpdk-ibvcap-array" --etcd "$EPS" --array "a$$" "$@"; }
T0=$(($(date +%s) + 3600))
ARRAY record on --scan s1 --at "$(utc_ms "$T0" 0)" --for 1s > "$T/on1.txt" ||
	{ cat "$T/on1.txt"; fail "record on with 3 members: exit $?"; }
ok "3 members: record on accepted by both hosts ($(tail -1 "$T/on1.txt"))"

kill "${EPID[0]}"
wait "${EPID[0]}" 2>/dev/null || true
for h in h0 h1; do
	wait_for_line "$T/$h.agent.log" 60 "etcd 127.0.0.1:$((B + 1)) reached again|etcd 127.0.0.1:$((B + 2)) reached again" ||
		{ cat "$T/$h.agent.log"; fail "$h: the agent did not move to another member"; }
done
ARRAY record on --scan s2 --at "$(utc_ms "$T0" 5000)" --for 1s > "$T/on2.txt" ||
	{ cat "$T/on2.txt" "$T"/*.agent.log; fail "record on with member e0 stopped: exit $?"; }
grep -q '^h0  accepted: scan s2 added' "$T/on2.txt" && grep -q '^h1  accepted: scan s2 added' "$T/on2.txt" ||
	{ cat "$T/on2.txt"; fail "record on with e0 stopped: not both accepted"; }
for h in h0 h1; do
	python3 "$BUILD/app/dpdk-ibvcap-ctl" --file-prefix "$PREFIX$h" status > "$T/$h.st.json"
	python3 - "$T/$h.st.json" <<'PY' || { cat "$T/$h.st.json"; fail "$h: its scans"; }
import json, sys
assert json.load(open(sys.argv[1]))["scan_names"] == ["s1", "s2"]
PY
	[ "$(grep -c 'command .*: ok$' "$T/$h.agent.log")" = 2 ] || { cat "$T/$h.agent.log"; fail "$h: not 2 commands applied"; }
done
ok "member e0 stopped: both agents moved to another member, the next command accepted by both, each applied once (scans s1, s2)"
for h in h0 h1; do kill -TERM "${APID[$h]}"; kill -INT "${CPID[$h]}"; done
for h in h0 h1; do
	wait "${APID[$h]}" || fail "$h: agent exit status"
	wait "${CPID[$h]}" || { cat "$T/$h.log"; fail "$h: capture exit status"; }
done
ok "captures and agents stopped cleanly"
echo "$CHECKS checks passed"
