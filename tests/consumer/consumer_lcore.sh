#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --consumer's lcores: two plugins (tests/consumer/plugin_slow.so) in one
# capture with EAL lcores 0@0,1@1,2@0,3@1: the first, without lcore=, on
# the last free worker lcore (3), the second on lcore=2, rx on lcore 1
# alone. Each plugin's init, blocks and fini ran on one thread, EAL's
# worker of its lcore, not the main thread; the capture's start line, the
# summary (text and JSON) and telemetry name each one's lcore; each was
# handed every received frame or counted it overrun, exactly (frames +
# overrun = the truth's received). Then the refusals of lcore=, each
# naming the plugin, the value and what was expected: the main lcore, not
# an EAL lcore, not a number, an --lcore-map rx lcore, one taken by
# another --consumer, no free lcore at all (-l 0,1); and scans= not 0/1.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
set -e
SLOW=$BUILD/tests/consumer/plugin_slow.so
GENARGS="$LAYOUT $SIG --count 300 --seed 31 --loss 0.01"
CAP_LCORES="--lcores=0@0,1@1,2@0,3@1"
cons_capture "$GENARGS" 1024 32 --consumer "$SLOW,out=$T/pa.json,name=pa" \
	--consumer "$SLOW,out=$T/pb.json,name=pb,lcore=2,frames=16"
dpdk-telemetry.py -f "$PREFIX" <<< "/ibvcap/writer,pb" 2>&1 | tail -1 > "$T/tel.json"
sleep 0 &
RPID=$! # no consumer of another process
cons_run "$GENARGS" 1000
ok "capture with two plugins exited 0; counts = truth ($(tail -1 "$T/cmp"))"
python3 - "$T/sum.json" "$T/truth.json" "$T/cap.log" "$T/tel.json" "$T/pa.json" "$T/pb.json" \
	<<'PY' > "$T/lc.check" || { cat "$T/lc.check" "$T/cap.log"; fail "the plugins' lcores"; }
import json, re, sys
summ, truth, log, tel = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])),
                         open(sys.argv[3]).read(), json.load(open(sys.argv[4])))
received = truth["totals"]["received"]
assert "capturing on 1 rx lcore " in log, "rx lcores"
assert tel["/ibvcap/writer"]["name"] == "pb" and tel["/ibvcap/writer"]["lcore"] == 2, tel
ws = {w["name"]: w for w in summ["buffers"]["writers"]}
for name, path, lcore in (("pa", sys.argv[5], 3), ("pb", sys.argv[6], 2)):
    p = json.load(open(path))
    assert (p["thread"], p["same_thread"], p["main_thread"]) == ("rte-worker-%d" % lcore, 1, 0), p
    assert "\ndpdk-ibvcap: --consumer %s on lcore %d: " % (name, lcore) in log, name
    m = re.search(r"^dpdk-ibvcap: --consumer %s: (\d+) blocks, (\d+) frames, (\d+) overrun$"
                  % name, log, re.M)
    assert m, name
    blocks, frames, overrun = map(int, m.groups())
    assert re.search(r"^%s +plugin .* \(lcore %d\)$" % (name, lcore), log, re.M), name
    w = ws[name]
    assert w["lcore"] == lcore and w["written"] == frames == p["frames"], (w, p)
    assert w["overrun"] == overrun and blocks == p["blocks"] > 0, (w, p)
    assert frames + overrun == received, (name, frames, overrun, received)
    print("%s on lcore %d (thread %s, init, %d blocks and fini on it, not main): %d frames + "
          "%d overrun = %d received" % (name, lcore, p["thread"], blocks, frames, overrun, received))
PY
while read -r line; do ok "$line"; done < "$T/lc.check"

# refusals: each a capture start that stops before any traffic, exit 1
refuse() {
	local what=$1 msg=$2 lcores=$3
	shift 3
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	run_expect_fail "$what" 1 "$msg" "$CAP" $lcores --no-pci --file-prefix="$PREFIX" \
		--log-level=lib.eal:error --vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT \
		--frame-rate "$FRAME_RATE" --ring 256 "$@"
}
refuse "lcore=0" "--consumer $SLOW: lcore=0: the main lcore (it runs the capture's control loop): expected a worker lcore" \
	"$CAP_LCORES" --consumer "$SLOW,out=$T/x,lcore=0"
refuse "lcore=9" "--consumer $SLOW: lcore=9: not an EAL lcore of this process (its lcores: 0,1,2,3; -l or --lcores)" \
	"$CAP_LCORES" --consumer "$SLOW,out=$T/x,lcore=9"
refuse "lcore=x" "--consumer $SLOW: lcore=x: expected an EAL lcore id, 0 to" \
	"$CAP_LCORES" --consumer "$SLOW,out=$T/x,lcore=x"
refuse "lcore=1 mapped" "--consumer $SLOW: lcore=1: an rx lcore (--lcore-map gives it a queue)" \
	"$CAP_LCORES" --lcore-map 0.0@1 --consumer "$SLOW,out=$T/x,lcore=1"
refuse "lcore=2 twice" "--consumer $SLOW: lcore=2: taken by another --consumer" \
	"$CAP_LCORES" --consumer "$SLOW,out=$T/x,lcore=2,name=p1" --consumer "$SLOW,out=$T/y,lcore=2,name=p2"
refuse "scans=2" "--consumer $SLOW: scans=2: expected 1 (only the data of its scans, as IBVCAP_OPEN_SCANS) or 0 (every frame)" \
	"$CAP_LCORES" --consumer "$SLOW,out=$T/x,scans=2"
refuse "no free lcore" "--consumer $SLOW: no free lcore among the EAL lcores 0,1 (main 0, --write writers none, other consumers none; rx needs at least one): give EAL one more lcore (-l, or --lcores, e.g. --lcores 0@0,1@1,2@0), or lcore=N" \
	"-l 0,1" --consumer "$SLOW,out=$T/x"
