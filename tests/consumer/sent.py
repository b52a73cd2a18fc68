# SPDX-License-Identifier: BSD-3-Clause
"""The CODIF frames of codifgen's pcap of what it sent, for the consumer
tests' checkers (import with sys.path at tests/consumer)."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from pcaprec import codif_time_ns, l3, records  # noqa: E402


def codif_packets(path):
    """Each valid CODIF frame in file order (duplicates too): its source
    address (host-order int), header words 1, 2 and 3, time (Unix ns) and
    data bytes."""
    for p in records(path):
        o = l3(p)
        t = codif_time_ns(p)
        if o is None or t is None:
            continue
        h = o + 28
        w1, w2, w3 = struct.unpack("<QQQ", p[h + 8:h + 32])
        yield struct.unpack(">I", p[o + 12:o + 16])[0], w1, w2, w3, t, bytes(p[h + 64:])
