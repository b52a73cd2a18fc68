#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-array: one command to every capture host of an array, on etcd.

Each capture host runs dpdk-ibvcap and a dpdk-ibvcap-agent; this tool
writes a command under the array's etcd prefix (docs/formats.md, "The
array in etcd"), waits for the reply of every live host (--timeout) and
prints one line per host: accepted, refused (why) or no answer. Commands,
in dpdk-ibvcap-ctl's vocabulary (its options, checked by its parser):

  record on [--scan NAME] [--at UTC|now] [--for DURATION | --until UTC]
            [--writer W,...] [--antenna A,...]
  record off [--scan NAME] [--at UTC|now] [--writer W,...]
  record cancel --scan NAME
  trigger T0 T1 --dir DIR [--format F] [--antenna A,...] [--timeout D]
      (DIR on each host; {host} in DIR or --prefix: that host's name, for
      storage the hosts share); then, up to --trigger-wait, each accepting host's
      acknowledgement (its agent writes the capture's result once the
      trigger ended) and, per antenna over the hosts, what the array saved
      (frames, gap frames) of the window and what it could not, by cause
      (overwritten, before the capture, not arrived, blocked) and host
  trigger-status ID
      the acknowledgements of trigger command ID so far, the same table
  scan SCAN
      the array's ledger of a scan: each host's (its agent writes it once
      the capture ended the scan) reconciled per antenna and writer over
      the hosts: the frames the span should hold, recorded, missing by
      cause and host; a stream two hosts recorded is flagged
  status
      every host: alive or DOWN (its liveness lease), its state record's
      age (STALE past three periods), its capture, scans and writers
  config push HOST=FILE ...
      each host's INI (e.g. from dpdk-ibvcap-fleet split) under a new
      revision; each agent checks it with dpdk-ibvcap --check-config and
      keeps it as its --config-file: it takes effect when that capture is
      restarted (systemctl restart dpdk-ibvcap@INSTANCE)
  replies ID
      the replies to command ID so far

