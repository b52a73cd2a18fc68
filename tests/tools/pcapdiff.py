#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare the packet bytes (not timestamps) of two pcap files, in order.
Reads classic pcap in either byte order and either time resolution.
Exit 0 when every packet is equal, 1 with the first difference."""
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise SystemExit("%s: not a pcap file (%d bytes)" % (path, len(hdr)))
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            e = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            e = ">"
        else:
            raise SystemExit("%s: bad pcap magic 0x%08x" % (path, magic))
        while True:
            rh = f.read(16)
            if not rh:
                return
            if len(rh) < 16:
                raise SystemExit("%s: truncated record header" % path)
            _, _, caplen, _ = struct.unpack(e + "IIII", rh)
            data = f.read(caplen)
            if len(data) < caplen:
                raise SystemExit("%s: truncated record" % path)
            yield data


def main():
    a, b = sys.argv[1], sys.argv[2]
    n = 0
    ia, ib = packets(a), packets(b)
    while True:
        pa, pb = next(ia, None), next(ib, None)
        if pa is None and pb is None:
            print("pcapdiff: %d packets identical" % n)
            return 0
        if pa is None or pb is None:
            print("pcapdiff: %s ends after %d packets, the other goes on"
                  % (a if pa is None else b, n))
            return 1
        if pa != pb:
            i = next((k for k in range(min(len(pa), len(pb))) if pa[k] != pb[k]), min(len(pa), len(pb)))
            print("pcapdiff: packet %d differs at byte %d (lengths %d, %d)" % (n + 1, i, len(pa), len(pb)))
            return 1
        n += 1


if __name__ == "__main__":
    sys.exit(main())
