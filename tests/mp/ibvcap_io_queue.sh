#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Writers' I/O queues in telemetry and the summaries: a capture on
# hugepages fed through memif, its own --write writer spread over 2 lcores
# (lcores=2: two writer entries, 3 antennas each) and three
# dpdk-ibvcap-dump writers, while they write:
#  - codif to an O_DIRECT directory (ext4 under /var/tmp): io_uring, a depth
#    of FIO_INFLIGHT (2) per open file = 2 x 6 antennas, writes in flight
#    never above it, and at the end the most it had in flight, 1..12;
#  - the same directory with io=sync: synchronous, why "io=sync", depth 0;
#  - a filesystem that refuses O_DIRECT (tmpfs before Linux 6.6, else
#    ramfs): synchronous, why names O_DIRECT;
# as /ibvcap/writers and /ibvcap/writer,NAME say, in the dumps' progress
# lines and --summary-json, in the capture's summary, and in Prometheus.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 400
DUMP=$BUILD/app/dpdk-ibvcap-dump
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --count 3000 --seed 5"
# O_DIRECT needs a filesystem that takes it: /var/tmp is ext4 here
D=$(mktemp -d /var/tmp/ibvcap-io.XXXXXX)
CLEANUP_CMDS+=("rm -rf '$D'")
python3 - "$D" <<'PY' || skip "/var/tmp refuses O_DIRECT here: no directory to test io_uring in"
import os, sys
os.close(os.open(os.path.join(sys.argv[1], "probe"), os.O_CREAT | os.O_WRONLY | os.O_DIRECT))
os.unlink(os.path.join(sys.argv[1], "probe"))
PY
mkdir -p "$D/uring" "$D/sync" "$D/prim" "$T/tmpfs"
# tmpfs takes O_DIRECT since Linux 6.6; ramfs never does
NODIRECT=tmpfs
mount -t tmpfs -o size=400m tmpfs "$T/tmpfs"
if python3 -c 'import os, sys; os.close(os.open(sys.argv[1] + "/p", os.O_CREAT | os.O_WRONLY | os.O_DIRECT))' \
	"$T/tmpfs" 2>/dev/null; then
	umount "$T/tmpfs"
	NODIRECT=ramfs
	mount -t ramfs ramfs "$T/tmpfs"
fi
CLEANUP_CMDS+=("umount '$T/tmpfs'")
python3 -c 'import os, sys; os.open(sys.argv[1] + "/p", os.O_CREAT | os.O_WRONLY | os.O_DIRECT)' \
	"$T/tmpfs" 2>/dev/null && fail "$NODIRECT takes O_DIRECT: no filesystem here refuses it"
echo "# the directory that refuses O_DIRECT: $NODIRECT"

# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)
rm -f "$T/dry.pcap"

# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0,3@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --ring 8192 \
	--count-packets "$N" --idle-timeout 60s --write "codif:$D/prim,lcores=2" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
start_dump "$T/uring.log" --write "codif:$D/uring" --name io-uring --stats-period 300ms \
	--summary-json "$T/uring.json"
UPID=$DPID
start_dump "$T/sync.log" --write "codif:$D/sync,io=sync" --name io-sync --stats-period 300ms \
	--summary-json "$T/sync.json"
SPID=$DPID
start_dump "$T/tmpfs.log" --write "codif:$T/tmpfs" --name io-tmpfs --stats-period 300ms \
	--summary-json "$T/tmpfs.json"
FPID=$DPID
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna $GENARGS \
	--rate-fps 300 --linger 120s --truth "$T/truth.json" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")

# while they write (10 s): every writer's own reply, a few times a second,
# through one telemetry connection
python3 - "$STAT" "$PREFIX" "$T" <<'PY' || fail "telemetry while writing"
import importlib.machinery, json, sys, time
ibvstat = importlib.machinery.SourceFileLoader("ibvstat", sys.argv[1]).load_module()
tel = ibvstat.Telemetry(sys.argv[2])
for i in range(25):
    json.dump(tel.query("/ibvcap/writers"), open("%s/rows%d.json" % (sys.argv[3], i), "w"))
    for w in ("io-uring", "io-sync", "io-tmpfs", "primary-0-codif-0", "primary-0-codif-1"):
        json.dump(tel.query("/ibvcap/writer," + w), open("%s/%s.%d.json" % (sys.argv[3], w, i), "w"))
    time.sleep(0.2)
PY
python3 "$STAT" --file-prefix "$PREFIX" --once --prom "$T/ibvcap.prom"
wait "$CPID" || { cat "$T/cap.log"; fail "primary exit status"; }
for p in $UPID $SPID $FPID; do
	wait "$p" || fail "a writer exited non-zero"
done
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true

set +e
python3 - "$T" "$PREFIX" <<'PY'
import glob, json, sys

T, PREFIX = sys.argv[1], sys.argv[2]
ANT = 6
seen = {}
for w in ("io-uring", "io-sync", "io-tmpfs", "primary-0-codif-0", "primary-0-codif-1"):
    live = []
    for f in sorted(glob.glob("%s/%s.*.json" % (T, w)), key=lambda f: int(f.split(".")[-2])):
        try:
            r = json.load(open(f))
        except ValueError:
            continue
        if isinstance(r, dict) and r.get("active") == 1 and r.get("written", 0) > 0:
            live.append(r)
    assert live, "%s: no reply while it wrote" % w
    seen[w] = live