A record on/off without --at, or with --at now, is given an absolute
start: the next whole second of UTC at least --lead ahead, the same for
every host, so every host starts (or stops) at the same CODIF frame
boundary. Every command has a deadline (--deadline, default --timeout
from now): an agent that sees it later refuses it, it is never applied
late.
"""
import argparse
import json
import math
import os
import re
import secrets
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
# the tools' shared module: beside this tool (the build tree), else where the
# package installs it (relative to bindir: a DESTDIR too), else the source tree
sys.path[:0] = [HERE, os.path.join(HERE, os.path.relpath("@PYDIR@", "@BINDIR@")),
                os.path.join(HERE, "..", "python")]
import ibvcap_tools as common  # noqa: E402
SCHEMA = 1
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
STALE_PERIODS = 3


def version_line():
    return common.version_line("dpdk-ibvcap-array")


def load_ctl():
    """dpdk-ibvcap-ctl as a module (its parser)."""
    return common.load_tool("dpdk-ibvcap-ctl", HERE, "dpdk-ibvcap-array")


class ArrayError(Exception):
    pass


def usage(msg):
    print("dpdk-ibvcap-array: %s" % msg, file=sys.stderr)
    sys.exit(2)


def name(text, what="name"):
    if not NAME_RE.match(text):
        usage("%s '%s': expected 1-63 of letters, digits, '_', '.', '-'" % (what, text))
    return text


def utc(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)


def parse_utc(text, what):
    """UTC (YYYY-MM-DDThh:mm:ss[.frac]Z) or @unix-seconds -> Unix seconds."""
    m = re.fullmatch(r"@([0-9]+(?:\.[0-9]+)?)", text)
    if m:
        return float(m.group(1))
    m = re.fullmatch(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                     r"(\.[0-9]+)?Z", text)
    if not m:
        usage("%s '%s': expected UTC YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds" % (what, text))
    import calendar
    t = calendar.timegm(tuple(int(x) for x in m.groups()[:6]) + (0, 0, 0))
    return t + (float(m.group(7)) if m.group(7) else 0.0)


class Array:
    def __init__(self, a, etcd3):
        self.a, self.etcd3 = a, etcd3
        self.pre = "/ibvcap/%s/" % a.array
        err = None
        for host, port in a.etcd:
            try:
                c = etcd3.client(host=host, port=port, timeout=a.rpc_timeout)
                c.get(self.pre + "schema")
                self.client = c
                break
            except Exception as e:  # grpc's and etcd3's
                err = "%s:%d: %s" % (host, port, (str(e).splitlines() or [type(e).__name__])[0])
        else:
            raise ArrayError("no etcd member answers (%s)" % err)
        v, _ = self.client.get(self.pre + "schema")
        if v is None:
            self.client.put_if_not_exists(self.pre + "schema", json.dumps({"schema": SCHEMA}))
        elif json.loads(v).get("schema") != SCHEMA:
            raise ArrayError("%sschema: %s: this tool knows schema %d only" %
                             (self.pre, v.decode(errors="replace"), SCHEMA))

    def retried(self, f, *args):
        """f(*args); a request that times out (etcd slow for a moment:
        fsync on a loaded host) is tried twice more."""
        for tries in range(3):
            try:
                return f(*args)
            except self.etcd3.exceptions.ConnectionTimeoutError:
                if tries == 2:
                    raise

    def records(self, sub, metas=None):
        """{host: record} under PREFIX/sub/ (each key's metadata into
        metas, a dict, when given)."""
        got = self.retried(lambda k: list(self.client.get_prefix(k)), self.pre + sub + "/")
        out = {}
        for v, meta in got:
            h = meta.key.decode().rsplit("/", 1)[-1]
            if metas is not None:
                metas[h] = meta
            try:
                out[h] = json.loads(v)
            except ValueError:
                out[h] = {"bad": v.decode(errors="replace")[:80]}
        return out

    def alive(self):
        """{host: liveness record} of the hosts whose lease is live. A key
        stays until etcd's leader revokes its lapsed lease, which a loaded
        etcd can put off for long (a revoke that timed out is retried
        later, etcd-io/etcd#10686): the lease's remaining TTL, asked of
        etcd, below 0 says the host is gone already. A lease etcd does not answer
        for is taken as live (the key is there)."""
        metas = {}
        alive = self.records("alive", metas)
        for h, meta in metas.items():
            if not meta.lease_id:  # put without a lease: the key says
                continue
            try:
                ttl = self.retried(self.client.get_lease_info, meta.lease_id).TTL
            except Exception:  # grpc's and etcd3's: the key says alive
                continue
            # etcd's TTL is the remaining time in whole seconds, cut
            # towards 0: 0 is a lease with under a second left, or lapsed
            # under a second ago; below 0, lapsed (or revoked: -1)
            if ttl < 0:
                del alive[h]
        return alive

    def hosts(self):
        """(alive hosts, every host known: alive, with a state or a configuration)."""
        alive = self.alive()
        known = set(alive) | set(self.records("state")) | set(self.records("config"))
        return alive, sorted(known)

    def issue(self, argv, hosts, deadline):
        cid = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)
        c = {"schema": SCHEMA, "id": cid, "argv": argv, "issued": time.time(),
             "deadline": deadline, "by": "%s@%s" % (os.environ.get("USER", "?"), os.uname()[1]),
             "hosts": hosts or "all"}
        lease = self.client.lease(int(self.a.keep))
        if hosts is None:
            self.client.put(self.pre + "cmd/all/" + cid, json.dumps(c), lease=lease)
        else:
            for h in hosts:
                self.client.put(self.pre + "cmd/%s/%s" % (h, cid), json.dumps(c), lease=lease)
        return cid

    def replies(self, cid):
        return self.records("reply/" + cid)

    def wait(self, cid, want, timeout):
        end = time.monotonic() + timeout
        while True:
            r = self.replies(cid)
            if all(h in r and r[h].get("result") != "applying" for h in want):
                return r
            if time.monotonic() >= end:
                return r
            time.sleep(0.1)


def answer_text(r):
    """The capture's answer, short: what it did."""
    ans = r.get("answer")
    if not isinstance(ans, dict):
        return ""
    for k in ("did", "files", "result"):
        if k in ans:
            return "%s" % ans[k]
    return ""


def command(arr, a, argv):
    alive, known = arr.hosts()
    if a.hosts:
        ask = a.hosts
        target = a.hosts
    else:
        ask = None
        target = sorted(set(known) | set(alive))
    if not target:
        raise ArrayError("array %s has no host (no agent ever wrote under %s)" % (a.array, arr.pre))
    want = [h for h in target if h in alive]
    deadline = parse_utc(a.deadline, "--deadline") if a.deadline else time.time() + a.timeout
    cid = arr.issue(argv, ask, deadline)
    r = arr.wait(cid, want, a.timeout) if want else {}
    print("command %s: %s (deadline %s)" % (cid, " ".join(argv), utc(deadline)))
    width = max(len(h) for h in target)
    good = 0
    rows = []
    for h in target:
        x = r.get(h)
        if h not in alive:
            line, res = "no answer (DOWN: no liveness lease)", "down"
        elif x is None or x.get("result") == "applying":
            line = "no answer in %g s%s" % (a.timeout, " (applying)" if x else "")
            res = "no answer"
        elif x.get("result") == "ok":
            line, res = "accepted", "accepted"
            t = answer_text(x)
            if t:
                line += ": " + t
            good += 1
        else:
            line = "%s (%s)" % (x.get("result"), x.get("why"))
            res = x.get("result")
        rows.append({"host": h, "result": res, "reply": x})
        print("%-*s  %s" % (width, h, line))
    if a.json:
        json.dump({"id": cid, "argv": argv, "deadline": deadline, "hosts": rows},
                  open(a.json, "w"), indent=2)
    print("%d of %d hosts accepted" % (good, len(target)))
    a.last = (cid, [x["host"] for x in rows if x["result"] == "accepted"])
    return 0 if good == len(target) else 3


MISSING = ("overwritten", "before_capture", "not_arrived", "blocked")


def num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return 0


def trigger_acks(arr, a, cid, hosts, wait):
    """Wait up to wait s for the acknowledgements of trigger command cid
    from hosts, then print each host's result and the per-antenna union.
    Exit status: 0 every host's window complete; 4 a host's ended without
    the whole window, or failed; 5 a host's not acknowledged in time."""
    end = time.monotonic() + wait
    while True:
        acks = arr.records("triggers/" + cid)
        if all(h in acks for h in hosts) or time.monotonic() >= end:
            break
        time.sleep(0.2)
    width = max([len(h) for h in hosts] + [4])
    rc = 0
    ants = {}
    print("trigger %s: acknowledgements" % cid)
    for h in hosts:
        k = acks.get(h)
        if k is None:
            print("%-*s  not acknowledged in %g s (the trigger may still run: "
                  "trigger-status %s)" % (width, h, wait, cid))
            rc = max(rc, 5)
            continue
        if k.get("state") != "done":
            print("%-*s  %s: %s" % (width, h, k.get("state"), k.get("why")))
            rc = max(rc, 4)
            continue
        print("%-*s  %s (%s): %s files, %s frames, %s gap frames" % (
            width, h, k.get("result"), k.get("ended"), num(k.get("files_written")),
            num(k.get("frames")),
            num(k.get("placeholders"))))
        if k.get("result") != "complete":
            rc = max(rc, 4)
        for ant, v in sorted((k.get("antennas") or {}).items()):
            x = ants.setdefault(ant, {"window_frames": 0, "frames": 0, "placeholders": 0,
                                      "hosts": [], "missing": {m: {} for m in MISSING},
                                      "why": []})
            x["hosts"].append(h)
            for f in ("window_frames", "frames", "placeholders"):
                x[f] += num(v.get(f))
            for m in MISSING:
                n = num(v.get("%s_frames" % m))
                if n:
                    x["missing"][m][h] = n
            if v.get("blocked"):
                x["why"].append("%s: %s" % (h, v["blocked"]))
    saved = window = 0
    for ant in sorted(ants):
        x = ants[ant]
        miss = ["%s %d (%s)" % (m, sum(x["missing"][m].values()),
                                ", ".join("%s %d" % hv for hv in sorted(x["missing"][m].items())))
                for m in MISSING if x["missing"][m]]
        print("antenna %s  %d of %d frames saved (%d gap frames)%s  hosts %s%s" % (
            ant, x["frames"] + x["placeholders"], x["window_frames"], x["placeholders"],
            "; could not: " + "; ".join(miss) if miss else "", ",".join(x["hosts"]),
            "; blocked: " + "; ".join(x["why"]) if x["why"] else ""))
        saved += x["frames"] + x["placeholders"]
        window += x["window_frames"]
    print("the array saved %d of the window's %d frames on %d of %d hosts%s" % (
        saved, window, len([h for h in hosts if (acks.get(h) or {}).get("state") == "done"]),
        len(hosts), "" if rc == 0 else ": not all of it"))
    if a.json:  # after a trigger, beside the command's own JSON
        path = a.json if a.trigger_status else a.json + ".trigger"
        with open(path, "w") as f:
            json.dump({"id": cid, "hosts": {h: acks.get(h) for h in hosts}, "antennas": ants},
                      f, indent=2)
    return rc


CAUSES = ("lost", "not_recorded", "overrun", "cut", "not_arrived")


def scan_ledger(arr, a, scan):
    """The hosts' ledgers of scan, per antenna and writer over the hosts.
    Exit status: 0 every host's ledger in and the span whole; 4 frames
    missing (by cause and host, printed); 5 a host that has the scan wrote
    no ledger (the scan not ended there yet, or its agent down)."""
    recs = arr.records("scans/" + scan)
    states = arr.records("state")
    have = {h for h, s in states.items() if scan in (s.get("scan_names") or [])}
    hosts = sorted(set(a.hosts) if a.hosts else have | set(recs))
    if not hosts:
        raise ArrayError("scan %s: no host has it (in its state record) nor wrote its ledger"
                         % scan)
    rc = 0
    width = max(len(h) for h in hosts)
    span = next((r for r in recs.values() if "start_utc" in r), {})
    print("scan %s: data time %s .. %s; ledgers from %d of %d hosts" % (
        scan, span.get("start_utc", "?"), span.get("stop_utc", "?"),
        len([h for h in hosts if h in recs]), len(hosts)))
    tab = {}
    streams = {}
    for h in hosts:
        r = recs.get(h)
        if r is None:
            print("%-*s  no ledger (the scan not ended there yet, or its agent down: "
                  "asked again with scan %s)" % (width, h, scan))
            rc = max(rc, 5)
            continue
        if not r.get("writers"):
            print("%-*s  no writer recorded it" % (width, h))
        for w in r.get("writers", []):
            miss = ["%s %d" % (c, num(w.get(c))) for c in CAUSES if num(w.get(c))]
            print("%-*s  %-22s %d of %d recorded%s%s" % (
                width, h, w["writer"], num(w.get("recorded")), num(w.get("expected")),
                "; missing: " + ", ".join(miss) if miss else "",
                " (%s)" % w["reason"] if w.get("reason") else ""))
            if num(w.get("recorded")) < num(w.get("expected")):
                rc = max(rc, 4)
            for ant, v in (w.get("antennas") or {}).items():
                x = tab.setdefault((ant, w["writer"]), {
                    "expected": 0, "recorded": 0, "streams": 0, "hosts": [],
                    "unknown": [], "missing": {c: {} for c in CAUSES}})
                x["hosts"].append(h)
                x["expected"] += num(v.get("expected"))
                x["streams"] += num(v.get("streams"))
                if not v.get("known"):  # a dump, an all=yes pcap: its row above
                    x["unknown"].append(h)
                    continue
                x["recorded"] += num(v.get("recorded"))
                for c in CAUSES:
                    if num(v.get(c)):
                        x["missing"][c][h] = num(v.get(c))
        for ant, ids in (r.get("streams") or {}).items():
            for i in ids:
                streams.setdefault((ant, i), []).append(h)
    expected = recorded = 0
    for (ant, wr) in sorted(tab):
        x = tab[(ant, wr)]
        miss = ["%s %d (%s)" % (c, sum(x["missing"][c].values()),
                                ", ".join("%s %d" % hv for hv in sorted(x["missing"][c].items())))
                for c in CAUSES if x["missing"][c]]
        print("antenna %s  %s  %d of %d frames recorded (%d streams)%s  hosts %s%s" % (
            ant, wr, x["recorded"], x["expected"], x["streams"],
            "; missing: " + "; ".join(miss) if miss else "", ",".join(x["hosts"]),
            "; per antenna unknown on %s (their writer's row above)" % ",".join(x["unknown"])
            if x["unknown"] else ""))
        expected += x["expected"]
        recorded += x["recorded"]
    dup = {k: v for k, v in streams.items() if len(v) > 1}
    for (ant, i), hs in sorted(dup.items()):
        print("antenna %s  stream %s recorded by %d hosts: %s" % (ant, i, len(hs), ",".join(hs)))
    print("the array recorded %d of the scan's %d frames (per antenna, writers with per-antenna "
          "figures)%s; %d stream%s recorded by two hosts or more" % (
              recorded, expected, "" if rc == 0 else ": not all of it", len(dup),
              "" if len(dup) == 1 else "s"))
    if a.json:
        json.dump({"scan": scan, "hosts": {h: recs.get(h) for h in hosts},
                   "antennas": [dict(antenna=ant, writer=wr, **tab[(ant, wr)])
                                for ant, wr in sorted(tab)],
                   "duplicate_streams": [{"antenna": ant, "stream": i, "hosts": hs}
                                         for (ant, i), hs in sorted(dup.items())]},
                  open(a.json, "w"), indent=2)
    return rc


def fit_fields(line, width):
    """A line of fields (two spaces or more between them) in lines of at
    most width characters: as many fields as fit on each, the next lines
    indented by four spaces (joined back with two spaces, the line again);
    a field wider than that alone stays whole."""
    out = []
    while len(line) > width:
        cuts = [m for m in re.finditer(r"(?<=\S) {2,}(?=\S)", line) if m.start() <= width]
        if not cuts:
            m = re.search(r"(?<=\S) {2,}(?=\S)", line)
            if m is None:
                break
            cuts = [m]
        out.append(line[:cuts[-1].start()])
        line = "    " + line[cuts[-1].end():]
    return "\n".join(out + [line])


def status(arr, a):
    # the status screen's width and order, hosts and antennas (dpdk-ibvcap-stat)
    stat = common
    cols = stat.screen_width()
    alive, known = arr.hosts()
    states = arr.records("state")
    hosts = a.hosts or sorted(known, key=stat.natural)
    if not hosts:
        print("array %s: no host" % a.array)
        return 1
    now = time.time()
    width = max(len(h) for h in hosts)
    bad = 0
    out = []
    for h in hosts:
        s = states.get(h)
        live = "alive" if h in alive else "DOWN"
        if s is None or "time" not in s:
            st, age = "no state", None
        else:
            age = now - s["time"]
            st = "STALE" if age > STALE_PERIODS * s.get("period", 5) else "fresh"
        if live != "alive" or st != "fresh" or (s or {}).get("capture") != "running":
            bad += 1
        cap = (s or {}).get("capture", "?")
        scan = (s or {}).get("current_scan") or "-"
        nxt = (s or {}).get("next_scan") or "-"
        wr = ",".join((s or {}).get("writer_states", [])) or "-"
        # the worst data-vs-host clock offset, the least disk free
        offs = [x["clock_offset_s"] for x in ((s or {}).get("antennas") or {}).values()
                if isinstance(x.get("clock_offset_s"), (int, float))]
        free = [x["disk_free"] for x in ((s or {}).get("writers") or {}).values()
                if isinstance(x.get("disk_free"), int) and x["disk_free"] > 0]
        extra = ""
        if offs:
            worst = max(offs, key=abs)
            extra += "  clock %+.3f s%s" % (worst, " (past --clock-warn)" if abs(worst) > (
                s.get("clock_warn_s") or float("inf")) else "")
        if free:
            extra += "  disk free %.1f GiB" % (min(free) / 2**30)
        print(fit_fields("%-*s  %-5s  state %s%s  capture %s  scan %s  next %s  writers %s%s" % (
            width, h, live, st, "" if age is None else " (%.1f s old)" % age, cap, scan, nxt, wr,
            extra), cols))
        out.append({"host": h, "alive": h in alive, "state": st, "age": age, "record": s})
    # the array's per-antenna sums over the hosts' last state records
    # (each host counts the streams of its groups; a STALE record's
    # figures are old, a DOWN host's last ones)
    sums = {}
    for h in hosts:
        for ant, row in ((states.get(h) or {}).get("antennas") or {}).items():
            x = sums.setdefault(ant, {"received": 0, "lost": 0, "hosts": []})
            x["received"] += row.get("received", 0)
            x["lost"] += row.get("lost", 0)
            x["hosts"].append(h)
    for ant in sorted(sums, key=stat.natural):
        x = sums[ant]
        print(fit_fields("antenna %s  received %d  lost %d  (hosts %s)" % (
            ant, x["received"], x["lost"], ",".join(x["hosts"])), cols))
    if a.json:
        json.dump({"hosts": out, "antennas": sums}, open(a.json, "w"), indent=2)
    return 0 if bad == 0 else 3


def config_push(arr, a, pairs):
    if not pairs:
        usage("config push: expected HOST=FILE ...")
    revs = {}
    for p in pairs:
        h, _, f = p.partition("=")
        name(h, "config push: host")
        try:
            ini = open(f).read()
        except OSError as e:
            usage("config push: %s: %s" % (f, e.strerror))
        rec = {"schema": SCHEMA, "ini": ini, "pushed": time.time(), "file": os.path.abspath(f)}
        arr.client.put(arr.pre + "config/" + h, json.dumps(rec))
        _, meta = arr.client.get(arr.pre + "config/" + h)
        revs[h] = meta.mod_revision
    rc = 0
    for h, rev in revs.items():
        a.hosts = [h]
        rc = max(rc, command(arr, a, ["config", "check", str(rev)]))
    return rc


def parse_args():
    """The command line: (the parser, its values with --etcd as (host, port)
    pairs and --hosts as a list)."""
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-array", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 every host accepted (status: every host alive, fresh and "
               "capturing; trigger: and every host's window complete); 1 etcd unreachable or "
               "no host; 2 bad usage; 3 a host refused, failed, did not answer or is DOWN "
               "(status: a host DOWN, STALE or not capturing); 4 a trigger ended without "
               "the whole window on a host, or failed there; 5 a host's trigger not "
               "acknowledged within --trigger-wait (scan: 4 frames of the scan missing, 5 a host's "
               "ledger not written).")
    ap.add_argument("--etcd", default="127.0.0.1:2379", metavar="HOST:PORT[,...]",
                    help="etcd members' client addresses, the first that answers used "
                         "(default 127.0.0.1:2379)")
    ap.add_argument("--array", required=True, help="the array's name (key prefix /ibvcap/ARRAY/)")
    ap.add_argument("--hosts", metavar="H1,H2,...",
                    help="the hosts to command (default: every host of the array)")
    ap.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                    help="wait this long for the replies (default 5)")
    ap.add_argument("--deadline", metavar="UTC",
                    help="agents refuse the command after this time (default: now + --timeout)")
    ap.add_argument("--lead", type=float, default=2.0, metavar="SECONDS",
                    help="record on/off --at now: at least this far ahead (default 2)")
    ap.add_argument("--keep", type=float, default=3600.0, metavar="SECONDS",
                    help="commands expire from etcd after SECONDS (default 3600)")
    ap.add_argument("--rpc-timeout", type=float, default=3.0, metavar="SECONDS",
                    help="one etcd request's time limit (default 3)")
    ap.add_argument("--json", metavar="FILE", help="also write the result as JSON to FILE "
                    "(a trigger's acknowledgements: FILE.trigger)")
    ap.add_argument("--trigger-wait", type=float, default=120.0, metavar="SECONDS",
                    help="trigger: wait this long for the hosts' acknowledgements (default 120)")
    ap.add_argument("--version", action="version", version=version_line())
    ap.add_argument("command", nargs=argparse.REMAINDER,
                    help="record on|off|cancel ..., trigger ..., trigger-status ID, scan SCAN, "
                         "status, config push ..., replies ID")
    a = ap.parse_args()
    name(a.array, "--array")
    eps = []
    for e in a.etcd.split(","):
        m = re.fullmatch(r"([A-Za-z0-9.-]+):([0-9]{1,5})", e.strip())
        if not m:
            usage("--etcd '%s': expected HOST:PORT[,HOST:PORT...]" % e)
        eps.append((m.group(1), int(m.group(2))))
    a.etcd = eps
    if a.hosts is not None:
        a.hosts = [name(h, "--hosts: host") for h in a.hosts.split(",")]
    if not 0 < a.timeout <= 3600 or not 0 <= a.lead <= 3600:
        usage("--timeout %g / --lead %g: expected seconds, 0 < timeout <= 3600, 0 <= lead"
              % (a.timeout, a.lead))
    return ap, a


