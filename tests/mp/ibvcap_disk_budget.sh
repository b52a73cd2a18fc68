#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The writers' disk budget (min-free=, on-full=) on small tmpfs disks of our
# own, beside a capture fed through memif:
#  (a) on-full=remove-oldest (a codif and a raw dpdk-ibvcap-dump writer):
#      recording runs far past the disk's size; its oldest files are gone,
#      each logged, and an older file of the same prefix and format that it
#      did not write is left as it was; the figures' removals = the files missing; the files
#      left verify; frames on disk + frames removed = frames written, and
#      the writer wrote every frame the capture placed;
#  (b) on-full=stop (a dump writer, and the capture's own --write, spread
#      over 2 lcores: each stops on its own): the
#      writer ends before the disk fills, never with ENOSPC, every file
#      complete and valid, the reason logged (directory, free space,
#      min-free), exit 3 (the dump at once, the capture at its end); the
#      capture's counts = the generator's truth;
#  (c) bad min-free= / on-full= values refused, naming the value and what
#      was expected, by both tools and --check-config (and a min-free larger
#      than the directory's filesystem).
. "$(dirname "$0")/../lib.sh"
set -e
need_root
DUMP=$BUILD/app/dpdk-ibvcap-dump

# --- (c) bad values: no device, no hugepages needed
mkdir -p "$T/cfg"
for bad in "min-free=abc|--write min-free: 'abc': expected a size" \
	   "min-free=150%|--write min-free: '150%': expected a size" \
	   "min-free=2G,on-full=xyz|--write on-full: 'xyz': expected stop" \
	   "on-full=remove-oldest|on-full needs min-free" \
	   "min-free=1000T|min-free 1,099,511,627,776,000 bytes (1000.0 TiB): the filesystem of"; do
	keys=${bad%%|*} want=${bad#*|}
	set +e
	"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/cfg,$keys" --check-config > "$T/c.out" 2>&1
	rc=$?
	set -e
	expect_eq "dpdk-ibvcap-dump --write ...,$keys exit status" "$rc" 1
	grep -qF -- "$want" "$T/c.out" || { cat "$T/c.out"; fail "dump $keys: no '$want'"; }
	set +e
	# (the host's side too: a min-free larger than the disk)
	"$CAP" --no-huge -m 512 -l 0 --no-pci --file-prefix "$PREFIX" -- --check-config \
		--write "codif:$T/cfg,$keys" > "$T/c.out" 2>&1
	rc=$?
	set -e
	expect_eq "dpdk-ibvcap --check-config --write ...,$keys exit status" "$rc" 1
	grep -qF -- "$want" "$T/c.out" || { cat "$T/c.out"; fail "capture $keys: no '$want'"; }
done
ok "bad min-free/on-full refused by both tools (--check-config): the value and what was expected"
"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/cfg,min-free=5%,on-full=remove-oldest" \
	--check-config > "$T/c.out" 2>&1 || { cat "$T/c.out"; fail "min-free=5% refused"; }
ok "min-free=5%,on-full=remove-oldest taken"

need_hugepages 300
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --count 1500 --seed 5 --loss 0.01"
# four disks of our own: 16 MiB for each remove-oldest writer (about 148 MB
# go through each), 10 MiB for each writer that stops
for d in rm rmraw stop capstop; do
	mkdir -p "$T/$d"
	case $d in rm*) sz=16m ;; *) sz=10m ;; esac
	mount -t tmpfs -o "size=$sz" tmpfs "$T/$d"
	CLEANUP_CMDS+=("umount '$T/$d'")
done
# a file the remove-oldest writer did not write, though it has its prefix,
# format and directory and is older than any of its own (an earlier run's):
# it must stay
"$GEN" --antennas 1 --groups 1 --threads 1 --count 20 --start 2024-06-01T00:00:00Z --quiet \
	--pcap "$T/old.pcap"
"$CHK" convert --to codif --outdir "$T/rm" --prefix ibvcap --antenna-name ant0 "$T/old.pcap" \
	> "$T/old.out" 2>&1 || { cat "$T/old.out"; fail "codifcheck convert"; }
OLD=$(ls "$T/rm")
[ -n "$OLD" ] || fail "no earlier file in $T/rm"
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)
rm -f "$T/dry.pcap"

# shellcheck disable=SC2086
# the capture's writer on 2 lcores (lcores=2): each keeps min-free on its own
"$CAP" --lcores 0@0,1@1,2@0,3@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --count-packets "$N" \
	--idle-timeout 60s --write "codif:$T/capstop,rotate-size=2M,buffer=1M,min-free=2M,lcores=2" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
