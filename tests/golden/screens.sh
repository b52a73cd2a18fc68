#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden screens: the rows of tests/golden/TESTLIST named stat-* and
# fleet-*: dpdk-ibvcap-stat (--from saved snapshots) or dpdk-ibvcap-fleet view
# (summary files), run at COLUMNS columns by tests/golden/golden.sh, equal
# byte for byte to out/NAME.out; no line wider than its COLUMNS; and
# against the inputs: the antennas in natural order (ak2 before ak10), the
# remove-oldest writer's 'left' "recycles", the other's its time left, each
# antenna's lost and late the input's.
# UPDATE=1 (tests/golden/update.sh) rewrites the .out files instead.
. "$(dirname "$0")/../lib.sh"
set -e
. "$(dirname "$0")/golden.sh"
n=0
while read -r name tool cols input args; do
	# shellcheck disable=SC2086 # the row's arguments, split as written
	golden_run "$name" "$tool" "$cols" "$input" $args
	golden_check "$name" "$G/out"
	# shellcheck disable=SC2086 # the row's arguments, as given
	python3 - "$T/$name.out" "$cols" "$tool" "$G/screens" $args <<'PY' || fail "$name: the screen against its input"
import json, os, re, sys
path, cols, tool, d = sys.argv[1], int(sys.argv[2]), sys.argv[3].split("-")[-1], sys.argv[4]
args = sys.argv[5:]
lines = open(path).read().split("\n")
wide = [l for l in lines if len(l) > cols]
assert not wide, "lines wider than %d columns: %s" % (cols, wide)


def natural(n):
    return [int(t) if t.isdigit() else t for t in re.split(r"([0-9]+)", n) if t]


def rows(head):
    """The rows under the heading line that starts with head: name -> {column: cell}."""
    for i, l in enumerate(lines):
        if l.split()[:1] == [head]:
            cols_ = l.split()
            out = {}
            for r in lines[i + 1:]:
                v = r.split()
                if v[:1] == ["total"]:  # no source, no hosts: the figures right-aligned
                    out["total"] = dict(zip(cols_[len(cols_) - len(v) + 1:], v[1:]))
                    continue
                if not v or len(v) != len(cols_):
                    break
                out[v[0]] = dict(zip(cols_, v))
            return cols_, out
    raise AssertionError("no '%s' table:\n%s" % (head, "\n".join(lines)))


_, ants = rows("antenna")
names = [n for n in ants if n != "total"]
assert names == sorted(names, key=natural) and len(names) >= 3, names
assert names.index("ak2") < names.index("ak10"), names
if tool == "stat":
    snap = json.load(open(os.path.join(d, [a for a in args if a.endswith(".json")][-1])))
    for n, a in snap["antennas"].items():
        for c in ("lost", "late"):
            assert int(ants[n][c]) == a[c], (n, c, ants[n][c], a[c])
    _, wrs = rows("writer")
    assert sorted(wrs) == sorted(snap["writers"]), (wrs, snap["writers"])
    for n, w in snap["writers"].items():
        if w.get("recycles"):
            assert wrs[n]["left"] == "recycles", wrs[n]
        else:
            assert re.fullmatch(r"[0-9.hmsd]+", wrs[n]["left"]), wrs[n]
    print("%s: %d antennas in natural order, writers %s" % (os.path.basename(path), len(names),
          ", ".join("%s left %s" % (n, wrs[n]["left"]) for n in sorted(wrs))))
else:
    sums = [json.load(open(os.path.join(d, a.split("=", 1)[1]))) for a in args
            if a.endswith(".json")]
    for c in ("received", "lost"):
        if c in ants["total"]:
            want = sum(x[c] for s in sums for x in s["antennas"])
            assert int(ants["total"][c]) == want, (c, ants["total"][c], want)
    print("%s: %d antennas in natural order, totals = the summaries'" % (os.path.basename(path),
                                                                       len(names)))
PY
	n=$((n + 1))
done < <(golden_rows screens)
[ "$n" -ge 5 ] || fail "$G/TESTLIST: $n tests"
ok "$n golden screens (tests/golden/TESTLIST) equal their text byte for byte, each within its columns, antennas in natural order, a remove-oldest writer 'recycles'"
[ "${UPDATE:-0}" = 1 ] && exit 0

# --from: what it cannot show is refused, naming the file and what was expected
STAT="python3 $BUILD/app/dpdk-ibvcap-stat"
run_expect_fail "--from a missing file" 1 "--from $T/none.json: No such file or directory" \
	$STAT --from "$T/none.json"
run_expect_fail "--from a summary, not a snapshot" 1 \
	"--from $G/screens/fleet-cap1.json: not a snapshot of dpdk-ibvcap-stat --once --json (expected the keys time, stats" \
	$STAT --from "$G/screens/fleet-cap1.json"
echo '{"time": ' > "$T/cut.json"
run_expect_fail "--from a cut file" 1 "--from $T/cut.json: not JSON" $STAT --from "$T/cut.json"
run_expect_fail "--from three files" 2 "--from: 3 files: expected one snapshot, or two (the earlier first)" \
	$STAT --from "$T/a" --from "$T/b" --from "$T/c"
# the saved snapshot again as JSON and Prometheus text: its figures
$STAT --from "$G/screens/stat-askap-2.json" --json > "$T/again.json"
$STAT --from "$G/screens/stat-askap-2.json" --prom "$T/again.prom"
python3 - "$G/screens/stat-askap-2.json" "$T/again.json" "$T/again.prom" <<'PY' || fail "--from --json / --prom"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), "--json is not the snapshot"
prom = open(sys.argv[3]).read()
want = 'ibvcap_writer_recycles{instance_prefix="askap",writer="monitor"} 1'
assert want in prom and 'writer="science"} 0' in prom.split("ibvcap_writer_recycles", 2)[2], prom
assert 'ibvcap_antenna_lost_frames_total{instance_prefix="askap",antenna="ak10"} %d' \
    % a["antennas"]["ak10"]["lost"] in prom
PY
ok "--from --json gives the snapshot back; --from --prom its figures (ibvcap_writer_recycles 1 for monitor, 0 for science)"
echo "$CHECKS checks passed"
