#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Operations: dpdk-ibvcap-stat shows a running primary's counters (against
# a run with known counts), --once, --json, and a Prometheus file that
# parses; dpdk-ibvcap-diagnostics collects the listed contents into a
# tar.gz; the primary takes EAL arguments from its INI's [eal] section.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
# the tools as installed: by name on PATH
mkdir -p "$T/bin"
ln -s "$BUILD/app/dpdk-ibvcap" "$T/bin/dpdk-ibvcap"
ln -s "$STAT" "$T/bin/dpdk-ibvcap-stat"
ln -s "$SRC/scripts/dpdk-ibvcap-diagnostics" "$T/bin/dpdk-ibvcap-diagnostics"
export PATH="$T/bin:$PATH"

"$GEN" --count 50 --seed 8 --loss 0.04 --duplicate 0.02 --invalid 0.03 --pcap "$T/in.pcap" \
	--truth "$T/truth.json" --quiet
mkdir -p "$T/conf" "$T/data" "$T/w"
cat > "$T/conf/lab.ini" <<INI
[eal]
args = --lcores 0@0,1@1,2@0 --no-pci --no-huge -m 1024 --log-level=lib.eal:error --vdev net_pcap0,rx_pcap=$T/in.pcap
[capture]
steer = software
stats-period = 0
duration = 600s
write = codif:$T/w
INI
dpdk-ibvcap --file-prefix="$PREFIX" -- --config "$T/conf/lab.ini" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
grep -q '^port = net_pcap0' "$T/cap.log" || fail "EAL arguments from [eal] not used"
ok "EAL arguments taken from the INI's [eal] section"
n=$(json_get "$T/truth.json" totals sent)
for _ in $(seq 100); do
	got=$(dpdk-ibvcap-stat --file-prefix "$PREFIX" --query /ibvcap/stats 2>"$T/stat.err" | json_get - packets 2>/dev/null || true)
	[ "$got" = "$n" ] && break
	sleep 0.1
done
expect_eq "dpdk-ibvcap-stat --query /ibvcap/stats packets" "$got" "$n"
# one antenna, by name and by index
for q in /ibvcap/antenna,ant2 /ibvcap/antenna,2; do
	dpdk-ibvcap-stat --file-prefix "$PREFIX" --query "$q" > "$T/ant2.json"
	python3 - "$T/truth.json" "$T/ant2.json" <<'PY' || fail "$q differs from the truth"
import json, sys
t = [a for a in json.load(open(sys.argv[1]))["antennas"] if a["antenna"] == 2][0]
a = json.load(open(sys.argv[2]))
assert a["name"] == "ant2" and a["src"] == t["src"], a
for k in ("received", "lost", "duplicate", "invalid"):
    assert a[k] == t[k], (k, a[k], t[k])
PY
done
ok "telemetry /ibvcap/antenna,ant2 and ,2: that antenna's counts = truth"

dpdk-ibvcap-stat --file-prefix "$PREFIX" --once --json > "$T/snap.json"
python3 - "$T/truth.json" "$T/snap.json" <<'PY' || fail "stat --json counts differ from the truth"
import json, sys
t = {a["antenna"]: a for a in json.load(open(sys.argv[1]))["antennas"]}
s = json.load(open(sys.argv[2]))
for i, a in t.items():
    got = s["antennas"]["ant%d" % i]
    for k in ("received", "lost", "duplicate", "invalid", "malformed", "expected"):
        assert got[k] == a[k], (i, k, got[k], a[k])