declare -A WP
for w in rm rmraw stop; do
	case $w in
	rm) spec="codif:$T/rm,rotate-size=1M,buffer=1M,min-free=2M,on-full=remove-oldest" ;;
	rmraw) spec="raw:$T/rmraw,rotate-size=1M,buffer=1M,min-free=2M,on-full=remove-oldest" ;;
	stop) spec="codif:$T/stop,rotate-size=2M,buffer=1M,min-free=2M,on-full=stop" ;;
	esac
	"$DUMP" --file-prefix "$PREFIX" --write "$spec" --name "$w" \
		--summary-json "$T/$w.json" 2> "$T/$w.log" &
	WP[$w]=$!
	CLEANUP_PIDS+=("${WP[$w]}")
done
for w in rm rmraw stop; do
	wait_for_line "$T/$w.log" 30 'attached to' || { cat "$T/$w.log"; fail "writer $w did not attach"; }
done
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna $GENARGS \
	--rate-fps 1500 --linger 120s --truth "$T/truth.json" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
declare -A WRC
set +e
for w in stop rm rmraw; do
	wait "${WP[$w]}"
	WRC[$w]=$?
done
wait "$CPID"
crc=$?
set -e
kill -INT "$GPID"; wait "$GPID" || true

# --- (b) on-full=stop
expect_eq "dump writer (on-full=stop) exit status" "${WRC[stop]}" 3
expect_eq "capture with a --write writer stopped at min-free: exit status" "$crc" 3
for l in "$T/stop.log" "$T/cap.log"; do
	if grep -qi 'No space left\|ENOSPC' "$l"; then cat "$l"; fail "$l: ENOSPC"; fi
done
grep -q "$T/stop: .* free, .* for its open files to finish, min-free .*: stopped writing at a whole row" "$T/stop.log" ||
	{ cat "$T/stop.log"; fail "the dump's stop does not say the directory, free and min-free"; }
grep -q "dpdk-ibvcap: --write codif:$T/capstop,.*: $T/capstop: .* free, .*, min-free .*: stopped" \
	"$T/cap.log" || { cat "$T/cap.log"; fail "the capture's writer's stop is not said"; }
ok "on-full=stop: the dump exits 3, the capture 3 at its end; the reason names the directory, free space and min-free; no ENOSPC"
for d in stop capstop; do
	expect_eq "no .part left in $d" "$(find "$T/$d" -name '*.part' | wc -l)" 0
	"$CHK" verify "$T/$d" > "$T/chk.$d" 2>&1 || { cat "$T/chk.$d"; fail "files in $d not valid"; }
done
ok "on-full=stop: every file complete and valid ($(tail -1 "$T/chk.stop"); $(tail -1 "$T/chk.capstop"))"
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" ||
	{ head "$T/cmp"; fail "capture counts differ with a writer stopped at min-free"; }
ok "the capture's counts = truth ($(tail -1 "$T/cmp"))"

# --- (a) on-full=remove-oldest
expect_eq "remove-oldest codif writer exit status" "${WRC[rm]}" 0
expect_eq "remove-oldest raw writer exit status" "${WRC[rmraw]}" 0
for d in rm rmraw; do
	expect_eq "no .part left in $d" "$(find "$T/$d" -name '*.part' | wc -l)" 0
	"$CHK" verify "$T/$d" > "$T/chk.$d" 2>&1 || { cat "$T/chk.$d"; fail "files left in $d not valid"; }
done
ok "remove-oldest: the files left verify ($(tail -1 "$T/chk.rm"); $(tail -1 "$T/chk.rmraw"))"

python3 - "$T" "$T/rm/$OLD" "$(stat -c %s "$T/rm/$OLD")" <<'PY' || fail "the writers' figures and the files on disk"
import glob, json, os, re, sys
T, OLD, OLD_SIZE = sys.argv[1], sys.argv[2], int(sys.argv[3])
# the earlier run's file is there, as it was: not the writer's to remove
assert os.path.getsize(OLD) == OLD_SIZE, OLD
FRAME, DATA = 8256, 8192
s = json.load(open(T + "/sum.json"))
placed = sum(a["placed"] for a in s["buffers"]["antennas"])


def on_disk(d, fmt):
    files = sorted(f for f in glob.glob("%s/*.%s" % (d, fmt)) if f != OLD)
    return files, sum(os.path.getsize(f) for f in files)


def removed_in_log(name):
    out = []
    for l in open("%s/%s.log" % (T, name)):
        m = re.search(r"min-free: removed (\S+) \((\d+) bytes(, its index \d+ bytes)?\) to keep "
                      r"[0-9,]+ bytes .* free in ", l)
        if m:
            out.append((m.group(1), int(m.group(2))))
    return out


