#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_codif (run once; the files are committed)."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "codif")
os.makedirs(out, exist_ok=True)


def hdr(frame=0, seconds=5918400, epoch=50, nbits=16, invalid=0, cplx=1, period=27,
        thread=0, group=257, secondary=0, station=0x414B, nchan=4, fl8=1024,
        total=32000000, sync=0xFEEDCAFE, proto=7, version=3):
    w0 = frame | seconds << 32
    w1 = (epoch | nbits << 8 | invalid << 17 | cplx << 18 | 1 << 20 | version << 24
          | proto << 29 | period << 48)
    w2 = thread | group << 16 | secondary << 32 | station << 48
    w3 = nchan | 1 << 16 | fl8 << 32
    return struct.pack("<QQQQQQQQ", w0, w1, w2, w3, total, sync, 0, 0)


def rec(b):
    return struct.pack("<H", len(b)) + b


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth_udp(payload, src=(10, 17, 0, 211), dst=(239, 17, 0, 1), port=36001):
    ip_len = 20 + 8 + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0x4000, 1, 17, 0,
                     bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]  # a correct IPv4 checksum
    udp = struct.pack("!HHHH", port, port, 8 + len(payload), 0)
    return bytes([1, 0, 0x5e, 17, 0, 1, 2, 0, 0, 0x17, 0, 0]) + b"\x08\x00" + ip + udp + payload


small = dict(fl8=4, total=64000, nchan=1, nbits=8, cplx=0)  # 32-byte frames, FPP 2000
seeds = {
    "valid-header": rec(hdr()),
    "valid-frame-small": rec(hdr(**small) + bytes(32)),
    "sequence": b"".join(rec(hdr(frame=f, **small) + bytes(32)) for f in (0, 1, 3, 2, 2, 5)),
    "wrap": b"".join(rec(hdr(frame=f, seconds=s, **small) + bytes(32))
                     for s, f in ((27, 1998), (27, 1999), (54, 0), (54, 2))),
    "invalid-flag": b"".join(rec(hdr(frame=f, invalid=f & 1, **small) + bytes(32)) for f in range(4)),
    "param-change": rec(hdr(**small) + bytes(32)) + rec(hdr(frame=1, nchan=2, **{k: v for k, v in small.items() if k != "nchan"}) + bytes(32)),
    "vdif": rec(struct.pack("<IIII", 100, 5, 1028, 0) + bytes(48)),
    "legacy": rec(bytes(28) + struct.pack("<I", 0xADEADBEE) + bytes(32)),
    "bad-sync": rec(hdr(sync=0x12345678)),
    "truncated": rec(hdr()[:40]),
    "eth-frame": rec(eth_udp(hdr(**small) + bytes(32))),
    "eth-frames": b"".join(rec(eth_udp(hdr(frame=f, **small) + bytes(32))) for f in (0, 2, 1)),
    "time-string": rec(b"2025-03-10T12:00:13.5Z"),
    # timelines: a lone far frame (held, dropped), a permanent step (held,
    # confirmed: a resync), a burst of loss beyond the reorder window, new
    # parameters for good, seconds off the grid
    "stray": b"".join(rec(hdr(frame=f, seconds=(540000 if f == 3 else 27), **small) + bytes(32))
                      for f in range(8)),
    "step": b"".join(rec(hdr(frame=f % 2000, seconds=(27 if f < 4 else 27 * 400) + 27 * (f // 2000), **small) + bytes(32))
                     for f in range(12)),
    "burst": b"".join(rec(hdr(frame=f, **small) + bytes(32)) for f in (0, 1, 2, 300, 301, 302, 303, 304)),
    "new-params": b"".join(rec(hdr(frame=f, **(small if f < 3 else dict(small, nbits=4, total=128000)))
                               + bytes(32)) for f in range(10)),
    "off-grid": b"".join(rec(hdr(frame=f, seconds=27 + (5 if f >= 2 else 0), **small) + bytes(32))
                         for f in range(8)),
    "eth-step": b"".join(rec(eth_udp(hdr(frame=f, seconds=(27 if f < 3 else 27 * 90), **small) + bytes(32)))
                         for f in range(10)),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))
