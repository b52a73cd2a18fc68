#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The status screen of dpdk-ibvcap-stat as an operator sees it: run in tmux
# at 80 x 30 and at 160 x 30 beside a capture on hugepages fed through
# memif, with two dpdk-ibvcap-dump writers (one throttled, so it runs
# behind). The 80-column screen wraps no line; every antenna row is there
# with the counts of the capture's summary at its end, its newest frame's
# UTC and age; each writer row shows the --name it was given, its lag (the
# throttled one further behind, at the rate it is held to), what it lost,
# the disk free of its directory (as statvfs says) and the recording time
# that is at the throttled one's rate, or, for the other (on-full=
# remove-oldest), that it recycles; the 160-column screen shows more
# columns.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 400
need_cmd tmux
DUMP=$BUILD/app/dpdk-ibvcap-dump
STAT=$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py
GP=${PREFIX}g
TM="tmux -S $T/tmux.sock" # a tmux server of our own (its socket in $T), killed at the end
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}" "$TM kill-server")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --count 2500 --seed 21 --loss 0.01 --reorder 0.02 --duplicate 0.01 --invalid 0.01"

# packets the run will send (the generator is deterministic)
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)

# shellcheck disable=SC2086
"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --ring 4096 \
	--duration 300s --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"

# two writers, named as no telemetry key may be ('-', '.'); the slow one
# takes 2000 frames/s of the 12000 the run sends per second; the fast one
# removes its own oldest files at its min-free (it never stops for the disk)
mkdir -p "$T/fast" "$T/slow"
"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/fast,min-free=1M,on-full=remove-oldest" --name fast-disk \
	--summary-json "$T/fast.json" 2> "$T/fast.log" &
FPID=$!
CLEANUP_PIDS+=("$FPID")
"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/slow" --name slow.disk --max-rate 2000 \
	--summary-json "$T/slow.json" 2> "$T/slow.log" &
SPID=$!
CLEANUP_PIDS+=("$SPID")
for l in fast slow; do
	wait_for_line "$T/$l.log" 30 'attached to' || { cat "$T/$l.log"; fail "writer $l did not attach"; }
done

# the screens, refreshing, from before the first packet on
for w in 80 160; do
	$TM new-session -d -s "w$w" -x "$w" -y 30 \
		"env -u COLUMNS -u LINES python3 '$STAT' --file-prefix '$PREFIX' --interval 250ms; sleep 600"
done

# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --rate-fps 1000 --linger 120s --pcap "$T/sent.pcap" --truth "$T/truth.json" \
	> "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")

# every packet in: the counts are final (nothing more arrives), the
# throttled writer still behind
got=$(packets_in "$N" 300)
expect_eq "packets received" "$got" "$N"
kill -0 "$SPID" 2>/dev/null || fail "the throttled writer ended before the screens were taken"
sleep 1 # a few refreshes and publishes after the last packet
for w in 80 160; do
	# -J: a line the terminal wrapped comes back whole (and too long)
	$TM capture-pane -p -J -t "w$w" > "$T/screen$w.txt"
	python3 -c 'import os, sys; s = os.statvfs(sys.argv[1]); print(s.f_bavail * s.f_frsize)' \
		"$T/fast" > "$T/free$w.txt"
done
echo "--- 80 x 30:"
cat "$T/screen80.txt"
echo "--- 160 x 30:"
cat "$T/screen160.txt"

kill -INT "$CPID"
wait "$CPID" || { cat "$T/cap.log"; fail "primary exit status"; }
for p in $FPID $SPID; do
	wait "$p" || fail "a writer exited non-zero"
done
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" || { head "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture counts = truth ($(tail -1 "$T/cmp"))"

python3 - "$T" <<'PY' || fail "the status screens"
import json, os, sys