assert s["ports"]["0"]["ipackets"] > 0
PY
ok "dpdk-ibvcap-stat --once --json: per-antenna counts = truth"
# the writer's row: rows become final only when the window passes them (or
# at stop), so with the replay over it has written at most what arrived
python3 - "$T/truth.json" "$T/snap.json" <<'PY' || fail "stat --json writer counts"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
w = list(json.load(open(sys.argv[2]))["writers"].values())
assert len(w) == 1 and w[0]["overrun"] == 0 and w[0]["active"] == 1, w
assert 0 <= w[0]["written"] <= t["received"], (w, t["received"])
PY
ok "dpdk-ibvcap-stat --once --json: the writer's row, none lost to overrun"
# what each figure means, from the capture's own tables: every counter the
# truth names is described there, with a unit, a kind and help
dpdk-ibvcap-stat --file-prefix "$PREFIX" --query /ibvcap/counters,counts > "$T/counters.json"
python3 - "$T/counters.json" "$T/truth.json" <<'PY' || fail "/ibvcap/counters"
import json, sys
d = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))["counters"]
names = {k[:-4] + "_ns" if k.endswith("_utc") else k for k in t["antenna"] + t["stream"]}
assert names <= set(d), names - set(d)
# [unit, kind, help, merge, prometheus, scale], an array's element names after them
assert all(len(v) >= 6 and v[1] in ("counter", "gauge") and v[2] for v in d.values()), d
assert all(v[3] == "sum" if v[1] == "counter" else v[3] in ("min", "max") for v in d.values()), d
assert all(v[4].startswith("ibvcap_antenna_" + k.replace("_ns", "")) and float(v[5]) > 0
           for k, v in d.items()), d
assert d["received"][3:6] == ["sum", "ibvcap_antenna_received_frames_total", "1"], d["received"]
assert d["last_frame_ns"][3:6] == ["max", "ibvcap_antenna_last_frame_seconds", "1e-09"], d
assert d["malformed_by_cause"][3:] and "ip-checksum" in d["malformed_by_cause"][3:], d
PY
ok "/ibvcap/counters,counts: every counter of the truth described (unit, kind, help, merge, Prometheus name, scale)"
dpdk-ibvcap-stat --file-prefix "$PREFIX" --once > "$T/table.txt"
# one snapshot: no rate (that takes two), the counts
grep -qE '^ant3 +- +- +[0-9]+ +[0-9]+ ' "$T/table.txt" || { cat "$T/table.txt"; fail "table"; }
grep -qE '^writer +state +format +lag +behind' "$T/table.txt" || { cat "$T/table.txt"; fail "table: no writer rows"; }
grep -qE '^primary-0-codif +run +codif +[0-9]+ ' "$T/table.txt" || { cat "$T/table.txt"; fail "table: the writer's row"; }
grep -q '^port ' "$T/table.txt" && ok "dpdk-ibvcap-stat --once: the status table ($(wc -l < "$T/table.txt") lines)"

dpdk-ibvcap-stat --file-prefix "$PREFIX" --once --prom "$T/ibvcap.prom"
python3 "$SRC/tests/tools/promcheck.py" "$T/ibvcap.prom" > "$T/prom.json" || { cat "$T/prom.json"; fail "Prometheus format"; }
python3 - "$T/truth.json" "$T/prom.json" <<'PY' || fail "Prometheus values"
import json, sys
t = {"ant%d" % a["antenna"]: a for a in json.load(open(sys.argv[1]))["antennas"]}
p = json.load(open(sys.argv[2]))
v = {(s["name"], s["labels"].get("antenna")): s["value"] for s in p}
for name, a in t.items():
    assert v[("ibvcap_antenna_received_frames_total", name)] == a["received"]
    assert v[("ibvcap_antenna_lost_frames_total", name)] == a["lost"]
    assert v[("ibvcap_antenna_malformed_packets_total", name)] == a["malformed"]
assert all(s["labels"]["instance_prefix"] for s in p)
w = [s for s in p if s["name"] == "ibvcap_writer_overrun_frames_total"]
assert len(w) == 1 and w[0]["value"] == 0 and w[0]["labels"]["writer"] == "primary-0-codif", w
# the writer's live gauges, as the capture's table names them
free = [s for s in p if s["name"] == "ibvcap_writer_disk_free_bytes"]
assert len(free) == 1 and free[0]["value"] > 0, free
for n in ("ibvcap_writer_lag_frames", "ibvcap_writer_lag_seconds",
          "ibvcap_writer_write_rate_bytes_per_second", "ibvcap_writer_time_left_seconds",
          "ibvcap_writer_min_free_bytes", "ibvcap_writer_files_removed_total",
          "ibvcap_writer_bytes_removed_total"):
    assert len([s for s in p if s["name"] == n]) == 1, n
