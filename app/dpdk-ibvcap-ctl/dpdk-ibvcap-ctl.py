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
  trigger T0 T1 --dir DIR [--format codif|raw|pcap|pcapng] [--antenna A,...]
          [--timeout DURATION] [--prefix P] [--wait DURATION | --no-wait]
      a triggered dump: the window [T0, T1) of CODIF data time (at most
      1 h) of the antennas (default all) written from the capture's rings
      (kept for --retain) into DIR while capture goes on. The capture runs
      it as a job with an id and answers at once; this tool then polls the
      job (/ibvcap/trigger/status,ID: one short connection a poll, none
      held) until it ends, at most --wait (default 1h). The job waits for
      frames not arrived yet, at most --timeout (default 10s, at most 10m)
      without a new one. The reply: result (complete, partial, overwritten
      or empty), ended (window done, timeout, capture stopped, cancelled),
      the files, frames and gap frames written, and per antenna
      window_frames and each part not written with its span and frames:
      overwritten, before_capture, not_arrived, blocked (with why: e.g.
      its file exists) and no_data. An antenna blocked does not stop the
      others. --prefix: 1-63 characters, no control character and no '/'
  trigger-status [ID]
      a trigger's state and, once it ended, its result (exit status as
      trigger's); without ID the triggers kept (the last 64; at most 32
      run at once)

Times are UTC: YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds; durations
with a unit: 500ms, 10m, 2h. Every command answers with what it did, as
JSON; a refused one changed nothing and names the input, the value and what
was expected.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
# the tools' shared module: beside this tool (the build tree), else where the
# package installs it (relative to bindir: a DESTDIR too), else the source tree
sys.path[:0] = [HERE, os.path.join(HERE, os.path.relpath("@PYDIR@", "@BINDIR@")),
                os.path.join(HERE, "..", "python")]
import ibvcap_tools as common  # noqa: E402


def version_line():
    return common.version_line("dpdk-ibvcap-ctl")


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
        epilog="Exit status: 0 done (trigger: the whole window written, or, with "
               "--no-wait, the trigger started); 1 no capture at that prefix, it went "
               "away, or it did not answer within --timeout (stopped, hung); 2 bad "
               "usage; 3 the capture refused the command (nothing changed, or no "
               "trigger of that id); 4 the trigger ended without the whole window "
               "written (result partial, overwritten or empty: the reply says which "
               "part and why); 5 the trigger still running when --wait ran out (it "
               "goes on: trigger-status ID).")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--timeout", dest="reply_timeout", default="5s", metavar="DURATION",
                    help="the longest the capture may take to answer a command (record, "
                         "status, trigger-status, and each of a trigger's polls: the "
                         "trigger itself waits by its own --timeout and --wait) "
                         "(default: 5s); past it exit 1")
    ap.add_argument("--version", action="version", version=version_line())
    sub = ap.add_subparsers(dest="cmd", metavar="record|status|trigger|trigger-status")
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
                    help="codif, raw, pcap or pcapng (default codif)")
    tr.add_argument("--antenna", metavar="A,...",
                    help="antennas by name or index (default all)")
    tr.add_argument("--timeout", metavar="DURATION",
                    help="give up after DURATION without a new frame of the window "
                         "(default 10s, at most 10m)")
    tr.add_argument("--prefix", metavar="P", help="file name prefix (default trigger)")
    tw = tr.add_mutually_exclusive_group()
    tw.add_argument("--wait", metavar="DURATION", default="1h",
                    help="poll the trigger until it ends, at most DURATION (default 1h)")
    tw.add_argument("--no-wait", action="store_true",
                    help="print the trigger's id and return (read it with trigger-status)")
    ts = sub.add_parser("trigger-status", help="a trigger's state and result, by id")
    ts.add_argument("id", metavar="ID", nargs="?", help="the id the trigger answered")
    return ap


def telemetry_command(a):
    """The telemetry command of a parsed command line."""
    if a.cmd == "trigger":
        return "/ibvcap/trigger," + trigger_words(a)
    if a.cmd == "status":
        return "/ibvcap/record,status"
    if a.cmd == "trigger-status":
        return "/ibvcap/trigger/status" + ("," + a.id if a.id else "")
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
    stat = common  # the telemetry client
    try:
        limit = stat.seconds(a.reply_timeout)
    except ValueError as e:  # the message
        usage_error("--timeout: %s" % e)
    if a.cmd == "trigger":
        return trigger(stat, a, cmd, limit)
    if a.cmd == "trigger-status":
        cmd = "/ibvcap/trigger/status" + ("," + a.id if a.id else "")
    reply = ask(stat, a.file_prefix, cmd, limit)
    if not isinstance(reply, dict):
        return reply
    print(json.dumps(reply, indent=2))
    if refused(reply):
        return 3
    if a.cmd == "trigger-status" and a.id:
        return trigger_exit(reply)
    return 0


