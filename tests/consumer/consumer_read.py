#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Python twin of consumer_read.c: reads aligned blocks through the
ibvcap module (numpy views) until the capture stops and writes every frame
of every block in consumer_read's record format for check_blocks.py, its
figures as JSON on stdout. The data of a valid frame comes from the
block's 2-D view (data()) where the frames are evenly spaced, else from
frame(); a frame whose valid bit the check cleared is marked torn.

Usage: consumer_read.py PREFIX NAME ANTMASK T FILE
"""
import json
import struct
import sys

import ibvcap

REC = struct.Struct("<IHHHHqqBBHI")


def main():
    prefix, name, mask, T, out = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), \
        int(sys.argv[4]), sys.argv[5]
    n = 0
    with ibvcap.open(prefix, name) as cap, open(out, "wb") as f:
        ants = cap.antennas()
        cap.select([a for a in range(len(ants)) if mask >> a & 1], T)
        print("consumer_read.py %s: attached to '%s' (%d antennas)" % (name, prefix, len(ants)),
              file=sys.stderr, flush=True)
        for blk in cap.blocks():
            assert blk.frames == T and blk.index % T == 0, (blk.frames, blk.index)
            recs = []
            for k, a in enumerate(blk.ants):
                src = int.from_bytes(bytes(map(int, ants[a]["src"].split("."))), "big")
                for s in range(blk.nstreams(k)):
                    p = blk.params(k, s)
                    if not p["data_bytes"]:
                        continue
                    st = cap.stream(a, s)
                    valid, flagged, rows = blk.valid(k, s), blk.flagged(k, s), blk.data(k, s)
                    arr = blk.arrival_ns(k, s)
                    assert ((arr > 0) == valid).all(), (blk.index, k, s)
                    for i in range(T):
                        d = (rows[i] if rows is not None else blk.frame(k, s, i)).tobytes() \
                            if valid[i] else b""
                        recs.append([src, st["stationid"], st["groupid"], st["threadid"],
                                     st["secondaryid"], blk.index + i, blk.frame_time_ns(i),
                                     int(valid[i]), int(flagged[i]), 0, len(d), d, k, s, i])
            if blk.check() > 0:
                for r in recs:  # torn: its data may be wrong
                    if r[7] and not blk.valid(r[12], r[13])[r[14]]:
                        r[7] = 2
            for r in recs:
                f.write(REC.pack(*r[:11]) + r[11])
            n += 1
        st = cap.stats()
    # EAL runs once per process: another instance is refused by name
    try:
        ibvcap.open(prefix + "x", name)
    except ibvcap.IbvcapError as e:
        assert "this process's DPDK EAL is attached to instance '%s'" % prefix in str(e), e
    else:
        raise SystemExit("a second instance opened in one process")
    print(json.dumps(dict(st, end="stopped", python_blocks=n)))


main()
