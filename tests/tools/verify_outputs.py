#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check dpdk-ibvcap's output files byte for byte against what was sent.

The reference is the generator's own pcap (what went on the wire). From it
every valid CODIF frame's first copy is known; for each stream the frames
that never arrived validly (lost) follow. Then, independently of the C code:

  codif: every frame is either a sent frame, byte for byte, or a gap frame
         for a lost frame (invalid bit set, zero data, the stream's header
         at that time); every sent frame appears once, rows in time order;
  raw:   every row/slot holds the sent frame's data or zeros where the index
         says gap; gap and invalid runs in the index are exactly the lost
         and invalid-flagged frames;
  pcap:  every packet is a sent packet byte for byte; every valid frame of
         the selected antennas appears once.

With --truth (codifgen's ground truth), the odd frames of timeline events
(bit flips, stray frames) are not good frames: none may appear in a file.
Each stream's good frames fall into segments, as a receiver must see them:
a new segment where the clock changes (parameters), where the stream steps
back beyond the receivers' window, or jumps ahead by more than their max
gap; files must not span two segments, and lost frames are counted within
segments only.

Usage: verify_outputs.py REF.pcap --format codif|raw|pcap [--antennas LIST]
                         [--truth TRUTH.json] FILE...
Exit 0 when all holds, 1 listing the first problems.
"""
import argparse
import collections
import glob
import json
import os
import struct
import sys


def pcap_records(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            e = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            e = ">"
        else:
            raise SystemExit("%s: not a pcap file" % path)
        nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
        while True:
            rh = f.read(16)
            if not rh:
                return
            if len(rh) < 16:
                raise SystemExit("%s: truncated record header" % path)
            s, sub, cap, orig = struct.unpack(e + "IIII", rh)
            data = f.read(cap)
            if len(data) < cap:
                raise SystemExit("%s: truncated record" % path)
            yield (s * 10**9 + (sub if nano else sub * 1000)), data, orig


def parse_udp(pkt):
    """(src, dst, dport, payload) of an Ethernet/VLAN/IPv4/UDP frame, or None."""
    off = 12
    if len(pkt) < 14:
        return None
    et = struct.unpack("!H", pkt[12:14])[0]
    while et in (0x8100, 0x88A8):
        off += 4
        if len(pkt) < off + 2:
            return None
        et = struct.unpack("!H", pkt[off:off + 2])[0]
    off += 2
    if et != 0x0800 or len(pkt) < off + 20:
        return None
    vihl = pkt[off]
    ihl = (vihl & 15) * 4
    if vihl >> 4 != 4 or ihl < 20:
        return None
    tot = struct.unpack("!H", pkt[off + 2:off + 4])[0]
    if off + tot > len(pkt) or pkt[off + 9] != 17:
        return None
    src = ".".join(str(b) for b in pkt[off + 12:off + 16])
    dst = ".".join(str(b) for b in pkt[off + 16:off + 20])
    u = off + ihl
    dport, ulen = struct.unpack("!HH", pkt[u + 2:u + 6])
    if ulen < 8 or u + ulen > off + tot:
        return None
    return src, dst, dport, pkt[u + 8:u + ulen]


class Hdr:
    def __init__(self, b):
        w = struct.unpack("<8Q", b[:64])
        self.raw = bytes(b[:64])
        self.frame = w[0] & 0xFFFFFFFF
        self.seconds = w[0] >> 32
        self.epoch = w[1] & 0xFF
        self.invalid = (w[1] >> 17) & 1
        self.protocol = (w[1] >> 29) & 7
        self.period = w[1] >> 48
        self.thread = w[2] & 0xFFFF
        self.group = (w[2] >> 16) & 0xFFFF
        self.secondary = (w[2] >> 32) & 0xFFFF
        self.station = w[2] >> 48
        self.nchan = w[3] & 0xFFFF
        self.fl8 = w[3] >> 32
        self.total = w[4]
        self.sync = w[5] & 0xFFFFFFFF
        self.nbits = (w[1] >> 8) & 0xFF
        self.complex = (w[1] >> 18) & 1

    def ids(self):
        return (self.station, self.group, self.secondary, self.thread)

    def fpp(self):
        bps = self.nchan * self.nbits * (2 if self.complex else 1)
        return self.total // (self.fl8 * 64 // bps)


def strip_time(raw):
    """Header bytes without frame/seconds (word 0) and the invalid bit."""
    w1 = struct.unpack("<Q", raw[8:16])[0] & ~(1 << 17)
    return struct.pack("<Q", w1) + raw[16:64]


def clock_of(h):
    """(period, fpp, epoch, phase) of a header: its timeline clock."""
    return (h.period, h.fpp(), h.epoch, h.seconds % h.period)


def abs_index(h):
    """The frame index on the header's own clock (lib/codif's)."""
    return ((h.seconds - h.seconds % h.period) // h.period) * h.fpp() + h.frame


class Seg:
    """A stretch of one stream on one clock: the indexes sent, their
    bounds, and (once asked, kept until the next add) those missing."""

    def __init__(self, clock, h0):
        self.clock, self.hdr0, self.idx = clock, h0, set()
        self.lo = self.hi = None
        self._lost = None

    def add(self, n):
        self.idx.add(n)
        self.lo = n if self.lo is None or n < self.lo else self.lo
        self.hi = n if self.hi is None or n > self.hi else self.hi
        self._lost = None

    def lost(self):
        if self._lost is None:
            self._lost = set(range(self.lo, self.hi + 1)) - self.idx
        return self._lost


class Ref:
    """What was sent: good frames by (src, ids, seconds, frame), and each
    stream's segments."""

    def __init__(self, path, truth=None):
        odd = set()
        window, max_gap = 4096, 2314
        if truth is not None:
            rcv = truth["config"].get("receiver", {})
            window = rcv.get("window", window)
            max_gap = rcv.get("max_gap_frames", max_gap)
            for e in truth.get("events", []):
                for o in e.get("odd_frames", []):
                    odd.add(bytes.fromhex(o["header"]))
        self.odd_sent = 0
        self.frames = {}     # key -> (packet, codif bytes, hdr)
        self.streams = {}    # (src, ids) -> dict(dst, port, hdr0, segs)
        for _, pkt, orig in pcap_records(path):
            u = parse_udp(pkt)
            if u is None or len(pkt) != orig:
                continue
            src, dst, dport, pl = u
            if len(pl) < 64:
                continue
            if bytes(pl[:64]) in odd:
                self.odd_sent += 1
                continue
            h = Hdr(pl)
            if h.sync != 0xFEEDCAFE or h.protocol != 7 or len(pl) != 64 + h.fl8 * 8:
                continue
            key = (src, h.ids(), h.seconds, h.frame)
            if key not in self.frames:
                self.frames[key] = (pkt, bytes(pl), h)
            sk = (src, h.ids())
            st = self.streams.setdefault(sk, {"dst": dst, "port": dport, "hdr0": h, "segs": []})
            segs, c, n = st["segs"], clock_of(h), abs_index(h)
            cur = segs[-1] if segs else None
            if (cur is None or cur.clock != c or n > cur.hi + 1 + max_gap or
                    n <= cur.hi - window):
                cur = Seg(c, h)
                segs.append(cur)
            cur.add(n)

    def seg(self, sk, h):
        """The segment of stream sk that a header (sent or a gap frame) is in."""
        c, n = clock_of(h), abs_index(h)
        for g in self.streams[sk]["segs"]:
            if g.clock == c and g.lo <= n <= g.hi:
                return g
        return None

    def is_lost(self, sk, h):
        g = self.seg(sk, h)
        return g is not None and abs_index(h) in g.lost()

    def lost_total(self, sk):
        return sum(len(g.lost()) for g in self.streams[sk]["segs"])


