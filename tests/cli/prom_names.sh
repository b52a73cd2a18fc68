#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Prometheus naming rule has one owner, lib/stats (stats_prom_name),
# served by /ibvcap/counters and, without a capture, by counters.json (the
# same rows, statsdoc --json). Every metric dpdk-ibvcap-stat exports is a
# table's, named as the table names it, or one of stat's own few (written
# whole, listed here); no Python tool builds a name from a unit; fleet reads
# a Prometheus export back through the same rows.
. "$(dirname "$0")/../lib.sh"
set -e
J=$BUILD/app/counters.json
STAT="python3 $BUILD/app/dpdk-ibvcap-stat"
[ -s "$J" ] || fail "$J: not built"
"$BUILD/tests/statsdoc" --json | cmp -s - "$J" || fail "$J is not statsdoc --json (the tables)"
ok "counters.json = statsdoc --json (the tables of lib/stats)"

$STAT --from "$SRC/tests/golden/screens/stat-askap-1.json" \
	--from "$SRC/tests/golden/screens/stat-askap-2.json" --prom "$T/a.prom"
python3 - "$J" "$T/a.prom" "$SRC/tests/golden/screens/stat-askap-2.json" > "$T/names.out" <<'PY' ||
import json, re, sys
tables = json.load(open(sys.argv[1]))
named = {}
for g, o in tables.items():
    for k, row in o["fields"].items():
        if row[4]:
            assert row[4] not in named, ("one name, two figures", row[4], named[row[4]], g, k)
            named[row[4]] = (g, k, row)
# stat's own metrics, not figures of a table (their names written whole in stat)
OWN = {"ibvcap_uptime_seconds", "ibvcap_export_time_seconds", "ibvcap_data_clock_offset_seconds",
       "ibvcap_data_clock_warn_seconds", "ibvcap_scan_frames", "ibvcap_scan_short",
       "ibvcap_bstate_occupancy_ratio", "ibvcap_bstate_expected_ratio"}
OWN_PREFIX = ("ibvcap_fringe_",)
assert not OWN & set(named), OWN & set(named)
types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", open(sys.argv[2]).read(), re.M))
bad = [n for n in types if n not in named and n not in OWN and not n.startswith(OWN_PREFIX)]
assert not bad, "metrics stat names by a rule of its own: %s" % bad
for n, kind in types.items():
    if n in named:
        assert kind == named[n][2][1], (n, kind, named[n][2][1])
# the table's figures are there, and at the table's scale: a time in seconds
from_tables = [n for n in types if n in named]
assert len(from_tables) >= 80, len(from_tables)
snap = json.load(open(sys.argv[3]))
ak = snap["antennas"]["ak10"]
prom = open(sys.argv[2]).read()
m = re.search(r'^ibvcap_antenna_last_frame_seconds\{[^}]*antenna="ak10"\} (\S+)$', prom, re.M)
assert m and abs(float(m.group(1)) - ak["last_frame_ns"] * 1e-9) < 1e-6, (m and m.group(1), ak)
assert 'ibvcap_antenna_lost_frames_total{instance_prefix="askap",antenna="ak10"} %d' % ak["lost"] \
    in prom or re.search(r'^ibvcap_antenna_lost_frames_total\{[^}]*antenna="ak10"\} %d$'
                         % ak["lost"], prom, re.M), "lost of ak10"
print("%d metrics: %d named by the tables (%d kinds checked), %d stat's own"
      % (len(types), len(from_tables), len(from_tables), len(types) - len(from_tables)))
PY
	{ cat "$T/names.out"; fail "stat's metric names"; }
ok "stat --prom: $(cat "$T/names.out")"

# the rule is written nowhere in the Python tools: no unit suffix glued on
if grep -nE '"_(total|seconds|ratio|steps|bytes|frames|packets)"|_per_second|"ibvcap_%s|"ibvcap_(antenna|buffer|writer|port|quicklook|stream)_"' \
	"$SRC"/app/*/*.py "$SRC"/app/python/*.py > "$T/rule.txt"; then
	cat "$T/rule.txt"; fail "a Python tool restates the Prometheus naming rule"
fi
ok "no Python tool restates the naming rule"

# fleet reads the export back through the same rows: the antennas' figures
python3 "$BUILD/app/dpdk-ibvcap-fleet" view --prom "$T/a.prom" --json > "$T/view.json" ||
	fail "fleet view --prom"
python3 - "$T/view.json" "$SRC/tests/golden/screens/stat-askap-2.json" <<'PY' || fail "fleet view --prom: figures"
import json, sys
v, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ants = {a["name"]: a for a in v["antennas"]}
assert set(ants) == set(s["antennas"]), (set(ants), set(s["antennas"]))
for n, a in s["antennas"].items():
    for k in ("received", "lost", "late", "not_recorded_by_cause_no_slot",
              "malformed_by_cause_ip_checksum"):
        assert ants[n][k] == a[k], (n, k, ants[n].get(k), a[k])
    # a time goes out in seconds (a double) and comes back in ns
    assert abs(ants[n]["last_frame_ns"] - a["last_frame_ns"]) < 1000, (n, ants[n], a)
PY
ok "fleet view --prom: the snapshot's figures back (through counters.json)"

# --prom and fleet's --prom-sd replace their file whole (a rename): where
# the path exists it must be a regular file; a FIFO (standing in for
# /dev/null, which a rename as root would replace) is refused by name and
# left as it was
mkfifo "$T/fifo"
if $STAT --from "$SRC/tests/golden/screens/stat-askap-2.json" --prom "$T/fifo" 2> "$T/fifo.err"; then
	fail "stat --prom FIFO accepted"
fi
grep -q "^.*--prom: '$T/fifo' is not a regular file: expected a regular file (it is replaced whole)" \
	"$T/fifo.err" || { cat "$T/fifo.err"; fail "stat --prom FIFO: message"; }
[ -p "$T/fifo" ] || fail "stat --prom: the FIFO was replaced"
if python3 "$BUILD/app/dpdk-ibvcap-fleet" split "$SRC/config/askap-array.ini" --outdir "$T/sd" \
	--no-check --prom-sd "$T/fifo" > /dev/null 2> "$T/sd.err"; then
	fail "fleet split --prom-sd FIFO accepted"
fi
grep -q -- "--prom-sd: '$T/fifo' is not a regular file" "$T/sd.err" ||
	{ cat "$T/sd.err"; fail "fleet --prom-sd FIFO: message"; }
[ -p "$T/fifo" ] || fail "fleet --prom-sd: the FIFO was replaced"
ok "stat --prom and fleet --prom-sd refuse a FIFO by name and leave it as it was"