assert len([s for s in p if s["name"] == "ibvcap_writer_written_frames_total"]) == 1
PY
ok "--prom: valid exposition format, counters = truth ($(grep -vc '^#' "$T/ibvcap.prom") samples)"
# every figure of docs/counters.md (its tables: lib/stats'), not a list kept
# here: counts, buffer, writer, port and quick look, arrays by cause
python3 "$SRC/tests/tools/promcounters.py" "$SRC/docs/counters.md" "$T/ibvcap.prom" > "$T/promfig.txt" ||
	{ cat "$T/promfig.txt"; fail "figures of docs/counters.md missing from the Prometheus export"; }
# and every metric stat exported is named by the capture's own tables
# (/ibvcap/counters), or is one of stat's few own metrics: no naming rule
# restated in stat
for g in counts buffer writer port capture lcore quicklook bstate stream; do
	printf '%s ' "$g"
	dpdk-ibvcap-stat --file-prefix "$PREFIX" --query "/ibvcap/counters,$g" | tr -d '\n'
	echo
done > "$T/tables.txt"
python3 - "$T/tables.txt" "$T/ibvcap.prom" <<'PY' || fail "stat --prom: a metric the capture's tables do not name"
import json, re, sys
named = {}
for line in open(sys.argv[1]):
    g, rows = line.split(" ", 1)
    for k, v in json.loads(rows).items():
        if v[4]:
            named[v[4]] = (g, k, v[1])
OWN = {"ibvcap_uptime_seconds", "ibvcap_export_time_seconds", "ibvcap_data_clock_offset_seconds",
       "ibvcap_data_clock_warn_seconds", "ibvcap_scan_frames", "ibvcap_scan_short",
       "ibvcap_bstate_occupancy_ratio", "ibvcap_bstate_expected_ratio"}
types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", open(sys.argv[2]).read(), re.M))
bad = [n for n in types if n not in named and n not in OWN and not n.startswith("ibvcap_fringe_")]
assert not bad, bad
assert all(kind == named[n][2] for n, kind in types.items() if n in named), types
assert sum(n in named for n in types) >= 60, types
assert named["ibvcap_stream_lost_frames_total"][:2] == ("stream", "lost"), named
PY
ok "stat --prom: every metric but stat's own named by /ibvcap/counters ($(grep -c '^# TYPE' "$T/ibvcap.prom") metrics)"
python3 - "$T/truth.json" "$T/ibvcap.prom" <<'PY' || fail "Prometheus: the figures once missing, by value"
import json, re, sys
t = {"ant%d" % a["antenna"]: a for a in json.load(open(sys.argv[1]))["antennas"]}
v = {}
for line in open(sys.argv[2]):
    m = re.match(r'^(\S+)\{(.*)\} (\S+)$', line)
    if m:
        lab = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        v[(m.group(1), lab.get("antenna"), lab.get("cause"))] = float(m.group(3))
for name, a in t.items():
    for k in ("resyncs", "resync_skipped", "implausible", "param_change", "new_params",
              "timeline_resyncs"):
        unit = {"resyncs": "segments", "new_params": "segments",
                "timeline_resyncs": "resyncs"}.get(k, "frames")
        n = "ibvcap_antenna_%s_%s_total" % (k, unit) if unit not in k else \
            "ibvcap_antenna_%s_total" % k
        assert v[(n, name, None)] == a[k], (n, name, v.get((n, name, None)), a[k])
    assert v[("ibvcap_antenna_malformed_by_cause_packets_total", name, "ip-checksum")] == 0
