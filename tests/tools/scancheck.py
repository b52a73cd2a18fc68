#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a writer's scans against what was sent.

For each scan NAME:START_NS:STOP_NS[:ANT,...] (antenna indexes; all when
none), from the generator's pcap and truth alone: the frames sent whose
CODIF data time is in [START, STOP) per antenna (first copies, valid
frames), and the frames lost there (each stream's frame grid, from the
truth's first frame and the frame period, minus those sent). Then, from
the writer's directory DIR (codif format):

  - DIR holds scan directories only (nothing was written outside a scan),
    exactly the scans given that have frames;
  - DIR/NAME/PREFIX_ANTENNA_TIME.codif: every frame in them has its data
    time in [START, STOP); per antenna, the valid frames = the truth's
    received ones there, the gap frames = the truth's lost ones there;
  - DIR/NAME/PREFIX_scan.codif.json (the scan's index) says the same
    counts, the bounds given, and first/last frames inside them.

Usage: scancheck.py SENT.pcap TRUTH.json DIR PREFIX SCAN... (--frame-ns N)
Prints one line per scan; exit 1 naming the first difference.
"""
import argparse
import collections
import glob
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprec import records, src, codif_time_ns  # noqa: E402


def hdr_time_ns(h):
    """Data time of a CODIF header (bytes), as pcaprec.codif_time_ns."""
    fake = b"\x00" * 12 + b"\x08\x00" + b"\x45" + b"\x00" * 19 + b"\x00" * 8 + h
    return codif_time_ns(fake)


def codif_frames(path):
    """(time, valid, stream key) of each frame of a codif file."""
    d = open(path, "rb").read()
    off = 0
    while off + 64 <= len(d):
        w = struct.unpack("<8Q", d[off:off + 64])
        flen = (w[3] >> 32) * 8
        invalid = (w[1] >> 17) & 1
        thread = w[2] & 0xFFFF
        yield hdr_time_ns(d[off:off + 64]), not invalid, thread
        off += 64 + flen
    if off != len(d):
        raise SystemExit("%s: %d trailing bytes" % (path, len(d) - off))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sent")
    ap.add_argument("truth")
    ap.add_argument("dir")
    ap.add_argument("prefix")
    ap.add_argument("scans", nargs="+")
    ap.add_argument("--frame-ns", type=int, default=432000)
    a = ap.parse_args()

    truth = json.load(open(a.truth))
    ant_of = {x["src"]: i for i, x in enumerate(truth["antennas"])}
    streams = collections.defaultdict(list)  # antenna -> (first, last) per stream
    for s in truth["streams"]:
        streams[s["antenna"]].append((s["first_frame_ns"], s["last_frame_ns"]))
    seen = set()
    for p in records(a.sent):
        t = codif_time_ns(p)
        s = src(p)
        if t is None or s is None:
            continue
        o = 14 if p[12:14] != b"\x81\x00" else 18
        w1, w2 = struct.unpack("<QQ", p[o + 36:o + 52])
        key = (s, p[o + 16:o + 20], p[o + 22:o + 24], w2 & 0xFFFFFFFF, t)
        invalid = (w1 >> 17) & 1
        if not invalid:
            seen.add(key)
    sent_at = collections.defaultdict(list)
    for (s, _, _, _, t) in seen:
        sent_at[ant_of[".".join(str(b) for b in s)]].append(t)

    names = []
    bad = []
    for spec in a.scans:
        parts = spec.split(":")
        name, start, stop = parts[0], int(parts[1]), int(parts[2])
        ants = [int(x) for x in parts[3].split(",")] if len(parts) > 3 else sorted(streams)
        want = {}
        for ant in ants:
            rec = sum(1 for t in sent_at[ant] if start <= t < stop)
            grid = 0
            for first, last in streams[ant]:
                # frames of the stream's grid inside [start, stop)
                k0 = -(-(max(start, first) - first) // a.frame_ns)
                k1 = -(-(min(stop, last + 1) - first) // a.frame_ns)
                grid += max(0, k1 - k0)
            want["ant%d" % ant] = (rec, grid - rec)
        want = {k: v for k, v in want.items() if v[0] or v[1]}
        d = os.path.join(a.dir, name)
        if not want:
            if os.path.exists(d):
                bad.append("%s: a directory for a scan with no frames" % name)
            continue
        names.append(name)
        got = collections.defaultdict(lambda: [0, 0])
        files = sorted(glob.glob(os.path.join(d, "*.codif")))
        for f in files:
            m = re.match(re.escape(a.prefix) + r"_(ant\d+)_\d{8}T\d{6}\.\d{9}Z\.codif$",
                         os.path.basename(f))
            if not m:
                bad.append("%s: file name not PREFIX_ANTENNA_TIME.codif" % f)
                continue
            for t, valid, _ in codif_frames(f):
                if not start <= t < stop:
                    bad.append("%s: a frame at %d outside [%d, %d)" % (f, t, start, stop))
                    break
                got[m.group(1)][0 if valid else 1] += 1
        got = {k: tuple(v) for k, v in got.items()}
        if got != want:
            bad.append("%s: files hold (frames, gaps) %s, the truth %s" %
                       (name, sorted(got.items()), sorted(want.items())))
        idx = os.path.join(d, "%s_scan.codif.json" % a.prefix)
        try:
            j = json.load(open(idx))
        except (OSError, ValueError) as e:
            bad.append("%s: index: %s" % (name, e))
            continue
        ji = {x["antenna"]: (x["frames"], x["placeholders"]) for x in j["antennas"]}
        if ji != want:
            bad.append("%s: index says %s, the truth %s" % (name, sorted(ji.items()),
                                                            sorted(want.items())))
        if (j["scan"], j["start_ns"], j["stop_ns"]) != (name, start, stop):
            bad.append("%s: index bounds %s %s %s" % (name, j["scan"], j["start_ns"],
                                                      j["stop_ns"]))
        for x in j["antennas"]:
            if not (start <= x["first_ns"] <= x["last_ns"] < stop):
                bad.append("%s: index first/last %s outside" % (name, x))
        print("%s: %d files, frames %d, gaps %d, per antenna as the truth" %
              (name, len(files), sum(v[0] for v in want.values()),
               sum(v[1] for v in want.values())))
    extra = sorted(set(os.listdir(a.dir)) - set(names))
    if extra:
        bad.append("%s holds more than the scans %s: %s" % (a.dir, names, extra))
    if bad:
        print("\n".join(bad[:10]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
