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
import socket
import sys
import tempfile
import time

RUNDIR = os.environ.get("DPDK_RUNTIME_DIR", "/var/run/dpdk")
ANT_FIELDS = ["received", "lost", "late", "duplicate", "invalid", "malformed",
              "bytes", "frames", "streams"]
BUF_FIELDS = ["placed", "late_placed", "duplicate", "too_late", "too_far", "no_slot",
              "wrong_size", "wrong_timing", "gap_zeroed", "final_row"]
WR_FIELDS = ["frames", "gap_frames", "bytes", "lost_frames", "files", "pid", "active"]


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


def snapshot(tel):
    """Everything the table, JSON and Prometheus outputs need."""
    s = {"time": time.time(), "pid": tel.pid}
    stats = tel.query("/ibvcap/stats")
    if not isinstance(stats, dict) or "packets" not in stats:
        raise TelemetryError("the process at this prefix is not dpdk-ibvcap "
                             "(no /ibvcap/stats)")
    s["stats"] = stats
    ants = tel.query("/ibvcap/antennas") or {}
    fields = ants.get("fields", ANT_FIELDS)
    s["antennas"] = {name: dict(zip(fields, vals)) for name, vals in ants.items()
                     if name != "fields"}
    bufs = tel.query("/ibvcap/buffers")
    s["buffers"] = ({name: dict(zip(BUF_FIELDS, vals)) for name, vals in bufs.items()}
                    if isinstance(bufs, dict) else {})
    wrs = tel.query("/ibvcap/writers")
    s["writers"] = ({name: dict(zip(WR_FIELDS, vals)) for name, vals in wrs.items()}
                    if isinstance(wrs, dict) else {})
    s["ports"] = {}
    ports = tel.query("/ethdev/list")
    for p in ports if isinstance(ports, list) else []:
        st = tel.query("/ethdev/stats,%d" % p)
        if isinstance(st, dict):
            s["ports"][str(p)] = {k: st.get(k, 0) for k in
                                  ("ipackets", "ibytes", "imissed", "ierrors", "rx_nombuf")}
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


def table(prefix, prev, cur):
    r = rates(prev, cur)
    st = cur["stats"]
    lines = []
    lines.append("dpdk-ibvcap '%s' (pid %s), up %.0f s: %s packets, %.3f Gb/s, %s frames, "
                 "lost %s, late %s, dup %s, invalid %s, malformed %s, unattributed %s"
                 % (prefix, cur["pid"], st.get("uptime_ms", 0) / 1000, st["packets"],
                    st.get("rate_mbps", 0) / 1000, st["received"], st["lost"], st["late"],
                    st["duplicate"], st["invalid"], st["malformed"], st["unattributed"]))
    lines.append("%-12s %8s %10s %12s %9s %8s %8s %8s %9s %9s %9s" %
                 ("antenna", "Gb/s", "frames/s", "received", "lost", "late", "dup",
                  "invalid", "malformed", "too-late", "too-far"))
    for name in sorted(cur["antennas"]):
        a = cur["antennas"][name]
        b = cur["buffers"].get(name, {})
        lines.append("%-12s %8.3f %10.0f %12d %9d %8d %8d %8d %9d %9s %9s" %
                     (name, r[name][0], r[name][1], a["received"], a["lost"], a["late"],
                      a["duplicate"], a["invalid"], a["malformed"],
                      b.get("too_late", "-"), b.get("too_far", "-")))
    if cur["writers"]:
        lines.append("%-12s %12s %12s %16s %10s %6s" %
                     ("writer", "frames", "gap-frames", "bytes", "overrun", "files"))
        for name in sorted(cur["writers"]):
            w = cur["writers"][name]
            lines.append("%-12s %12d %12d %16d %10d %6d%s" %
                         (name, w["frames"], w["gap_frames"], w["bytes"], w["lost_frames"],
                          w["files"], "" if w["active"] else "  (ended)"))
    lines.append("%-12s %12s %10s %10s %10s" % ("port", "ipackets", "imissed", "ierrors",
                                               "rx_nombuf"))
    for p in sorted(cur["ports"], key=int):
        q = cur["ports"][p]
        lines.append("%-12s %12d %10d %10d %10d" % (p, q["ipackets"], q["imissed"],
                                                   q["ierrors"], q["rx_nombuf"]))
    return "\n".join(lines)


