#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One array on etcd: three capture hosts as network namespaces, each with
# its dpdk-ibvcap (net_af_packet on a data veth, one multicast group each,
# a codif writer recording scans only) and its dpdk-ibvcap-agent (on a
# control veth to a real etcd in a fourth namespace; lease TTL 3 s, state
# every 1 s). dpdk-ibvcap-array, from the etcd namespace:
#   - config push: one host's INI passes dpdk-ibvcap --check-config there
#     and is kept as its --config-file, another's is refused with the
#     checker's words and leaves no file;
#   - record on --at T --for D reaches every host (exit 0, one line per
#     host); each host's scan directory holds exactly the frames of [T,
#     T+D) its group carries (scancheck against the generator's pcap and
#     truth, filtered to that host's group), and every host's scan begins
#     at the same data time (the same CODIF frame boundary);
#   - a command whose deadline passed while an agent was stopped (SIGSTOP)
#     is refused by it when it wakes, never applied (its capture has no
#     such scan);
#   - etcd stopped while the scan's data flows: the recording goes on (the
#     files above), the agents reconnect when etcd is back, a new command
#     goes through, and no command is applied twice (each agent applied
#     the scan's command once);
#   - the array's scan ledger (dpdk-ibvcap-array scan a1, from each agent's
#     scans/a1/HOST): per antenna and host, recorded and lost equal to
#     what codifcheck counts in that host's scan files, nothing else
#     missing; the injected outage (100 frames of h1's streams only) shows
#     as h1's lost frames, not the others'; a stream two hosts recorded is
#     flagged (a synthetic second ledger);
#   - an array trigger of [T0+350, T0+450) ms, inside the data the rings
#     still hold (--dir with {host}: one directory per host): each host's
#     acknowledgement under the command's id (state done, complete), and
#     the array's per-antenna result (frames and gap frames summed over the
#     hosts) equal to what codifcheck counts in the hosts' trigger files,
#     every frame of the window (each host's share the same);
#   - a host killed (capture and agent, SIGKILL): its liveness lease was
#     granted with the TTL; its key goes once etcd revokes the lapsed lease
#     (the time printed; bounded by TTL + period + 10 s of etcd's own);
#     status says DOWN; a command then names it "no answer", the others
#     accepted, exit 3.
. "$(dirname "$0")/../lib.sh"
set -e
need_netns
need_hugepages 600
need_cmd etcd
/usr/bin/python3 -c 'import etcd3' 2>/dev/null || skip "needs Debian's python3-etcd3 (run scripts/setup.sh --test)"
HOSTS=(h0 h1 h2)
SW=${PREFIX}sw GENNS=${PREFIX}gen
AGENT="/usr/bin/python3 $BUILD/app/dpdk-ibvcap-agent"
TTL=3 PERIOD=1
ETCD=10.18.0.254:2379
# --rpc-timeout 10: etcd beside three busy-polling captures on two vCPUs
# can take more than the default 3 s to answer one request; timeout 200: a
# tool that hangs fails here, not at meson's limit
ARRAY() { timeout 200 ip netns exec "$SW" /usr/bin/python3 "$BUILD/app/dpdk-ibvcap-array" \
	--etcd "$ETCD" --rpc-timeout 10 --array "a$$" "$@"; }
T0=$(($(date +%s) + 600)) # data time: 10 minutes ahead, every scan in its future
utc() { utc_ms "$T0" "$1"; }
ns() { echo $(((T0 * 1000 + $1) * 1000000)); }
# an outage on h1 only: frames 400..499 (data time ~173..216 ms, inside scan
# a1) of both antennas' streams of group 2 (each antenna's streams 2 and 3)
# never sent
OUTAGE=""
for a in 0 1; do for st in 2 3; do OUTAGE+=" --event burst:100@400,ant=$a,stream=$st"; done; done
GENARGS="--antennas 2 --groups 3 --threads 2 --count 1200 --seed 23 --loss 0.01 --start @$T0$OUTAGE"

# the switch (data bridge br0, IGMP snooping) and the control network
# (br1, etcd at 10.18.0.254); the sender
ip netns add "$SW"; CLEANUP_NETNS+=("$SW")
ip -n "$SW" link set lo up
ip -n "$SW" link add br0 type bridge mcast_snooping 1 mcast_query_response_interval 100
ip -n "$SW" link set br0 type bridge mcast_querier 1
ip -n "$SW" link set br0 mtu 9000 up
ip -n "$SW" link add br1 type bridge
ip -n "$SW" addr add 10.18.0.254/24 dev br1
ip -n "$SW" link set br1 up
ip netns add "$GENNS"; CLEANUP_NETNS+=("$GENNS")
ip -n "$GENNS" link set lo up
ip link add gx netns "$GENNS" type veth peer name gy netns "$SW"
ip -n "$GENNS" link set gx mtu 9000 up
for i in 211 212; do ip -n "$GENNS" addr add "10.17.0.$i/24" dev gx; done
ip -n "$SW" link set gy mtu 9000 master br0 up
i=0
for h in "${HOSTS[@]}"; do
	n=$PREFIX$h
	ip netns add "$n"; CLEANUP_NETNS+=("$n")
	ip -n "$n" link set lo up
	ip link add fl0 netns "$n" type veth peer name "p$h" netns "$SW"
	ip -n "$n" link set fl0 mtu 9000 up
	ip -n "$n" addr add "10.17.0.$((1 + i))/24" dev fl0
	ip -n "$SW" link set "p$h" mtu 9000 master br0 up
	bridge -n "$SW" link set dev "p$h" mcast_flood off
	ip link add ct0 netns "$n" type veth peer name "c$h" netns "$SW"
	ip -n "$n" addr add "10.18.0.$((1 + i))/24" dev ct0
	ip -n "$n" link set ct0 up
	ip -n "$SW" link set "c$h" master br1 up
	i=$((i + 1))