T = sys.argv[1]
s = json.load(open(T + "/sum.json"))
ants = {a["name"]: a for a in s["antennas"]}
UNITS = {"B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}


def table(lines, head):
    """The rows under a heading line starting with head, as dicts by heading."""
    for i, l in enumerate(lines):
        if l.split()[:1] == [head]:
            cols = l.split()
            out = {}
            for r in lines[i + 1:]:
                if not r.strip():
                    break
                v = r.split()
                assert len(v) == len(cols), (cols, r)
                out[v[0]] = dict(zip(cols, v))
            return cols, out
    raise AssertionError("no '%s' table on the screen:\n%s" % (head, "\n".join(lines)))


def seconds(t):
    if "h" in t:  # 2h15m
        a, b = t.rstrip("m").split("h")
        return int(a) * 3600 + int(b) * 60
    for suf, mul in (("ms", 1e-3), ("s", 1), ("d", 86400)):
        if t.endswith(suf) and t[:-len(suf)].replace(".", "").isdigit():
            return float(t[:-len(suf)]) * mul
    if "m" in t:
        a, b = t.rstrip("s").split("m")
        return int(a) * 60 + int(b)
    raise AssertionError("not a duration: %r" % t)


def takes_direct(d):
    try:
        os.close(os.open(d + "/.probe", os.O_CREAT | os.O_WRONLY | os.O_DIRECT))
        os.unlink(d + "/.probe")
        return True
    except OSError:
        return False


DIRECT = takes_direct(T)
screens = {}
for w in (80, 160):
    lines = open("%s/screen%d.txt" % (T, w)).read().rstrip("\n").split("\n")
    long = [l for l in lines if len(l.rstrip()) > w]
    assert not long, "%d lines longer than %d columns (wrapped): %s" % (len(long), w, long[:2])
    acols, arows = table(lines, "antenna")
    wcols, wrows = table(lines, "writer")
    screens[w] = (acols, wcols)
    assert sorted(arows) == sorted(ants), (sorted(arows), sorted(ants))
    for name, a in ants.items():
        r = arows[name]
        keys = {"lost": "lost", "late": "late", "received": "received", "dup": "duplicate",
                "invalid": "invalid", "malformed": "malformed", "expected": "expected"}
        for col, key in keys.items():
            if col in r:
                assert int(r[col]) == a[key], (w, name, col, r[col], a[key])
        assert r["last-frame-UTC"] == a["last_frame_utc"][:23] + "Z", (r, a["last_frame_utc"])
        assert float(r["Gb/s"]) >= 0, r  # a rate (two snapshots), not '-'
        age = seconds(r["age"])
        assert age > 0, r
    # the writers by the names given, as the summaries name them
    names = sorted(x["name"] for x in s["buffers"]["writers"])
    assert sorted(wrows) == names == ["fast-disk", "slow.disk"], (sorted(wrows), names)
    free = int(open("%s/free%d.txt" % (T, w)).read())
    for name, r in wrows.items():
        assert r["state"] == "run", r
        assert int(r["lag"]) > 0 and seconds(r["behind"]) > 0, r
        f = float(r["free"][:-1]) * UNITS[r["free"][-1]]
        assert abs(f - free) <= 0.02 * free, (name, r["free"], free)
        assert int(r["lost"]) == 0 and int(r["files"]) == 0, r
        # its I/O queue (160 columns): io_uring writes in flight / depth,
        # 2 per open O_DIRECT file, a file per antenna (T is on ext4)
        if "io" in r and DIRECT:
            now, depth = r["io"].split("/")
            assert 0 <= int(now) <= int(depth) == 2 * len(ants), r
        elif "io" in r:
            assert r["io"] == "sync", r
    fast, slow = wrows["fast-disk"], wrows["slow.disk"]
    # on-full=remove-oldest: no time left, it recycles
    assert fast["left"] == "recycles", fast
    # the fast writer keeps up: behind by the rows open for late frames; the
    # throttled one by many more
    assert int(slow["lag"]) > 4 * int(fast["lag"]), (fast, slow)
    assert seconds(slow["behind"]) > seconds(fast["behind"]), (fast, slow)
    # the throttled writer's rate: 2000 frames/s of 8256 CODIF bytes at
    # most. A writer descheduled (on 2 vCPUs beside three busy pollers and
    # two refreshing screens it is, for tens of ms at a time) makes up at
    # most 100 ms of its pace at full speed, so no second shows more than
    # 1.1x its rate (bursts of 3x before that bound); a second it was
    # starved for shows less
    assert 0.1 < float(slow["MB/s"]) / (2000 * 8256 / 1e6) < 1.15, slow
    # and the recording time its disk holds at that rate (no min-free: all
    # of the free space), to the screen's precision
    if slow["left"].endswith("d"):
        assert int(slow["left"][:-1]) == int(free / (float(slow["MB/s"]) * 1e6) // 86400), slow
    else:
        want = free / (float(slow["MB/s"]) * 1e6)
        assert abs(seconds(slow["left"]) - want) < 0.25 * want + 60, (slow, want)
    print("%d columns: antennas %s; writers %s; fast lag %s (%s), slow lag %s (%s), free %s"
          % (w, " ".join(acols), " ".join(wcols), fast["lag"], fast["behind"], slow["lag"],
             slow["behind"], fast["free"]))
a80, w80 = screens[80]
a160, w160 = screens[160]
assert set(a80) < set(a160) and set(w80) < set(w160), (a80, a160, w80, w160)
for col in ("Gb/s", "lost", "late", "last-frame-UTC", "age"):
    assert col in a80, col
for col in ("lag", "behind", "lost", "files", "free", "left"):
    assert col in w80, col
assert "io" in w160 and "io" not in w80, (w80, w160)
print("160 columns add: antennas %s; writers %s"
      % (" ".join(c for c in a160 if c not in a80), " ".join(c for c in w160 if c not in w80)))
PY
ok "80 x 30 screen: no line wraps; per antenna the summary's counts, newest frame UTC, age; per writer its --name, lag (the throttled one further behind), MB/s (the throttled one at its --max-rate), lost, files, disk free = statvfs, time left = free / rate, the remove-oldest one's 'recycles'"
ok "160 x 30 screen: the same and more columns"
python3 - "$T/fast.json" "$T/slow.json" "$T/sum.json" <<'PY' || fail "writers' end figures"
import json, sys
f, sl, s = (json.load(open(p)) for p in sys.argv[1:])
placed = sum(a["placed"] for a in s["buffers"]["antennas"])
assert f["written"] == placed and sl["written"] == placed, (f["written"], sl["written"], placed)
PY
ok "both writers wrote every placed frame"
echo "$CHECKS checks passed"
