#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One array's health in a real Prometheus: three capture hosts as network
# namespaces on one bridge, each with its dpdk-ibvcap (net_pcap replaying
# a codifgen file of its own group: other frame counts and losses on each
# host, so no wrong sum passes), its export (dpdk-ibvcap-stat --prom into
# its own textfile directory, as dpdk-ibvcap-prom@ writes it) and its
# node_exporter (Debian's prometheus-node-exporter, textfile collector
# only, on the host's address). In the switch namespace a real prometheus
# scrapes them through the file_sd targets `dpdk-ibvcap-fleet split
# --prom-sd` wrote (host names resolved by the namespace's /etc/hosts),
# with the shipped config/prometheus/*.rules.yml, and sends its alerts to
# a real prometheus-alertmanager:
#   - up == 1 for the 3 targets, labelled as the targets file says;
#   - sum by (antenna) of ibvcap_antenna_received_frames_total (and lost)
#     over the hosts = the sum of the captures' own --summary-json figures;
#   - dpdk-ibvcap-fleet view --prometheus URL (the server's HTTP API, no
#     host scraped) shows the same per-antenna figures and the same table
#     as fleet view over the hosts' exported files;
#   - IbvcapWriterFull (shipped, no for:) fires for the one writer that
#     really stopped at its min-free (h2's, on a 16 MiB tmpfs) and
#     Alertmanager's /api/v2/alerts lists it with h2's labels, and no
#     other host's writer;
#   - h1's node_exporter killed: up == 0 for h1 only; fleet view
#     --prometheus flags h1 (NO ANSWER, exit 1) and sums the others; a
#     server that does not answer is named with what failed.
. "$(dirname "$0")/../lib.sh"
set -e
need_netns
need_cmd prometheus
need_cmd promtool
need_cmd prometheus-alertmanager
need_cmd prometheus-node-exporter
need_cmd mount
# Debian's interpreter: the tools and the helpers use the standard library
# only, and the pyenv shim on PATH takes seconds to start here
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
FLEET="$PY $BUILD/app/dpdk-ibvcap-fleet"
STAT="$PY $BUILD/app/dpdk-ibvcap-stat"
HOSTS=(h0 h1 h2)
declare -A IP=([h0]=10.17.0.1 [h1]=10.17.0.2 [h2]=10.17.0.3)
# frames per stream and loss seed of each host's replay (4 antennas x 2
# threads of its one group)
declare -A COUNT=([h0]=100 [h1]=150 [h2]=200) SEED=([h0]=11 [h1]=12 [h2]=13)
SW=${PREFIX}sw
SWIP=10.17.0.254
PROMURL=http://$SWIP:9090
AMURL=http://$SWIP:9093
# every step waits at most this long (s): the test stays bounded on a
# loaded 2-vCPU machine
WAIT=40

# ---- the array: split, with the service-discovery file we ship
for h in "${HOSTS[@]}"; do mkdir -p "$T/$h/w" "$T/$h/textfile"; done
cat > "$T/array.ini" <<EOF
[eal]
args = --no-pci --no-huge -m 512 --log-level=lib.eal:error
[antennas]
antennas = 4
[groups]
groups = 3
[steering]
steer = software
[reporting]
stats-period = 0
duration = 120s
[host h0]
args = --lcores 0@0,1@1,2@0 --vdev net_pcap0,rx_pcap=$T/h0.pcap
write = codif:$T/h0/w
[host h1]
args = --lcores 0@1,1@0 --vdev net_pcap0,rx_pcap=$T/h1.pcap
[host h2]
args = --lcores 0@1,1@0,2@1 --vdev net_pcap0,rx_pcap=$T/h2.pcap
; a 16 MiB tmpfs: the writer reaches its min-free after ~8 MiB of 13
write = codif:$T/h2/w,min-free=8M,on-full=stop
EOF
mkdir -p "$T/sd"
$FLEET split "$T/array.ini" --outdir "$T/split" --prom-sd "$T/sd/ibvcap.json" --json \
	> "$T/split.json" || fail "fleet split --prom-sd failed"