done
ok "3 host namespaces: a data port on a snooping bridge, a control port to etcd's"

# etcd, one member (a lab's), stopped by pid. Its data in memory
# (/dev/shm, removed at the end): on this 2-vCPU host the disk is shared
# with the rest of the suite, and a WAL fsync that waits there delays
# every write and every lease revocation by seconds
ED=/dev/shm/$PREFIX-etcd
CLEANUP_CMDS+=("rm -rf $ED")
start_etcd() {
	ip netns exec "$SW" etcd --name e0 --data-dir "$ED" \
		--listen-client-urls "http://$ETCD" --advertise-client-urls "http://$ETCD" \
		--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster e0=http://127.0.0.1:2380 >> "$T/etcd.log" 2>&1 &
	EPID=$!
	CLEANUP_PIDS+=("$EPID")
	for _ in $(seq 100); do
		ip netns exec "$SW" /usr/bin/python3 -c '
import etcd3, sys
h, p = sys.argv[1].split(":")
etcd3.client(host=h, port=int(p), timeout=1).get("/")' "$ETCD" 2>/dev/null && return 0
		sleep 0.2
	done
	cat "$T/etcd.log"
	fail "etcd did not answer in 20 s"
}
start_etcd
ok "etcd $(etcd --version | awk '/etcd Version/ {print $3}') answers at $ETCD"

# the captures: host i records group i+1 (239.17.0.(i+1):36001+i); scans only
declare -A CPID APID GROUP
i=0
for h in "${HOSTS[@]}"; do
	GROUP[$h]=239.17.0.$((1 + i))
	mkdir -p "$T/$h/w"
	if [ $i = 1 ]; then LC=0@1,1@0,2@1; else LC=0@0,1@1,2@0; fi
	# nice 10: three busy-polling captures on two vCPUs starved etcd and
	# the agents for seconds (leases lost, 1-s reads); a real host gives
	# its capture cores of its own
	ip netns exec "$PREFIX$h" nice -n 10 "$CAP" --lcores "$LC" --no-pci --file-prefix="$PREFIX$h" \
		--log-level=lib.eal:error \
		--vdev net_af_packet0,iface=fl0,blocksz=20480,framesz=10240,framecnt=2048 -- \
		--antennas 2 --group "${GROUP[$h]}:$((36001 + i))" --threads 2 --mbuf-size 12288 \
		--steer software --ring 1024 --stats-period 0 --duration 600s --record idle \
		--write "codif:$T/$h/w" > "$T/$h.log" 2>&1 &
	CPID[$h]=$!
	CLEANUP_PIDS+=("${CPID[$h]}")
	i=$((i + 1))
done
for h in "${HOSTS[@]}"; do
	wait_started "$T/$h.log" 60 "$h did not start"
done
start_agent() {
	ip netns exec "$PREFIX$1" $AGENT --etcd "$ETCD" --array "a$$" --host "$1" \
		--file-prefix "$PREFIX$1" --ttl $TTL --period $PERIOD --prom "$T/$1.agent.prom" \
		--config-file "$T/$1.conf/dpdk-ibvcap.ini" \
		>> "$T/$1.agent.log" 2>&1 &
	APID[$1]=$!
	CLEANUP_PIDS+=("${APID[$1]}")
}
for h in "${HOSTS[@]}"; do mkdir -p "$T/$h.conf"; start_agent "$h"; done
for h in "${HOSTS[@]}"; do
	wait_for_line "$T/$h.agent.log" 30 'member of array' ||
		{ cat "$T/$h.agent.log"; fail "$h: the agent did not join"; }
done
for _ in $(seq 50); do
	ARRAY status > "$T/st0.txt" 2>&1 && break
	sleep 0.2
done
ARRAY status > "$T/st0.txt" || { cat "$T/st0.txt"; fail "status: not every host alive, fresh, capturing"; }
[ "$(grep -c ' alive  state fresh .* capture running' "$T/st0.txt")" = 3 ] ||
	{ cat "$T/st0.txt"; fail "status: expected 3 hosts alive, fresh, capturing"; }
ok "3 captures and 3 agents; array status: every host alive, fresh, capturing"

# config push: each host's INI checked there by dpdk-ibvcap --check-config;
# h0's passes (kept as its --config-file), h1's names a directory that does
# not exist (refused with the checker's words, its file untouched)
mkdir -p "$T/cfgw"
printf '[eal]\nargs = --lcores 0@0,1@1,2@0\n[antennas]\nantennas = 2\n[groups]\ngroup = 239.17.0.1:36001\n[writers]\nwrite = codif:%s\n' \
	"$T/cfgw" > "$T/push0.ini"
