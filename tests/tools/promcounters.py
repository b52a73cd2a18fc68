#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that every figure of docs/counters.md is in a Prometheus export
(dpdk-ibvcap-stat --prom): each table row's name, under the name the page's
rule gives it (ibvcap_<antenna|buffer|writer|port|quicklook|bstate>_<name>,
the unit added unless the name has it, reduced to [a-z0-9_], ns as _seconds,
ppm as _ratio, milli-steps as _steps,
bytes/s as _bytes_per_second, _total for counters), with a sample for each
labelled thing; an array's figure (a "by cause" row) with a sample for
every element its row lists (label cause). Reads the page, not the code:
a figure the tables gain is checked without a change here.

  promcounters.py COUNTERS.md FILE.prom [--skip GROUP,...]
Exit 0 when every figure is there, 1 listing the missing ones."""
import argparse
import re
import sys

GROUP_PREFIX = {"counts": "antenna", "buffer": "buffer", "writer": "writer",
                "port": "port", "capture": "", "quicklook": "quicklook", "bstate": "bstate"}
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def figures(path):
    """(group, [names], unit, kind, elements, Prometheus name) of every table
    row that is exported (its last column names the metric)."""
    group, out = None, []
    for line in open(path):
        m = re.match(r"^## .*\(group `([a-z]+)`\)", line)
        if m:
            group = m.group(1)
            continue
        if group is None or not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`([^`]+)`", cells[0])
        unit = cells[1].split(",")[-1].strip()  # "UTC, ns": the number's unit
        kind = cells[2]
        # an array: "... by cause: `a` `b` ..." (its elements listed)
        m = re.search(r"by (?:cause|reason)[^:]*: *(`.*)$", cells[4])
        elems = re.findall(r"`([^`]+)`", m.group(1)) if m else []
        prom = re.findall(r"`([^`]+)`", cells[5]) if len(cells) > 5 else []
        if prom:
            out.append((group, names, unit, kind, elems, prom[0]))
    return out


def prom_name(group, name, unit, kind):
    """The documented rule (docs/counters.md, dpdk-ibvcap-stat's metric())."""
    n = "ibvcap_%s%s" % (GROUP_PREFIX[group] + "_" if GROUP_PREFIX[group] else "", name)
    if unit == "ns":
        n = (n[:-3] if n.endswith("_ns") else n) + "_seconds"
    elif unit.endswith("/s"):
        n += "_%s_per_second" % unit[:-2]
    elif unit in ("ppm", "milli-steps"):  # fixed-point in telemetry: base units
        n += "_ratio" if unit == "ppm" else "_steps"
    elif unit and unit != "errno":
        u = re.sub(r"[^a-z0-9_]", "", unit.lower())
        if u not in n:
            n += "_" + u
    if kind == "counter":
        n += "_total"
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("counters_md")
    ap.add_argument("prom")
    ap.add_argument("--skip", default="", help="groups not expected in this export")
    ap.add_argument("--names", action="store_true",
                    help="print every documented metric name (FILE unused) and exit")
    a = ap.parse_args()
    if a.names:
        for group, names, unit, kind, _, _ in figures(a.counters_md):
            for key in sorted({n[:-4] + "_ns" if n.endswith("_utc") else n for n in names}):
                print(prom_name(group, key, unit, kind))
        return 0
    skip = set(x for x in a.skip.split(",") if x)
    samples = {}
    for line in open(a.prom):
        m = SAMPLE.match(line)
        if m and not line.startswith("#"):
            samples.setdefault(m.group(1), []).append(dict(LABEL.findall(m.group(2) or "")))
    missing, checked = [], 0
    for group, names, unit, kind, elems, listed in figures(a.counters_md):
        # a time is one number (NAME_ns); its _utc twin is the same figure as text
        keys = sorted({n[:-4] + "_ns" if n.endswith("_utc") else n for n in names})
        for key in keys:
            pn = prom_name(group, key, unit, kind)
            if pn != listed:  # the page's column (lib/stats) against its rule
                missing.append("%s figure %s: the page names it %s, its rule %s"
                               % (group, key, listed, pn))
            if group in skip:
                continue
            checked += 1
            got = samples.get(pn)
            if not got:
                missing.append("%s figure %s: no %s" % (group, key, pn))
                continue
            causes = {s.get("cause") for s in got}
            for e in elems:
                if e not in causes:
                    missing.append("%s figure %s: no %s{cause=\"%s\"}" % (group, key, pn, e))
    for m in missing:
        print("MISSING " + m)
    if missing:
        return 1
    print("every figure of %s exported: %d metrics (%d groups)" %
          (a.counters_md, checked, len(set(GROUP_PREFIX) - skip)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
