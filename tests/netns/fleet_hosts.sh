#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One array over three capture hosts: dpdk-ibvcap-fleet split derives each
# host's INI from one array layout (4 groups: one claimed by a host, the
# others dealt); three "host" namespaces on one IGMP-snooping bridge each
# run dpdk-ibvcap (net_af_packet on its veth) with its file and join only
# its groups; codifgen in a fourth namespace sends every antenna to every
# group as kernel multicast, with faults. Together the hosts record every
# frame exactly once (each stream on one host, the union of their
# summaries equal to the truth), and dpdk-ibvcap-fleet view over their
# telemetry, their Prometheus files and their summaries equals the truth
# per antenna.
. "$(dirname "$0")/../lib.sh"
set -e
need_netns
need_hugepages 600
FLEET="python3 $BUILD/app/dpdk-ibvcap-fleet"
STAT="python3 $BUILD/app/dpdk-ibvcap-stat"
HOSTS=(h0 h1 h2)
SW=${PREFIX}sw GENNS=${PREFIX}gen

# the array: 6 antennas x 4 groups x 2 threads (the defaults of both
# programs); host h2 claims group 4; net_af_packet on each host's fl0
cat > "$T/array.ini" <<EOF
[eal]
args = --no-pci --log-level=lib.eal:error --vdev net_af_packet0,iface=fl0,blocksz=20480,framesz=10240,framecnt=2048
[antennas]
antennas = 6
[groups]
groups = 4
[ports]
mbuf-size = 12288
[steering]
steer = software
[buffers]
ring = 512
[reporting]
stats-period = 1s
duration = 120s
[host h0]
args = -l 0,1
[host h1]
; its rx lcore on the other CPU
args = -l 0,1 --main-lcore 1
[host h2]
args = -l 0,1
group = 239.17.0.4:36004
EOF
$FLEET split "$T/array.ini" --hosts h0,h1,h2 --outdir "$T/split" --json > "$T/split.json" ||
	fail "split failed"
python3 - "$T/split.json" <<'PY' || fail "split: not the expected assignment"
import json, sys
h = {o["host"]: o["groups"] for o in json.load(open(sys.argv[1]))["hosts"]}
want = {"h0": ["239.17.0.1:36001", "239.17.0.3:36003"], "h1": ["239.17.0.2:36002"],
        "h2": ["239.17.0.4:36004"]}
assert h == want, h
PY
ok "split: h2 keeps its claimed group, the rest dealt to the fewest (h0: 1+3, h1: 2, h2: 4)"

# the switch: a bridge with IGMP snooping and a querier, so a host gets
# only the groups it joined; no flooding of unregistered multicast. The
# bridge floods for a query response interval after its querier starts
# (the kernel's wait for other queriers): 1 s here, not 10
ip netns add "$SW"; CLEANUP_NETNS+=("$SW")
ip -n "$SW" link set lo up
ip -n "$SW" link add br0 type bridge mcast_snooping 1 mcast_query_response_interval 100
ip -n "$SW" link set br0 type bridge mcast_querier 1
ip -n "$SW" link set br0 mtu 9000 up
ip netns add "$GENNS"; CLEANUP_NETNS+=("$GENNS")
ip -n "$GENNS" link set lo up
ip link add gx netns "$GENNS" type veth peer name gy netns "$SW"
ip -n "$GENNS" link set gx mtu 9000 up
for i in 211 212 213 214 215 216; do ip -n "$GENNS" addr add "10.17.0.$i/24" dev gx; done
ip -n "$SW" link set gy mtu 9000 master br0 up
i=0
for h in "${HOSTS[@]}"; do
	ns=$PREFIX$h
	ip netns add "$ns"; CLEANUP_NETNS+=("$ns")
	ip -n "$ns" link set lo up
	ip link add fl0 netns "$ns" type veth peer name "p$h" netns "$SW"
	ip -n "$ns" link set fl0 mtu 9000 up
	ip -n "$ns" addr add "10.17.0.$((1 + i))/24" dev fl0
	ip -n "$SW" link set "p$h" mtu 9000 master br0 up
	bridge -n "$SW" link set dev "p$h" mcast_flood off
	i=$((i + 1))
done
ok "3 host namespaces and a sender on one snooping bridge (MTU 9000)"

declare -A CPID
for h in "${HOSTS[@]}"; do
	ip netns exec "$PREFIX$h" "$CAP" --file-prefix="$PREFIX$h" -- --config "$T/split/$h.ini" \
		--summary-json "$T/$h.json" > "$T/$h.log" 2>&1 &
	CPID[$h]=$!
	CLEANUP_PIDS+=("${CPID[$h]}")
done
for h in "${HOSTS[@]}"; do
	wait_started "$T/$h.log" 60 "$h did not start"