$PY - "$T/split.json" "$T/sd/ibvcap.json" <<'PY' || fail "split: not the expected groups or targets"
import json, sys
h = {o["host"]: o["groups"] for o in json.load(open(sys.argv[1]))["hosts"]}
assert h == {"h0": ["239.17.0.1:36001"], "h1": ["239.17.0.2:36002"],
             "h2": ["239.17.0.3:36003"]}, h
sd = json.load(open(sys.argv[2]))
assert [t["targets"] for t in sd] == [["h0:9100"], ["h1:9100"], ["h2:9100"]], sd
assert [t["labels"] for t in sd] == [{"ibvcap_host": x, "ibvcap_array": "array"}
                                     for x in ("h0", "h1", "h2")], sd
PY
ok "split: one group per host; --prom-sd targets h0:9100 h1:9100 h2:9100 labelled ibvcap_host"

# each host's replay: its own group, its own count and losses
g=1
for h in "${HOSTS[@]}"; do
	"$GEN" --antennas 4 --threads 2 --group "239.17.0.$g:$((36000 + g))" --count "${COUNT[$h]}" \
		--seed "${SEED[$h]}" --loss 0.03 --pcap "$T/$h.pcap" --truth "$T/$h.truth.json" --quiet
	g=$((g + 1))
done

# ---- the network: a bridge in the switch namespace (Prometheus and
# Alertmanager on its address), one veth per host; the host names of the
# targets file resolve in the switch namespace (ip netns exec binds
# /etc/netns/NS/hosts over /etc/hosts)
ip netns add "$SW"; CLEANUP_NETNS+=("$SW")
ip -n "$SW" link set lo up
ip -n "$SW" link add br0 type bridge
ip -n "$SW" addr add "$SWIP/24" dev br0
ip -n "$SW" link set br0 up
for h in "${HOSTS[@]}"; do
	ns=$PREFIX$h
	ip netns add "$ns"; CLEANUP_NETNS+=("$ns")
	ip -n "$ns" link set lo up
	ip link add pe0 netns "$ns" type veth peer name "p$h" netns "$SW"
	ip -n "$ns" addr add "${IP[$h]}/24" dev pe0
	ip -n "$ns" link set pe0 up
	ip -n "$SW" link set "p$h" master br0 up
done
[ -d /etc/netns ] || CLEANUP_CMDS+=("rmdir /etc/netns")
mkdir -p "/etc/netns/$SW"
CLEANUP_CMDS=("rm -rf /etc/netns/$SW" "${CLEANUP_CMDS[@]}")
{
	echo "127.0.0.1 localhost"
	for h in "${HOSTS[@]}"; do echo "${IP[$h]} $h"; done
} > "/etc/netns/$SW/hosts"
ok "3 host namespaces on one bridge; h0 h1 h2 resolve in the switch namespace"

# h2's writer directory: a filesystem of its own that its min-free reaches
mount -t tmpfs -o size=16m "ibvt-$PREFIX" "$T/h2/w" || skip "cannot mount a tmpfs"
CLEANUP_CMDS=("umount $T/h2/w" "${CLEANUP_CMDS[@]}")

# ---- the captures: each replays its file once; then each host's export
declare -A CPID
for h in "${HOSTS[@]}"; do
	# nice 10: three busy-polling captures on two vCPUs
	ip netns exec "$PREFIX$h" nice -n 10 "$CAP" --file-prefix="$PREFIX$h" -- \
		--config "$T/split/$h.ini" --summary-json "$T/$h.json" > "$T/$h.log" 2>&1 &
	CPID[$h]=$!
	CLEANUP_PIDS+=("${CPID[$h]}")
done
for h in "${HOSTS[@]}"; do
	wait_started "$T/$h.log" "$WAIT" "$h did not start"
done
# every packet of its file in (telemetry), h2's writer at its min-free;
# --timeout 20s: three niced captures beside another's load answer slowly
for h in "${HOSTS[@]}"; do
	want=$(json_get "$T/$h.truth.json" totals sent)
	end=$((SECONDS + WAIT))
	while :; do
		got=$($STAT --file-prefix "$PREFIX$h" --timeout 20s --query /ibvcap/stats 2>/dev/null |
			json_get - packets 2>/dev/null) || true
		[ "$got" = "$want" ] || [ $SECONDS -ge $end ] && break
		sleep 0.5
	done
	[ "$got" = "$want" ] || fail "$h: ${got:-none} of its $want packets in after ${WAIT} s"