def check_command(a, argv):
    """The command's own words checked (exit 2 on bad usage, as usage()
    does); record on/off --at now becomes a time --lead ahead. Returns argv
    as the hosts get it."""
    verb = argv[0]
    if verb in ("record", "trigger"):
        ctl = load_ctl()
        p = ctl.parser()
        p.prog = "dpdk-ibvcap-array"
        c = p.parse_args(argv)  # ctl's own checks: exit 2 on bad usage
        if verb == "record" and c.action in ("on", "off") and c.at in (None, "now"):
            at = math.ceil(time.time() + a.lead)
            argv = [x for i, x in enumerate(argv)
                    if x != "--at" and (i == 0 or argv[i - 1] != "--at")]
            argv += ["--at", utc(at)]
    elif verb == "status":
        if len(argv) != 1:
            usage("status: no arguments expected, got '%s'" % " ".join(argv[1:]))
    elif verb == "config":
        if argv[1:2] != ["push"]:
            usage("config: expected 'config push HOST=FILE ...'")
    elif verb == "replies":
        if len(argv) != 2:
            usage("replies: expected one command ID")
    elif verb == "trigger-status":
        if len(argv) != 2:
            usage("trigger-status: expected one trigger command ID")
    elif verb == "scan":
        if len(argv) != 2:
            usage("scan: expected one scan name")
        name(argv[1], "scan: SCAN")
    else:
        usage("'%s': expected record, trigger, trigger-status, scan, status, config or "
              "replies" % verb)
    return argv


