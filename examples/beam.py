#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""ibvcap-beam in Python with numpy: the incoherent beam of examples/beam.c
(per CODIF thread, channel and frame, the sum over antennas of the sum over
the frame's time samples of |x|^2; frames lost or with their invalid bit
left out), written in the same record format:

  int64 frame index, int64 its UTC start (Unix ns),
  uint16 threadid, nchan, antennas, 0, then float32 power[nchan]

Samples are decoded by the library (Block.decode: lib/codif's codif_signal
encoding, float32 or complex64 arrays).

Usage: beam.py PREFIX NAME ANTMASK T FILE
"""
import struct
import sys

import numpy as np

import ibvcap


def block_beam(cap, blk):
    """{threadid: (power float32[frames, nchan], antennas int[frames])}"""
    frames = {}
    for k, a in enumerate(blk.ants):
        for s in range(blk.nstreams(k)):
            p = blk.params(k, s)
            if not p["nvalid"]:
                continue
            use = blk.valid(k, s) & ~blk.flagged(k, s)
            pw = np.zeros((blk.frames, p["nchan"]), dtype=np.float32)
            for i in np.flatnonzero(use):
                x = blk.decode(k, s, int(i))
                pw[i] = (np.abs(x) ** 2 if p["complex"] else x * x).sum(axis=0, dtype=np.float32)
            frames[(k, s)] = (cap.stream(a, s)["threadid"], pw, use)
    # frames the ring overwrote while we read them are left out
    blk.check()
    beams = {}
    for (k, s), (th, pw, use) in frames.items():
        use &= blk.valid(k, s)
        acc = beams.setdefault(th, [np.zeros_like(pw), np.zeros(blk.frames, dtype=int)])
        acc[0][use] += pw[use]
        acc[1][use] += 1
    return beams


def main():
    prefix, name, mask, T, out = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), \
        int(sys.argv[4]), sys.argv[5]
    with ibvcap.open(prefix, name) as cap, open(out, "wb") as f:
        cap.select([a for a in range(len(cap.antennas())) if mask >> a & 1], T)
        print("beam.py %s: attached to '%s'" % (name, prefix), file=sys.stderr, flush=True)
        for blk in cap.blocks():
            beams = block_beam(cap, blk)
            for i in range(blk.frames):
                for th in sorted(beams):
                    pw, n = beams[th]
                    if n[i]:
                        f.write(struct.pack("<qqHHHH", blk.index + i, blk.frame_time_ns(i), th,
                                            pw.shape[1], n[i], 0) + pw[i].tobytes())
        st = cap.stats()
    print("beam.py %s: the capture stopped: %d blocks, %d frames, %d overrun" %
          (name, st["blocks"], st["frames"], st["overrun"]), file=sys.stderr)


main()
