#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a pcap file with no packets (nanosecond magic, Ethernet)."""
import struct
import sys

with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