sed "s#$T/cfgw#$T/nowhere#" "$T/push0.ini" > "$T/push1.ini"
rc=0
ARRAY --timeout 30 config push "h0=$T/push0.ini" "h1=$T/push1.ini" > "$T/push.txt" 2>&1 || rc=$?
[ $rc = 3 ] && grep -q "^h0  accepted" "$T/push.txt" &&
	grep -q "^h1  refused (dpdk-ibvcap --check-config: .*'$T/nowhere' does not exist)" "$T/push.txt" ||
	{ cat "$T/push.txt" "$T"/h[01].agent.log; fail "config push: exit $rc"; }
cmp "$T/push0.ini" "$T/h0.conf/dpdk-ibvcap.ini" || fail "config push: h0's --config-file is not what was pushed"
[ -z "$(ls -A "$T/h1.conf")" ] || { ls -la "$T/h1.conf"; fail "config push: h1's refused configuration left a file"; }
ok "config push: h0 accepted (its --config-file = the pushed INI), h1 refused ($(grep -o "'$T/nowhere' does not exist" "$T/push.txt" | sed "s#$T/##")), exit 3"

# the snooping bridge forwards registered groups only once it counts a
# querier: a probe group through it first (as fleet_hosts.sh)
bridge_probe "$SW" "$GENNS" 10.17.0.211
for _ in $(seq 50); do
	[ "$(bridge -n "$SW" mdb show | grep -c '239\.17\.0\.[123] ')" -ge 3 ] && break
	sleep 0.2
done

# one scan on every host: [T0+100 ms, T0+300 ms) of data time
ARRAY --json "$T/on.json" record on --scan a1 --at "$(utc 100)" --for 200ms > "$T/on.txt" ||
	{ cat "$T/on.txt"; fail "record on: exit $?"; }
for h in "${HOSTS[@]}"; do
	grep -q "^$h  accepted: scan a1 added" "$T/on.txt" || { cat "$T/on.txt"; fail "record on: $h"; }
done
ID1=$(json_get "$T/on.json" id)
ok "record on --at $(utc 100) --for 200ms: exit 0, 3 hosts accepted ($ID1)"

# a command past its deadline when the agent sees it: refused, not applied.
# The agent stopped (SIGSTOP) past its TTL: h1 shows DOWN or silent; woken,
# it finds its lease gone, joins again with a new one, watches from the
# last revision it saw, and refuses the command it missed
kill -STOP "${APID[h1]}"
sleep $((TTL + 1))
rc=0
ARRAY --hosts h1 --timeout 1 --json "$T/late.json" record on --scan late --at "$(utc 5000)" \
	--for 100ms > "$T/late.txt" || rc=$?
sleep 1.5 # past the deadline (the tool returns at once when h1 is DOWN)
kill -CONT "${APID[h1]}"
[ $rc = 3 ] && grep -Eq '^h1  no answer (in 1 s|\(DOWN)' "$T/late.txt" ||
	{ cat "$T/late.txt"; fail "late: exit $rc"; }
IDL=$(json_get "$T/late.json" id)
for _ in $(seq 150); do
	ARRAY replies "$IDL" > "$T/late.rep" 2>/dev/null && break
	sleep 0.2
done
python3 - "$T/late.rep" <<'PY' || { cat "$T/late.rep" "$T/h1.agent.log"; fail "the late command's reply"; }
import json, sys
r = json.load(open(sys.argv[1]))["h1"]
assert r["result"] == "refused" and r["why"].startswith("deadline passed"), r
PY
python3 "$BUILD/app/dpdk-ibvcap-ctl" --file-prefix "${PREFIX}h1" status > "$T/h1st.json"
python3 - "$T/h1st.json" <<'PY' || { cat "$T/h1st.json"; fail "the late command was applied"; }
import json, sys
assert json.load(open(sys.argv[1]))["scan_names"] == ["a1"]
PY
ok "a command past its deadline (agent stopped $((TTL + 1)) s): $(grep '^h1' "$T/late.txt"), then refused ('$(python3 -c '
import json,sys; print(json.load(open(sys.argv[1]))["h1"]["why"][:40])' "$T/late.rep")...'), not applied"
wait_for_line "$T/h1.agent.log" 30 'reached again' || { cat "$T/h1.agent.log"; fail "h1: did not join again"; }

# etcd stopped; the data of the scan sent meanwhile
kill "$EPID"
wait "$EPID" 2>/dev/null || true
GEN_T0=$(date +%s)
ip netns exec "$GENNS" "$GEN" --socket $GENARGS --rate-fps 400 \
	--pcap "$T/sent.pcap" --truth "$T/truth.json" --quiet || fail "codifgen --socket failed"
GEN_T1=$(($(date +%s) + 1))
for h in "${HOSTS[@]}"; do
	grep -q 'retrying' "$T/$h.agent.log" || { cat "$T/$h.agent.log"; fail "$h: the agent did not notice etcd gone"; }
