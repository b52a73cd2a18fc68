#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a pcap of CODIF streams whose identities and frame sizes the test
chooses (what codifgen's layouts do not make: streams of one antenna that
differ only in groupid or secondaryid, a stray station, a frame size that
changes), and the truth of what was sent, computed here, independently of
the capture's code.

  streampcap.py [--start UNIX_SECONDS] OUT.pcap TRUTH.json STREAM...

A STREAM is comma-separated key=value:
  src=IP dst=IP port=N     addresses (defaults 10.17.0.211, 239.17.0.1, 36001)
  station=XX groupid=N secondaryid=N threadid=N   CODIF ids (station: 2 letters)
  sizes=BYTES:N[/BYTES:N...]  data bytes and frame count of each part, in
                           order (a size change starts a part); default 8192:100
  start=K                  index of its first frame, in frames of 1 ms from
                           the common start (default 0)
  name=NAME                its name in the truth (default s<i>)

Every frame's time: 1000 frames a second whatever its size (nchan 4, nbits
8, real; totalsamples per 1 s period = 1000 frames' samples), from
2026-01-01T00:00:00Z (epoch 52), or from --start (a whole second, after
2026-01-01: a scan's schedule must lie ahead of the host clock). Frames of all streams go out in time order
(ties: stream order). Each frame's data is codifgen's pattern of its ids
and time (pattern), so a reader can tell every frame and stream apart, and
codifcheck verify --pattern checks the labels files give them.

The truth: {"streams": [{"name", "src", "dst", "port", "station",
"stationid", "groupid", "secondaryid", "threadid", "parts": [{"data_bytes",
"first_seconds", "first_frame", "count"}], "frames": N}], "sent": N,
"epoch": E, "epoch_unix": S} (first_seconds: seconds from the epoch).
"""
import json
import socket
import struct
import sys

EPOCH = 52                  # 2026-01-01 (half-years since 2000)
EPOCH_UNIX = 1767225600     # 2026-01-01T00:00:00Z
FPS = 1000                  # frames a second, every size
NCHAN, NBITS = 4, 8
SYNC = 0xFEEDCAFE


def epoch_of(unix):
    """The CODIF reference epoch (half-years since 2000) holding unix, and its start."""
    import datetime
    d = datetime.datetime.fromtimestamp(unix, datetime.timezone.utc)
    e = (d.year - 2000) * 2 + (d.month >= 7)
    start = datetime.datetime(2000 + e // 2, 7 if e % 2 else 1, 1, tzinfo=datetime.timezone.utc)
    return e, int(start.timestamp())


def codif_header(seconds, frame, st, data_bytes, epoch=EPOCH):
    spf = data_bytes * 8 // (NCHAN * NBITS)
    w = [0] * 8
    w[0] = frame | seconds << 32
    w[1] = epoch | NBITS << 8 | 3 << 24 | 7 << 29 | 1 << 48   # version 3, CODIF, period 1 s
    w[2] = st["threadid"] | st["groupid"] << 16 | st["secondaryid"] << 32 | st["stationid"] << 48
    w[3] = NCHAN | 1 << 16 | (data_bytes // 8) << 32
    w[4] = spf * FPS                                              # totalsamples per period
    w[5] = SYNC
    return struct.pack("<8Q", *w)


M64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def pattern(ids, seconds, frame, data_bytes):
    """codifgen's payload (lib/codif/codif_pattern.c, written again here): a
    function of the stream ids and the frame time, so `codifcheck verify
    --pattern` checks a file's frames against the ids it labels them with.
    ids: (stationid, groupid, secondaryid, threadid)."""
    station, group, sec, thread = ids
    s = splitmix64(splitmix64(station << 48 | sec << 32 | group << 16 | thread) ^
                   (seconds << 32 | frame)) or 1
    out = []
    for _ in range(data_bytes // 8):
        x = s
        x ^= x >> 12
        x = (x ^ (x << 25)) & M64
        x ^= x >> 27
        s = x
        out.append((x * 0x2545F4914F6CDD1D) & M64)
    return struct.pack("<%dQ" % len(out), *out)


def stream_ids(st):
    return (st["stationid"], st["groupid"], st["secondaryid"], st["threadid"])


def ip_checksum(h):
    s = sum(struct.unpack("!10H", h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def packet(st, payload):
    dst = socket.inet_aton(st["dst"])
    mac_dst = b"\x01\x00\x5e" + bytes([dst[1] & 0x7f, dst[2], dst[3]])
    eth = mac_dst + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
    udp_len = 8 + len(payload)
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0x4000, 16, 17, 0,
                      socket.inet_aton(st["src"]), dst)
    iph = iph[:10] + struct.pack("!H", ip_checksum(iph)) + iph[12:]
    udp = struct.pack("!HHHH", 36000, st["port"], udp_len, 0)
    return eth + iph + udp + payload


def parse(spec, i):
    st = {"name": "s%d" % i, "src": "10.17.0.211", "dst": "239.17.0.1", "port": 36001,
          "station": "AA", "groupid": 0, "secondaryid": 0, "threadid": 0, "start": 0,
          "sizes": [(8192, 100)]}
    for kv in spec.split(","):
        k, _, v = kv.partition("=")
        if k in ("port", "groupid", "secondaryid", "threadid", "start"):
            st[k] = int(v)
        elif k == "sizes":
            st["sizes"] = [(int(a), int(b)) for a, b in (p.split(":") for p in v.split("/"))]
        elif k in ("src", "dst", "station", "name"):
            st[k] = v
        else:
            sys.exit("streampcap: stream %d: unknown key '%s' (in '%s')" % (i, k, spec))
    if len(st["station"]) != 2:
        sys.exit("streampcap: station '%s': expected two characters" % st["station"])
    st["stationid"] = ord(st["station"][0]) << 8 | ord(st["station"][1])
    return st


def main():
    args = sys.argv[1:]
    epoch, epoch_unix, base = EPOCH, EPOCH_UNIX, 0
    if args[:1] == ["--start"]:
        start = int(args[1])
        epoch, epoch_unix = epoch_of(start)
        base = (start - epoch_unix) * FPS
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    streams = [parse(s, i) for i, s in enumerate(args[2:])]
    frames = []   # (time index, stream, part, n, data bytes)
    for si, st in enumerate(streams):
        k = base + st["start"]
        st["parts"] = []
        for pi, (nbytes, count) in enumerate(st["sizes"]):
            st["parts"].append({"data_bytes": nbytes, "first_seconds": k // FPS,
                                "first_frame": k % FPS, "count": count})
            for n in range(count):
                frames.append((k, si, pi, n, nbytes))
                k += 1
        st["frames"] = sum(c for _, c in st["sizes"])
    frames.sort()
    t0 = epoch_unix * 10**9 + base * 10**6
    with open(args[0], "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for j, (k, si, pi, n, nbytes) in enumerate(frames):
            st = streams[si]
            pkt = packet(st, codif_header(k // FPS, k % FPS, st, nbytes, epoch) +
                         pattern(stream_ids(st), k // FPS, k % FPS, nbytes))
            t = t0 + j * 1000
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(pkt), len(pkt)) + pkt)
    for st in streams:
        del st["sizes"]
    json.dump({"streams": streams, "sent": len(frames), "epoch": epoch,
               "epoch_unix": epoch_unix}, open(args[1], "w"), indent=1)


if __name__ == "__main__":
    main()