def antenna_map(spec):
    m = {}
    if spec:
        for item in spec.split(","):
            name, ip = item.split("=")
            m[name] = ip
    else:
        for i in range(64):
            m["ant%d" % i] = "10.17.0.%d" % (211 + i)
    return m


def antenna_of(path, amap):
    base = os.path.basename(path)
    parts = base.split("_")
    if len(parts) < 3:
        raise SystemExit("%s: not a dpdk-ibvcap file name" % path)
    return parts[1]


def check_codif(ref, files, amap, errors, partial=False, placeholders=None):
    seen = collections.Counter()
    gaps = 0
    for path in files:
        ant = antenna_of(path, amap)
        src = amap.get(ant)
        data = open(path, "rb").read()
        off = 0
        last = {}
        while off < len(data):
            h = Hdr(data[off:off + 64])
            n = 64 + h.fl8 * 8
            frame = data[off:off + n]
            if len(frame) < n:
                errors.append("%s@%d: truncated frame" % (path, off))
                break
            key = (src, h.ids(), h.seconds, h.frame)
            sk = (src, h.ids())
            if sk not in ref.streams:
                errors.append("%s@%d: stream %s was never sent" % (path, off, sk))
                break
            g = ref.seg(sk, h)
            if g is None:
                errors.append("%s@%d: frame %s in no segment of its stream (an odd frame?)"
                              % (path, off, key))
                break
            idx = abs_index(h)
            if sk in last and (last[sk][0] is not g or idx != last[sk][1] + 1):
                errors.append("%s@%d: stream %s index %d after %d%s (rows not contiguous)"
                              % (path, off, sk, idx, last[sk][1],
                                 "" if last[sk][0] is g else " of another segment"))
            last[sk] = (g, idx)
            if key in ref.frames and frame == ref.frames[key][1]:
                seen[key] += 1
            elif key in ref.frames and partial and h.invalid and not any(frame[64:]):
                # a placeholder for a row the writer fell behind on
                placeholders[0] += 1
            elif key in ref.frames:
                errors.append("%s@%d: frame %s differs from the one sent" % (path, off, key))
            else:
                # a gap frame: lost, invalid bit, zero data, the segment's header
                if not ref.is_lost(sk, h):
                    errors.append("%s@%d: frame %s neither sent nor lost" % (path, off, key))
                elif not h.invalid:
                    errors.append("%s@%d: gap frame %s without the invalid bit" % (path, off, key))
                elif any(frame[64:]):
                    errors.append("%s@%d: gap frame %s with non-zero data" % (path, off, key))
                elif strip_time(h.raw) != strip_time(g.hdr0.raw):
                    errors.append("%s@%d: gap frame %s header differs from its stream's" % (path, off, key))
                gaps += 1
            off += n
            if len(errors) > 20:
                return seen, gaps
    return seen, gaps