def run(arr, a, argv):
    """The command on the array: its exit status."""
    verb = argv[0]
    if verb == "status":
        return status(arr, a)
    if verb == "config":
        return config_push(arr, a, argv[2:])
    if verb == "scan":
        return scan_ledger(arr, a, argv[1])
    if verb == "replies":
        r = arr.replies(name(argv[1], "replies: ID"))
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0 if r else 3
    if verb == "trigger-status":
        cid = name(argv[1], "trigger-status: ID")
        acked = sorted(set(arr.records("triggers/" + cid)) |
                       {h for h, r in arr.replies(cid).items() if r.get("result") == "ok"})
        if not acked:
            raise ArrayError("trigger %s: no host accepted or acknowledged it" % cid)
        return trigger_acks(arr, a, cid, acked, 0)
    rc = command(arr, a, argv)
    if verb == "trigger" and getattr(a, "last", None) and a.last[1]:
        rc = max(rc, trigger_acks(arr, a, a.last[0], a.last[1], a.trigger_wait))
    return rc


def main():
    ap, a = parse_args()
    if not a.command:
        ap.print_usage(sys.stderr)
        return 2
    argv = check_command(a, a.command)
    a.trigger_status = argv[0] == "trigger-status"
    try:
        import etcd3
    except ImportError as e:
        print("dpdk-ibvcap-array: cannot import etcd3 (%s): install Debian's python3-etcd3 "
              "and run with /usr/bin/python3" % e, file=sys.stderr)
        return 1
    arr = None
    try:
        arr = Array(a, etcd3)
        return run(arr, a, argv)
    except ArrayError as e:
        print("dpdk-ibvcap-array: %s" % e, file=sys.stderr)
        return 1
    except Exception as e:  # etcd gone during the command
        if type(e).__module__.startswith(("etcd3", "grpc")):
            print("dpdk-ibvcap-array: etcd: %s" % (str(e).splitlines() or [type(e).__name__])[0],
                  file=sys.stderr)
            return 1
        raise
    finally:
        # the gRPC channel closed here, not in the interpreter's teardown
        if arr is not None and getattr(arr, "client", None) is not None:
            arr.client.close()


if __name__ == "__main__":
    sys.exit(main())
