#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ENOSPC: dpdk-ibvcap-dump writing codif (and raw) to a small tmpfs fills it:
# a clean error naming the file and the cause, exit 2, every finished file
# valid, the file in progress cut at its last whole frame and kept; the
# capture goes on with exact counts.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
DUMP=$BUILD/app/dpdk-ibvcap-dump
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --count 1500 --seed 3 --loss 0.01"
mkdir -p "$T/small" "$T/small2"
mount -t tmpfs -o size=12m tmpfs "$T/small"
CLEANUP_CMDS+=("umount '$T/small'")
mount -t tmpfs -o size=6m tmpfs "$T/small2"
CLEANUP_CMDS+=("umount '$T/small2'")
mkdir -p "$T/small3"
mount -t tmpfs -o size=10m tmpfs "$T/small3"
CLEANUP_CMDS+=("umount '$T/small3'")
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)
rm -f "$T/dry.pcap"

# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --count-packets "$N" \
	--idle-timeout 60s --write "codif:$T/small3,rotate-size=2M" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/small,rotate-size=2M" --name full \
	--summary-json "$T/w.json" 2> "$T/w.log" &
WPID=$!
CLEANUP_PIDS+=("$WPID")
"$DUMP" --file-prefix "$PREFIX" --write "raw:$T/small2,rotate-size=1M" --name full-raw \
	--summary-json "$T/w2.json" 2> "$T/w2.log" &
W2PID=$!
CLEANUP_PIDS+=("$W2PID")
wait_for_line "$T/w.log" 30 'attached to' || { cat "$T/w.log"; fail "writer did not attach"; }
wait_for_line "$T/w2.log" 30 'attached to' || { cat "$T/w2.log"; fail "raw writer did not attach"; }
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna $GENARGS \
	--rate-fps 1500 --linger 120s --truth "$T/truth.json" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
set +e
wait "$WPID"
wrc=$?
wait "$W2PID"
w2rc=$?
set -e
expect_eq "codif writer exit status on ENOSPC" "$wrc" 2
expect_eq "raw writer exit status on ENOSPC" "$w2rc" 2
grep -q 'No space left on device' "$T/w.log" || { cat "$T/w.log"; fail "no ENOSPC message"; }
grep -q "$T/small/ibvcap_ant.*codif.part: No space left on device (kept the first" "$T/w.log" ||
	{ cat "$T/w.log"; fail "the message does not name the file"; }
ok "codif writer: exit 2, message names the file and ENOSPC"
expect_eq "no .part left on the full disk" "$(ls "$T/small" "$T/small2" | grep -c '\.part$' || true)" 0
nfiles=$(ls "$T/small" | wc -l)
[ "$nfiles" -ge 2 ] || fail "only $nfiles files before the disk filled"
"$CHK" verify "$T/small" > "$T/chk" 2>&1 || { cat "$T/chk"; fail "files on the full disk are not valid"; }
ok "all $nfiles codif files valid, the cut one ends at a whole frame: $(tail -1 "$T/chk")"
for f in "$T/small"/*.codif; do
	[ $(( $(stat -c %s "$f") % 8256 )) -eq 0 ] || fail "$f is not whole frames"
done
ok "every codif file is a whole number of frames"
"$CHK" verify "$T/small2" > "$T/chk2" 2>&1 || { cat "$T/chk2"; fail "raw files on the full disk are not valid"; }
ok "raw files and their indexes valid after ENOSPC: $(tail -1 "$T/chk2")"
set +e
wait "$CPID"
crc=$?
set -e
[ "$crc" -ne 0 ] || { cat "$T/cap.log"; fail "the capture's writer hit ENOSPC, yet it exited 0"; }
grep -q "$T/small3/ibvcap_ant.*codif.part: No space left on device" "$T/cap.log" ||
	{ cat "$T/cap.log"; fail "the capture's writer: no ENOSPC message naming the file"; }
"$CHK" verify "$T/small3" > "$T/chk3" 2>&1 || { cat "$T/chk3"; fail "the capture writer's files after ENOSPC"; }
ok "the capture's own writer on a full disk: files valid, exit $crc, message names the file"
# the figures count what is on disk: every frame in the files, and the
# frames handed over = written + cut off by the error (+ overrun)
python3 - "$T/w.json" "$T/small" codif "$T/w2.json" "$T/small2" raw "$T/sum.json" "$T/small3" <<'PY' ||
import glob, json, os, sys
FRAME, DATA = 8256, 8192
def disk(d, fmt):
    files = sorted(glob.glob(d + "/*." + fmt))
    size = sum(os.path.getsize(f) for f in files)
    return files, size, size // (FRAME if fmt == "codif" else DATA)
def check(name, j, d, fmt):
    files, size, frames = disk(d, fmt)
    assert j["bytes"] == size, (name, "bytes", j["bytes"], "on disk", size)
    assert j["files"] == len(files), (name, "files", j["files"], "on disk", len(files))
    ph = j["placeholders"] + j.get("overrun_placeholders", 0)
    assert j["written"] + ph == frames, (name, "written", j["written"], "placeholders", ph,
                                        "frames on disk", frames)
    assert j["error"] != 0, (name, j)
    print("%s: %d frames written + %d placeholders = %d frames, %d bytes in %d files on disk; "
          "%d cut off, %d overrun" % (name, j["written"], ph, frames, size, len(files), j["cut"],
                                      j["overrun"]))
for i in (0, 3):
    j = json.load(open(sys.argv[1 + i]))
    check(j["name"], j, sys.argv[2 + i], sys.argv[3 + i])
    assert j["written"] + j["cut"] == j["taken"], (j["written"], j["cut"], j["taken"])
    assert j["cut"] > 0, j
s = json.load(open(sys.argv[7]))
w = [x for x in s["buffers"]["writers"] if x["name"].startswith("primary-")]
assert len(w) == 1, s["buffers"]["writers"]
check("capture writer", w[0], sys.argv[8], "codif")
ants = set(os.path.basename(f).split("_")[1] for f in glob.glob(sys.argv[8] + "/*.codif"))
print("capture writer: files of antennas %s" % sorted(ants))
PY
	fail "writer figures differ from the files on disk"
ok "after ENOSPC every writer's written/placeholders/bytes/files = the files on disk; written + cut = taken"

kill -INT "$GPID"; wait "$GPID" || true
python3 "$SRC/tests/tools/compare.py" "$T/truth.json" "$T/sum.json" > "$T/cmp" ||
	{ head "$T/cmp"; fail "capture counts differ after the writer failed"; }
ok "the capture went on: counts = truth ($(tail -1 "$T/cmp"))"
echo "$CHECKS checks passed"