done
ok "etcd stopped while the scan's data was sent (2 antennas x 3 groups x 2 threads x 1200 frames)"
# the agents' own figures (node_exporter files): no lease while etcd is down
prom_has() { # HOST LINE...: wait (up to 10 s) until the agent's file has every LINE
	local h=$1 l ok_
	shift
	for _ in $(seq 50); do
		ok_=1
		for l in "$@"; do grep -qxF "$l" "$T/$h.agent.prom" 2>/dev/null || ok_=0; done
		[ $ok_ = 1 ] && return 0
		sleep 0.2
	done
	cat "$T/$h.agent.prom"
	return 1
}
L0="array=\"a$$\",host=\"h0\"" L1="array=\"a$$\",host=\"h1\""
prom_has h0 "ibvcap_agent_lease_held{$L0} 0" || fail "h0 --prom: the lease still held with etcd down"
ok "h0 --prom while etcd is down: ibvcap_agent_lease_held 0"
start_etcd
for h in "${HOSTS[@]}"; do
	wait_for_line "$T/$h.agent.log" 30 'reached again' || { cat "$T/$h.agent.log"; fail "$h: no reconnection"; }
done
ARRAY record on --scan a2 --at "$(utc 5000)" --for 100ms > "$T/on2.txt" ||
	{ cat "$T/on2.txt" "$T"/*.agent.log; fail "record on after etcd's restart: exit $?"; }
for h in "${HOSTS[@]}"; do
	[ "$(grep -c "command $ID1 " "$T/$h.agent.log")" = 1 ] ||
		{ cat "$T/$h.agent.log"; fail "$h: applied $ID1 not exactly once"; }
done
ok "etcd back: 3 agents reconnected, a new command accepted by all, $ID1 applied once on each"
prom_has h0 "ibvcap_agent_lease_held{$L0} 1" \
	"ibvcap_agent_commands_total{$L0,result=\"ok\"} 3" || fail "h0 --prom after etcd's return"
prom_has h1 "ibvcap_agent_lease_held{$L1} 1" "ibvcap_agent_commands_total{$L1,result=\"ok\"} 2" \
	"ibvcap_agent_commands_total{$L1,result=\"refused\"} 2" || fail "h1 --prom after etcd's return"
# reconnections: at least one per outage (an etcd still starting may take
# a second try on a loaded machine): h0 one outage, h1 two (its stop too)
n0=$(sed -n "s/^ibvcap_agent_etcd_reconnects_total{$L0} //p" "$T/h0.agent.prom")
n1=$(sed -n "s/^ibvcap_agent_etcd_reconnects_total{$L1} //p" "$T/h1.agent.prom")
[ "${n0:-0}" -ge 1 ] && [ "${n1:-0}" -ge 2 ] || fail "--prom reconnections: h0 '$n0', h1 '$n1'"
ok "--prom: h0 lease held, $n0 reconnection(s), 3 commands ok (the config push, 2 scans); h1 $n1 reconnections, 2 ok, 2 refused (its config, the late command)"
# the array's status: per antenna, the hosts' state records summed = what
# the hosts' captures count (asked here, each in its namespace); every
# frame of the truth received or counted lost. A frame the truth says was
# received may reach no capture on a loaded host (the veths' and
# af_packet's queues drop it before DPDK sees it): a capture counts it
# lost, the number printed
cat > "$T/sums.py" <<'PY'
import json, sys
s, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
hosts = {}
for f in sys.argv[3:]:  # /ibvcap/antennas: {"fields": [...], "ant0": [...], ...}
    r = json.load(open(f))
    for a, v in r.items():
        if a == "fields":
            continue
        row = v if isinstance(v, dict) else dict(zip(r["fields"], v))
        x = hosts.setdefault(a, [0, 0])
        x[0] += row["received"]
        x[1] += row["lost"]
got = {a: (x["received"], x["lost"], x["hosts"]) for a, x in s["antennas"].items()}
own = {a: (r, l, ["h0", "h1", "h2"]) for a, (r, l) in hosts.items()}
assert got == own, ("status", got, "the captures", own)
want = {"ant%d" % a["antenna"]: (a["received"], a["lost"]) for a in t["antennas"]}
assert set(got) == set(want), (got, want)
for a, (r, l, _) in got.items():
    assert r + l == sum(want[a]) and r <= want[a][0], (a, got[a], "truth", want[a])
print(" ".join("%s %d+%d" % (a, got[a][0], got[a][1]) for a in sorted(got)),
      "(truth %s; not reaching a capture: %d)" % (
          " ".join("%d+%d" % want[a] for a in sorted(want)),
          sum(want[a][0] - got[a][0] for a in got)))
PY
for _ in $(seq 30); do
	ARRAY --json "$T/st2.json" status > "$T/st2.txt" || true
	for h in "${HOSTS[@]}"; do
		ip netns exec "$PREFIX$h" /usr/bin/python3 "$BUILD/app/dpdk-ibvcap-stat" \
			--file-prefix "$PREFIX$h" --query /ibvcap/antennas > "$T/$h.ants.json" || true
	done
	python3 "$T/sums.py" "$T/st2.json" "$T/truth.json" "$T"/h[012].ants.json > "$T/sums.txt" 2>&1 && break
	sleep 0.3
done
python3 "$T/sums.py" "$T/st2.json" "$T/truth.json" "$T"/h[012].ants.json > "$T/sums.txt" 2>&1 ||
	{ cat "$T/st2.txt" "$T/sums.txt"; fail "status: per-antenna sums differ from the captures' or the truth"; }
ok "array status: per antenna, received+lost summed over the 3 hosts' state records = the captures' own counts, every frame of the truth: $(cat "$T/sums.txt")"
# the data runs ahead of the host clock (its first frame at T0, sent
# between GEN_T0 and GEN_T1): each host's state record has every antenna's
# offset, the status line the worst of them
python3 - "$T/st2.json" $((T0 - GEN_T1)) $((T0 + 1 - GEN_T0)) <<'PY' ||
import json, sys
s = json.load(open(sys.argv[1]))
lo, hi = int(sys.argv[2]), int(sys.argv[3])
for h in s["hosts"]:
    r = h["record"]
    offs = [a["clock_offset_s"] for a in r["antennas"].values()]
    assert len(offs) == 2 and all(lo < o < hi for o in offs), (h["host"], r["antennas"], lo, hi)
    assert r["clock_warn_s"] == 1.0 and "primary-0-codif" in r["writers"], r
    assert r["writers"]["primary-0-codif"]["disk_free"] > 0, r["writers"]
PY
	{ cat "$T/st2.txt"; fail "status: the data-vs-host clock offset"; }
# a host's line as one (80 columns wrap it onto indented lines)
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    /  /g' "$T/st2.txt" > "$T/st2.line"
[ "$(grep -cE '  clock \+[0-9]{3}\.[0-9]{3} s \(past --clock-warn\)  disk free [0-9.]+ GiB$' "$T/st2.line")" = 3 ] ||
	{ cat "$T/st2.txt"; fail "status: each host's worst clock offset and disk free"; }
ok "array status: each host's data-vs-host clock offset (+$(grep -oE 'clock \+[0-9.]+' "$T/st2.txt" | head -1 | cut -d+ -f2) s, past --clock-warn) and its writers' disk free"
# not a terminal: 80 columns, a host's fields that do not fit on lines of
# their own, indented; joined back, one line per host
! awk 'length > 80 { print; bad = 1 } END { exit !bad }' "$T/st2.txt" ||
	{ cat "$T/st2.txt"; fail "status: lines wider than 80 columns"; }
python3 - "$T/st2.line" <<'PY' || { cat "$T/st2.txt"; fail "status: a host's line, wrapped, joined back"; }
import re, sys
text = open(sys.argv[1]).read()
hosts = [l for l in text.splitlines() if re.match(r"h[0-2]  alive  state fresh .*  capture running  "
                                                   r"scan \S+  next \S+  writers .*  clock .*  disk free", l)]
assert len(hosts) == 3, text
PY
ok "array status fits 80 columns (a host's line wrapped at its fields: $(grep -c '^    ' "$T/st2.txt") continuation lines)"

# each host's scan: the frames of its group in [T0+100, T0+300) ms, whole
python3 - "$T" <<'PY' || fail "cannot split the sent pcap by host"
import json, struct, sys
d = sys.argv[1]
groups = {"h0": "239.17.0.1", "h1": "239.17.0.2", "h2": "239.17.0.3"}
truth = json.load(open(d + "/truth.json"))
raw = open(d + "/sent.pcap", "rb").read()
e = "<" if struct.unpack("<I", raw[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
for h, g in groups.items():
    want = bytes(int(x) for x in g.split("."))
    out, off = [raw[:24]], 24
    while off + 16 <= len(raw):
        n = struct.unpack(e + "IIII", raw[off:off + 16])[2]
        p = raw[off + 16:off + 16 + n]
        o = 18 if p[12:14] == b"\x81\x00" else 14
        if p[o + 16:o + 20] == want:
            out.append(raw[off:off + 16 + n])
        off += 16 + n
    open("%s/%s.pcap" % (d, h), "wb").write(b"".join(out))
    t = dict(truth, streams=[s for s in truth["streams"] if s["dst"] == g])
    assert len(t["streams"]) == 4, (h, len(t["streams"]))
    json.dump(t, open("%s/%s.truth.json" % (d, h), "w"))
PY
SC=$SRC/tests/tools/scancheck.py
for h in "${HOSTS[@]}"; do
	for _ in $(seq 100); do
		python3 "$SC" "$T/$h.pcap" "$T/$h.truth.json" "$T/$h/w" ibvcap "a1:$(ns 100):$(ns 300)" \
			> "$T/$h.chk" 2>&1 && break
		sleep 0.2
	done
	python3 "$SC" "$T/$h.pcap" "$T/$h.truth.json" "$T/$h/w" ibvcap "a1:$(ns 100):$(ns 300)" \
		> "$T/$h.chk" 2>&1 || { cat "$T/$h.chk" "$T/$h.log"; find "$T/$h/w"; fail "$h: scan a1"; }
	ok "$h: $(cat "$T/$h.chk")"
done
python3 - "$T" <<'PY' || fail "the hosts' scans do not begin at one frame boundary"
import json, sys
first = {}
for h in ("h0", "h1", "h2"):
    j = json.load(open("%s/%s/w/a1/ibvcap_scan.codif.json" % (sys.argv[1], h)))
    first[h] = {(a["first_seconds"], a["first_frame"]) for a in j["antennas"]}
assert len(set(map(frozenset, first.values()))) == 1 and len(first["h0"]) == 1, first
print(first["h0"])
PY
ok "every host's scan begins at the same CODIF frame (seconds, frame)"

# the array's scan ledger: the agents write it once their capture ended a1
for h in "${HOSTS[@]}"; do
	"$CHK" info --json "$T/$h/w/a1" > "$T/$h.a1.info.json" 2> "$T/$h.a1.err" ||
		{ cat "$T/$h.a1.err"; fail "$h: codifcheck info of scan a1's files"; }
done
for _ in $(seq 100); do
	rc=0
	ARRAY --json "$T/scan.json" scan a1 > "$T/scan.txt" 2>&1 || rc=$?
	[ $rc != 5 ] && break
	sleep 0.3
done
# the data's --loss 0.01 and the outage: frames lost, the scan short (4)
[ $rc = 4 ] || { cat "$T/scan.txt" "$T"/h?.agent.log; fail "array scan a1: exit $rc, expected 4"; }
python3 - "$T" <<'PY' || { cat "$T/scan.txt"; fail "the array's scan ledger"; }
import json, re, sys
T = sys.argv[1]
j = json.load(open(T + "/scan.json"))
files = {}  # (host, antenna) -> [received, lost] in the host's scan files
for h in ("h0", "h1", "h2"):
    info = json.load(open("%s/%s.a1.info.json" % (T, h)))
    for f in info.get("files", [info]):
        ant = re.search(r"_(ant[0-9]+)_", f["file"]).group(1)
        x = files.setdefault((h, ant), [0, 0])
        for st in f["streams"]:
            x[0] += st["received"]
            x[1] += st["lost"]
rows = {r["antenna"]: r for r in j["antennas"]}
assert sorted(rows) == ["ant0", "ant1"] and all(r["writer"] == "primary-0-codif"
                                                for r in rows.values()), rows
for ant, r in rows.items():
    assert r["hosts"] == ["h0", "h1", "h2"] and not r["unknown"], r
    exp = rec = 0
    for h in r["hosts"]:
        w = j["hosts"][h]["writers"][0]["antennas"][ant]
        assert [w["recorded"], w["lost"]] == files[(h, ant)], (h, ant, w, files[(h, ant)])
        assert w["expected"] == w["recorded"] + w["lost"] > 0, (h, ant, w)
        assert w["streams"] == 2 and w["known"], w
        assert not any(w[c] for c in ("not_recorded", "overrun", "cut", "not_arrived")), w
        exp += w["expected"]
        rec += w["recorded"]
    assert (r["expected"], r["recorded"]) == (exp, rec), (r, exp, rec)
    lost = r["missing"]["lost"]
    # the outage: 100 frames of each of h1's 2 streams, beside --loss 0.01
    assert lost["h1"] >= 200 and lost.get("h0", 0) < 100 and lost.get("h2", 0) < 100, lost
    assert not any(r["missing"][c] for c in ("not_recorded", "overrun", "cut",
                                             "not_arrived")), r
assert j["duplicate_streams"] == [], j["duplicate_streams"]
print("; ".join("%s %d of %d (lost h0 %d, h1 %d, h2 %d)" % (
    a, r["recorded"], r["expected"], r["missing"]["lost"].get("h0", 0),
    r["missing"]["lost"]["h1"], r["missing"]["lost"].get("h2", 0)) for a, r in sorted(rows.items())))
PY
grep -qE "^antenna ant0  primary-0-codif  [0-9]+ of [0-9]+ frames recorded \(6 streams\); missing: lost [0-9]+ \(h0 [0-9]+, h1 [0-9]+, h2 [0-9]+\)  hosts h0,h1,h2$" "$T/scan.txt" ||
	{ cat "$T/scan.txt"; fail "array scan a1: the per-antenna line"; }
ok "array scan a1 (exit 4: lost frames): per antenna and host = the hosts' files; h1's outage its own: $(python3 -c '
import json,sys
j = json.load(open(sys.argv[1]))
print("; ".join("%s lost %s" % (r["antenna"], r["missing"]["lost"]) for r in j["antennas"]))' "$T/scan.json")"
# a stream two hosts recorded: h0's ledger again as another host's (h9)
ip netns exec "$SW" /usr/bin/python3 - "$ETCD" "/ibvcap/a$$/scans/a1/" <<'PY' || fail "put h9's ledger"
import etcd3, json, sys
h, p = sys.argv[1].split(":")
c = etcd3.client(host=h, port=int(p), timeout=10)
r = json.loads(c.get(sys.argv[2] + "h0")[0])
r["host"] = "h9"
c.put(sys.argv[2] + "h9", json.dumps(r))
PY
rc=0
ARRAY --hosts h0,h9 scan a1 > "$T/scan9.txt" 2>&1 || rc=$?
[ $rc = 4 ] && [ "$(grep -c '^antenna ant[01]  stream 239\.17\.0\.1:36001/[01] recorded by 2 hosts: h0,h9$' "$T/scan9.txt")" = 4 ] &&
	grep -q '; 4 streams recorded by two hosts or more$' "$T/scan9.txt" ||
	{ cat "$T/scan9.txt"; fail "array scan: streams recorded twice not flagged"; }
ok "array scan a1 --hosts h0,h9 (h9 a copy of h0's ledger): its 4 streams flagged as recorded by h0,h9"

# an array trigger: acknowledged per host, the union per antenna = the files
for h in "${HOSTS[@]}"; do mkdir -p "$T/trig_$h"; done
rc=0
ARRAY --json "$T/trig.json" trigger "$(utc 350)" "$(utc 450)" --dir "$T/trig_{host}" \
	--timeout 5s > "$T/trig.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/trig.txt" "$T"/h?.agent.log; fail "array trigger: exit $rc"; }
for h in "${HOSTS[@]}"; do
	"$CHK" info --json "$T/trig_$h" > "$T/trig_$h.info.json" 2> "$T/trig_$h.err" ||
		{ cat "$T/trig_$h.err"; ls -l "$T/trig_$h"; fail "$h: codifcheck info of its trigger files"; }
done
TID=$(sed -n 's/^command \([^:]*\): trigger .*/\1/p' "$T/trig.txt")
python3 - "$T" "$TID" <<'PY' || { cat "$T/trig.txt"; fail "the array trigger's result"; }
import json, re, sys
T, tid = sys.argv[1], sys.argv[2]
j = json.load(open(T + "/trig.json.trigger"))
assert j["id"] == tid, (j["id"], tid)
files = {}
for h in ("h0", "h1", "h2"):
    k = j["hosts"][h]
    assert k["id"] == tid and k["host"] == h and k["state"] == "done", k
    assert k["result"] == "complete", k
    info = json.load(open("%s/trig_%s.info.json" % (T, h)))
    for f in info.get("files", [info]):
        ant = re.search(r"trigger_(ant[0-9]+)_", f["file"]).group(1)
        x = files.setdefault(ant, [0, 0])
        for st in f["streams"]:
            x[0] += st["received"]
            x[1] += st["lost"]
for ant, x in j["antennas"].items():
    assert x["hosts"] == ["h0", "h1", "h2"], x
    # the window's frames, each in a file as received or as a gap frame
    # (--loss 0.01), each host's share the same (2 threads of its group)
    shares = {int(j["hosts"][h]["antennas"][ant]["window_frames"]) for h in x["hosts"]}
    assert len(shares) == 1 and x["window_frames"] == 3 * shares.pop() > 0, x
    assert [x["frames"], x["placeholders"]] == files[ant], (ant, x, files[ant])
    assert x["frames"] + x["placeholders"] == x["window_frames"], x
assert sorted(j["antennas"]) == sorted(files) == ["ant0", "ant1"], (j["antennas"], files)
print("; ".join("%s: %d received + %d gap frames of %d (3 hosts' files)" %
                (a, files[a][0], files[a][1], j["antennas"][a]["window_frames"])
                for a in sorted(files)))
PY
grep -qE "^the array saved ([0-9]+) of the window's \1 frames on 3 of 3 hosts$" "$T/trig.txt" ||
	{ cat "$T/trig.txt"; fail "the array trigger's summary line"; }
ok "array trigger $TID: acknowledged by h0, h1, h2 (complete); per antenna the union = the hosts' files: $(python3 - "$T" <<'PY'
import json, sys
j = json.load(open(sys.argv[1] + "/trig.json.trigger"))
print("; ".join("%s %d+%d" % (a, x["frames"], x["placeholders"]) for a, x in sorted(j["antennas"].items())))
PY
)"
ARRAY trigger-status "$TID" > "$T/trig2.txt" 2>&1 || { cat "$T/trig2.txt"; fail "trigger-status $TID"; }
diff <(grep -v '^trigger ' "$T/trig.txt" | grep -v '^command \|accepted$\|^h[0-2]  accepted') \
	<(grep -v '^trigger ' "$T/trig2.txt") > /dev/null ||
	{ cat "$T/trig.txt" "$T/trig2.txt"; fail "trigger-status differs from the trigger's own table"; }