PY
ok "--prom: every figure of docs/counters.md ($(tail -1 "$T/promfig.txt")); resyncs, resync_skipped ... = truth"
# the shipped unit's command (dpdk-ibvcap-prom@.service, as its timer runs
# it) for this capture: %i the prefix, its textfile directory a scratch one
unit=$BUILD/config/dpdk-ibvcap-prom@.service
promdir=$(sed -n 's/^ConditionPathIsDirectory=//p' "$unit")
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
[ -n "$promdir" ] && [ -n "$cmd" ] || fail "$unit: no ExecStart= or ConditionPathIsDirectory="
cmd=${cmd//%i/$PREFIX}
cmd=${cmd//$promdir/$T/promdir}
mkdir -p "$T/promdir"
# shellcheck disable=SC2086
set -- $cmd
[ "$(basename "$1")" = dpdk-ibvcap-stat ] || fail "$unit runs $1"
shift
dpdk-ibvcap-stat "$@" || fail "dpdk-ibvcap-prom@$PREFIX.service's command failed: $cmd"
pf=$T/promdir/dpdk-ibvcap-$PREFIX.prom
[ -s "$pf" ] || fail "dpdk-ibvcap-prom@$PREFIX.service wrote no $promdir/dpdk-ibvcap-$PREFIX.prom"
python3 "$SRC/tests/tools/promcheck.py" "$pf" > "$T/unitprom.json" || { cat "$T/unitprom.json"; fail "unit's file: format"; }
python3 - "$T/truth.json" "$T/unitprom.json" "$PREFIX" <<'PY' || fail "unit's Prometheus file: values"
import json, sys
t = {"ant%d" % a["antenna"]: a for a in json.load(open(sys.argv[1]))["antennas"]}
p = json.load(open(sys.argv[2]))
v = {(s["name"], s["labels"].get("antenna")): s["value"] for s in p}
for name, a in t.items():
    assert v[("ibvcap_antenna_received_frames_total", name)] == a["received"]
assert all(s["labels"]["instance_prefix"] == sys.argv[3] for s in p)
PY
ok "dpdk-ibvcap-prom@.service's command: $promdir/dpdk-ibvcap-<inst>.prom with this capture's counts"
# refreshing mode writes the file again and again; stopped after rounds
timeout 4 dpdk-ibvcap-stat --file-prefix "$PREFIX" --interval 200ms --prom "$T/loop.prom" > /dev/null || true
[ -s "$T/loop.prom" ] || fail "refreshing --prom wrote nothing"
ok "refreshing --prom mode writes the file"
# refreshing --json: one snapshot per line, each with the final counts
timeout 4 dpdk-ibvcap-stat --file-prefix "$PREFIX" --interval 200ms --json > "$T/loop.jsonl" || true
python3 - "$T/loop.jsonl" "$n" <<'PY' || fail "refreshing --json"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(lines) >= 2, len(lines)
assert all(x["stats"]["packets"] == int(sys.argv[2]) for x in lines)
PY
ok "refreshing --json: one snapshot per line ($(wc -l < "$T/loop.jsonl") lines)"

# DPDK's telemetry serves 10 connections at once and closes any past them
# at once: a tool waits for one (10 held here for 2 s) and answers; with
# every one held past its --timeout it says so (exit 1), never "gone"
hold() { # seconds: 10 connections held that long
	python3 - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" "$1" > "$T/hold.out" <<'PY' &
import socket, sys, time
socks = []
for _ in range(10):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    assert s.recv(16384), "a connection of the first 10 closed"
    socks.append(s)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
PY
	HPID=$!
	CLEANUP_PIDS+=("$HPID")
	wait_for_line "$T/hold.out" 30 held || fail "10 telemetry connections not held"
}
hold 2
t0=$(date +%s%N)
got=$(dpdk-ibvcap-stat --file-prefix "$PREFIX" --query /ibvcap/stats 2> "$T/busy.err" | json_get - packets) ||
	{ cat "$T/busy.err"; fail "stat with telemetry's 10 connections taken for 2 s"; }
waited=$((($(date +%s%N) - t0) / 1000000))
wait "$HPID"
expect_eq "stat with telemetry's connections all taken for 2 s: packets" "$got" "$n"
hold 8
rc=0
python3 "$BUILD/app/dpdk-ibvcap-ctl" --file-prefix "$PREFIX" --timeout 1s status > /dev/null 2> "$T/busy2.err" || rc=$?
kill "$HPID"
wait "$HPID" || true
expect_eq "ctl --timeout 1s, every connection taken: exit" "$rc" 1
grep -q "closed every connection for 1s: its telemetry serves 10 at once" "$T/busy2.err" ||
	fail "ctl, every connection taken: $(cat "$T/busy2.err")"
ok "telemetry's 10 connections taken: stat waited for one ($waited ms, the answer right); ctl --timeout 1s said: $(cat "$T/busy2.err")"

echo "frames" > "$T/data/ibvcap_ant0_20250101T000000.000000000Z.codif"
# the running capture's lab.ini, valid on this host, and a shipped file
# meant for another (its directories are not here)
cp "$SRC/config/askap.ini" "$T/conf/" 2>/dev/null || true
out=$(dpdk-ibvcap-diagnostics -o "$T/diag.tar.gz" -c "$T/conf" -d "$T/data" -s -15min) || fail "diagnostics failed"
expect_eq "diagnostics archive path" "$out" "$T/diag.tar.gz"
mkdir -p "$T/x"
tar -xzf "$T/diag.tar.gz" -C "$T/x"
d=$(ls -d "$T/x"/dpdk-ibvcap-diag-*)
for f in README.txt versions.txt hugepages.txt eal.txt config-check.txt logs.txt files.txt \
	"telemetry-$PREFIX.txt" config/lab.ini; do
	[ -s "$d/$f" ] || fail "diagnostics: $f missing or empty"
done
grep -q 'Linux' "$d/versions.txt" || fail "no uname"
grep -q 'HugePages_Total' "$d/hugepages.txt" || fail "no hugepage state"
grep -q "$PREFIX" "$d/eal.txt" || fail "no EAL runtime state"
grep -q 'configuration valid on this host' "$d/config-check.txt" || fail "no configuration check"
grep -q "summary-json /var/lib/dpdk-ibvcap/askap/last-run.json: directory '/var/lib/dpdk-ibvcap/askap' does not exist" \
	"$d/config-check.txt" || fail "diagnostics: askap.ini's check on this host not recorded"
grep -q "\"packets\": $n" "$d/telemetry-$PREFIX.txt" || fail "no live counters"
grep -q 'rx_good_packets\|ipackets' "$d/telemetry-$PREFIX.txt" || fail "no port stats/xstats"
grep -q '/ethdev/xstats,0' "$d/telemetry-$PREFIX.txt" || fail "no xstats query"
grep -q 'ibvcap_ant0_20250101T000000.000000000Z.codif' "$d/files.txt" || fail "no capture file sizes"
# logs: the journal of the units since -s (or why there is none), and the
# kernel's lines about the NIC, hugepages, DPDK
grep -q '^\$ journalctl --no-pager --since -15min -u dpdk-ibvcap\*' "$d/logs.txt" || { cat "$d/logs.txt"; fail "logs: -s not used"; }
grep -qE '^\[(exit [0-9]+|not available: journalctl)\]' "$d/logs.txt" || fail "logs: no journalctl outcome"
grep -q '^\$ sh -c dmesg' "$d/logs.txt" || fail "logs: no kernel messages section"
ok "diagnostics archive: versions, hugepages, EAL, configuration (+check), live counters, port stats and xstats, logs, file sizes"

kill -INT "$CPID"
wait "$CPID" || fail "primary exit status after SIGINT"
grep -q 'stopped by SIGINT' "$T/cap.log" || fail "no clean stop on SIGINT"
ok "SIGINT: clean stop with the summary"
# at the stop the writer took every received frame: its files hold them all
"$BUILD/app/codifcheck/codifcheck" info --json "$T/w" > "$T/w.json" || fail "codifcheck info of the writer's files"
expect_eq "the writer's files: frames received = the truth's" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(s["received"] for f in j["files"] for s in f["streams"]))' "$T/w.json")" \
	"$(json_get "$T/truth.json" totals received)"
run_expect_fail "stat without a capture" 1 "no dpdk-ibvcap telemetry at /var/run/dpdk/${PREFIX}none" \
	dpdk-ibvcap-stat --file-prefix "${PREFIX}none" --once
run_expect_fail "stat bad option" 2 "--interval: '-1': expected a duration > 0 (10s, 500ms, 5m, 2h" \
	dpdk-ibvcap-stat --interval -1
run_expect_fail "stat unknown unit" 2 "--interval: '1x': expected a duration > 0" \
	dpdk-ibvcap-stat --interval 1x
echo "$CHECKS checks passed"
