#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# info and verify read a file in constant memory: the peak RSS on a ~1 GiB
# codif file is not meaningfully larger than on a ~100 MiB one (< 1.3x and
# < 64 MiB), and both count every frame. The files live in $T only.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck

# N rows of 2 streams (threads 0, 1), 8192 data bytes: codifgen's layout,
# written directly (codifgen would spend minutes on the payload pattern)
mkcodif() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
path, rows = sys.argv[1], int(sys.argv[2])
fpp = 62500
w1 = 50 | 16 << 8 | 1 << 18 | 1 << 20 | 3 << 24 | 7 << 29 | 27 << 48
w3 = 4 | 1 << 16 | 1024 << 32
data = bytes(8192)
with open(path, "wb", buffering=1 << 22) as f:
    for r in range(rows):
        w0 = (r % fpp) | (27 * (r // fpp)) << 32
        for t in (0, 1):
            f.write(struct.pack("<QQQQQQQQ", w0, w1, t | 257 << 16 | 0x414B << 48, w3,
                                32000000, 0xFEEDCAFE, 0, 0))
            f.write(data)
PY
}

# Peak RSS (KiB) of one run of codifcheck, its stdout to $1: the process's
# own VmHWM, read from /proc while it runs (ru_maxrss of a child would also
# count the Python process it was forked from, ~14 MiB); and ru_maxrss too,
# an upper bound. Prints "HWM MAXRSS".
peak() {
	local out=$1
	shift
	python3 - "$out" "$@" <<'PY'
import os, resource, subprocess, sys, time
prog = os.path.basename(sys.argv[2])
for attempt in range(5):
    hwm = 0
    with open(sys.argv[1], "w") as f:
        p = subprocess.Popen(sys.argv[2:], stdout=f)
        while p.poll() is None:
            try:
                # only once it is codifcheck: before exec it is a Python copy
                argv0 = open("/proc/%d/cmdline" % p.pid, "rb").read().split(b"\0")[0]
                if os.path.basename(argv0.decode()) == prog:
                    for line in open("/proc/%d/status" % p.pid):
                        if line.startswith("VmHWM:"):
                            hwm = max(hwm, int(line.split()[1]))
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.002)
    if p.returncode != 0:
        sys.exit("exit %d: %s" % (p.returncode, " ".join(sys.argv[2:])))
    if hwm > 0:
        break
else:
    sys.exit("could not read the VmHWM of %s while it ran" % prog)
print(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

small_rows=6400      # 2 x 6400 x 8256 B = 101 MiB
big_rows=65000       # 2 x 65000 x 8256 B = 1.0 GiB (crosses a 27 s period)
mkcodif "$T/small.codif" $small_rows
mkcodif "$T/big.codif" $big_rows
expect_eq "big file size" "$(stat -c %s "$T/big.codif")" $((2 * big_rows * 8256))
for cmd in info verify; do
	read -r s smax < <(peak "$T/$cmd.small.out" "$CC" $cmd --json "$T/small.codif") ||
		fail "$cmd on 101 MiB failed"
	read -r b bmax < <(peak "$T/$cmd.big.out" "$CC" $cmd --json "$T/big.codif") ||
		fail "$cmd on 1 GiB failed"
	[ -n "$s" ] && [ -n "$b" ] || fail "$cmd: no RSS measured"
	echo "# $cmd peak RSS: $s KiB for 101 MiB, $b KiB for 1 GiB (ru_maxrss $smax, $bmax KiB)"
	[ "$b" -lt $((s * 13 / 10)) ] || fail "$cmd: peak RSS $b KiB on 1 GiB vs $s KiB on 101 MiB (>= 1.3x)"
	[ "$bmax" -lt $((64 * 1024)) ] || fail "$cmd: peak RSS $bmax KiB on 1 GiB (>= 64 MiB)"
	ok "$cmd: peak RSS $b KiB on 1 GiB < 1.3 x $s KiB on 101 MiB; < 64 MiB"
done
python3 - "$T/info.big.out" "$T/verify.big.out" $big_rows <<'PY' || fail "the 1 GiB file was not read whole"
import json, sys
info, ver, rows = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
assert info["frames_read"] == 2 * rows and len(info["streams"]) == 2, info["frames_read"]
for s in info["streams"]:
    assert s["expected"] == rows and s["received"] == rows and s["lost"] == 0, s
    assert s["last_frame_utc"] == "2025-01-01T00:00:28.079568000Z", s["last_frame_utc"]
assert ver["ok"] and ver["problems"] == 0, ver
PY
ok "1 GiB: every frame of both streams counted across the period wrap; verify clean"
rm -f "$T/small.codif" "$T/big.codif"
echo "$CHECKS checks passed"
