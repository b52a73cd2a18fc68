#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_codifcheck (run once; the files are committed):
small codif files (clean, gap placeholders, damaged), VDIF and legacy CODIF,
pcap and pcapng captures, a raw index, random bytes and an empty file."""
import json
import os
import random
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)

# (word, lowest bit, bits) of each header field, as codif.md's table
FIELDS = {
    "frame": (0, 0, 32), "seconds": (0, 32, 32), "epoch": (1, 0, 8), "nbits": (1, 8, 8),
    "invalid": (1, 17, 1), "complex": (1, 18, 1), "representation": (1, 20, 4),
    "version": (1, 24, 5), "protocol": (1, 29, 3), "period": (1, 48, 16),
    "threadid": (2, 0, 16), "groupid": (2, 16, 16), "secondaryid": (2, 32, 16),
    "stationid": (2, 48, 16), "nchan": (3, 0, 16), "blocklength": (3, 16, 16),
    "framelength8": (3, 32, 32), "totalsamples": (4, 0, 64), "sync": (5, 0, 32),
}
DEFAULTS = dict(seconds=5918400, epoch=50, representation=1, version=3, protocol=7,
                period=27, groupid=257, stationid=0x414B, blocklength=1, sync=0xFEEDCAFE,
                nbits=8, nchan=1, framelength8=4, totalsamples=64000)


def hdr(**kw):
    """64 header bytes; 32 data bytes of 1 channel x 8 bits real by default
    (32 samples a frame, 2000 frames per 27 s period)."""
    vals = dict(DEFAULTS, **kw)
    words = [0] * 8
    for name, v in vals.items():
        w, lo, n = FIELDS[name]
        words[w] |= (v & ((1 << n) - 1)) << lo
    return struct.pack("<8Q", *words)


def frame(f, thread=0, data=None, **kw):
    return hdr(frame=f, threadid=thread, **kw) + (data if data is not None else bytes(range(32)))


def rows(indices, threads=(0, 1), **kw):
    return b"".join(frame(f, t, **kw) for f in indices for t in threads)


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def eth_udp(payload, src="10.17.0.211", dst="239.17.0.1", port=36001):
    """Ethernet + IPv4 (with its checksum) + UDP around payload."""
    ip = bytearray(struct.pack("!BBHHHBBH", 0x45, 0, 28 + len(payload), 1, 0, 1, 17, 0)
                   + bytes(int(x) for x in src.split(".")) + bytes(int(x) for x in dst.split(".")))
    ip[10:12] = struct.pack("!H", csum(bytes(ip)))
    d = [int(x) for x in dst.split(".")]
    mac = bytes([0x01, 0x00, 0x5e, d[1] & 0x7f, d[2], d[3]])
    return (mac + bytes([2, 0, 0, 0x17, 0, 0]) + struct.pack("!H", 0x0800) + bytes(ip)
            + struct.pack("!HHHH", port, port, 8 + len(payload), 0) + payload)


def pcap(pkts):
    b = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)
    for i, p in enumerate(pkts):
        b += struct.pack("<IIII", 1735689600, 1000 * i, len(p), len(p)) + p
    return b


def pad4(b):
    return b + bytes((4 - len(b) % 4) % 4)


def pcapng(pkts):
    shb_body = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    b = struct.pack("<II", 0x0A0D0D0A, 12 + len(shb_body)) + shb_body + struct.pack("<I", 12 + len(shb_body))
    idb_body = struct.pack("<HHI", 1, 0, 65535)
    b += struct.pack("<II", 1, 12 + len(idb_body)) + idb_body + struct.pack("<I", 12 + len(idb_body))
    for i, p in enumerate(pkts):
        ts = 1735689600 * 1000000 + i
        body = struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(p), len(p)) + pad4(p)
        b += struct.pack("<II", 6, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    return b


def raw_index():
    h = hdr()
    return json.dumps({
        "format": "dpdk-ibvcap-raw", "version": 1,
        "antenna": {"index": 0, "name": "ant0", "src": "10.17.0.211"},
        "data_bytes": 32, "rows": 3, "first_index": 0,
        "streams": [{"slot": 0, "dst": "239.17.0.1", "port": 36001, "station": "AK",
                     "groupid": 257, "secondaryid": 0, "threadid": 0, "header": h.hex()}],
        "params": {"nchan": 1, "nbits": 8, "complex": False, "representation": 1,
                   "period": 27, "totalsamples": 64000, "frames_per_period": 2000,
                   "frame_ns": 13500000, "epoch": 50},
        "first_frame": {"seconds": 5918400, "frame": 0,
                        "utc": "2025-03-10T12:00:00.000000000Z"},
        "gaps": [{"slot": 0, "first": 1, "count": 1, "utc": "x"}],
        "invalid": [],
    }, indent=1).encode() + b"\0" + bytes(range(96))  # NUL, then the raw data


clean = rows(range(4))
rng = random.Random(7)
seeds = {
    "codif-clean": clean,
    "codif-gap-placeholder": rows([0]) + frame(1, 0, data=bytes(32), invalid=1) + frame(1, 1) + rows([2]),
    "codif-missing": rows([0, 1, 4]),
    "codif-bad-sync": clean[:96] + frame(0, 1, sync=0x12345678) + clean[192:],
    "codif-short-frame": clean[:80] + clean[96:],
    "codif-truncated": clean[:-10],
    "codif-header-only": clean[:40],
    "codif-backwards": rows([0, 2, 1, 1]),
    "codif-param-change": rows([0]) + frame(1, nchan=2),
    "vdif": b"".join(struct.pack("<IIII", 100, f, 8 + 4, 0x414B) + bytes(16) + bytes(64) for f in range(2)),
    "legacy-codif": bytes(28) + struct.pack("<I", 0xADEADBEE) + bytes(96),
    "pcap-small": pcap([eth_udp(frame(f)) for f in (0, 2, 1, 1)] + [eth_udp(frame(3)[:50])]),
    "pcap-truncated": pcap([eth_udp(frame(f)) for f in range(3)])[:-20],
    "pcap-header-only": pcap([])[:10],
    "pcapng-small": pcapng([eth_udp(frame(f)) for f in range(3)]),
    "raw-index": raw_index(),
    "random": bytes(rng.getrandbits(8) for _ in range(512)),
    "empty": b"",
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))