done
wait_for_line "$T/h2.log" $WAIT 'min-free 8,388,608 bytes .*stopped writing at a whole row' ||
	{ cat "$T/h2.log"; fail "h2's writer did not reach its min-free"; }
ok "each capture took its file's packets; h2's writer stopped at its min-free"
for h in "${HOSTS[@]}"; do
	# as dpdk-ibvcap-prom@ runs it: into node_exporter's textfile directory
	# (--once exits 1 on a capture whose main loop stood still for 2 s, as
	# a loaded machine can make it: the timer's next run; here, again)
	f=$T/$h/textfile/dpdk-ibvcap-$PREFIX$h.prom
	for _ in 1 2 3 4 5; do
		ip netns exec "$PREFIX$h" $STAT --file-prefix "$PREFIX$h" --once --timeout 20s \
			--prom "$f" 2> "$T/$h.stat.err" && break
		sleep 1
	done
	[ -s "$f" ] || { cat "$T/$h.stat.err"; fail "$h: dpdk-ibvcap-stat --prom"; }
done
grep -q '^ibvcap_writer_full{.*} 1$' "$T/h2/textfile/dpdk-ibvcap-${PREFIX}h2.prom" &&
	grep -q '^ibvcap_writer_full{.*} 0$' "$T/h0/textfile/dpdk-ibvcap-${PREFIX}h0.prom" ||
	fail "the exports lack ibvcap_writer_full 1 (h2) and 0 (h0)"
# stop: the captures' own totals are their summaries (h2: exit 3, its
# writer stopped at min-free)
for h in "${HOSTS[@]}"; do kill -INT "${CPID[$h]}"; done
for h in "${HOSTS[@]}"; do
	set +e
	wait "${CPID[$h]}"
	rc=$?
	set -e
	want=0
	[ "$h" = h2 ] && want=3
	[ "$rc" = "$want" ] || { tail -5 "$T/$h.log"; fail "$h: dpdk-ibvcap exit $rc, expected $want"; }
done
# the expected figures: per antenna, the sum of the three summaries
$PY - "$T" "${HOSTS[@]}" > "$T/expect.json" <<'PY' || fail "the summaries: not 3 different figures"
import json, os, sys
d, hosts = sys.argv[1], sys.argv[2:]
exp, per = {}, {}
for h in hosts:
    s = json.load(open(os.path.join(d, h + ".json")))
    per[h] = {}
    for a in s["antennas"]:
        e = exp.setdefault(a["name"], {"received": 0, "lost": 0})
        per[h][a["name"]] = {"received": a["received"], "lost": a["lost"]}
        for k in e:
            e[k] += a[k]
# a wrong sum cannot pass: the hosts' figures differ for every antenna
for n in exp:
    r = [per[h][n]["received"] for h in hosts]
    assert len(set(r)) == len(r) and all(r), (n, r)
print(json.dumps({"sum": exp, "hosts": per}))
PY
ok "the captures stopped (h2 exit 3: its writer at min-free); their summaries: $($PY -c '
import json, sys
e = json.load(open(sys.argv[1]))["sum"]
print(", ".join("%s %d" % (n, e[n]["received"]) for n in sorted(e)))' "$T/expect.json") frames received"

# ---- node_exporter on each host, textfile collector only, its address
declare -A NPID
for h in "${HOSTS[@]}"; do
	ip netns exec "$PREFIX$h" prometheus-node-exporter --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory "$T/$h/textfile" \
		--web.listen-address "${IP[$h]}:9100" > "$T/$h.ne.log" 2>&1 &
	NPID[$h]=$!
	CLEANUP_PIDS+=("${NPID[$h]}")
done
for h in "${HOSTS[@]}"; do
	wait_for_line "$T/$h.ne.log" $WAIT 'Listening on' ||
		{ cat "$T/$h.ne.log"; fail "$h: node_exporter did not start"; }
done

# ---- Alertmanager and Prometheus in the switch namespace
cat > "$T/am.yml" <<EOF
route:
  receiver: "null"
  group_wait: 1s
receivers:
  - name: "null"
EOF
ip netns exec "$SW" prometheus-alertmanager --config.file "$T/am.yml" --storage.path "$T/am" \
	--web.listen-address "$SWIP:9093" --cluster.listen-address= > "$T/am.log" 2>&1 &
