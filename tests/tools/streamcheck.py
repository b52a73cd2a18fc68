#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a capture's files and summary against streampcap.py's truth, read
here independently of the capture's code.

  streamcheck.py TRUTH.json --files FORMAT DIR [--whole NAME...] [--absent NAME...]
                 [--files-count N] [--summary SUM.json --expect NAME:KEY=V[,KEY=V...]...]

--files: every frame in DIR's files of FORMAT (codif, raw, pcap) is read:
  its header ids, time and size, whether it is a placeholder (codif: invalid
  bit and zero data; raw: listed in the index's gaps / overrun; pcap has
  none), and its data, whose pattern names the stream and frame it came
  from. A frame's labels (codif and pcap: its own header; raw: its slot's
  stream in the index) must be those of the stream its data came from.
--whole NAME: every frame of NAME that was sent is in the files exactly
  once, with its data, and no placeholder stands at any of its times.
--absent NAME: no frame of NAME is in the files.
--files-count N: the files of FORMAT number N.
--expect NAME:KEY=V: the summary's stream NAME (by its ids) has KEY = V
  (KEY: a counter, or no-slot / wrong-size / ... of not_recorded_by_cause);
  every stream of the summary that the truth names must have received =
  recorded + not_recorded and not_recorded = the sum of its causes.
