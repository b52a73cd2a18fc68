#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-ctl: control a running dpdk-ibvcap's recording, through DPDK
telemetry (the primary's socket, /ibvcap/record and /ibvcap/trigger; no
hugepages, no EAL).

The capture runs all the time; its writers (--write, and the
dpdk-ibvcap-dump writers attached to it, unless started with --record
always) record scans: frames whose CODIF data time is inside a scan's
[start, stop) go to DIR/SCAN/, with the scan's index
DIR/SCAN/PREFIX_scan.FORMAT.json. Commands:

  record on [--scan NAME] [--at UTC|now] [--for DURATION | --until UTC]
            [--writer W,...] [--antenna A,...]
      a scan from --at (default now) for DURATION or until UTC (default:
      until 'record off'), for the writers given (default all, dump writers
      attaching later included: --write index or name primary-I-FORMAT, or
      a dpdk-ibvcap-dump's --name) and antennas (default all)
  record off [--scan NAME] [--at UTC|now] [--writer W,...]
      end the scan named, or the writers' running scans, at --at (default
      now); a writer recording everything (--record always, no scan yet)
      stops recording
  record cancel --scan NAME
      remove a scan that has not begun
  status
      now, the current and next scan, every scan and each writer's state
  trigger T0 T1 --dir DIR [--format codif|raw|pcap] [--antenna A,...]
          [--timeout DURATION] [--prefix P]
      a triggered dump: the window [T0, T1) of CODIF data time of the
      antennas (default all) written from the capture's rings (kept for
      --retain) into DIR while capture goes on; waits for frames not
      arrived yet, at most --timeout (default 10s) without a new one; the
      reply says the files, frames and gap frames written, and per antenna
      what was already overwritten, before the capture or not arrived

Times are UTC: YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds; durations
with a unit: 500ms, 10m, 2h. Every command answers with what it did, as
JSON; a refused one changed nothing and names the input, the value and what
was expected.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.realpath(__file__))


def load_stat():
    """dpdk-ibvcap-stat, the one telemetry client, as a module: installed
    beside this tool (bindir, or the build's app/), else from PATH."""
    path = os.path.join(HERE, "dpdk-ibvcap-stat")
    if not os.path.isfile(path):
        path = shutil.which("dpdk-ibvcap-stat")
    if path is None:
        raise SystemExit("dpdk-ibvcap-ctl: dpdk-ibvcap-stat (its telemetry client) not "
                         "found beside %s nor in PATH" % HERE)
    loader = importlib.machinery.SourceFileLoader("ibvcap_stat", path)
    spec = importlib.util.spec_from_loader("ibvcap_stat", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# meson writes the installed copy with the project's version (app/meson.build)
VERSION = "@VERSION@"


def version_line():
    v = VERSION if not VERSION.startswith("@") else "(source tree)"
    return "dpdk-ibvcap-ctl (dpdk-ibvcap) %s" % v


def usage_error(msg):
    """Bad usage: exit 2, as argparse's own errors."""
    print("dpdk-ibvcap-ctl: %s" % msg, file=sys.stderr)
    sys.exit(2)


def word(key, v):
    if v is None:
        return []
    if not v or any(c.isspace() for c in v):
        usage_error("--%s: '%s': expected a value without spaces" % (key, v))
    return ["%s=%s" % (key, v)]


def trigger_words(a):
    """/ibvcap/trigger's parameters: T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T][,prefix=P];
    DIR made absolute (the capture runs elsewhere)."""
    words = [a.t0, a.t1, a.format, os.path.abspath(a.dir)]
    for name, v in (("T0", a.t0), ("T1", a.t1), ("--dir", a.dir), ("--format", a.format),
                    ("--timeout", a.timeout), ("--prefix", a.prefix)):
        if v is not None and (not v or "," in v):
            usage_error("trigger: %s '%s': expected a value without ','" % (name, v))
    if a.antenna:
        words += [x for x in a.antenna.split(",") if x]
    if a.timeout is not None:
        words.append("timeout=%s" % a.timeout)
    if a.prefix is not None:
        words.append("prefix=%s" % a.prefix)
    return ",".join(words)


def parser():
    """ctl's command line: its vocabulary, also parsed by dpdk-ibvcap-agent
    for the commands an array sends (docs/formats.md, "The array in etcd")."""
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-ctl", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 done; 1 no capture at that prefix, it went away, or it "
               "did not answer within --timeout (stopped, hung); 2 bad usage; "
               "3 the capture refused the command (nothing changed).")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--timeout", dest="reply_timeout", default="5s", metavar="DURATION",
                    help="record and status: the longest the capture may take to answer "
                         "(default: 5s); past it exit 1 (a trigger waits as long as its "
                         "own --timeout says)")
    ap.add_argument("--version", action="version", version=version_line())
    sub = ap.add_subparsers(dest="cmd", metavar="record|status|trigger")
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
                     help="writers: indexes of --write, names primary-I-FORMAT, "
                          "dpdk-ibvcap-dump --names, or all (default all)")
    rec.add_argument("--antenna", metavar="A,...",
                     help="on: antennas by name or index (default all)")
    sub.add_parser("status", help="the current and next scan, every scan, each writer")
    tr = sub.add_parser("trigger", help="write a window of data time from the rings")
    tr.add_argument("t0", metavar="T0", help="the window's start: UTC or @unix-seconds")
    tr.add_argument("t1", metavar="T1", help="its end (not included), after T0")
    tr.add_argument("--dir", required=True, metavar="DIR",
                    help="an existing directory for the files (trigger_ANT_UTC.FORMAT)")
    tr.add_argument("--format", default="codif", metavar="FORMAT",
                    help="codif, raw or pcap (default codif)")
    tr.add_argument("--antenna", metavar="A,...",
                    help="antennas by name or index (default all)")
    tr.add_argument("--timeout", metavar="DURATION",
                    help="give up after DURATION without a new frame of the window "
                         "(default 10s)")
    tr.add_argument("--prefix", metavar="P", help="file name prefix (default trigger)")
    return ap


def telemetry_command(a):
    """The telemetry command of a parsed command line."""
    if a.cmd == "trigger":
        return "/ibvcap/trigger," + trigger_words(a)
    if a.cmd == "status":
        return "/ibvcap/record,status"
    return "/ibvcap/record," + " ".join(
        [a.action] + word("scan", a.scan) + word("at", a.at) + word("for", a.dur) +
        word("until", a.until) + word("writer", a.writer) + word("antenna", a.antenna))


def main():
    ap = parser()
    a = ap.parse_args()
    if a.cmd is None:
        ap.print_usage(sys.stderr)
        return 2
    cmd = telemetry_command(a)
    stat = load_stat()
    try:
        limit = stat.seconds(a.reply_timeout)
    except Exception as e:  # argparse.ArgumentTypeError: the message
        usage_error("--timeout: %s" % e)
    try:
        tel = stat.Telemetry(a.file_prefix, None if a.cmd == "trigger" else limit)
        reply = tel.query(cmd)
    except stat.TelemetryError as e:
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
    if reply.get("result") == "refused" or "error" in reply:
        print("dpdk-ibvcap-ctl: refused, nothing changed: %s '%s': expected %s" %
              (reply.get("input"), reply.get("value"), reply.get("expected")),
              file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
