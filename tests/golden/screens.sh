#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden screens: every line of tests/golden/TESTLIST, dpdk-ibvcap-stat
# (--from saved snapshots) or dpdk-ibvcap-fleet view (summary files) at
# COLUMNS columns, equal byte for byte to screens/NAME.out; no line wider
# than its COLUMNS; and against the inputs: the antennas in natural order
# (ak2 before ak10), the remove-oldest writer's 'left' "recycles", the
# other's its time left, each antenna's lost and late the input's.
# UPDATE=1 (tests/golden/update.sh) rewrites the .out files instead.
. "$(dirname "$0")/../lib.sh"
set -e
G=$SRC/tests/golden
n=0
while read -r name cols tool args; do
	case $name in '#'* | '') continue ;; esac
	out=$G/screens/$name.out
	# relative paths in the arguments: the text names the files as given
	# shellcheck disable=SC2086
	(cd "$G/screens" && COLUMNS=$cols LINES=50 python3 "$BUILD/app/dpdk-ibvcap-$tool" $args) \
		> "$T/$name.out" 2> "$T/$name.err" || [ "$tool" = fleet ] ||
		{ cat "$T/$name.err"; fail "$name: dpdk-ibvcap-$tool $args: exit status"; }
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$T/$name.out" "$out"
		echo "updated $out"
	else
		[ -f "$out" ] || fail "$name: no $out (tests/golden/update.sh writes it)"
		diff -u "$out" "$T/$name.out" > "$T/$name.diff" ||
			{ cat "$T/$name.diff"; fail "$name: the text differs from $out"; }
	fi
	python3 - "$T/$name.out" "$cols" "$tool" "$G/screens" $args <<'PY' || fail "$name: the screen against its input"
import json, os, re, sys
path, cols, tool, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
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
done < "$G/TESTLIST"
[ "$n" -ge 5 ] || fail "$G/TESTLIST: $n tests"
ok "$n golden screens (tests/golden/TESTLIST) equal their text byte for byte, each within its columns, antennas in natural order, a remove-oldest writer 'recycles'"
echo "$CHECKS checks passed"
