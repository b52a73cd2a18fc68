# SPDX-License-Identifier: BSD-3-Clause
"""Packets of a classic pcap file (either byte order, either time
resolution) and the fields of an Ethernet[/VLAN]/IPv4/UDP/CODIF packet the
shell tests look at. Import it with sys.path pointing at tests/tools."""
import datetime
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


def codif_time_ns(p):
    """Unix ns of the CODIF frame after IPv4 (no options) and UDP: its
    epoch + seconds + frame x period / frames per period (docs/codif.md),
    or None when it is no valid CODIF v3 frame (sync, protocol, rates)."""
    o = l3(p)
    if o is None or len(p) < o + 28 + 64:
        return None
    w = struct.unpack("<6Q", p[o + 28:o + 28 + 48])
    frame, seconds = w[0] & 0xFFFFFFFF, (w[0] >> 32) & 0x3FFFFFFF
    epoch, nbits, cplx = w[1] & 0xFF, (w[1] >> 8) & 0xFF, (w[1] >> 18) & 1
    protocol, period = (w[1] >> 29) & 7, (w[1] >> 48) & 0xFFFF
    nchan, framelength8, total = w[3] & 0xFFFF, w[3] >> 32, w[4]
    sync = w[5] & 0xFFFFFFFF
    bits = nchan * nbits * (2 if cplx else 1)
    if sync != 0xFEEDCAFE or protocol != 7 or not bits or not period or not total:
        return None
    spf = framelength8 * 64 // bits
    if not spf or total % spf:
        return None
    fpp = total // spf
    y, m = 2000 + epoch // 2, 7 if epoch & 1 else 1
    days = (datetime.date(y, m, 1) - datetime.date(1970, 1, 1)).days
    return (days * 86400 + seconds) * 10**9 + frame * period * 10**9 // fpp


def name_utc(ns):
    """Unix ns as a file name's stamp (docs/formats.md): YYYYMMDDTHHMMSS.nnnnnnnnnZ."""
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=ns // 10**9)
    return t.strftime("%Y%m%dT%H%M%S") + ".%09dZ" % (ns % 10**9)