ok "array trigger-status $TID: the same table"
# a window past the data: every host's not arrived, named per host, exit
# 4. Each capture waits --timeout 8s for it; meanwhile h0's agent is
# restarted: the new one takes the accepted trigger up again and
# acknowledges it
ARRAY trigger "$(utc 5000)" "$(utc 5100)" --dir "$T/trig_{host}" --timeout 8s \
	> "$T/trig3.txt" 2>&1 &
TPID=$!
CLEANUP_PIDS+=("$TPID")
wait_for_line "$T/trig3.txt" 30 '^3 of 3 hosts accepted' ||
	{ cat "$T/trig3.txt"; fail "the trigger past the data: not accepted by every host"; }
kill -TERM "${APID[h0]}"
wait "${APID[h0]}" || fail "h0's agent: exit status at SIGTERM"
start_agent h0
rc=0
wait "$TPID" || rc=$?
[ "$rc" = 4 ] || { cat "$T/trig3.txt" "$T"/h?.agent.log; fail "array trigger of a window past the data: exit $rc, expected 4"; }
grep -qE "^antenna ant0  0 of ([0-9]+) frames saved \(0 gap frames\); could not: not_arrived \1 \(h0 [0-9]+, h1 [0-9]+, h2 [0-9]+\)  hosts h0,h1,h2$" "$T/trig3.txt" ||
	{ cat "$T/trig3.txt" "$T/h0.agent.log"; fail "the not-arrived window's per-antenna line"; }
