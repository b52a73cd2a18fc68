#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The array's control plane, measured (not a test): one etcd member on
# loopback, 3 idle captures (an empty-ish pcap, no hugepages) and their
# dpdk-ibvcap-agents at the default period (5 s) and TTL (10 s).
#   1. time from dpdk-ibvcap-array's command put to the last host's reply
#      (the replies' "done" minus the command's "issued", one clock),
#      and the tool's own wall time, over N commands;
#   2. etcd's writes per host at the default period: etcd_mvcc_put_total
#      and etcd_server_proposals_committed_total over 60 s of idle agents
#      (state records; lease keep-alives are not writes), and the size of
#      one state record.
#   3. time from the array command to each host's first frame of the scan:
#      the idle captures replaced by 3 receiving data all the time, each in
#      a network namespace on net_af_packet, fed by its own codifgen
#      --socket in a namespace of its own (real UDP, paced in real time,
#      data time = the host clock at sending: --start now; 1 antenna x 1
#      stream of 1000 frames/s, 1 ms frames, 1 KiB of data each). (A pcap
#      replayed in a loop, net_pcap's infinite_rx=1, will not do: it
#      repeats the same CODIF times as fast as it can, never the host
#      clock's.) For each --lead in LEADS, M times: `record on --scan S
#      --for 1s` (--at: the next whole second at least --lead ahead), then,
#      per host, from the command's "issued" (in etcd) to the scan's start,
#      to its first frame's data time (the scan index's first_ns) and to the
#      first file's creation (its birth time: the writer opens it for the
#      scan's first row; file times come from the kernel's coarse clock:
#      steps of one tick, 4 ms at HZ=250), that last less the data's lag as
#      the capture sees it (its data clock offset). Bounds: the start is the
#      next whole second at least --lead after the tool read the clock, so
#      issued -> start is in [lead - the tool's etcd connection, reads and
#      put, lead + 1 s); the first frame is the first frame boundary at or
#      after the start (here 1 ms frames, whole seconds on them: the start
#      itself; ASKAP's 27 s / 62500 frames: up to 432 us later); then the
#      frame's arrival and the writer. Checked, else exit 1: every host
#      accepted (a reply after the tool's --timeout awaited 30 s more and
#      shown), or refused the command as late (it saw it after the start:
#      counted and shown, the lead too short for the machine), every
#      accepting host's scan holds its 1000 rows (frames + gap frames), its
#      first frame is the scan's start, the same CODIF frame (seconds,
#      frame) on every host.
# Usage: bench/array_bench.sh [N [M]] (N commands for 1, default 10; M runs
# per lead for 3, default 5); PARTS="1 2 3" (default: all) chooses the
# parts, LEADS="2 0.5" (default) the --lead values of 3 (3 needs root:
# namespaces). Results on stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
N=${1:-10}
M=${2:-5}
PARTS=${PARTS:-1 2 3}
LEADS=${LEADS:-2 0.5}
W=$(mktemp -d /tmp/array-bench.XXXXXX)
P=$((22000 + ($$ % 400) * 10))
PIDS=()
NSS=()
want() { [[ " $PARTS " == *" $1 "* ]]; }
alive() {
	local p
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill -0 "$p" 2>/dev/null && return 0; done
	return 1
}
cleanup() {
	local p i
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; done
	# up to 5 s to end (a capture at nice 10 on a busy machine takes a while)
	for ((i = 0; i < 50; i++)); do
		alive || break
		sleep 0.1
	done
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill -9 "$p" 2>/dev/null || true; { wait "$p"; } 2>/dev/null || true; done
	for n in "${NSS[@]+"${NSS[@]}"}"; do ip netns del "$n" 2>/dev/null || true; done
	rm -rf "$W" /var/run/dpdk/abench$$*
}
trap cleanup EXIT
echo "# machine: $(nproc) vCPU, $(uname -r), etcd $(etcd --version | awk '/etcd Version/ {print $3}'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "# command: PARTS=\"$PARTS\" LEADS=\"$LEADS\" bench/array_bench.sh $N $M"
etcd --name e0 --data-dir "$W/etcd" --listen-client-urls "http://127.0.0.1:$P" \
	--advertise-client-urls "http://127.0.0.1:$P" --listen-peer-urls "http://127.0.0.1:$((P + 1))" \
	--initial-advertise-peer-urls "http://127.0.0.1:$((P + 1))" \
	--initial-cluster "e0=http://127.0.0.1:$((P + 1))" > "$W/etcd.log" 2>&1 &