CLEANUP_PIDS+=($!)
cat > "$T/prometheus.yml" <<EOF
global:
  # 2 s: a loaded 2-vCPU machine can take more than 1 s to answer
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 1s
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['$SWIP:9093']
rule_files:
  - $SRC/config/prometheus/*.rules.yml
scrape_configs:
  - job_name: ibvcap
    file_sd_configs:
      - files: ['$T/sd/ibvcap.json']
EOF
promtool check config "$T/prometheus.yml" > "$T/promtool.log" 2>&1 ||
	{ cat "$T/promtool.log"; fail "promtool check config"; }
ip netns exec "$SW" prometheus --config.file "$T/prometheus.yml" --storage.tsdb.path "$T/prom" \
	--web.listen-address "$SWIP:9090" > "$T/prom.log" 2>&1 &
CLEANUP_PIDS+=($!)
wait_for_line "$T/am.log" $WAIT 'Listening' || { cat "$T/am.log"; fail "alertmanager did not start"; }
wait_for_line "$T/prom.log" $WAIT 'Server is ready to receive web requests' ||
	{ cat "$T/prom.log"; fail "prometheus did not start"; }

# q PYTHON-EXPR: poll (up to WAIT s) the server from the switch namespace
# until EXPR (over v, the instant query $QUERY's [(labels, value)]; or over
# a, Alertmanager's alerts; or r, the rule groups) is true; prints its last
# data as JSON; exit 1 if it never was
cat > "$T/q.py" <<'PY'
import json, sys, time, urllib.parse, urllib.request
kind, url, arg, expr, wait = sys.argv[1:6]
end, data = time.time() + float(wait), None
while True:
    try:
        if kind == "query":
            u = url + "/api/v1/query?" + urllib.parse.urlencode({"query": arg})
            d = json.load(urllib.request.urlopen(u, timeout=5))["data"]["result"]
            data = [(x["metric"], float(x["value"][1])) for x in d]
            env = {"v": data}
        elif kind == "alerts":
            data = json.load(urllib.request.urlopen(url + "/api/v2/alerts", timeout=5))
            env = {"a": data}
        else:
            data = json.load(urllib.request.urlopen(url + "/api/v1/rules", timeout=5))["data"]["groups"]
            env = {"r": data}
        if eval(expr, env):
            print(json.dumps(data))
            sys.exit(0)
    except Exception as e:  # not up yet, or a failed check: retry
        data = "%s (%s)" % (data, e)
    if time.time() > end:
        print(json.dumps(data))
        sys.exit(1)
    time.sleep(0.5)
PY
q() { ip netns exec "$SW" $PY "$T/q.py" "$@" $WAIT; }

# the shipped rules are loaded: every alert of both files
nrules=$(cat "$SRC"/config/prometheus/*.rules.yml | grep -c '^ *- alert:')
q rules "$PROMURL" - "sorted(g['name'] for g in r) == ['dpdk-ibvcap', 'ibvcap-array'] and \
	sum(len(g['rules']) for g in r) == $nrules" > "$T/rules.json" ||
	{ cat "$T/rules.json"; fail "prometheus did not load the shipped rules"; }
ok "prometheus loaded config/prometheus/*.rules.yml: groups dpdk-ibvcap and ibvcap-array, $nrules alerts"

# every target up, as the targets file names it
q query "$PROMURL" 'up{job="ibvcap"}' "sorted((x['instance'], x['ibvcap_host'], \
	x['ibvcap_array'], y) for x, y in v) == [('h0:9100', 'h0', 'array', 1), \
	('h1:9100', 'h1', 'array', 1), ('h2:9100', 'h2', 'array', 1)]" > "$T/up.json" ||
	{ cat "$T/up.json" "$T/prom.log"; fail "up{job=\"ibvcap\"} is not 1 for h0 h1 h2"; }
ok "up{job=\"ibvcap\"} == 1 for h0:9100 h1:9100 h2:9100 (ibvcap_host, ibvcap_array from the targets file)"

# the per-antenna sum over hosts = the captures' own totals
for f in received lost; do
	exp=$($PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["sum"]
print(sorted((n, float(x[sys.argv[2]])) for n, x in e.items()))' "$T/expect.json" "$f")
	q query "$PROMURL" "sum by (antenna) (ibvcap_antenna_${f}_frames_total{job=\"ibvcap\"})" \
		"sorted((x['antenna'], y) for x, y in v) == $exp" > "$T/sum_$f.json" ||
		{ echo "expected $exp"; cat "$T/sum_$f.json"; fail "Prometheus' per-antenna sum of $f frames differs from the captures' summaries"; }
	q query "$PROMURL" "count by (antenna) (ibvcap_antenna_${f}_frames_total{job=\"ibvcap\"})" \
		"len(v) == 4 and all(y == 3 for x, y in v)" > "$T/count_$f.json" ||
		{ cat "$T/count_$f.json"; fail "not 3 hosts' series per antenna"; }
	ok "sum by (antenna) (ibvcap_antenna_${f}_frames_total) over 3 hosts = the summaries': $exp"
done

# dpdk-ibvcap-fleet view --prometheus: the same figures, from the server
PROMS=()
for h in "${HOSTS[@]}"; do PROMS+=(--prom "$h=$T/$h/textfile/dpdk-ibvcap-$PREFIX$h.prom"); done
$FLEET view "${PROMS[@]}" --json > "$T/ff.json" || fail "fleet view over the exported files"
$FLEET view "${PROMS[@]}" > "$T/ff.txt" || fail "fleet view over the exported files (table)"
cat > "$T/check_all.py" <<'PY'
import json, sys
e, p, f = (json.load(open(x)) for x in sys.argv[1:])
assert [(h["host"], h["ok"], h.get("antennas")) for h in p["hosts"]] == \
    [("h0", True, 4), ("h1", True, 4), ("h2", True, 4)], p["hosts"]
assert not p["problems"], p["problems"]
for a in p["antennas"]:
    for k in ("received", "lost"):
        assert a[k] == e["sum"][a["name"]][k], (a["name"], k, a[k], e["sum"][a["name"]][k])
assert sorted(a["name"] for a in p["antennas"]) == sorted(e["sum"]), p["antennas"]
# what the hosts export, through the server: every figure the same
assert p["fields"] == f["fields"] and len(p["fields"]) > 10, (p["fields"], f["fields"])
assert p["antennas"] == f["antennas"] and p["totals"] == f["totals"], "differ from the files"
PY
cat > "$T/check_down.py" <<'PY'
import json, sys
e, p = (json.load(open(x)) for x in sys.argv[1:3])
assert [(h["host"], h["ok"]) for h in p["hosts"]] == \
    [("h0", True), ("h1", False), ("h2", True)], p["hosts"]
for a in p["antennas"]:
    want = sum(e["hosts"][h][a["name"]]["received"] for h in ("h0", "h2"))
    assert a["received"] == want, (a["name"], a["received"], want)
PY
# fleet_until NAME WANT-RC CHECK: fleet view --prometheus (as JSON in
# $T/NAME.json, as the table in $T/NAME.txt) until it exits WANT-RC and
# CHECK (a python file, given the expected figures, the JSON and the view
# over the exported files) passes;
# a target of a loaded machine may miss one scrape: up to WAIT s
fleet_until() {
	local name=$1 want=$2 check=$3 rc trc i
	for ((i = 0; i < WAIT; i++)); do
		set +e
		ip netns exec "$SW" $FLEET view --prometheus "$PROMURL" --json > "$T/$name.json" \
			2> "$T/$name.err"
		rc=$?
		ip netns exec "$SW" $FLEET view --prometheus "$PROMURL" > "$T/$name.txt" 2>&1
		trc=$?
		set -e
		[ "$rc" = "$want" ] && [ "$trc" = "$want" ] &&
			$PY "$T/$check" "$T/expect.json" "$T/$name.json" "$T/ff.json" > "$T/$name.chk" 2>&1 &&
			VIEWS=$((i + 1)) && return 0
		sleep 1
	done
	cat "$T/$name.err" "$T/$name.txt" "$T/$name.chk" 2>/dev/null || true
	fail "fleet view --prometheus ($name): exit $rc (expected $want), or its figures are not the captures'"
}
fleet_until fp 0 check_all.py
# the same table, but for each host's source
# (the host lines, a long source wrapped onto indented lines, left out)
diff <(grep -v '^host \|^  ' "$T/fp.txt") <(grep -v '^host \|^  ' "$T/ff.txt") > "$T/table.diff" ||
	{ cat "$T/table.diff"; fail "the --prometheus table differs from the files' table"; }
grep -q "^host h1 .*4 antennas  (prometheus $PROMURL)" "$T/fp.txt" || { cat "$T/fp.txt"; fail "no host line"; }
ok "fleet view --prometheus $PROMURL: received and lost per antenna = the summaries', the table = over the hosts' files ($(grep -c . "$T/fp.txt") lines; view $VIEWS)"

# IbvcapWriterFull (no for:) fires for h2's writer, in Alertmanager with
# h2's labels; no other writer's
q alerts "$AMURL" - "any(x['labels']['alertname'] == 'IbvcapWriterFull' for x in a)" \
	> "$T/alerts.json" || { cat "$T/alerts.json"; fail "Alertmanager has no IbvcapWriterFull"; }
$PY - "$T/alerts.json" "$PREFIX" <<'PY' || fail "IbvcapWriterFull: not h2's writer alone"
import json, sys
full = [x for x in json.load(open(sys.argv[1])) if x["labels"]["alertname"] == "IbvcapWriterFull"]
assert len(full) == 1, full
l = full[0]["labels"]
want = {"alertname": "IbvcapWriterFull", "job": "ibvcap", "instance": "h2:9100",
        "ibvcap_host": "h2", "ibvcap_array": "array", "instance_prefix": sys.argv[2] + "h2",
        "writer": "primary-0-codif", "severity": "critical"}
assert l == want, l
assert full[0]["status"]["state"] == "active", full[0]["status"]
assert "h2:9100 writer primary-0-codif stopped at its min-free" in full[0]["annotations"]["summary"]
PY
ok "IbvcapWriterFull fired for h2's writer alone; Alertmanager lists it (instance h2:9100, ibvcap_host h2, writer primary-0-codif)"

# h1's node_exporter stops: up == 0 for h1 only
kill "${NPID[h1]}"
wait "${NPID[h1]}" 2>/dev/null || true
q query "$PROMURL" 'up{job="ibvcap"}' "sorted((x['ibvcap_host'], y) for x, y in v) == \
	[('h0', 1), ('h1', 0), ('h2', 1)]" > "$T/up1.json" ||
	{ cat "$T/up1.json"; fail "up is not 0 for h1 alone"; }
ok "h1's node_exporter killed: up == 0 for h1:9100, 1 for h0 and h2"
fleet_until fd 1 check_down.py
grep -q "host h1 does not answer: Prometheus $PROMURL: target h1:9100 is down (up == 0)" "$T/fd.err" ||
	{ cat "$T/fd.err"; fail "h1 is not flagged down"; }
grep -q "^host h1 .*NO ANSWER  (prometheus $PROMURL)" "$T/fd.txt" || { cat "$T/fd.txt"; fail "no NO ANSWER line"; }
ok "fleet view --prometheus: h1 NO ANSWER, exit 1 ($(grep -o 'target h1:9100 is down.*' "$T/fd.err" | head -1)), the others' sum shown (view $VIEWS)"

# seconds later, still h2's writer alone (h0's writer is not full)
q alerts "$AMURL" - "sorted(x['labels']['ibvcap_host'] for x in a \
	if x['labels']['alertname'] == 'IbvcapWriterFull') == ['h2']" > "$T/alerts2.json" ||
	{ cat "$T/alerts2.json"; fail "IbvcapWriterFull: not h2's alone any more"; }
ok "IbvcapWriterFull: still h2's writer alone"

# a server that does not answer: named, with what failed
set +e
out=$(ip netns exec "$SW" $FLEET view --prometheus "http://$SWIP:9099" --timeout 2 2>&1)
rc=$?
set -e
case "$out" in
*"Prometheus http://$SWIP:9099: /api/v1/query up{job=\"ibvcap\"}: [Errno 111] Connection refused"*) ;;
*) fail "no server: $out" ;;
esac
[ "$rc" = 1 ] || fail "no server: exit $rc, expected 1"
ok "fleet view --prometheus to no server: exit 1, the URL, the query and 'Connection refused'"
echo "$CHECKS checks passed in $SECONDS s"