grep -q '1 trigger(s) accepted before this agent started, not yet acknowledged: taken up again' "$T/h0.agent.log" ||
	{ cat "$T/h0.agent.log"; fail "h0's restarted agent did not take the trigger up"; }
ok "array trigger past the data, h0's agent restarted while it ran (acknowledged by the new one): $(grep '^antenna ant0' "$T/trig3.txt")"

# a host killed: DOWN once its lease lapses. The liveness key and its
# lease watched from here (a poller started before the kill: this
# machine's load makes each tool's start take seconds), then the array's
# status. The agent owns the lease's lapse (no refresh after TTL); when
# etcd's leader revokes it and deletes the key is etcd's (a raft write; a
# revoke that timed out on a loaded host is retried later,
# etcd-io/etcd#10686, and the key outlives the lease): the tool takes a
# lapsed lease as DOWN, so the poller times the lapse or the key's end,
# whichever etcd shows first, and gives up (an error) after a minute more
# (its own exit bounded: twice, on a loaded CI host, this point of the
# test stood still for minutes with the key gone in 3 s; the poller's exit
# skips the interpreter's teardown, where gRPC can wait)
timeout $((TTL + PERIOD + 90)) ip netns exec "$SW" /usr/bin/python3 - "$ETCD" \
	"/ibvcap/a$$/alive/h2" "$T/killed" $((TTL + PERIOD + 60)) > "$T/down.ms" 2> "$T/down.err" <<'PY' &