PIDS+=($!)
# agents and captures of parts 1 and 2 (idle: a 2-frame pcap), stopped by
# part 3 (three busy-polling captures more would starve the machine)
P12=()
if want 1 || want 2; then
"$B/app/codifgen" --antennas 1 --groups 1 --threads 1 --count 2 --pcap "$W/one.pcap" --quiet
for h in h0 h1 h2; do
	mkdir -p "$W/$h"
	"$B/app/dpdk-ibvcap" --lcores 0@0,1@1,2@0 --no-pci --no-huge -m 256 --file-prefix="abench$$$h" \
		--log-level=lib.eal:error --vdev "net_pcap0,rx_pcap=$W/one.pcap" -- --antennas 1 \
		--groups 1 --threads 1 --stats-period 0 --duration 900s --record idle \
		--write "codif:$W/$h" > "$W/$h.log" 2>&1 &
	PIDS+=($!) P12+=($!)
done
sleep 5
for h in h0 h1 h2; do
	/usr/bin/python3 "$B/app/dpdk-ibvcap-agent" --etcd "127.0.0.1:$P" --array bench --host "$h" \
		--file-prefix "abench$$$h" > "$W/$h.agent.log" 2>&1 &
	PIDS+=($!) P12+=($!)
done
for _ in $(seq 100); do
	[ "$(grep -l 'member of array' "$W"/*.agent.log 2>/dev/null | wc -l)" = 3 ] && break
	sleep 0.3
done
fi
if want 1; then
T0=$(($(date +%s) + 7200))
for i in $(seq "$N"); do
	s=$(date +%s%N)
	rc=0
	/usr/bin/python3 "$B/app/dpdk-ibvcap-array" --etcd "127.0.0.1:$P" --array bench \
		--json "$W/c$i.json" record on --scan "b$i" --at "@$((T0 + i * 10))" --for 1s > "$W/c$i.txt" || rc=$?
	[ $rc = 0 ] || { cat "$W/c$i.txt"; echo "array_bench: record on: exit $rc" >&2; exit 1; }
	echo $((($(date +%s%N) - s) / 1000000)) > "$W/c$i.wall"
done
python3 - "$W" "$N" <<'PY'
import json, statistics, sys
w, n = sys.argv[1], int(sys.argv[2])
lat, wall = [], []
for i in range(1, n + 1):
    c = json.load(open("%s/c%d.json" % (w, i)))
    assert all(h["result"] == "accepted" for h in c["hosts"]), c
    issued = min(h["reply"]["seen"] for h in c["hosts"])  # a lower bound of the tool's put
    last = max(h["reply"]["done"] for h in c["hosts"])
    lat.append(last - issued)
    wall.append(int(open("%s/c%d.wall" % (w, i)).read()) / 1000)
print("commands: %d, 3 hosts, every host accepted every one" % n)
print("first agent sees the command -> last host's reply written: median %.0f ms, min %.0f, max %.0f"
      % tuple(1000 * x for x in (statistics.median(lat), min(lat), max(lat))))
print("dpdk-ibvcap-array wall time (Python start, etcd, waiting for replies at 0.1 s polls): "
      "median %.2f s, min %.2f, max %.2f" % (statistics.median(wall), min(wall), max(wall)))
