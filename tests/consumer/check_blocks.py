#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check what tests/consumer/consumer_read wrote against what was sent.

The reference is codifgen's own pcap of what it sent and its truth. From
the pcap, independently of the C code: every sent CODIF frame's stream
(source address, station, group, thread, secondary id), its time (the
header's epoch, seconds and frame number) and data bytes. Then:

  - no frame of a stream appears twice among the blocks (same index);
  - every frame the blocks say valid was sent at that time, byte for byte,
    and its flagged bit is its header's invalid bit;
  - --full: every frame the truth says received is valid in a block
    (their number = the truth's received), and within each stream's first
    and last sent frame the frames not valid are exactly the truth's lost
    frames (none of them was sent);
  - --slow: the consumer's overrun = received - valid frames it delivered,
    exactly, and more than 0.

  - --window START STOP: the valid frames are exactly the frames sent with
    a time in [START, STOP) ns (a consumer following a scan), none lost.

Usage: check_blocks.py RECORDS SENT.pcap TRUTH.json CONSUMER.json
                       --full|--slow|--window START STOP
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sent import codif_packets  # noqa: E402

REC = struct.Struct("<IHHHHqqBBHI")


def sent_frames(path):
    """{(src, station, group, thread, secondary, time_ns): (data, invalid)}"""
    out = {}
    for src, w1, w2, _, t, data in codif_packets(path):
        threadid, groupid = w2 & 0xFFFF, (w2 >> 16) & 0xFFFF
        secondaryid, stationid = (w2 >> 32) & 0xFFFF, (w2 >> 48) & 0xFFFF
        key = (src, stationid, groupid, threadid, secondaryid, t)
        out.setdefault(key, (data, (w1 >> 17) & 1))
    return out


def read_records(path):
    recs = []
    with open(path, "rb") as f:
        d = f.read()
    off = 0
    while off < len(d):
        src, st, gr, th, se, idx, t, valid, flagged, _, n = REC.unpack_from(d, off)
        off += REC.size
        recs.append(((src, st, gr, th, se), idx, t, valid, flagged, d[off:off + n]))
        off += n
    return recs


def main():
    rec_path, pcap, truth_path, cons_path, mode = sys.argv[1:6]
    sent = sent_frames(pcap)
    truth = json.load(open(truth_path))
    cons = json.load(open(cons_path))
    recs = read_records(rec_path)
    errs = []
    seen = set()
    valid = set()
    torn = 0
    span = {}
    for key in sent:
        s = key[:5]
        lo, hi = span.get(s, (key[5], key[5]))
        span[s] = (min(lo, key[5]), max(hi, key[5]))
    invalid_in_span = 0
    for sid, idx, t, v, fl, data in recs:
        if (sid, idx) in seen:
            errs.append("frame %s index %d in two blocks" % (sid, idx))
        seen.add((sid, idx))
        key = sid + (t,)
        if v == 2:
            torn += 1
            continue
        if v:
            if key not in sent:
                errs.append("valid frame %s at %d not sent" % (sid, t))
                continue
            want, inv = sent[key]
            if data != want[:len(data)] or len(data) != len(want):
                errs.append("frame %s at %d: data differ (%d bytes, sent %d)" %
                            (sid, t, len(data), len(want)))
            if fl != inv:
                errs.append("frame %s at %d: flagged %d, its invalid bit %d" % (sid, t, fl, inv))
            valid.add(key)
        elif sid in span and span[sid][0] <= t <= span[sid][1]:
            invalid_in_span += 1
            if mode == "--full" and key in sent:
                errs.append("frame %s at %d was sent and received, masked invalid" % (sid, t))
    tot = truth["totals"]
    if mode == "--window":
        lo, hi = int(sys.argv[6]), int(sys.argv[7])
        want = {k for k in sent if lo <= k[5] < hi}
        if valid != want:
            errs.append("valid frames delivered %d, sent in the scan %d (%d not delivered, "
                        "%d outside it)" % (len(valid), len(want), len(want - valid),
                                            len(valid - want)))
        if cons["frames"] != len(valid) or cons["overrun"] or cons["torn"]:
            errs.append("consumer figures %s" % cons)
        print("following scans: %d blocks, %d frames valid = every frame sent in the scan "
              "[%d, %d) ns, byte for byte; %d frames taken outside it; %d sent in all" %
              (cons["blocks"], len(valid), lo, hi, cons["outside"], len(sent)))
    elif mode == "--full":
        if len(valid) != tot["received"] or cons["frames"] != tot["received"]:
            errs.append("valid frames delivered %d (consumer says %d), truth received %d" %
                        (len(valid), cons["frames"], tot["received"]))
        if invalid_in_span != tot["lost"]:
            errs.append("frames masked invalid within the streams' spans %d, truth lost %d" %
                        (invalid_in_span, tot["lost"]))
        if cons["overrun"] != 0 or cons["torn"] != 0:
            errs.append("overrun %d, torn %d: expected none" % (cons["overrun"], cons["torn"]))
        print("%d blocks: %d frames valid (= truth received), byte for byte as sent; %d lost "
              "frames masked invalid (= truth lost); %d sent frames in the pcap; no frame twice" %
              (cons["blocks"], len(valid), invalid_in_span, len(sent)))
    else:
        missed = tot["received"] - len(valid)
        if cons["frames"] != len(valid):
            errs.append("consumer says %d frames, its records hold %d" % (cons["frames"], len(valid)))
        if cons["overrun"] != missed:
            errs.append("overrun %d, frames it missed %d (received %d - delivered %d)" %
                        (cons["overrun"], missed, tot["received"], len(valid)))
        if missed <= 0:
            errs.append("the slow consumer missed nothing: the test did not test")
        print("slow consumer: %d blocks, %d of %d received frames delivered byte for byte, "
              "overrun %d = missed %d exactly (%d torn while held)" %
              (cons["blocks"], len(valid), tot["received"], cons["overrun"], missed, cons["torn"]))
    if errs:
        for e in errs[:20]:
            print("FAIL:", e)
        sys.exit(1)


main()