u = seen["io-uring"]
if u[0]["io"] != "uring" and u[0]["io_why"].startswith("io_uring"):
    print("SKIP: this process may not use io_uring: %s" % u[0]["io_why"])
    sys.exit(77)
# a file per antenna: 6 for the dump, 3 for each lcore of the primary's
for w, nant in (("io-uring", ANT), ("primary-0-codif-0", ANT // 2), ("primary-0-codif-1", ANT // 2)):
    for r in seen[w]:
        assert r["io"] == "uring" and r["io_uring"] == 1 and r["io_why"] == "", (w, r)
        # FIO_INFLIGHT (2) writes at most per open file
        assert r["io_depth"] in range(2, 2 * nant + 1, 2), (w, r)
        assert 0 <= r["io_inflight"] <= r["io_depth"], (w, r)
        assert r["io_inflight"] <= r["io_inflight_max"] <= 2 * nant, (w, r)
    assert any(r["io_depth"] == 2 * nant for r in seen[w]), (w, seen[w])
    print("%s: io_uring, depth %d, in flight %s, most %d" % (
        w, seen[w][-1]["io_depth"], sorted({r["io_inflight"] for r in seen[w]}),
        seen[w][-1]["io_inflight_max"]))
for w, why in (("io-sync", "io=sync"), ("io-tmpfs", "its filesystem refuses O_DIRECT")):
    for r in seen[w]:
        assert r["io"] == "sync" and r["io_uring"] == 0 and r["io_why"] == why, (w, r)
        assert r["io_depth"] == 0 and r["io_inflight"] == 0 and r["io_inflight_max"] == 0, (w, r)
    print("%s: sync (%s), depth 0" % (w, why))
# /ibvcap/writers' rows carry the same figures under "fields"
rows = [json.load(open(f)) for f in glob.glob(T + "/rows*.json")]
rows = [r for r in rows if isinstance(r, dict) and "fields" in r]
assert rows, "no /ibvcap/writers reply"
for k in ("io_uring", "io_depth", "io_inflight", "io_inflight_max"):
    assert k in rows[-1]["fields"], (k, rows[-1]["fields"])

# the summaries: how each wrote, the most in flight (the writes overlapped)
s = {w: json.load(open("%s/%s.json" % (T, w))) for w in ("uring", "sync", "tmpfs")}
assert s["uring"]["io"] == "uring" and s["uring"]["io_depth"] == 2 * ANT, s["uring"]
assert 1 <= s["uring"]["io_inflight_max"] <= 2 * ANT, s["uring"]
for w, why in (("sync", "io=sync"), ("tmpfs", "its filesystem refuses O_DIRECT")):
    assert s[w]["io"] == "sync" and s[w]["io_why"] == why and s[w]["io_depth"] == 0, s[w]
cap = {x["name"]: x for x in json.load(open(T + "/sum.json"))["buffers"]["writers"]}
prim = [n for n in cap if n.startswith("primary-")]
assert sorted(prim) == ["primary-0-codif-0", "primary-0-codif-1"], sorted(cap)
for n in prim:
    p = cap[n]
    assert p["io"] == "uring" and p["io_depth"] == ANT and p["io_inflight_max"] >= 1, p
assert cap["io-tmpfs"]["io"] == "sync", cap["io-tmpfs"]
print("summaries: io-uring most in flight %d of %d; the primary's two lcores %d, %d of %d; "
      "io-sync and io-tmpfs sync" % (s["uring"]["io_inflight_max"], s["uring"]["io_depth"],
      cap[prim[0]]["io_inflight_max"], cap[prim[1]]["io_inflight_max"], ANT))

# Prometheus: the writers' queue figures, labelled by name
prom = open(T + "/ibvcap.prom").read().split("\n")
for want in ('ibvcap_writer_io_uring{instance_prefix="%s",writer="io-tmpfs"} 0' % PREFIX,
             'ibvcap_writer_io_uring{instance_prefix="%s",writer="io-uring"} 1' % PREFIX,
             'ibvcap_writer_io_depth_writes{instance_prefix="%s",writer="io-uring"} %d'
             % (PREFIX, 2 * ANT)):
    assert want in prom, (want, [l for l in prom if l.startswith("ibvcap_writer_io_")])
PY
rc=$?
set -e
[ "$rc" != 77 ] || skip "this process may not use io_uring (see above)"
[ "$rc" = 0 ] || fail "the writers' I/O queues in telemetry"
ok "telemetry while writing: io_uring to O_DIRECT ext4 (depth 2 x 6 files; the lcores=2 writer as 2 entries of 2 x 3), in flight <= depth, sync with its reason for io=sync and a filesystem refusing O_DIRECT; summaries and Prometheus agree"

# the progress lines say it too
grep -qE 'io_uring [0-9]+/12 in flight \(most [0-9]+\)' "$T/uring.log" ||
	{ cat "$T/uring.log"; fail "io-uring's progress line lacks its queue"; }
grep -q 'sync (io=sync)' "$T/sync.log" || { cat "$T/sync.log"; fail "io-sync's progress line"; }
grep -q 'sync (its filesystem refuses O_DIRECT)' "$T/tmpfs.log" ||
	{ cat "$T/tmpfs.log"; fail "io-tmpfs's progress line"; }
ok "progress lines: $(grep -m1 -o 'io_uring [0-9]*/12 in flight (most [0-9]*)' "$T/uring.log"); sync (io=sync); sync (its filesystem refuses O_DIRECT)"
