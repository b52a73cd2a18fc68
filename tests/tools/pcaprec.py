# SPDX-License-Identifier: BSD-3-Clause
"""Packets of a classic pcap file (either byte order, either time
resolution) and the fields of an Ethernet[/VLAN]/IPv4/UDP/CODIF packet the
shell tests look at. Import it with sys.path pointing at tests/tools."""
import struct


def records(path):
    """Each record's captured bytes, in file order."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            yield f.read(struct.unpack(e + "IIII", rh)[2])


def l3(p):
    """Offset of the IPv4 header (after an optional VLAN tag), or None."""
    o = 18 if p[12:14] == b"\x81\x00" else 14
    return o if len(p) >= o + 20 and p[o - 2:o] == b"\x08\x00" else None


def src(p):
    """Source IPv4 address as 4 bytes, or None."""
    o = l3(p)
    return None if o is None else p[o + 12:o + 16]


def codif_time(p):
    """(epoch, seconds, frame) of the CODIF header after IPv4 (no options)
    and UDP."""
    o = l3(p) + 28
    w0, w1 = struct.unpack("<QQ", p[o:o + 16])
    return ((w1 >> 8) & 0xFF, (w0 >> 32) & 0x3FFFFFFF, w0 & 0xFFFFFFFF)