import etcd3, os, sys, time
h, p = sys.argv[1].split(":")
c = etcd3.client(host=h, port=int(p), timeout=2)
def state():  # (key there, its lease's remaining TTL); etcd slow: asked again
    for _ in range(30):
        try:
            v, meta = c.get(sys.argv[2])
            if v is None:
                return False, None
            return True, c.get_lease_info(meta.lease_id).TTL
        except etcd3.exceptions.Etcd3Exception:
            time.sleep(0.05)
    raise SystemExit("etcd did not answer 30 times in a row")
there, ttl = state()
assert there and ttl >= 0, "h2 not alive before the kill"
# the lease the agent holds the key under: its TTL as granted by etcd
lease = c.get(sys.argv[2])[1].lease_id
print("granted", c.get_lease_info(lease).grantedTTL, flush=True)
print("ready", flush=True)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
t0 = int(open(sys.argv[3]).read())
end = time.monotonic() + int(sys.argv[4])
while True:
    there, ttl = state()
    if not there or ttl < 0:  # etcd's TTL: whole seconds left, cut towards 0
        break
    if time.monotonic() > end:
        raise SystemExit("h2's key still there, its lease live (%s s left) %s s after the kill"
                         % (ttl, sys.argv[4]))
    time.sleep(0.05)
