#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check examples/beam.c's incoherent beam against one computed here from
codifgen's pcap of what it sent, independently of the C code.

For 2-bit complex samples of 4 channels (the test's streams; anything
else is refused): a byte holds 4 components from its least significant
bits up; component k is time sample k // 8, channel (k % 8) // 2, I then Q;
a 2-bit code c is the two's complement value s (c - 4 when c >= 2; with
representation 0, offset binary, c ^ 2 first), and its level is s + 1/2
(docs/codif.md, lib/codif/codif_signal.h). The beam of a thread (a band of
channels; the group id tells antennas apart in codifgen's layout) at a
frame time is, per channel, the sum over antennas whose frame
arrived without its invalid bit of the sum of I^2 + Q^2 over the frame.

Usage: check_beam.py BEAM SENT.pcap
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sent import codif_packets  # noqa: E402


def level(c, repr_):
    if repr_ == 0:
        c ^= 2
    return (c - 4 if c >= 2 else c) + 0.5


def tables(repr_):
    """Per byte: power of its first two components (one channel's I, Q)
    and of its last two."""
    lo, hi = [], []
    for b in range(256):
        v = [level((b >> (2 * j)) & 3, repr_) for j in range(4)]
        lo.append(v[0] ** 2 + v[1] ** 2)
        hi.append(v[2] ** 2 + v[3] ** 2)
    return lo, hi


def expected(pcap):
    beams = {}
    seen = set()
    tabs = {}
    for src, w1, w2, w3, t, d in codif_packets(pcap):
        key = (src, w2, t)
        if key in seen:          # a duplicate: the first copy counts
            continue
        seen.add(key)
        if (w1 >> 17) & 1:       # its invalid bit: no data to use
            continue
        nbits, cplx, repr_ = (w1 >> 8) & 0xFF, (w1 >> 18) & 1, (w1 >> 20) & 0xF
        nchan = w3 & 0xFFFF
        if (nbits, cplx, nchan) != (2, 1, 4):
            raise SystemExit("check_beam.py decodes 2-bit complex 4-channel frames only, got "
                             "nbits %d complex %d nchan %d" % (nbits, cplx, nchan))
        lo, hi = tabs.setdefault(repr_, tables(repr_))
        ev, od = d[0::2], d[1::2]
        pw = [sum(map(lo.__getitem__, ev)), sum(map(hi.__getitem__, ev)),
              sum(map(lo.__getitem__, od)), sum(map(hi.__getitem__, od))]
        bk = (w2 & 0xFFFF, t)
        acc = beams.setdefault(bk, [0, [0.0] * 4])
        acc[0] += 1
        acc[1] = [a + b for a, b in zip(acc[1], pw)]
    return beams


def read_beam(path):
    out = {}
    d = open(path, "rb").read()
    off = 0
    while off < len(d):
        idx, t, th, nchan, nants, _ = struct.unpack_from("<qqHHHH", d, off)
        off += 24
        pw = struct.unpack_from("<%df" % nchan, d, off)
        off += 4 * nchan
        key = (th, t)
        if key in out:
            raise SystemExit("FAIL: beam record %s twice" % (key,))
        out[key] = (nants, list(pw), idx)
    return out


def main():
    got = read_beam(sys.argv[1])
    want = expected(sys.argv[2])
    errs = []
    for k, (n, pw) in want.items():
        if k not in got:
            errs.append("no beam record for thread %d at %d" % k)
            continue
        gn, gpw, _ = got[k]
        if gn != n or any(abs(a - b) > 1e-6 * max(1.0, b) for a, b in zip(gpw, pw)):
            errs.append("thread %d at %d: %d antennas %s, expected %d %s" %
                        (k + (gn, gpw, n, pw)))
    for k in got:
        if k not in want:
            errs.append("beam record for thread %d at %d: nothing usable was sent" % k)
    if errs:
        for e in errs[:20]:
            print("FAIL:", e)
        sys.exit(1)
    nants = sum(n for n, _ in want.values())
    full = sum(1 for n, _ in want.values() if n == 6)
    print("beam: %d records (thread x frame), %d of them with all 6 antennas, %d antenna "
          "frames summed, every power and antenna count as computed from the sent pcap" %
          (len(want), full, nants))


main()
