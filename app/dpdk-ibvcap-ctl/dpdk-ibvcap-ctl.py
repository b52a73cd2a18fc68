#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-ctl: control a running dpdk-ibvcap's recording, through DPDK
telemetry (the primary's socket, /ibvcap/record; no hugepages, no EAL).

The capture runs all the time; its --write writers record scans: frames
whose CODIF data time is inside a scan's [start, stop) go to DIR/SCAN/,
with the scan's index DIR/SCAN/PREFIX_scan.FORMAT.json. Commands:

  record on [--scan NAME] [--at UTC|now] [--for DURATION | --until UTC]
            [--writer W,...] [--antenna A,...]
      a scan from --at (default now) for DURATION or until UTC (default:
      until 'record off'), for the writers given (default all: index or
      name primary-I-FORMAT) and antennas (default all)
  record off [--scan NAME] [--at UTC|now] [--writer W,...]
      end the scan named, or the writers' running scans, at --at (default
      now); a writer recording everything (--record always, no scan yet)
      stops recording
  record cancel --scan NAME
      remove a scan that has not begun
  status
      now, the current and next scan, every scan and each writer's state

Times are UTC: YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds; durations
with a unit: 500ms, 10m, 2h. Every command answers with what it did, as
JSON; a refused one changed nothing and names the input, the value and what
was expected.
"""
import argparse
import json
import os
import socket
import sys

RUNDIR = os.environ.get("DPDK_RUNTIME_DIR", "/var/run/dpdk")


class TelemetryError(Exception):
    pass


class Telemetry:
    """A client of DPDK's telemetry socket (dpdk_telemetry.v2), as
    dpdk-ibvcap-stat's."""

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

    def query(self, cmd):
        self.sock.send(cmd.encode())
        reply = json.loads(self.sock.recv(self.maxlen).decode())
        return reply.get(cmd.split(",")[0], reply)


# meson writes the installed copy with the project's version (app/meson.build)
VERSION = "@VERSION@"


def version_line():
    v = VERSION if not VERSION.startswith("@") else "(source tree)"
    return "dpdk-ibvcap-ctl (dpdk-ibvcap) %s" % v


def word(key, v):
    if v is None:
        return []
    if not v or any(c.isspace() for c in v):
        raise SystemExit("dpdk-ibvcap-ctl: --%s: '%s': expected a value without spaces"
                         % (key, v))
    return ["%s=%s" % (key, v)]


def main():
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-ctl", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 done; 1 no capture at that prefix; 2 bad usage; "
               "3 the capture refused the command (nothing changed).")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--version", action="version", version=version_line())
    sub = ap.add_subparsers(dest="cmd", metavar="record|status")
    rec = sub.add_parser("record", help="record on, off or cancel a scan")
    rec.add_argument("action", choices=("on", "off", "cancel"))
    rec.add_argument("--scan", metavar="NAME",
                     help="the scan's name: 1-31 of letters, digits, '_', '.', '-' "
                          "(on: default scanNNNN)")
    rec.add_argument("--at", metavar="UTC", help="start (on) or stop (off): a UTC time "
                     "or now (default now)")
    g = rec.add_mutually_exclusive_group()
    g.add_argument("--for", dest="dur", metavar="DURATION",
                   help="on: the scan lasts DURATION (10m, 500ms)")
    g.add_argument("--until", metavar="UTC", help="on: the scan stops at UTC")
    rec.add_argument("--writer", metavar="W,...",
                     help="writers: indexes of --write, names primary-I-FORMAT, or all "
                          "(default all)")
    rec.add_argument("--antenna", metavar="A,...",
                     help="on: antennas by name or index (default all)")
    sub.add_parser("status", help="the current and next scan, every scan, each writer")
    a = ap.parse_args()
    if a.cmd is None:
        ap.print_usage(sys.stderr)
        return 2
    if a.cmd == "status":
        words = ["status"]
    else:
        words = [a.action] + word("scan", a.scan) + word("at", a.at) + \
            word("for", a.dur) + word("until", a.until) + word("writer", a.writer) + \
            word("antenna", a.antenna)
    try:
        tel = Telemetry(a.file_prefix)
        reply = tel.query("/ibvcap/record," + " ".join(words))
    except TelemetryError as e:
        print("dpdk-ibvcap-ctl: %s" % e, file=sys.stderr)
        return 1
    except (ConnectionError, BrokenPipeError, json.JSONDecodeError):
        print("dpdk-ibvcap-ctl: the capture went away", file=sys.stderr)
        return 1
    if not isinstance(reply, dict):
        print("dpdk-ibvcap-ctl: the capture gave no answer (is it starting or "
              "stopping?): %s" % json.dumps(reply), file=sys.stderr)
        return 1
    print(json.dumps(reply, indent=2))
    if reply.get("result") == "refused":
        print("dpdk-ibvcap-ctl: refused, nothing changed: %s '%s': expected %s" %
              (reply.get("input"), reply.get("value"), reply.get("expected")),
              file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