PY
fi
if want 2; then
metric() { curl -s "http://127.0.0.1:$P/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
a=$(metric etcd_mvcc_put_total) c=$(metric etcd_server_proposals_committed_total)
sleep 60
b=$(metric etcd_mvcc_put_total) d=$(metric etcd_server_proposals_committed_total)
python3 - "$a" "$b" "$c" "$d" <<'PY'
import sys
a, b, c, d = (float(x) for x in sys.argv[1:])
print("idle agents at the default period (5 s): %.3f puts/s per host, %.3f raft proposals/s per host"
      % ((b - a) / 60 / 3, (d - c) / 60 / 3))
PY
/usr/bin/python3 - "$P" <<'PY'
import etcd3, sys
c = etcd3.client(host="127.0.0.1", port=int(sys.argv[1]))
v, _ = c.get("/ibvcap/bench/state/h0")
print("one state record: %d bytes" % len(v))
PY
fi
if want 3; then
for p in "${P12[@]+"${P12[@]}"}"; do kill "$p" 2>/dev/null || true; done
for p in "${P12[@]+"${P12[@]}"}"; do wait "$p" 2>/dev/null || true; done
PIDS=("${PIDS[0]}") # etcd's, the others ended
# host i: namespace abench..c<i> (its capture on net_af_packet, 10.17.0.1)
# wired to abench..g<i> (its codifgen, antenna 10.17.0.211) by a veth pair;
# the agents beside etcd (the capture's telemetry socket is a path: any
# namespace reaches it). nice 10: three busy-polling captures on 2 vCPUs
# starved etcd and the agents (tests/netns/array_etcd.sh); a real host
# gives its capture cores of its own
GEN=(--antennas 1 --groups 1 --threads 1 --data-bytes 1024 --period 1 --total-samples 64000)
i=0
for h in h0 h1 h2; do
	g=abench$$g$i c=abench$$c$i
	ip netns add "$g"; NSS+=("$g")
	ip netns add "$c"; NSS+=("$c")
	ip -n "$g" link set lo up
	ip -n "$c" link set lo up
	ip link add x0 netns "$g" type veth peer name y0 netns "$c"
	ip -n "$g" addr add 10.17.0.211/24 dev x0
	ip -n "$c" addr add 10.17.0.1/24 dev y0
	ip -n "$g" link set x0 up
	ip -n "$c" link set y0 up
	mkdir -p "$W/f$h"
	if [ $i = 1 ]; then LC=0@1,1@0,2@1; else LC=0@0,1@1,2@0; fi
	ip netns exec "$c" nice -n 10 "$B/app/dpdk-ibvcap" --lcores "$LC" --no-pci --no-huge -m 256 \
		--file-prefix="abench$$f$h" --log-level=lib.eal:error --vdev net_af_packet0,iface=y0 -- \
		--antennas 1 --groups 1 --threads 1 --steer software --stats-period 0 --duration 900s \
		--record idle --write "codif:$W/f$h" > "$W/f$h.log" 2>&1 &
	PIDS+=($!)
	i=$((i + 1))
done
for h in h0 h1 h2; do
	for _ in $(seq 300); do grep -q 'capturing on' "$W/f$h.log" && break; sleep 0.1; done
	grep -q 'capturing on' "$W/f$h.log" || { cat "$W/f$h.log"; echo "array_bench: capture $h did not start" >&2; exit 1; }
done
# each host its own data (its own groupid), its CODIF time the host clock
# at sending (--start now: the pacing follows the frames' times from there;
# read inside the namespace, just before codifgen starts: ip netns exec
# took up to 1.4 s on this loaded machine, a lag the data kept)
for i in 0 1 2; do
	ip netns exec "abench$$g$i" sh -c 'exec "$0" "$@" --start "@$(date +%s.%N)"' \
		"$B/app/codifgen" --socket "${GEN[@]}" --groupid-base $((257 + i)) --data-duration 3600s \
		--quiet > "$W/gen$i.log" 2>&1 &
	PIDS+=($!)
done
for h in h0 h1 h2; do
	/usr/bin/python3 "$B/app/dpdk-ibvcap-agent" --etcd "127.0.0.1:$P" --array bench3 --host "$h" \
		--file-prefix "abench$$f$h" > "$W/f$h.agent.log" 2>&1 &
	PIDS+=($!)
done
for _ in $(seq 100); do
	[ "$(grep -l 'member of array' "$W"/f*.agent.log 2>/dev/null | wc -l)" = 3 ] && break
	sleep 0.3
done
[ "$(grep -l 'member of array' "$W"/f*.agent.log 2>/dev/null | wc -l)" = 3 ] ||
	{ tail -n 5 "$W"/f*.agent.log; echo "array_bench: the agents did not join" >&2; exit 1; }
# the data arrives: each capture's data clock against its host's (the
# offset includes the newest frame's age: measured every 100 ms)
sleep 2
for h in h0 h1 h2; do
	"$B/app/dpdk-ibvcap-stat" --file-prefix "abench$$f$h" --query /ibvcap/record,status > "$W/f$h.rec"
done
python3 - "$W" <<'PY'
import json, sys
offs = []
for h in ("h0", "h1", "h2"):
    r = json.load(open("%s/f%s.rec" % (sys.argv[1], h)))
    if not r["data_offset_known"] or not r["data_offset_known"][0]:
        sys.exit("array_bench: %s receives no data" % h)
    offs.append("%s %+d ms" % (h, r["data_offset_ms"][0]))
print("3 captures receiving 1000 frames/s each (codifgen --socket, net_af_packet), "
      "data clock - host clock: %s" % ", ".join(offs))
PY
k=0
for lead in $LEADS; do
	for _ in $(seq "$M"); do
		k=$((k + 1))
		date +%s.%N > "$W/f$k.start"
		echo "$lead" > "$W/f$k.lead"
		rc=0
		/usr/bin/python3 "$B/app/dpdk-ibvcap-array" --etcd "127.0.0.1:$P" --array bench3 \
			--lead "$lead" --json "$W/f$k.json" record on --scan "f$k" --for 1s > "$W/f$k.txt" || rc=$?
		# a host still applying when the tool gave up (--timeout, 5 s): its
		# final reply, up to 30 s more, in the run's JSON (marked slow)
		if [ $rc = 3 ]; then
			id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$W/f$k.json")
			for _ in $(seq 60); do
				/usr/bin/python3 "$B/app/dpdk-ibvcap-array" --etcd "127.0.0.1:$P" --array bench3 \
					replies "$id" > "$W/f$k.replies" 2>/dev/null || true
				python3 - "$W/f$k.json" "$W/f$k.replies" <<'PY' && break
import json, sys
c = json.load(open(sys.argv[1]))
try:
    r = json.load(open(sys.argv[2]))
except ValueError:
    sys.exit(1)
if any(x["host"] not in r or r[x["host"]].get("result") == "applying" for x in c["hosts"]):
    sys.exit(1)
for x in c["hosts"]:
    if x["result"] == "no answer":
        x["slow"] = True
        x["reply"] = r[x["host"]]
        x["result"] = "accepted" if x["reply"]["result"] == "ok" else x["reply"]["result"]
json.dump(c, open(sys.argv[1], "w"))
PY
				sleep 0.5
			done
			python3 -c 'import json, sys
sys.exit(any(x["result"] != "accepted" for x in json.load(open(sys.argv[1]))["hosts"]))' "$W/f$k.json" && rc=0
		fi
		# a host that saw the command after its start refuses it (a start
		# not in the past): the lead too short for this machine, counted;
		# anything else fails
		late=0
		if [ $rc = 3 ]; then
			python3 - "$W/f$k.json" <<'PY' && late=1 || true
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not all(h["result"] == "accepted" or (h["result"] == "refused" and
                 "a start not in the past" in h["reply"].get("why", "")) for h in c["hosts"]))
