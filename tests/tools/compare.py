#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare counts (pcapcount, dpdk-ibvcap --summary-json, codifcheck --json)
with codifgen's ground truth, field by field: every counter the truth vouches
for (its "counters" lists, lib/stats' names), no hand-kept list here. Exit 0
when equal, 1 otherwise, listing every difference."""
import argparse
import json
import sys


def skey(s):
    return (s["src"], s["dst"], int(s["port"]), int(s["groupid"]),
            int(s["secondaryid"]), int(s["threadid"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("truth")
    ap.add_argument("counts")
    ap.add_argument("--no-streams", action="store_true",
                    help="compare antennas only (counts without a stream list)")
    ap.add_argument("--fields", help="comma list overriding the antenna fields")
    ap.add_argument("--unattributed", action="store_true",
                    help="also compare non-IPv4 packets (sum of truth non_ipv4)")
    a = ap.parse_args()
    truth = json.load(open(a.truth))
    counts = json.load(open(a.counts))
    errors = []
    vouched = truth["counters"]
    ant_fields = a.fields.split(",") if a.fields else vouched["antenna"]
    stream_fields = [f for f in ant_fields if f in vouched["stream"]]

    if not a.no_streams:
        got = {skey(s): s for s in counts.get("streams", [])}
        want = {skey(s): s for s in truth["streams"]}
        for k in sorted(set(got) - set(want)):
            errors.append("stream %s: counted but not in the truth" % (k,))
        for k, t in sorted(want.items()):
            c = got.get(k)
            if c is None:
                errors.append("stream %s: in the truth, not counted" % (k,))
                continue
            for f in stream_fields:
                if f not in c or c.get(f) != t.get(f):
                    errors.append("stream %s %s: counted %s, truth %s"
                                  % (k, f, c.get(f), t.get(f)))
    got = {s["src"]: s for s in counts["antennas"]}
    want = {s["src"]: s for s in truth["antennas"]}
    for k in sorted(set(got) - set(want)):
        if any(got[k].get(f) for f in ("received", "malformed")):
            errors.append("antenna %s: counted but not in the truth" % k)
    for k, t in sorted(want.items()):
        c = got.get(k)
        if c is None:
            errors.append("antenna %s: in the truth, not counted" % k)
            continue
        for f in ant_fields:
            if f not in c or c.get(f) != t.get(f):
                errors.append("antenna %s %s: counted %s, truth %s"
                              % (k, f, c.get(f), t.get(f)))
    if a.unattributed:
        want_n = sum(s["non_ipv4"] for s in truth["streams"])
        got_n = counts.get("unattributed", {}).get("not-ipv4")
        if got_n != want_n:
            errors.append("non-IPv4 packets: counted %s, truth %s" % (got_n, want_n))
    for e in errors:
        print("MISMATCH " + e)
    n_ant = len(want)
    if errors:
        print("compare: %d differences" % len(errors))
        return 1
    print("compare: %d antennas%s equal to the truth"
          % (n_ant, "" if a.no_streams else
             " and %d streams" % len(truth["streams"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
