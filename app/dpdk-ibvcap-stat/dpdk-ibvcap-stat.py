#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-stat: the live status of a running dpdk-ibvcap, through DPDK
telemetry (the primary's socket; no hugepages, no EAL, read-only).

A refreshing per-antenna table -- rates, frames, lost, late, duplicate,
invalid, malformed, buffer placement problems, writer overruns, NIC missed
packets -- or one snapshot (--once), as JSON (--json), or the counters in
the Prometheus text format for node_exporter's textfile collector (--prom).
"""
import argparse
import json
import os
import re
import socket
import sys
import tempfile
import time

RUNDIR = os.environ.get("DPDK_RUNTIME_DIR", "/var/run/dpdk")
# every counter's name, unit, kind and help come from the capture
# (/ibvcap/counters, the tables of lib/stats): none is written here
GROUPS = ("counts", "buffer", "writer", "port", "capture")


class TelemetryError(Exception):
    pass


class Telemetry:
    """A client of DPDK's telemetry socket (dpdk_telemetry.v2)."""

    def __init__(self, prefix):
        self.path = os.path.join(RUNDIR, prefix, "dpdk_telemetry.v2")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.sock.connect(self.path)
        except OSError as e:
            raise TelemetryError(
                "no dpdk-ibvcap telemetry at %s (%s): is it running with "
                "--file-prefix %s, without --no-telemetry, and may this user "
                "read its runtime directory?" % (self.path, e.strerror, prefix))
        hello = json.loads(self.sock.recv(16384).decode())
        self.maxlen = hello.get("max_output_len", 16384)
        self.pid = hello.get("pid")

    def query(self, cmd):
        self.sock.send(cmd.encode())
        reply = json.loads(self.sock.recv(self.maxlen).decode())
        return reply.get(cmd.split(",")[0], reply)

    def close(self):
        self.sock.close()


def rows(reply):
    """A reply of rows: {"fields": [names], key: [values], ...} -> {key: {name: value}}."""
    if not isinstance(reply, dict):
        return {}
    fields = reply.get("fields", [])
    return {k: dict(zip(fields, v)) for k, v in reply.items() if k != "fields"}


def describe(tel):
    """What each counter means: group -> name -> (unit, kind, help)."""
    d = {}
    for g in GROUPS:
        r = tel.query("/ibvcap/counters,%s" % g)
        d[g] = {k: tuple(v) for k, v in r.items()} if isinstance(r, dict) else {}
    return d


def snapshot(tel):
    """Everything the table, JSON and Prometheus outputs need."""
    s = {"time": time.time(), "pid": tel.pid}
    stats = tel.query("/ibvcap/stats")
    if not isinstance(stats, dict) or "packets" not in stats:
        raise TelemetryError("the process at this prefix is not dpdk-ibvcap "
                             "(no /ibvcap/stats)")
    s["stats"] = stats
    s["antennas"] = rows(tel.query("/ibvcap/antennas"))
    s["buffers"] = rows(tel.query("/ibvcap/buffers"))
    s["writers"] = rows(tel.query("/ibvcap/writers"))
    s["ports"] = {}
    ports = tel.query("/ethdev/list")
    for p in ports if isinstance(ports, list) else []:
        st = tel.query("/ethdev/stats,%d" % p)
        if isinstance(st, dict):
            s["ports"][str(p)] = st
    return s


def rates(prev, cur):
    """Per antenna Gb/s and frames/s between two snapshots."""
    out = {}
    dt = cur["time"] - prev["time"] if prev else 0
    for name, a in cur["antennas"].items():
        p = prev["antennas"].get(name) if prev else None
        if p and dt > 0:
            out[name] = ((a["bytes"] - p["bytes"]) * 8 / dt / 1e9,
                         (a["received"] - p["received"]) / dt)
        else:
            out[name] = (0.0, 0.0)
    return out


# levels, not events: shown by rate, not as columns
LEVELS = ("streams", "expected", "bytes", "last_frame_ns")


def table(prefix, prev, cur, desc):
    r = rates(prev, cur)
    st = cur["stats"]
    lines = []
    ev = [k for k in desc["counts"] if k in st and k not in LEVELS]
    lines.append("dpdk-ibvcap '%s' (pid %s), up %.0f s: %s packets, %.3f Gb/s, %s, "
                 "unattributed %s"
                 % (prefix, cur["pid"], st.get("uptime_ms", 0) / 1000, st["packets"],
                    st.get("rate_mbps", 0) / 1000,
                    ", ".join("%s %s" % (k, st[k]) for k in ev), st["unattributed"]))
    cols = [k for k in (next(iter(cur["antennas"].values()), {}) or {}) if k not in LEVELS]
    lines.append("%-12s %8s %10s" % ("antenna", "Gb/s", "frames/s") +
                 "".join(" %*s" % (max(8, len(k)), k) for k in cols))
    for name in sorted(cur["antennas"]):
        a = cur["antennas"][name]
        lines.append("%-12s %8.3f %10.0f" % (name, r[name][0], r[name][1]) +
                     "".join(" %*d" % (max(8, len(k)), a[k]) for k in cols))
    if cur["writers"]:
        wcols = [k for k in next(iter(cur["writers"].values())) if k not in ("active",)]
        lines.append("%-12s" % "writer" + "".join(" %*s" % (max(8, len(k)), k) for k in wcols))
        for name in sorted(cur["writers"]):
            w = cur["writers"][name]
            lines.append("%-12s" % name + "".join(" %*d" % (max(8, len(k)), w[k]) for k in wcols) +
                         ("" if w.get("active") else "  (ended)"))
    pcols = [k for k in desc["port"]]
    lines.append("%-12s" % "port" + "".join(" %*s" % (max(10, len(k)), k) for k in pcols))
    for p in sorted(cur["ports"], key=int):
        q = cur["ports"][p]
        lines.append("%-12s" % p + "".join(" %*d" % (max(10, len(k)), q.get(k, 0)) for k in pcols))
    return "\n".join(lines)


def prom_escape(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def prometheus(prefix, cur, desc):
    """The counters in the Prometheus text exposition format, named and
    explained by the capture's own tables."""
    out = []
    inst = 'instance_prefix="%s"' % prom_escape(prefix)

    # metric names: ibvcap_<what>_<counter>[_<unit>][_total], what: antenna,
    # buffer, writer, port, or nothing for the capture's own figures
    prefix = {"counts": "antenna_", "buffer": "buffer_", "writer": "writer_",
              "port": "port_", "capture": ""}

    def metric(group, key, label, samples):
        unit, kind, help_ = desc[group].get(key, ("", "gauge", key))
        name = "ibvcap_%s%s" % (prefix[group], key)
        scale = 1
        if unit == "ns":
            name = (name[:-3] if name.endswith("_ns") else name) + "_seconds"
            scale = 1e-9
        elif unit and unit not in name and unit not in ("errno",):
            name += "_" + unit
        if kind == "counter":
            name += "_total"
        out.append("# HELP %s %s" % (name, help_))
        out.append("# TYPE %s %s" % (name, kind))
        for lab, value in samples:
            labs = ",".join([inst] + (['%s="%s"' % (label, prom_escape(lab))] if label else []))
            out.append("%s{%s} %s" % (name, labs, value * scale if scale != 1 else value))

    st = cur["stats"]
    for key in desc["capture"]:
        if key in st:
            metric("capture", key, None, [(None, st[key])])
    for group, data, label in (("counts", cur["antennas"], "antenna"),
                               ("buffer", cur["buffers"], "antenna"),
                               ("writer", cur["writers"], "writer"),
                               ("port", cur["ports"], "port")):
        keys = [k for k in desc[group] if any(k in v for v in data.values())]
        for key in keys:
            metric(group, key, label, [(n, v[key]) for n, v in sorted(data.items()) if key in v])
    out.append("# HELP ibvcap_uptime_seconds Seconds since the capture started.")
    out.append("# TYPE ibvcap_uptime_seconds gauge")
    out.append("ibvcap_uptime_seconds{%s} %s" % (inst, st.get("uptime_ms", 0) / 1000))
    return "\n".join(out) + "\n"


def write_atomic(path, text):
    """node_exporter reads *.prom files: never let it see half a file."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ibvcap-stat.", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


# the units of lib/util's parse_duration_ns, the C tools' (a bare number is seconds)
UNITS = {"": 1.0, "s": 1.0, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "m": 60.0, "min": 60.0,
         "h": 3600.0, "d": 86400.0}


def seconds(text):
    m = re.fullmatch(r"([0-9][0-9.]*(?:[eE][-+]?[0-9]+)?)([a-z]*)", text)
    v = -1.0
    if m and m.group(2) in UNITS:
        try:
            v = float(m.group(1)) * UNITS[m.group(2)]
        except ValueError:
            v = -1.0
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(
            "'%s': expected a duration > 0 (10s, 500ms, 5m, 2h; a bare number is seconds)"
            % text)
    return v


# meson writes the installed copy with the project's version (app/meson.build)
VERSION = "@VERSION@"


def version_line():
    v = VERSION if not VERSION.startswith("@") else "(source tree)"
    return "dpdk-ibvcap-stat (dpdk-ibvcap) %s" % v


def main():
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-stat", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 done; 1 no capture at that prefix; 2 bad option.")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--interval", type=seconds, default=1.0, metavar="DURATION",
                    help="refresh period of the table and of --prom, with a unit as "
                    "every tool takes them: 1s, 500ms, 1m (default: 1s)")
    ap.add_argument("--once", action="store_true", help="print one snapshot and exit")
    ap.add_argument("--version", action="version", version=version_line())
    ap.add_argument("--json", action="store_true",
                    help="snapshots as JSON: one, indented, with --once; else one "
                         "object per line every --interval")
    ap.add_argument("--prom", metavar="FILE",
                    help="write the counters in Prometheus text format to FILE "
                         "(atomically; with --once, once), e.g. "
                         "/var/lib/prometheus/node-exporter/ibvcap.prom")
    ap.add_argument("--query", metavar="COMMAND",
                    help="send one raw telemetry command (e.g. /ethdev/xstats,0) and "
                         "print its JSON reply")
    a = ap.parse_args()
    try:
        tel = Telemetry(a.file_prefix)
        if a.query:
            print(json.dumps(tel.query(a.query), indent=2))
            return 0
        prev = None
        desc = describe(tel)
        while True:
            cur = snapshot(tel)
            if a.prom:
                write_atomic(a.prom, prometheus(a.file_prefix, cur, desc))
            if a.once:
                if a.json:
                    print(json.dumps(cur, indent=2, sort_keys=True))
                elif not a.prom:
                    print(table(a.file_prefix, None, cur, desc))
                return 0
            if a.json:
                print(json.dumps(cur, sort_keys=True))
                sys.stdout.flush()
            elif not a.prom or sys.stdout.isatty():
                sys.stdout.write("\033[H\033[2J" if sys.stdout.isatty() else "")
                print(table(a.file_prefix, prev, cur, desc))
                sys.stdout.flush()
            prev = cur
            time.sleep(a.interval)
    except TelemetryError as e:
        print("dpdk-ibvcap-stat: %s" % e, file=sys.stderr)
        return 1
    except (ConnectionError, BrokenPipeError, json.JSONDecodeError):
        print("dpdk-ibvcap-stat: the capture went away", file=sys.stderr)
        return 0 if not a.once else 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