def prom_escape(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def prometheus(prefix, cur):
    """The counters in the Prometheus text exposition format."""
    out = []
    inst = 'instance_prefix="%s"' % prom_escape(prefix)

    def metric(name, kind, help_, samples):
        out.append("# HELP %s %s" % (name, help_))
        out.append("# TYPE %s %s" % (name, kind))
        for labels, value in samples:
            lab = ",".join([inst] + ['%s="%s"' % (k, prom_escape(v)) for k, v in labels])
            out.append("%s{%s} %s" % (name, lab, value))

    st = cur["stats"]
    metric("ibvcap_packets_total", "counter", "Packets received by dpdk-ibvcap.", [((), st["packets"])])
    metric("ibvcap_bytes_total", "counter", "Bytes received by dpdk-ibvcap.", [((), st["bytes"])])
    metric("ibvcap_unattributed_packets_total", "counter",
           "Packets from no configured antenna, group or port.", [((), st["unattributed"])])
    metric("ibvcap_uptime_seconds", "gauge", "Seconds since the capture started.",
           [((), st.get("uptime_ms", 0) / 1000)])
    for key, name, help_ in (
            ("received", "frames_received", "Distinct frames received."),
            ("lost", "frames_lost", "Frames never received (gaps)."),
            ("late", "frames_late", "Frames received after a newer one."),
            ("duplicate", "frames_duplicate", "Second copies of frames."),
            ("invalid", "frames_invalid", "Frames received with the invalid bit set."),
            ("malformed", "malformed_packets", "Packets from the antenna that are not valid CODIF frames."),
            ("bytes", "frame_bytes", "CODIF bytes of received frames.")):
        metric("ibvcap_antenna_%s_total" % name, "counter", help_,
               [((("antenna", n),), a[key]) for n, a in sorted(cur["antennas"].items())])
    for key, help_ in (("too_late", "Frames behind the buffer's reorder window."),
                       ("too_far", "Frames more than a ring ahead."),
                       ("placed", "Frames placed in the antenna buffer.")):
        metric("ibvcap_buffer_%s_total" % key, "counter", help_,
               [((("antenna", n),), b[key]) for n, b in sorted(cur["buffers"].items())])
    for key, help_ in (("frames", "Frames written by the writer."),
                       ("lost_frames", "Frames the writer lost to overrun."),
                       ("bytes", "Bytes written by the writer."),
                       ("files", "Files the writer completed.")):
        metric("ibvcap_writer_%s_total" % key, "counter", help_,
               [((("writer", n),), w[key]) for n, w in sorted(cur["writers"].items())])
    for key, help_ in (("imissed", "Packets the NIC dropped (no rx descriptor)."),
                       ("ierrors", "Erroneous packets received by the NIC."),
                       ("rx_nombuf", "Receive mbuf allocation failures."),
                       ("ipackets", "Packets received by the NIC.")):
        metric("ibvcap_port_%s_total" % key, "counter", help_,
               [((("port", p),), q[key]) for p, q in sorted(cur["ports"].items())])
    return "\n".join(out) + "\n"


def write_atomic(path, text):
    """node_exporter reads *.prom files: never let it see half a file."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ibvcap-stat.", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


def seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = -1
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError("'%s': expected a number of seconds > 0" % text)
    return v


def main():
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-stat", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 done; 1 no capture at that prefix; 2 bad option.")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--interval", type=seconds, default=1.0, metavar="SECONDS",
                    help="refresh period of the table and of --prom (default: 1)")
    ap.add_argument("--once", action="store_true", help="print one snapshot and exit")
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
        while True:
            cur = snapshot(tel)
            if a.prom:
                write_atomic(a.prom, prometheus(a.file_prefix, cur))
            if a.once:
                if a.json:
                    print(json.dumps(cur, indent=2, sort_keys=True))
                elif not a.prom:
                    print(table(a.file_prefix, None, cur))
                return 0
            if a.json:
                print(json.dumps(cur, sort_keys=True))
                sys.stdout.flush()
            elif not a.prom or sys.stdout.isatty():
                sys.stdout.write("\033[H\033[2J" if sys.stdout.isatty() else "")
                print(table(a.file_prefix, prev, cur))
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
