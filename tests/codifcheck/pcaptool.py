#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Test helper, independent of the C code: read pcap/pcapng records, write
pcapng and pcap variants, pick out the valid CODIF frames of a capture.

  pcaptool.py to-pcapng IN.pcap OUT.pcapng
  pcaptool.py to-sll-us IN.pcap OUT.pcap  as tcpdump -i any writes: microsecond
                                  timestamps, Linux cooked (SLL) headers
  pcaptool.py merge OUT.pcap IN.pcap...  records of all, by time (ns pcap)
  pcaptool.py frames FILE...      JSON: {key: [sha1, ts_ns]} of valid frames
"""
import hashlib
import json
import struct
import sys

SYNC = 0xFEEDCAFE


def read_pcap(path):
    """[(ts_ns, caplen, wirelen, bytes)] of a classic pcap or a pcapng file."""
    b = open(path, "rb").read()
    magic = struct.unpack_from("<I", b)[0]
    if magic == 0x0A0D0D0A:
        return read_pcapng(b)
    nano = {0xa1b2c3d4: False, 0xa1b23c4d: True}[magic]
    off, out = 24, []
    while off + 16 <= len(b):
        sec, frac, cap, wire = struct.unpack_from("<IIII", b, off)
        off += 16
        out.append((sec * 10**9 + (frac if nano else frac * 1000), cap, wire, b[off:off + cap]))
        off += cap
    return out


def read_pcapng(b):
    off, out, unit = 0, [], 1000  # ns per tick: microseconds unless if_tsresol
    while off + 12 <= len(b):
        btype, blen = struct.unpack_from("<II", b, off)
        if btype == 1:
            o = off + 16
            while o + 4 <= off + blen - 4:
                code, olen = struct.unpack_from("<HH", b, o)
                if code == 0:
                    break
                if code == 9 and b[o + 4] < 128:
                    unit = 10 ** (9 - b[o + 4])
                o += 4 + olen + (4 - olen % 4) % 4
        if btype == 6:
            _, hi, lo, cap, wire = struct.unpack_from("<IIIII", b, off + 8)
            out.append(((hi << 32 | lo) * unit, cap, wire, b[off + 28:off + 28 + cap]))
        off += blen
    return out


def write_pcapng(records, path):
    """SHB, an Ethernet IDB with if_tsresol 9 (ns), one EPB per record."""
    def block(t, body):
        return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    opt = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)
    idb = block(1, struct.pack("<HHI", 1, 0, 65535) + opt)
    with open(path, "wb") as f:
        f.write(shb + idb)
        for ts, cap, wire, data in records:
            pad = bytes((4 - cap % 4) % 4)
            f.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, cap, wire)
                          + data + pad))


def write_pcap(records, path):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for ts, cap, wire, data in records:
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, cap, wire) + data)


def write_sll_us(records, path):
    """Microsecond pcap, link type LINUX_SLL (113): each Ethernet header
    replaced by the 16-byte cooked header that keeps only its ethertype."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 113))
        for ts, cap, wire, data in records:
            sll = struct.pack("!HHH8s", 0, 1, 6, data[6:12] + bytes(2)) + data[12:14]
            body = sll + data[14:]
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9 // 1000, len(body),
                                wire + 2) + body)


def codif_of(data):
    """(src, codif bytes) when data is a valid CODIF frame in IPv4/UDP, else None."""
    off = 12
    etype = struct.unpack_from("!H", data, off)[0] if len(data) >= 14 else 0
    while etype in (0x8100, 0x88A8) and len(data) >= off + 6:
        off += 4
        etype = struct.unpack_from("!H", data, off)[0]
    off += 2
    if etype != 0x0800 or len(data) < off + 20:
        return None
    ihl = (data[off] & 15) * 4
    total = struct.unpack_from("!H", data, off + 2)[0]
    if data[off] >> 4 != 4 or ihl < 20 or total > len(data) - off or data[off + 9] != 17:
        return None
    src = ".".join(str(x) for x in data[off + 12:off + 16])
    udp = off + ihl
    ulen = struct.unpack_from("!H", data, udp + 4)[0]
    payload = data[udp + 8:udp + ulen]
    if len(payload) < 64 or ulen > total - ihl:
        return None
    w1, = struct.unpack_from("<Q", payload, 8)
    w3, = struct.unpack_from("<Q", payload, 24)
    sync, = struct.unpack_from("<I", payload, 40)
    if sync != SYNC or (w1 >> 29) & 7 != 7 or len(payload) != 64 + (w3 >> 32) * 8:
        return None
    return src, payload


def key(src, c):
    w0, w2 = struct.unpack_from("<Q", c, 0)[0], struct.unpack_from("<Q", c, 16)[0]
    return "%s %d/%d/%d %d.%d" % (src, (w2 >> 16) & 0xffff, (w2 >> 32) & 0xffff,
                                 w2 & 0xffff, w0 >> 32, w0 & 0xffffffff)


def frames(paths):
    """First copy of every valid frame: key -> [sha1 of header+data, ts]."""
    out = {}
    for p in paths:
        for ts, cap, wire, data in read_pcap(p):
            r = codif_of(data)
            if r is not None:
                out.setdefault(key(*r), [hashlib.sha1(r[1]).hexdigest(), ts])
    return out


def main():
    cmd = sys.argv[1]
    if cmd == "to-pcapng":
        write_pcapng(read_pcap(sys.argv[2]), sys.argv[3])
    elif cmd == "merge":
        recs = [r for p in sys.argv[3:] for r in read_pcap(p)]
        write_pcap(sorted(recs, key=lambda r: r[0]), sys.argv[2])
    elif cmd == "to-sll-us":
        write_sll_us(read_pcap(sys.argv[2]), sys.argv[3])
    elif cmd == "frames":
        json.dump(frames(sys.argv[2:]), sys.stdout)
    else:
        sys.exit("pcaptool: unknown command " + cmd)


if __name__ == "__main__":
    main()
