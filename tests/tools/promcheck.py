#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a file against the Prometheus text exposition format (0.0.4) as
node_exporter's textfile collector reads it (promtool is not in Debian 12
without the Prometheus server): HELP/TYPE before samples, valid names and
labels, counters named *_total with finite non-negative values, no series
twice. Prints the samples as JSON on success; exit 1 listing problems."""
import json
import math
import re
import sys

NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$")


def main():
    path = sys.argv[1]
    text = open(path).read()
    errors, types, helps, seen, samples = [], {}, set(), set(), []
    if not text.endswith("\n"):
        errors.append("the file does not end with a newline")
    for n, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        if line.startswith("# HELP "):
            parts = line.split(" ", 3)
            if len(parts) < 4 or not NAME.match(parts[2]):
                errors.append("line %d: bad HELP" % n)
            helps.add(parts[2])
            continue
        if line.startswith("# TYPE "):
            parts = line.split(" ")
            if len(parts) != 4 or parts[3] not in ("counter", "gauge", "histogram", "summary", "untyped"):
                errors.append("line %d: bad TYPE" % n)
                continue
            if parts[2] in types:
                errors.append("line %d: TYPE of %s given twice" % (n, parts[2]))
            types[parts[2]] = parts[3]
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            errors.append("line %d: not a sample: %r" % (n, line))
            continue
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        if name not in types:
            errors.append("line %d: %s has no TYPE before it" % (n, name))
        lab = dict(LABEL.findall(labels))
        rebuilt = ",".join('%s="%s"' % kv for kv in LABEL.findall(labels))
        if rebuilt != labels:
            errors.append("line %d: bad labels %r" % (n, labels))
        try:
            v = float(value)
        except ValueError:
            errors.append("line %d: value %r is not a number" % (n, value))
            continue
        if types.get(name) == "counter":
            if not name.endswith("_total"):
                errors.append("line %d: counter %s does not end in _total" % (n, name))
            if not math.isfinite(v) or v < 0:
                errors.append("line %d: counter %s = %s" % (n, name, value))
        key = (name, tuple(sorted(lab.items())))
        if key in seen:
            errors.append("line %d: series %s given twice" % (n, key))
        seen.add(key)
        samples.append({"name": name, "labels": lab, "value": v})
    for e in errors:
        print("PROBLEM " + e)
    if errors:
        return 1
    print(json.dumps(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