def ask(stat, prefix, cmd, limit):
    """One command on a connection of its own, answered within limit
    seconds: the reply (a dict), or the exit status when there is none
    (said)."""
    try:
        tel = stat.Telemetry(prefix, limit)
        try:
            reply = tel.query(cmd)
        finally:
            tel.close()
    except stat.TelemetryError as e:
        print("dpdk-ibvcap-ctl: %s" % e, file=sys.stderr)
        return 1
    except (OSError, ValueError):
        print("dpdk-ibvcap-ctl: the capture went away", file=sys.stderr)
        return 1
    if not isinstance(reply, dict):
        print("dpdk-ibvcap-ctl: the capture gave no answer (is it starting or "
              "stopping?): %s" % json.dumps(reply), file=sys.stderr)
        return 1
    return reply


def refused(reply):
    """A refusal names the input, its value and what was expected; say it."""
    if "input" in reply and "expected" in reply:
        print("dpdk-ibvcap-ctl: refused, nothing changed: %s '%s': expected %s" %
              (reply["input"], reply.get("value", ""), reply["expected"]), file=sys.stderr)
        return True
    if reply.get("result") == "refused" or "error" in reply:
        print("dpdk-ibvcap-ctl: refused, nothing changed: %s" %
              reply.get("error", json.dumps(reply)), file=sys.stderr)
        return True
    return False


def trigger_exit(reply):
    """A trigger's reply -> the exit status: 0 complete, 4 ended otherwise,
    5 still running."""
    if reply.get("state") != "done":
        return 5
    if reply.get("result") == "complete":
        return 0
    parts = []
    for ant, v in sorted(reply.items()):
        if not isinstance(v, dict) or v.get("complete") != "no":
            continue
        why = ["%s %s frames" % (p, v["%s_frames" % p])
               for p in ("overwritten", "before_capture", "not_arrived", "blocked")
               if "%s_frames" % p in v]
        if "blocked" in v:
            why.append("blocked: %s" % v["blocked"])
        if "no_data_from" in v:
            why.append("no frame of it")
        if v.get("lost_while_dumping"):
            why.append("%s lost while dumping" % v["lost_while_dumping"])
        parts.append("%s: %s" % (ant, ", ".join(why) or "incomplete"))
    print("dpdk-ibvcap-ctl: trigger %s: %s (%s): not the whole window: %s" % (
        reply.get("id"), reply.get("result"), reply.get("ended"), "; ".join(parts)),
        file=sys.stderr)
    return 4


def duration_s(opt, v):
    """A duration with a unit (ms, s, m, h) in seconds."""
    units = (("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600))
    for u, f in units:
        if v.endswith(u):
            try:
                x = float(v[:-len(u)]) * f
            except ValueError:
                break
            if 0 <= x <= 86400:
                return x
            break
    usage_error("%s '%s': expected a duration with a unit (500ms, 10s, 10m, 1h), "
                "at most 24h" % (opt, v))


def trigger(stat, a, cmd, limit):
    """Start the trigger, then poll its job (a short connection each time:
    none held while it waits) until it ends or --wait runs out."""
    wait = None if a.no_wait else duration_s("--wait", a.wait)
    reply = ask(stat, a.file_prefix, cmd, limit)
    if not isinstance(reply, dict):
        return reply
    if refused(reply):
        print(json.dumps(reply, indent=2))
        return 3
    if wait is None:
        print(json.dumps(reply, indent=2))
        return 0
    jid = reply.get("id")
    status = "/ibvcap/trigger/status,%s" % jid
    deadline = time.monotonic() + wait
    pause = 0.05
    while True:
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 1.5, 0.5)
        r = None
        try:
            tel = stat.Telemetry(a.file_prefix, limit)
            try:
                r = tel.query(status)
            finally:
                tel.close()
        except stat.TelemetryError as e:
            # gone (its socket removed or refusing), or not answering
            # within --timeout (stopped, hung)
            print("dpdk-ibvcap-ctl: %s; trigger %s had not ended (the capture's log has "
                  "what it wrote)" % (e, jid), file=sys.stderr)
            return 1
        except (OSError, ValueError):
            # a reply cut short (the capture closed the connection while
            # answering: stopping); the next poll tells (a connection closed
            # before its greeting, all taken, the client itself tries again)
            r = None
        if isinstance(r, dict):
            if "input" in r:
                print(json.dumps(r, indent=2))
                refused(r)
                return 3
            reply = r
            if r.get("state") == "done":
                break
        if time.monotonic() >= deadline:
            print(json.dumps(reply, indent=2))
            print("dpdk-ibvcap-ctl: trigger %s still running after --wait %s; it goes on: "
                  "dpdk-ibvcap-ctl trigger-status %s" % (jid, a.wait, jid), file=sys.stderr)
            return 5
    print(json.dumps(reply, indent=2))
    return trigger_exit(reply)


if __name__ == "__main__":
    sys.exit(main())