Prints one line of what was checked; exit 1 with the reasons otherwise.
"""
import glob
import json
import os
import struct
import sys

FPS = 1000


def hdr_fields(h):
    w = struct.unpack("<8Q", h)
    return {"frame": w[0] & 0xffffffff, "seconds": w[0] >> 32,
            "invalid": (w[1] >> 17) & 1,
            "threadid": w[2] & 0xffff, "groupid": (w[2] >> 16) & 0xffff,
            "secondaryid": (w[2] >> 32) & 0xffff, "stationid": w[2] >> 48,
            "data_bytes": (w[3] >> 32) * 8}


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from streampcap import pattern, stream_ids  # noqa: E402


def data_owner(d, t, streams):
    """The stream whose frame at time t has data d (streampcap's pattern of
    the stream's ids and the time), None if none."""
    for si, s in enumerate(streams):
        for p in s["parts"]:
            t0 = p["first_seconds"] * FPS + p["first_frame"]
            if t0 <= t < t0 + p["count"] and len(d) == p["data_bytes"] and \
                    d[:8] == pattern(stream_ids(s), t // FPS, t % FPS, 8) and \
                    d == pattern(stream_ids(s), t // FPS, t % FPS, len(d)):
                return si, s["parts"].index(p), t - t0
    return None


def frames_codif(path):
    d = open(path, "rb").read()
    off = 0
    while off < len(d):
        h = hdr_fields(d[off:off + 64])
        n = h["data_bytes"]
        data = d[off + 64:off + 64 + n]
        ph = h["invalid"] == 1 and data.count(0) == len(data)
        yield h, data, ph
        off += 64 + n


def frames_pcap(path):
    d = open(path, "rb").read()
    off = 24
    while off < len(d):
        _, _, cl, _ = struct.unpack("<IIII", d[off:off + 16])
        pkt = d[off + 16:off + 16 + cl]
        off += 16 + cl
        ihl = (pkt[14] & 15) * 4
        c = 14 + ihl + 8
        h = hdr_fields(pkt[c:c + 64])
        yield h, pkt[c + 64:c + 64 + h["data_bytes"]], False


def frames_raw(path):
    ix = json.load(open(path + ".json"))
    d = open(path, "rb").read()
    n, D, rows = len(ix["streams"]), ix["data_bytes"], ix["rows"]
    if len(d) != rows * n * D:
        raise SystemExit("%s: %d bytes, index says %d x %d x %d" % (path, len(d), rows, n, D))
    holes = set()
    for key in ("gaps", "overrun"):
        for r in ix[key]:
            for k in range(r["first"], r["first"] + r["count"]):
                holes.add((r.get("slot", 0), k) if key == "gaps" else ("all", k))
    first = ix["first_frame"]["seconds"] * FPS + ix["first_frame"]["frame"]
    for r in range(rows):
        t = first + r
        for s, st in enumerate(ix["streams"]):
            h = {"frame": t % FPS, "seconds": t // FPS, "invalid": 0, "data_bytes": D,
                 "stationid": ord(st["station"][0]) << 8 | ord(st["station"][1])
                 if len(st["station"]) == 2 else int(st["station"]),
                 "groupid": st["groupid"], "secondaryid": st["secondaryid"],
                 "threadid": st["threadid"]}
            off = (r * n + s) * D
            yield h, d[off:off + D], (s, r) in holes or ("all", r) in holes


def main():
    a = sys.argv[1:]
    truth = json.load(open(a.pop(0)))
    st = truth["streams"]
    byname = {s["name"]: i for i, s in enumerate(st)}
    fmt = fdir = summary = None
    whole, absent, expects, nfiles = [], [], [], None
    mode = None
    while a:
        x = a.pop(0)
        if x == "--files":
            fmt, fdir = a.pop(0), a.pop(0)
        elif x == "--summary":
            summary = a.pop(0)
        elif x == "--files-count":
            nfiles = int(a.pop(0))
        elif x in ("--whole", "--absent", "--expect"):
            mode = x
        elif mode == "--whole":
            whole.append(x)
        elif mode == "--absent":
            absent.append(x)
        elif mode == "--expect":
            expects.append(x)
        else:
            sys.exit("streamcheck: unexpected argument '%s'" % x)
    errors, said = [], []
    if fmt is not None:
        ext = {"codif": ".codif", "raw": ".raw", "pcap": ".pcap"}[fmt]
        files = sorted(glob.glob(os.path.join(fdir, "**", "*" + ext), recursive=True))
        reader = {"codif": frames_codif, "raw": frames_raw, "pcap": frames_pcap}[fmt]
        seen = {}          # (stream, time) -> times seen
        holes = set()      # (ids, time) of placeholders
        nframes = nph = 0
        for f in files:
            for h, data, ph in reader(f):
                ids = (h["stationid"], h["groupid"], h["secondaryid"], h["threadid"])
                t = h["seconds"] * FPS + h["frame"]
                if ph:
                    holes.add((ids, t))
                    nph += 1
                    continue
                nframes += 1
                o = data_owner(data, t, st)
                if o is None:
                    errors.append("%s: a frame at %d (ids %s) whose data is no stream's" %
                                  (os.path.basename(f), t, ids))
                    continue
                si, part, n = o
                s = st[si]
                if ids != (s["stationid"], s["groupid"], s["secondaryid"], s["threadid"]):
                    errors.append("%s: a frame of stream %s labelled station %d groupid %d "
                                  "secondaryid %d threadid %d" %
                                  (os.path.basename(f), s["name"], *ids))
                p = s["parts"][part]
                tt = p["first_seconds"] * FPS + p["first_frame"] + n
                if tt != t or len(data) != p["data_bytes"]:
                    errors.append("%s: stream %s frame %d of part %d at time %d, %d bytes "
                                  "(sent at %d, %d bytes)" % (os.path.basename(f), s["name"], n,
                                                              part, t, len(data), tt,
                                                              p["data_bytes"]))
                seen[(si, tt)] = seen.get((si, tt), 0) + 1
        for name in whole:
            si = byname[name]
            s = st[si]
            ids = (s["stationid"], s["groupid"], s["secondaryid"], s["threadid"])
            n = 0
            for p in s["parts"]:
                t0 = p["first_seconds"] * FPS + p["first_frame"]
                for t in range(t0, t0 + p["count"]):
                    c = seen.get((si, t), 0)
                    if c != 1:
                        errors.append("%s: stream %s: frame at %d on disk %d times" %
                                      (fmt, name, t, c))
                    if (ids, t) in holes:
                        errors.append("%s: stream %s: a placeholder at %d where a frame "
                                      "was sent" % (fmt, name, t))
                    n += c
            said.append("%s: %s %d of %d frames" % (fmt, name, n, s["frames"]))
        for name in absent:
            si = byname[name]
            n = sum(c for (i, _), c in seen.items() if i == si)
            if n:
                errors.append("%s: stream %s: %d frames on disk, expected none" % (fmt, name, n))
            said.append("%s: %s absent" % (fmt, name))
        if nfiles is not None and len(files) != nfiles:
            errors.append("%s: %d files, expected %d" % (fmt, len(files), nfiles))
        said.append("%s: %d files, %d frames, %d placeholders" % (fmt, len(files), nframes, nph))
    if summary is not None:
        sm = json.load(open(summary))
        rows = {}
        for r in sm["streams"]:
            key = (r["station"], r["groupid"], r["secondaryid"], r["threadid"], r["dst"],
                   r["port"])
            rows.setdefault(key, []).append(r)

        def stream_row(s):
            got = rows.get((s["station"], s["groupid"], s["secondaryid"], s["threadid"],
                            s["dst"], s["port"]), [])
            t = {}
            for r in got:
                for k, v in r.items():
                    if isinstance(v, int) and k not in ("antenna", "groupid", "secondaryid",
                                                        "threadid", "port", "lcore"):
                        t[k] = t.get(k, 0) + v
                for k, v in r.get("not_recorded_by_cause", {}).items():
                    t[k] = t.get(k, 0) + v
            return t if got else None
        for s in st:
            t = stream_row(s)
            if t is None:
                errors.append("summary: no stream %s" % s["name"])
                continue
            causes = sum(t.get(c, 0) for c in ("no-slot", "wrong-size", "slot-held",
                                               "other-clock"))
            if t["received"] != t["recorded"] + t["not_recorded"] or t["not_recorded"] != causes:
                errors.append("summary: stream %s: received %d != recorded %d + not_recorded "
                              "%d (causes %d)" % (s["name"], t["received"], t["recorded"],
                                                  t["not_recorded"], causes))
        for e in expects:
            name, _, kvs = e.partition(":")
            t = stream_row(st[byname[name]]) or {}
            for kv in kvs.split(","):
                k, _, v = kv.partition("=")
                if t.get(k) != int(v):
                    errors.append("summary: stream %s: %s %s, expected %s" % (name, k, t.get(k),
                                                                              v))
            said.append("%s %s" % (name, kvs))
    if errors:
        print("\n".join(errors[:40]))
        sys.exit(1)
    print("; ".join(said))


if __name__ == "__main__":
    main()