PY
		fi
		if [ $rc != 0 ] && [ $late = 0 ]; then
			cat "$W/f$k.txt"
			echo "array_bench: record on --lead $lead: exit $rc" >&2
			exit 1
		fi
		# each accepting host's scan index once final (its stop set, no
		# .part left), then the birth times of the scan's files
		for h in $(python3 -c 'import json, sys
print(" ".join(h["host"] for h in json.load(open(sys.argv[1]))["hosts"] if h["result"] == "accepted"))' "$W/f$k.json"); do
			d=$W/f$h/f$k
			for _ in $(seq 300); do
				x=$(ls "$d"/*_scan.codif.json 2>/dev/null || true)
				if [ -n "$x" ] && ! ls "$d"/*.part > /dev/null 2>&1 &&
					python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["stop_ns"] is None)' "$x"; then
					break
				fi
				sleep 0.1
			done
			[ -n "$x" ] || { echo "array_bench: $h wrote no scan f$k in 30 s" >&2; exit 1; }
			stat -c '%n|%w' "$d"/* > "$d.birth"
			# the data's lag behind this host's clock now
			"$B/app/dpdk-ibvcap-stat" --file-prefix "abench$$f$h" --query /ibvcap/record,status > "$d.rec"
		done
	done
done
/usr/bin/python3 - "$W" "$k" "$P" <<'PY'
import calendar, json, statistics, sys
import etcd3
w, runs, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
HOSTS = ("h0", "h1", "h2")
cmds = {}
for v, _ in etcd3.client(host="127.0.0.1", port=port).get_prefix("/ibvcap/bench3/cmd/"):
    c = json.loads(v)
    cmds[c["id"]] = c


def utc(text):  # YYYY-MM-DDThh:mm:ss.fffZ -> Unix seconds
    d, f = text.rstrip("Z").split(".")
    return calendar.timegm(tuple(int(x) for x in d.replace("T", "-").replace(":", "-").split("-"))
                           + (0, 0, 0)) + float("0." + f)


def birth(text):  # stat's %w: 2026-11-27 05:56:27.416082508 +0000
    day, t, zone = text.split()
    assert zone == "+0000", text
    return utc("%sT%sZ" % (day, t))


def fail(msg):
    sys.exit("array_bench: run %d: %s" % (k, msg))


by_lead = {}
for k in range(1, runs + 1):
    lead = open("%s/f%d.lead" % (w, k)).read().strip()
    start = float(open("%s/f%d.start" % (w, k)).read())
    c = json.load(open("%s/f%d.json" % (w, k)))
    if sorted(h["host"] for h in c["hosts"]) != list(HOSTS):
        fail("hosts %s" % [h["host"] for h in c["hosts"]])
    acc = [h["host"] for h in c["hosts"] if h["result"] == "accepted"]
    issued = cmds[c["id"]]["issued"]
    at = utc(c["argv"][c["argv"].index("--at") + 1])
    done = max(h["reply"]["done"] for h in c["hosts"])
    r = by_lead.setdefault(lead, {"at": [], "first": [], "file": [], "arrive": [], "tool": [],
                                  "reply": [], "slack": [], "lag": [], "writer": [], "net": [],
                                  "late": [], "slow": [], "gaps": 0,
                                  "host": {h: [] for h in HOSTS}})
    r["reply"].append(done - issued)
    r["slack"].append(at - done)
    # refused as late (the start passed before the agent saw it): when it saw it
    r["late"] += [(h["host"], h["reply"]["seen"] - issued, at - issued)
                  for h in c["hosts"] if h["result"] != "accepted"]
    # answered after the tool's --timeout
    r["slow"] += [(h["host"], h["reply"]["done"] - issued, h["result"])
                  for h in c["hosts"] if h.get("slow")]
    firsts = set()
    for h in acc:
        d = "%s/f%s/f%d" % (w, h, k)
        files = {}
        for line in open(d + ".birth"):
            name, b = line.rstrip("\n").split("|")
            files[name] = birth(b)
        idx = [n for n in files if n.endswith("_scan.codif.json")]
        if len(idx) != 1:
            fail("%s: no scan index in %s" % (h, d))
        s = json.load(open(idx[0]))
        a = s["antennas"][0]
        if a["frames"] <= 0:
            fail("%s: the scan holds no frames" % h)
        if a["frames"] + a["placeholders"] != 1000:
            fail("%s: %d frames + %d gap frames, not the 1000 rows of 1 s" % (h, a["frames"], a["placeholders"]))
        if a["first_ns"] != s["start_ns"] or s["start_ns"] != round(at * 1000) * 1000000:
            fail("%s: first frame %s, scan start %s, --at %s" % (h, a["first_utc"], s["start_utc"],
                                                             c["argv"][c["argv"].index("--at") + 1]))
        firsts.add((a["epoch"], a["first_seconds"], a["first_frame"]))
        r["gaps"] += a["placeholders"]
        t = min(v for n, v in files.items() if n not in idx)  # the scan's first file opened
        r["at"].append(at - issued)
        r["first"].append(a["first_ns"] / 1e9 - issued)
        r["file"].append(t - issued)
        r["arrive"].append(t - a["first_ns"] / 1e9)
        # the frame came when the host clock said its data time + the
        # data's lag (the capture's data_offset_ms, measured after the scan)
        lag = -json.load(open(d + ".rec"))["data_offset_ms"][0] / 1000
        r["lag"].append(lag)
        r["writer"].append(t - a["first_ns"] / 1e9 - lag)
        r["net"].append(t - lag - issued)
        r["tool"].append(t - start)
        r["host"][h].append(t - issued)
    if len(firsts) != 1:
        fail("the hosts' first frames differ: %s" % sorted(firsts))


def mmm(xs, scale=1, fmt="%.3f"):
    return ("median " + fmt + ", min " + fmt + ", max " + fmt) % tuple(
        scale * x for x in (statistics.median(xs), min(xs), max(xs)))


for lead, r in by_lead.items():
    n = len(r["reply"])
    print("record on --for 1s --lead %s: %d commands x 3 hosts; %s; every accepting host's scan "
          "holds its 1000 rows (%d gap frames in all: lost before the capture), its first frame "
          "= the scan's start, the same CODIF frame on every host"
          % (lead, n, "every host accepted each" if not r["late"] else
             "%d of %d refused as late" % (len(r["late"]), 3 * n), r["gaps"]))
    for h, seen, start in r["late"]:
        print("  refused: %s saw the command %.3f s after it was issued, its start %.3f s after "
              "(a start not in the past)" % (h, seen, start))
    for h, done, res in r["slow"]:
        print("  slow: %s replied (%s) %.3f s after the command was issued, past the tool's "
              "--timeout" % (h, res, done))
    if not r["file"]:
        continue
    print("  command issued -> last host's reply: %s ms; reply -> scan start (slack): %s s"
          % (mmm(r["reply"], 1000, "%.0f"), mmm(r["slack"])))
    print("  command issued -> scan start (--at: next whole second >= lead ahead): %s s" % mmm(r["at"]))
    print("  command issued -> first frame's data time (scan index first_ns): %s s" % mmm(r["first"]))
    print("  command issued -> scan's first file created on the host: %s s" % mmm(r["file"]))
    print("    per host (median): %s" % ", ".join("%s %.3f s" % (h, statistics.median(r["host"][h]))
                                                for h in HOSTS if r["host"][h]))
    print("  first frame's data time -> its file created: %s ms" % mmm(r["arrive"], 1000, "%.1f"))
    print("    of which the data's lag behind the host clock as the capture sees it (its data "
          "clock offset after the scan: the sender's start-up, the capture's receive backlog): "
          "%s ms," % mmm(r["lag"], 1000, "%.1f"))
    print("    the rest (the capture has the frame -> the writer opens the file): %s ms"
          % mmm(r["writer"], 1000, "%.1f"))
    print("  dpdk-ibvcap-array started -> first file created: %s s" % mmm(r["tool"]))
    print("  command issued -> first file created, less that lag (none on a host with cores of "
          "its own and data on time): %s s" % mmm(r["net"]))
PY
fi