done
# each host joined its own groups, and only those (/proc/net/igmp: hex,
# host byte order: 239.17.0.1 = 010011EF)
declare -A JOIN=([h0]="010011EF 030011EF" [h1]="020011EF" [h2]="040011EF")
for h in "${HOSTS[@]}"; do
	got=$(ip netns exec "$PREFIX$h" awk '/fl0/ {on=1; next} /^[0-9]/ {on=0} on {print $1}' \
		/proc/net/igmp | grep -v '^010000E0$' | sort | tr '\n' ' ')
	want=$(printf '%s\n' ${JOIN[$h]} | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "$h joined '$got', expected '$want'"
done
ok "each host joined only its groups (/proc/net/igmp)"
# the bridge learnt them (IGMP reports may lag the join by a moment)
for _ in $(seq 50); do
	n=$(bridge -n "$SW" mdb show | grep -c '239\.17\.0\.' || true)
	[ "$n" -ge 4 ] && break
	sleep 0.2
done
[ "$n" -ge 4 ] || { bridge -n "$SW" mdb show; fail "the bridge learnt $n of 4 groups"; }
# ... and forwards them now (without the probe the first half of the
# frames vanished: tests/lib.sh bridge_probe); the captures see no probe
bridge_probe "$SW" "$GENNS" 10.17.0.211
ok "the bridge forwards each group to its host only ($n group entries; a probe group forwarded)"

ip netns exec "$GENNS" "$GEN" --socket --count 60 --rate-fps 100 --seed 31 \
	--loss 0.02 --duplicate 0.02 --reorder 0.05 --invalid 0.02 --bad-sync 0.02 \
	--truth "$T/truth.json" --quiet || fail "codifgen --socket failed"
ok "codifgen sent 6 antennas x 4 groups x 2 threads x 60 frames"

# the fleet view over the three hosts' telemetry, live: equal to the truth
# once the hosts have taken every frame (their rx rings hold a whole share)
FIELDS=$(python3 -c '
import json, sys
print(",".join(f for f in json.load(open(sys.argv[1]))["counters"]["antenna"]
               if not f.endswith("_utc")))' "$T/truth.json")
TEL=()
for h in "${HOSTS[@]}"; do TEL+=(--telemetry "$h=$PREFIX$h"); done
for _ in $(seq 60); do
	$FLEET view "${TEL[@]}" --json > "$T/tel.json" 2> "$T/tel.err" || true
	python3 "$CMP" --no-streams --fields "$FIELDS" "$T/truth.json" "$T/tel.json" > "$T/tel.cmp" &&
		break
	sleep 0.5
done
python3 "$CMP" --no-streams --fields "$FIELDS" "$T/truth.json" "$T/tel.json" > "$T/tel.cmp" ||
	{ cat "$T/tel.cmp" "$T/tel.err"; fail "fleet view over telemetry differs from the truth"; }
ok "fleet view over the hosts' telemetry = the truth per antenna ($(tail -1 "$T/tel.cmp"))"
python3 - "$T/tel.json" <<'PY' || fail "fleet view: antennas not seen on the hosts of their groups"
import json, sys
v = json.load(open(sys.argv[1]))
assert [h["host"] for h in v["hosts"]] == ["h0", "h1", "h2"] and all(h["ok"] for h in v["hosts"])
for a in v["antennas"]:
    assert a["hosts"] == ["h0", "h1", "h2"], a
assert not v["problems"], v["problems"]
PY
ok "every antenna's streams split over the 3 hosts, merged by name"
$FLEET view "${TEL[@]}" > "$T/tel.txt" || fail "fleet view table: exit $?"
grep -q '^total ' "$T/tel.txt" || { cat "$T/tel.txt"; fail "no total row in the table"; }
ok "the table: $(grep -c '^ant[0-9]' "$T/tel.txt") antennas and a total"

# Prometheus: each host's figures as dpdk-ibvcap-stat --prom writes them
# for node_exporter; the view over the three files = the view over telemetry
PROM=()
for h in "${HOSTS[@]}"; do
	$STAT --file-prefix "$PREFIX$h" --once --prom "$T/$h.prom" || fail "$h: dpdk-ibvcap-stat --prom"
	PROM+=(--prom "$h=$T/$h.prom")
done
$FLEET view "${PROM[@]}" --json > "$T/prom.json" || fail "fleet view over Prometheus files: exit $?"
python3 - "$T/tel.json" "$T/prom.json" <<'PY' || fail "fleet view over Prometheus differs from telemetry"
import json, sys
t, p = (json.load(open(f)) for f in sys.argv[1:])
assert p["fields"], "no field"
for f in p["fields"]:
    assert f in t["fields"], "%s: not a telemetry field" % f
for a, b in zip(t["antennas"], p["antennas"]):
    for f in p["fields"]:
        if f.endswith("_ns"):  # seconds in Prometheus: microseconds survive
            assert abs(a[f] - b[f]) < 1000, (a["name"], f, a[f], b[f])
        else:
            assert a[f] == b[f], (a["name"], f, a[f], b[f])
PY
ok "fleet view over the hosts' Prometheus files = over their telemetry ($(python3 -c '
import json, sys; print(len(json.load(open(sys.argv[1]))["fields"]))' "$T/prom.json") figures)"

# the same over http, as from node_exporter on each host (a server on the
# switch namespace's loopback)
ip netns exec "$SW" python3 -m http.server --bind 127.0.0.1 --directory "$T" 9100 \
	> "$T/http.log" 2>&1 &
CLEANUP_PIDS+=($!)
URLS=()
for h in "${HOSTS[@]}"; do URLS+=(--prom "$h=http://127.0.0.1:9100/$h.prom"); done
for _ in $(seq 50); do
	ip netns exec "$SW" $FLEET view "${URLS[@]}" --json > "$T/http.json" 2> "$T/http.err" && break
	sleep 0.2
done
python3 - "$T/prom.json" "$T/http.json" <<'PY' || { cat "$T/http.err"; fail "fleet view over http differs"; }
import json, sys
p, h = (json.load(open(f)) for f in sys.argv[1:])
assert [x["host"] for x in h["hosts"]] == ["h0", "h1", "h2"] and all(x["ok"] for x in h["hosts"]), h
assert p["antennas"] == h["antennas"] and p["totals"] == h["totals"], "differ"
PY
ok "fleet view over http (node_exporter style) = over the files"

# a host that does not answer: flagged, the others still shown
set +e
$FLEET view "${TEL[@]}" --telemetry "h3=${PREFIX}gone" > "$T/gone.txt" 2> "$T/gone.err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "a host not answering: exit $rc, expected 1"
grep -q 'h3 .*NO ANSWER' "$T/gone.txt" && grep -q 'host h3 does not answer' "$T/gone.err" ||
	{ cat "$T/gone.txt" "$T/gone.err"; fail "the silent host is not flagged"; }
grep -q '^total ' "$T/gone.txt" || fail "no table for the answering hosts"
ok "a host that does not answer is flagged (exit 1), the others shown"

for h in "${HOSTS[@]}"; do kill -INT "${CPID[$h]}"; done
for h in "${HOSTS[@]}"; do
	wait "${CPID[$h]}" || { cat "$T/$h.log"; fail "$h: dpdk-ibvcap exit status"; }
done
ok "the 3 captures stopped cleanly"

# every frame exactly once: each host counted only streams of its groups,
# nothing of another group reached it, and the union is the truth
python3 - "$T" <<'PY' || fail "a host recorded frames of another host's groups"
import json, os, sys
d = sys.argv[1]
mine = {"h0": {"239.17.0.1", "239.17.0.3"}, "h1": {"239.17.0.2"}, "h2": {"239.17.0.4"}}
for h, groups in mine.items():
    s = json.load(open(os.path.join(d, h + ".json")))
    dst = {x["dst"] for x in s["streams"]}
    assert dst == groups, (h, dst)
    assert s["unattributed"]["unknown-group"] == 0, (h, s["unattributed"])
    assert len(s["streams"]) == 6 * 2 * len(groups), (h, len(s["streams"]))
PY
ok "each host's streams are its groups' only (12 per group), no other group's packet reached it"
SUMS=()
for h in "${HOSTS[@]}"; do SUMS+=(--summary "$h=$T/$h.json"); done
$FLEET view "${SUMS[@]}" --json > "$T/sum.json" || fail "fleet view over the summaries: exit $?"
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/sum.cmp" ||
	{ head -20 "$T/sum.cmp"; fail "the union of the hosts' summaries differs from the truth"; }
ok "union of the 3 summaries = the truth, per antenna and stream ($(tail -1 "$T/sum.cmp"))"
python3 - "$T/truth.json" <<'PY' || fail "no faults reached the captures"
import json, sys
a = json.load(open(sys.argv[1]))["antennas"]
for f in ("lost", "late", "duplicate", "invalid", "malformed"):
    assert sum(x[f] for x in a) > 0, f
PY
ok "lost, late, duplicate, invalid and malformed frames were among them"

# a stream on two hosts (the same summary given twice) is flagged
set +e
$FLEET view "${SUMS[@]}" --summary "again=$T/h1.json" > "$T/twice.txt" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] && grep -q 'counted on host h1 and host again' "$T/twice.txt" ||
	{ cat "$T/twice.txt"; fail "a stream on two hosts: exit $rc, not flagged"; }
ok "a stream counted on two hosts is flagged (exit 1)"
echo "$CHECKS checks passed"