def check_raw(ref, files, amap, errors, partial=False, placeholders=None):
    seen = collections.Counter()
    gaps = 0
    for path in files:
        if not path.endswith(".raw"):
            continue
        idx = json.load(open(path + ".json"))
        src = idx["antenna"]["src"]
        D = idx["data_bytes"]
        slots = idx["streams"]
        S = len(slots)
        fpp = idx["params"]["frames_per_period"]
        period = idx["params"]["period"]
        sec0, fr0 = idx["first_frame"]["seconds"], idx["first_frame"]["frame"]
        rows = idx["rows"]
        data = open(path, "rb").read()
        if len(data) != rows * S * D:
            errors.append("%s: %d bytes, index says %d rows x %d streams x %d" % (path, len(data), rows, S, D))
            continue
        over_rows = set()
        for g in idx.get("overrun", []):
            over_rows.update(range(g["first"], g["first"] + g["count"]))
        gap_set = set()
        for g in idx["gaps"]:
            for r in range(g["first"], g["first"] + g["count"]):
                gap_set.add((g["slot"], r))
        inv_set = set()
        for g in idx["invalid"]:
            for r in range(g["first"], g["first"] + g["count"]):
                inv_set.add((g["slot"], r))
        for k, sl in enumerate(slots):
            ids = (int.from_bytes(b"".join([]), "little") or 0, sl["groupid"], sl["secondaryid"], sl["threadid"])
            station = (ord(sl["station"][0]) << 8) | ord(sl["station"][1])
            ids = (station, sl["groupid"], sl["secondaryid"], sl["threadid"])
            sk = (src, ids)
            if sk not in ref.streams:
                errors.append("%s: slot %d stream %s never sent" % (path, sl["slot"], sk))
                continue
            for r in range(rows):
                n = fr0 + r
                sec = sec0 + (n // fpp) * period
                fr = n % fpp
                key = (src, ids, sec, fr)
                chunk = data[(r * S + k) * D:(r * S + k + 1) * D]
                ph = type("H", (), {"seconds": sec, "period": period, "frame": fr,
                                    "epoch": idx["params"]["epoch"],
                                    "fpp": lambda self=None: fpp})()
                if r in over_rows:
                    if any(chunk):
                        errors.append("%s: row %d (overrun) not zero" % (path, r))
                    placeholders[0] += 1
                elif key in ref.frames:
                    sent = ref.frames[key]
                    if chunk != sent[1][64:]:
                        errors.append("%s: row %d slot %d: data differs from frame %s" % (path, r, sl["slot"], key))
                    if (sl["slot"], r) in gap_set:
                        errors.append("%s: row %d slot %d listed as gap, but frame %s was sent" % (path, r, sl["slot"], key))
                    if bool(sent[2].invalid) != ((sl["slot"], r) in inv_set):
                        errors.append("%s: row %d slot %d: invalid runs disagree (sent invalid=%d)" % (path, r, sl["slot"], sent[2].invalid))
                    seen[key] += 1
                else:
                    if not ref.is_lost(sk, ph):
                        errors.append("%s: row %d slot %d: frame %s neither sent nor lost" % (path, r, sl["slot"], key))
                    if (sl["slot"], r) not in gap_set:
                        errors.append("%s: row %d slot %d: lost frame %s not in the index gaps" % (path, r, sl["slot"], key))
                    if any(chunk):
                        errors.append("%s: row %d slot %d: gap not zero-filled" % (path, r, sl["slot"]))
                    gaps += 1
                if len(errors) > 20:
                    return seen, gaps
    return seen, gaps


def check_pcap(ref, files, amap, errors, partial=False, placeholders=None):
    seen = collections.Counter()
    for path in files:
        for _, pkt, orig in pcap_records(path):
            u = parse_udp(pkt)
            if u is None:
                errors.append("%s: a packet that is not IPv4/UDP" % path)
                continue
            src, dst, dport, pl = u
            h = Hdr(pl)
            key = (src, h.ids(), h.seconds, h.frame)
            if key not in ref.frames:
                errors.append("%s: packet %s was not sent validly" % (path, key))
            elif pkt != ref.frames[key][0]:
                errors.append("%s: packet %s differs from the one sent" % (path, key))
            seen[key] += 1
            if len(errors) > 20:
                break
    return seen, 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ref")
    ap.add_argument("--format", required=True, choices=["codif", "raw", "pcap"])
    ap.add_argument("--antennas", help="NAME=IP,... (default ant<i>=10.17.0.<211+i>)")
    ap.add_argument("--only", help="source IPs the files should cover (default: all sent)")
    ap.add_argument("--truth", help="codifgen's ground truth: its events' odd frames "
                    "are not good frames")
    ap.add_argument("--partial", action="store_true",
                    help="files from a writer that did not see the whole run: every "
                         "frame in them must be right, not every frame be there")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    files = []
    for f in a.files:
        files += sorted(glob.glob(os.path.join(f, "*." + a.format))) if os.path.isdir(f) else [f]
    if any(f.endswith(".part") for f in files):
        print("verify_outputs: .part files present: %s" % [f for f in files if f.endswith(".part")])
        return 1
    if not files:
        print("verify_outputs: no %s files" % a.format)
        return 1
    ref = Ref(a.ref, json.load(open(a.truth)) if a.truth else None)
    amap = antenna_map(a.antennas)
    errors = []
    fn = {"codif": check_codif, "raw": check_raw, "pcap": check_pcap}[a.format]
    placeholders = [0]
    seen, gaps = fn(ref, files, amap, errors, a.partial, placeholders)
    only = set(a.only.split(",")) if a.only else set(k[0] for k in ref.frames)
    want = [k for k in ref.frames if k[0] in only]
    missing = [k for k in want if seen[k] == 0]
    dup = [k for k, c in seen.items() if c > 1]
    if missing and not a.partial:
        errors.append("%d sent frames missing, e.g. %s" % (len(missing), missing[:3]))
    if dup:
        errors.append("%d frames written more than once, e.g. %s" % (len(dup), dup[:3]))
    lost_total = sum(ref.lost_total(sk) for sk in ref.streams if sk[0] in only)
    if a.format in ("codif", "raw") and gaps != lost_total and not a.partial:
        errors.append("%d gap frames written, %d frames were lost" % (gaps, lost_total))
    for e in errors[:20]:
        print("PROBLEM " + e)
    if errors:
        return 1
    print("verify_outputs: %d %s files: %d frames byte for byte as sent, %d gaps exactly where "
          "frames were lost%s" % (len(files), a.format, sum(seen.values()), gaps,
                                  ", %d placeholders for frames the writer lost" % placeholders[0]
                                  if placeholders[0] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