TMPFS = 16 << 20
for name, fmt in (("rm", "codif"), ("rmraw", "raw")):
    j = json.load(open("%s/%s.json" % (T, name)))
    d = T + "/" + name
    files, size = on_disk(d, fmt)
    logged = removed_in_log(name)
    assert j["stop_reason"] == "the primary stopped", j["stop_reason"]
    assert j["error"] == 0 and j["cut"] == 0 and j["full"] == 0, j
    # it recorded far past the disk's size, and went through every frame
    # placed: written, or lost to the ring (overrun: this host's 2 CPUs
    # are shared), never to the budget
    assert j["bytes"] > 4 * TMPFS, (j["bytes"], TMPFS)
    assert j["written"] + j["overrun"] == placed, (name, j["written"], j["overrun"], placed)
    # the files removed: counted, logged one by one, gone; the rest on disk
    assert j["files_removed"] > 0, j
    assert j["files_removed"] == len(logged), (j["files_removed"], len(logged))
    assert j["files_removed"] + len(files) == j["files"], (j["files_removed"], len(files), j["files"])
    assert sum(b for _, b in logged) == j["bytes_removed"], (logged, j["bytes_removed"])
    for p, _ in logged:
        assert not os.path.exists(p) and not os.path.exists(p + ".json"), p
        assert p != OLD, p
        assert os.path.dirname(p) == d, p
    idx = sorted(glob.glob(d + "/*.raw.json"))
    if fmt == "raw":
        assert len(idx) == len(files), (len(idx), len(files))
    # bytes - bytes_removed is on disk, exactly (st_size of the files,
    # and du's allocated blocks agree: no holes); raw: the data files,
    # as bytes counts them (indexes apart)
    assert j["bytes"] - j["bytes_removed"] == size, (name, j["bytes"], j["bytes_removed"], size)
    assert sum(os.stat(f).st_blocks * 512 for f in files) >= size, name
    # the oldest went: per antenna, every file removed is older than every
    # file left (names: PREFIX_ANTENNA_TIME.FORMAT)
    def ant_time(p):
        b = os.path.basename(p).split("_")
        return b[1], b[2]
    left = {}
    for f in files:
        a, t = ant_time(f)
        left.setdefault(a, []).append(t)
    for p, _ in logged:
        a, t = ant_time(p)
        assert t < min(left[a]), (p, min(left[a]))
    # frames: on disk + removed = written + placeholders
    unit = FRAME if fmt == "codif" else DATA
    ph = j["placeholders"] + j["overrun_placeholders"]
    if fmt == "codif":
        assert (size + j["bytes_removed"]) // unit == j["written"] + ph, \
            (size, j["bytes_removed"], j["written"], ph)
    print("%s: %d bytes written through a %d MiB disk (%.1fx), %d files, %d removed (%d bytes, "
          "each logged), %d left; %d frames written + %d overrun = %d placed" %
          (name, j["bytes"], TMPFS >> 20, j["bytes"] / TMPFS, j["files"], j["files_removed"],
           j["bytes_removed"], len(files), j["written"], j["overrun"], placed))

# on-full=stop: the figures are the files on disk; it stopped short of
# placed; the capture's writer on 2 lcores: both stopped, their figures
# together the files on disk
parts = [w for w in s["buffers"]["writers"] if w["name"].startswith("primary-")]
assert sorted(w["name"] for w in parts) == ["primary-0-codif-0", "primary-0-codif-1"], parts
assert all(w["full"] == 1 and w["error"] == 0 for w in parts), parts
cw = dict(parts[0])
for k in ("files", "bytes", "written", "placeholders", "cut", "files_removed"):
    cw[k] = sum(w[k] for w in parts)
for name, d, j in (("stop", T + "/stop", json.load(open(T + "/stop.json"))),
                   ("capture writer (2 lcores)", T + "/capstop", cw)):
    files, size = on_disk(d, "codif")
    assert j["error"] == 0 and j["cut"] == 0 and j["files_removed"] == 0 and j["full"] == 1, j
    assert j["files"] == len(files) and j["bytes"] == size, (j["files"], len(files), j["bytes"], size)
    ph = j["placeholders"] + j.get("overrun_placeholders", 0)
    assert (j["written"] + ph) * FRAME == size, (j["written"], ph, size)
    assert 0 < j["written"] < placed, (j["written"], placed)
    free = os.statvfs(d).f_bavail * os.statvfs(d).f_frsize
    assert free >= 2 << 20, (name, free)
    print("%s: stopped at min-free 2 MiB with %d bytes free: %d files, %d frames of %d placed"
          % (name, free, len(files), j["written"], placed))
st = json.load(open(T + "/stop.json"))
assert st["stop_reason"] == "min-free" and "min-free" in st["stop_text"], st
PY
ok "remove-oldest: recording went on far past the disk's size; removals counted = files missing, each logged with its bytes, the oldest of each antenna; frames on disk + removed = written + placeholders, written + overrun = placed"
ok "on-full=stop: figures = the files on disk, at least min-free left"
echo "$CHECKS checks passed"