print("how", "key gone" if not there else "lease lapsed (TTL %d), key not yet deleted" % ttl)
print((time.time_ns() - t0) // 1000000, flush=True)
os._exit(0)
PY
POLL=$!
CLEANUP_PIDS+=("$POLL")
wait_for_line "$T/down.ms" 30 ready || { cat "$T/down.err"; fail "the liveness poller did not start"; }
echo "# the poller ready [$SECONDS s]"
kill -KILL "${APID[h2]}" "${CPID[h2]}"
date +%s%N > "$T/killed.tmp" # whole, then seen (the poller waits for the name)
mv "$T/killed.tmp" "$T/killed"
wait "$POLL" || { cat "$T/down.err"; fail "the liveness poller"; }
echo "# the poller ended [$SECONDS s]"
down=$(tail -1 "$T/down.ms")
how=$(sed -n 's/^how //p' "$T/down.ms")
granted=$(awk '/^granted/ {print $2}' "$T/down.ms")
# past TTL + period + 10 s (etcd's answers on a loaded host) the lease is
# refreshed by something else
[ "$granted" = "$TTL" ] || fail "h2's liveness lease granted with TTL $granted s, expected --ttl $TTL"
[ "$down" -le $(((TTL + PERIOD + 10) * 1000)) ] ||
	fail "h2's liveness lease lapsed after $down ms (TTL $TTL s + period $PERIOD s + etcd's 10 s)"
ARRAY status > "$T/st1.txt" 2>&1 || true
echo "# status answered [$SECONDS s]"
grep -q '^h2  DOWN' "$T/st1.txt" && grep -q '^h0  alive' "$T/st1.txt" &&
	grep -q '^h1  alive' "$T/st1.txt" || { cat "$T/st1.txt"; fail "status after h2's kill"; }
ok "h2 killed: its lease (granted TTL $granted s) gone after $down ms ($how) (TTL $TTL s + period $PERIOD s); status: h2 DOWN, h0 and h1 alive"
rc=0
ARRAY record on --scan a3 --at "$(utc 6000)" --for 100ms > "$T/on3.txt" || rc=$?
[ $rc = 3 ] && grep -q '^h0  accepted' "$T/on3.txt" && grep -q '^h1  accepted' "$T/on3.txt" &&
	grep -q '^h2  no answer (DOWN' "$T/on3.txt" && grep -q '^2 of 3 hosts accepted' "$T/on3.txt" ||
	{ cat "$T/on3.txt"; fail "a command with h2 down: exit $rc"; }
ok "a command with h2 down: h0, h1 accepted, h2 no answer (DOWN), exit 3"

for h in h0 h1; do kill -TERM "${APID[$h]}"; kill -INT "${CPID[$h]}"; done
for h in h0 h1; do
	wait "${CPID[$h]}" || { cat "$T/$h.log"; fail "$h: dpdk-ibvcap exit status"; }
	wait "${APID[$h]}" || { cat "$T/$h.agent.log"; fail "$h: agent exit status"; }
done
if grep -l Traceback "$T"/*.agent.log; then fail "an agent printed a traceback"; fi
ok "captures and agents stopped cleanly (agents exit 0, no traceback)"
echo "$CHECKS checks passed"
