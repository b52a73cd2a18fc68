#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-agent: one capture host's member of an array, on etcd.

Beside one running dpdk-ibvcap (its --file-prefix), the agent keeps the
host's liveness key alive/HOST under an etcd lease (--ttl), watches the
array's commands for this host (cmd/HOST/) and for every host (cmd/all/),
applies each at most once to the local capture through dpdk-ibvcap-ctl's
parser and telemetry client, writes a reply per command (ok, refused with
why, or failed), and writes a small state record state/HOST every
--period. A trigger is acknowledged: once the capture's trigger job has
ended, its result (files, frames, gap frames and, per antenna, what of the
window it wrote and what it could not, and why) goes to
triggers/ID/HOST under the array command's id. Each scan the capture
ended gets the host's ledger under scans/SCAN/HOST (the capture's
/ibvcap/scan: per writer and per antenna, the frames its span should hold,
those recorded and those missing by cause, and the host's streams), which
dpdk-ibvcap-array scan reconciles over the hosts. A command seen after its
deadline is refused, never applied late. When etcd cannot be reached the capture goes on untouched; the
agent says so, retries with backoff (over every --etcd endpoint) and, once
back, watches from the last revision it saw: nothing already replied to
is applied again, and commands issued before the agent started are never
applied; triggers it accepted before a restart and not yet acknowledged
are taken up again. The keys are docs/formats.md's "The array in etcd" (schema 1).

Configuration pushed with `dpdk-ibvcap-array config push` is checked with
`dpdk-ibvcap --check-config` and, when it passes, written to --config-file
(atomically); it takes effect when the capture is restarted
(systemctl restart dpdk-ibvcap@INSTANCE).
"""
import argparse
import contextlib
import io
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.realpath(__file__))
# the tools' shared module: beside this tool (the build tree), else where the
# package installs it (relative to bindir: a DESTDIR too), else the source tree
sys.path[:0] = [HERE, os.path.join(HERE, os.path.relpath("@PYDIR@", "@BINDIR@")),
                os.path.join(HERE, "..", "python")]
import ibvcap_tools as common  # noqa: E402
SCHEMA = 1
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
def version_line():
    return common.version_line("dpdk-ibvcap-agent")


def load_ctl():
    """dpdk-ibvcap-ctl as a module (its parser and command vocabulary)."""
    return common.load_tool("dpdk-ibvcap-ctl", HERE, "dpdk-ibvcap-agent")


def endpoints(text):
    """--etcd HOST:PORT[,HOST:PORT...] -> [(host, port)]."""
    out = []
    for e in text.split(","):
        m = re.fullmatch(r"(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})", e.strip())
        if not m or not 0 < int(m.group(2)) < 65536:
            raise argparse.ArgumentTypeError(
                "'%s': expected HOST:PORT[,HOST:PORT...] (etcd client URLs without http://)" % e)
        out.append((m.group(1).strip("[]"), int(m.group(2))))
    return out


def name(text):
    if not NAME_RE.match(text):
        raise argparse.ArgumentTypeError(
            "'%s': expected 1-63 of letters, digits, '_', '.', '-'" % text)
    return text


def seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = -1
    if not 0 < v <= 3600:
        raise argparse.ArgumentTypeError("'%s': expected seconds, more than 0, at most 3600"
                                         % text)
    return v


class Lost(Exception):
    """etcd went away (or our lease did): reconnect."""


class Agent:
    def __init__(self, a, ctl, etcd3):
        self.a, self.ctl, self.etcd3 = a, ctl, etcd3
        self.stat = common  # the telemetry client
        self.pre = "/ibvcap/%s/" % a.array
        self.client = self.lease = None
        self.watches = []
        self.events = queue.Queue()
        self.gen = 0               # connections made (tags watch events)
        self.rev = None            # the last etcd revision seen by the watches
        self.done = set()          # ids replied to (also in etcd: the claim)
        self.pending = []          # (key, record, under --keep's lease) not
                                   # yet written: replies, trigger
                                   # acknowledgements, scan ledgers
        self.ledgers = set()       # scans whose ledger this agent wrote
        self.seq = 0
        self.reconnects = 0
        self.stop = threading.Event()
        self.started = time.time()
        self.config_revision = None
        self.results = {"ok": 0, "refused": 0, "failed": 0}
        self.held = False          # our liveness lease, as last known
        self.triggers = {}         # array command id -> the capture's trigger job
        self.capture_pid = None    # the capture's, as last connected

    def log(self, msg):
        print("dpdk-ibvcap-agent: %s: %s" % (self.a.host, msg), file=sys.stderr, flush=True)

    # ---- etcd ---------------------------------------------------------------

    def connect(self, ep):
        e = self.etcd3
        c = e.client(host=ep[0], port=ep[1], timeout=self.a.rpc_timeout)
        try:
            first = self.rev is None
            hdr = c.get_response(self.pre + "schema").header
            if first:
                self.rev = hdr.revision  # never apply what came before us
                self.recover_triggers(c)
            self.lease = c.lease(int(round(self.a.ttl)))
            alive = {"schema": SCHEMA, "host": self.a.host, "pid": os.getpid(),
                     "version": version_line(), "file_prefix": self.a.file_prefix,
                     "ttl": self.a.ttl, "started": self.started}
            c.put(self.pre + "alive/" + self.a.host, json.dumps(alive), lease=self.lease)
            # events tagged with the connection: an old watch's late error
            # (its stream closed when we left it) is not this one's
            self.gen += 1
            for p in ("cmd/%s/" % self.a.host, "cmd/all/"):
                self.watches.append(c.add_watch_prefix_callback(
                    self.pre + p, lambda ev, g=self.gen: self.events.put((g, ev)),
                    start_revision=self.rev + 1))
        except Exception:
            with contextlib.suppress(Exception):
                c.close()
            self.watches = []
            raise
        self.client = c
        self.held = True
        self.prom()

    def prom(self):
        """--prom: the agent's own figures for node_exporter's textfile
        collector (config/prometheus: IbvcapAgentLeaseLost), atomically."""
        if not self.a.prom:
            return
        lab = 'array="%s",host="%s"' % (self.a.array, self.a.host)
        out = ["# HELP ibvcap_agent_lease_held 1 while the agent holds its liveness lease in etcd",
               "# TYPE ibvcap_agent_lease_held gauge",
               "ibvcap_agent_lease_held{%s} %d" % (lab, self.held),
               "# HELP ibvcap_agent_etcd_reconnects_total Connections to etcd made again after "
               "one was lost.",
               "# TYPE ibvcap_agent_etcd_reconnects_total counter",
               "ibvcap_agent_etcd_reconnects_total{%s} %d" % (lab, self.reconnects),
               "# HELP ibvcap_agent_commands_total Commands applied or refused, by result.",
               "# TYPE ibvcap_agent_commands_total counter"]
        out += ['ibvcap_agent_commands_total{%s,result="%s"} %d' % (lab, r, n)
                for r, n in sorted(self.results.items())]
        d = os.path.dirname(os.path.abspath(self.a.prom))
        try:
            fd, tmp = tempfile.mkstemp(prefix=".agent.", suffix=".prom", dir=d)
            with os.fdopen(fd, "w") as f:
                f.write("\n".join(out) + "\n")
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.a.prom)
        except OSError as e:
            if not getattr(self, "prom_warned", False):
                self.log("--prom %s: %s (the agent goes on without it)" % (self.a.prom, e.strerror))
                self.prom_warned = True

    def disconnect(self, revoke=False):
        c, self.client = self.client, None
        if c is None:
            return
        for w in self.watches:
            with contextlib.suppress(Exception):
                c.cancel_watch(w)
        self.watches = []
        if revoke and self.lease is not None:
            with contextlib.suppress(Exception):
                self.lease.revoke()
        with contextlib.suppress(Exception):
            c.close()

    def run(self):
        eps = self.a.etcd
        i, backoff, down_since = 0, 0.5, None
        while not self.stop.is_set():
            ep = eps[i % len(eps)]
            try:
                self.connect(ep)
                if down_since is not None:
                    self.reconnects += 1
                    self.log("etcd %s:%d reached again after %.1f s; watching from "
                             "revision %d" % (ep[0], ep[1], time.time() - down_since,
                                              self.rev + 1))
                else:
                    self.log("member of array %s at etcd %s:%d (lease TTL %g s, state every "
                             "%g s)" % (self.a.array, ep[0], ep[1], self.a.ttl, self.a.period))
                down_since, backoff = None, 0.5
                self.serve()
            except Exception as e:  # grpc's and etcd3's errors, our Lost
                if self.stop.is_set():
                    break
                if down_since is None:
                    down_since = time.time()
                self.log("etcd %s:%d: %s; the capture goes on; retrying in %.1f s" %
                         (ep[0], ep[1], why(e), backoff))
                self.disconnect()
                # a new lease at reconnection: the old one may have lapsed
                self.lease = None
                self.held = False
                self.prom()
                self.stop.wait(backoff)
                backoff = min(backoff * 2, 8.0)
                i += 1
        self.disconnect(revoke=True)

    def serve(self):
        next_refresh = next_state = next_trig = 0.0
        while not self.stop.is_set():
            now = time.monotonic()
            if now >= next_refresh:
                r = self.lease.refresh()
                if not r or r[0].TTL <= 0:
                    raise Lost("lease %x expired" % self.lease.id)
                next_refresh = now + self.a.ttl / 3
            if now >= next_state:
                self.publish()
                next_state = now + self.a.period
            if self.triggers and now >= next_trig:
                self.poll_triggers()
                next_trig = now + 0.5
            self.flush()
            try:
                g, ev = self.events.get(timeout=0.1)
            except queue.Empty:
                continue
            if g == self.gen:
                self.watch_event(ev)

    def watch_event(self, ev):
        if isinstance(ev, self.etcd3.exceptions.RevisionCompactedError):
            self.log("commands after revision %d were compacted away: watching from %d" %
                     (self.rev, ev.compacted_revision))
            self.rev = ev.compacted_revision - 1
            raise Lost("watch compacted")
        if isinstance(ev, Exception):
            raise Lost("watch: %s" % why(ev))
        for e in ev.events:
            if not isinstance(e, self.etcd3.events.PutEvent):
                continue
            self.command(e.key.decode(errors="replace"), e.value, e.mod_revision)
            self.rev = max(self.rev, e.mod_revision)

    # ---- commands -------------------------------------------------------------

    def command(self, key, value, rev):
        cid = key.rsplit("/", 1)[-1]
        if cid in self.done:
            return
        rkey = self.pre + "reply/%s/%s" % (cid, self.a.host)
        reply = {"schema": SCHEMA, "id": cid, "host": self.a.host, "seen": time.time()}
        try:
            c = json.loads(value)
            ok = (isinstance(c, dict) and c.get("schema") == SCHEMA and c.get("id") == cid and
                  isinstance(c.get("argv"), list) and all(isinstance(x, str) for x in c["argv"])
                  and isinstance(c.get("deadline"), (int, float)))
        except ValueError:
            c, ok = None, False
        if not ok:
            return self.finish(rkey, dict(reply, result="refused", why=(
                "command %s: expected a schema %d object with id %s, argv (strings) and "
                "deadline" % (key, SCHEMA, cid))), claim=True)
        if reply["seen"] > c["deadline"]:
            return self.finish(rkey, dict(reply, result="refused", why=(
                "deadline passed %.3f s before the agent saw it (deadline %s)" %
                (reply["seen"] - c["deadline"], utc(c["deadline"])))), claim=True)
        if not self.claim(rkey, dict(reply, result="applying")):
            self.done.add(cid)
            self.log("command %s already has a reply: not applied again" % cid)
            return
        result, why, answer = self.apply(c["argv"])
        self.log("command %s (%s): %s%s" % (cid, " ".join(c["argv"]), result,
                                           ": " + why if why else ""))
        if result == "ok" and c["argv"][:1] == ["trigger"] and isinstance(answer, dict) \
                and answer.get("id") is not None:
            # its result acknowledged under the command's id once it ended
            # (by this capture: a job id means nothing to another)
            self.triggers[cid] = {"job": str(answer["id"]), "argv": c["argv"],
                                  "since": time.time(), "pid": self.capture_pid}
            reply["capture_pid"] = self.capture_pid
        self.finish(rkey, dict(reply, result=result, why=why, answer=answer,
                               done=time.time()), claim=False)

    def recover_triggers(self, c):
        """At the agent's start: triggers this host accepted (reply ok, a
        job id) whose acknowledgement is not written, taken up again (an
        agent restarted while its capture wrote a window)."""
        n = 0
        for v, meta in c.get_prefix(self.pre + "reply/"):
            cid, host = meta.key.decode(errors="replace").split("/")[-2:]
            try:
                r = json.loads(v)
            except ValueError:
                continue
            ans = r.get("answer")
            if host != self.a.host or r.get("result") != "ok" or not isinstance(ans, dict) \
                    or ans.get("id") is None or "capture_pid" not in r:
                continue
            if c.get(self.pre + "triggers/%s/%s" % (cid, host))[0] is not None:
                continue
            argv = []
            for k in ("cmd/%s/%s" % (host, cid), "cmd/all/%s" % cid):
                cv = c.get(self.pre + k)[0]
                if cv is not None:
                    with contextlib.suppress(ValueError, AttributeError):
                        argv = json.loads(cv).get("argv", [])
                    break
            self.triggers[cid] = {"job": str(ans["id"]), "argv": argv, "since": time.time(),
                                  "pid": r["capture_pid"]}
            n += 1
        if n:
            self.log("%d trigger(s) accepted before this agent started, not yet acknowledged: "
                     "taken up again" % n)

    def claim(self, rkey, reply):
        """The at-most-once: the reply key made only if none exists."""
        t = self.client.transactions
        lease = self.client.lease(int(self.a.keep))
        ok, _ = self.client.transaction(
            compare=[t.create(rkey) == 0],
            success=[t.put(rkey, json.dumps(reply), lease)], failure=[])
        return ok

    def finish(self, rkey, reply, claim):
        self.done.add(reply["id"])
        self.results[reply["result"]] = self.results.get(reply["result"], 0) + 1
        if claim:
            if not self.claim(rkey, reply):
                self.log("command %s already has a reply: not applied again" % reply["id"])
            return
        self.pending.append((rkey, reply, True))
        with contextlib.suppress(Exception):
            self.flush()

    def flush(self):
        while self.pending:
            key, rec, keep = self.pending[0]
            self.client.put(key, json.dumps(rec),
                            lease=self.client.lease(int(self.a.keep)) if keep else None)
            self.pending.pop(0)

    def poll_triggers(self):
        """Each trigger started for an array command: its job's state; once
        it ended, its result acknowledged under triggers/ID/HOST (the
        capture gone or the job unknown: acknowledged as failed, with why)."""
        for cid, t in list(self.triggers.items()):
            ack = {"schema": SCHEMA, "id": cid, "host": self.a.host, "job": t["job"],
                   "argv": t["argv"]}
            try:
                tel = self.stat.Telemetry(self.a.file_prefix, self.a.rpc_timeout)
                try:
                    if t.get("pid") and tel.pid != t["pid"]:
                        raise self.stat.TelemetryError(
                            "it was restarted (pid %s when the trigger started, now %s): its "
                            "trigger jobs went with it" % (t["pid"], tel.pid))
                    r = tel.query("/ibvcap/trigger/status,%s" % t["job"])
                finally:
                    tel.close()
            except self.stat.TelemetryTimeout:
                continue  # hung for a moment, or stopped: asked again
            except self.stat.TelemetryError as e:
                ack.update(state="failed", why="the capture did not answer: %s" % e)
                r = None
            except (OSError, ValueError):
                continue  # its connections all taken for a moment: asked again
            if isinstance(r, dict) and "input" in r:
                ack.update(state="failed", why="the capture has no trigger %s: %s" % (
                    t["job"], r.get("expected")))
            elif isinstance(r, dict):
                if r.get("state") != "done":
                    continue
                ack.update(state="done", result=r.get("result"), ended=r.get("ended"),
                           files=r.get("files"), files_written=r.get("files_written"),
                           frames=r.get("frames"),
                           placeholders=r.get("placeholders"),
                           antennas={k: v for k, v in r.items() if isinstance(v, dict)})
            elif r is not None:
                continue
            ack["done"] = time.time()
            del self.triggers[cid]
            self.log("trigger %s (job %s): %s" % (cid, t["job"], ack.get("result") or
                                                  "%s: %s" % (ack["state"], ack.get("why"))))
            self.pending.append((self.pre + "triggers/%s/%s" % (cid, self.a.host), ack, True))

    def apply(self, argv):
        """(result, why, the capture's answer)."""
        if argv[:1] == ["config"]:
            return self.config(argv)
        # {host} in an argument (a trigger's --dir or --prefix on storage
        # the hosts share): this host's name
        argv = [x.replace("{host}", self.a.host) for x in argv]
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                a = self.ctl.parser().parse_args(argv)
                if a.cmd is None:
                    raise SystemExit(2)
                cmd = self.ctl.telemetry_command(a)
        except SystemExit:
            msg = err.getvalue().strip().splitlines()
            return "refused", "not a dpdk-ibvcap-ctl command: %s" % (
                msg[-1] if msg else " ".join(argv)), None
        try:
            # a hung capture must not hold the agent (its lease); a trigger
            # is a job that answers its id at once (its result: poll_triggers)
            tel = self.stat.Telemetry(self.a.file_prefix, self.a.rpc_timeout)
            try:
                self.capture_pid = tel.pid
                r = tel.query(cmd)
            finally:
                tel.close()
        except (self.stat.TelemetryError, OSError, ValueError) as e:
            return "failed", "the capture did not answer: %s" % e, None
        if not isinstance(r, dict):
            return "failed", "the capture gave no answer (starting or stopping?)", r
        if r.get("result") == "refused" or "error" in r:
            return "refused", "the capture refused, nothing changed: %s '%s': expected %s" % (
                r.get("input"), r.get("value"), r.get("expected")), r
        return "ok", "", r

    def config(self, argv):
        """config check REVISION: the pushed INI checked, then kept on disk."""
        if len(argv) != 3 or argv[1] != "check" or not argv[2].isdigit():
            return "refused", "expected: config check REVISION", None
        v, meta = self.client.get(self.pre + "config/" + self.a.host)
        if v is None or str(meta.mod_revision) != argv[2]:
            return "refused", "configuration revision %s: not the one in etcd (%s)" % (
                argv[2], meta.mod_revision if meta else "none"), None
        ini = json.loads(v)["ini"]
        if not self.a.config_file:
            return "refused", "this agent has no --config-file to keep a configuration in", None
        ibvcap = self.a.ibvcap or os.path.join(HERE, "dpdk-ibvcap")
        d = os.path.dirname(os.path.abspath(self.a.config_file))
        fd, tmp = tempfile.mkstemp(prefix=".push.", suffix=".ini", dir=d)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(ini)
            r = subprocess.run([ibvcap, "--check-config", tmp], capture_output=True, text=True,
                               timeout=60)
            if r.returncode != 0:
                out = (r.stderr + r.stdout).strip().splitlines()
                return "refused", "dpdk-ibvcap --check-config: %s" % (
                    out[-1] if out else "exit %d" % r.returncode), None
            os.replace(tmp, self.a.config_file)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self.config_revision = int(argv[2])
        return "ok", "", {"config_file": self.a.config_file, "revision": int(argv[2]),
                          "takes_effect": "when the capture restarts"}

    # ---- the state record -------------------------------------------------------

    def publish(self):
        self.seq += 1
        s = {"schema": SCHEMA, "host": self.a.host, "time": time.time(), "period": self.a.period,
             "seq": self.seq, "agent": version_line(), "etcd_reconnects": self.reconnects,
             "config_revision": self.config_revision}
        try:
            tel = self.stat.Telemetry(self.a.file_prefix, self.a.rpc_timeout)
            try:
                r = tel.query("/ibvcap/record,status")
                s["capture_pid"] = tel.pid
                ants = self.stat.rows(tel.query("/ibvcap/antennas"))
                try:
                    wrs = self.stat.writers(tel)
                except self.stat.TelemetryError:
                    wrs = {}  # --no-buffers: no writers
            finally:
                tel.close()
            s["capture"] = "running"
            if isinstance(r, dict):
                for k in ("current_scan", "next_scan", "writer_states", "scan_names"):
                    if k in r:
                        s[k] = r[k]
            s["antennas"] = {n: {k: v for k, v in row.items() if k in ("received", "lost")}
                             for n, row in ants.items()}
            # each antenna's data time minus the host clock (the capture's
            # --clock-warn watches it), in antenna order as the capture's
            if isinstance(r, dict):
                for n, ms, known in zip(list(ants),
                                        r.get("data_offset_ms", []),
                                        r.get("data_offset_known", [])):
                    if known:
                        s["antennas"][n]["clock_offset_s"] = ms / 1000.0
                s["clock_warn_s"] = r.get("clock_warn_ms", 0) / 1000.0
            # each writer: how far behind the ring (its fill), overrun, disk
            s["writers"] = {n: {k: w.get(k) for k in ("lag_frames", "lag_ns", "overrun",
                                                      "disk_free", "min_free", "time_left_ns")
                                if k in w} for n, w in wrs.items()}
            for scan in dict.fromkeys(r.get("ledger_scan", []) if isinstance(r, dict) else []):
                if scan not in self.ledgers:
                    try:
                        self.scan_ledger(scan)
                    except (self.stat.TelemetryError, OSError, ValueError, KeyError,
                            IndexError, TypeError) as e:
                        self.log("scan %s: its ledger not read (%s); asked again next "
                                 "period" % (scan, why(e)))
        except (self.stat.TelemetryError, OSError, ValueError) as e:
            s["capture"] = "not running"
            s["why"] = str(e)[:200]
        self.client.put(self.pre + "state/" + self.a.host, json.dumps(s))
        self.prom()


    def scan_ledger(self, scan):
        """The host's ledger of a scan the capture ended, to scans/SCAN/HOST
        (kept: no lease). A restarted agent writes it again: the same."""
        tel = self.stat.Telemetry(self.a.file_prefix, self.a.rpc_timeout)
        try:
            x = tel.query("/ibvcap/scan,%s" % scan)
            if not isinstance(x, dict) or x.get("state") != "ended":
                return
            rec = {"schema": SCHEMA, "scan": scan, "host": self.a.host, "written": time.time(),
                   "capture_pid": tel.pid}
            for k in ("origin", "start_utc", "stop_utc", "start_ns", "stop_ns"):
                rec[k] = x.get(k)
            figs = ("expected", "recorded", "lost", "not_recorded", "overrun", "cut",
                    "not_arrived")
            rec["writers"] = []
            for i, w in enumerate(x.get("writer", [])):
                row = {"writer": w, "reason": x["reason"][i]}
                row.update({f: x[f][i] for f in figs})
                y = tel.query("/ibvcap/scan,%s,%s" % (scan, w))
                row["antennas"] = {}
                for j, ant in enumerate((y or {}).get("antenna", [])):
                    row["antennas"][ant] = {f: y[f][j] for f in ("streams",) + figs}
                    row["antennas"][ant]["known"] = bool(y["known"][j])
                rec["writers"].append(row)
            # the host's streams of each antenna (received any frame):
            # dpdk-ibvcap-array flags a stream two hosts recorded
            rec["streams"] = {}
            ants = sorted({a for row in rec["writers"] for a in row["antennas"]})
            for ant in ants:
                for st in self.stat.rows(tel.query("/ibvcap/streams,%s" % ant)).values():
                    if st.get("received", 0) > 0:
                        rec["streams"].setdefault(ant, []).append("%s:%d/%d" % (
                            socket.inet_ntoa(int(st["dst"]).to_bytes(4, "big")),
                            st["port"], st["threadid"]))
                rec["streams"][ant] = sorted(set(rec["streams"].get(ant, [])))
        finally:
            tel.close()
        self.ledgers.add(scan)
        self.pending.append((self.pre + "scans/%s/%s" % (scan, self.a.host), rec, False))
        self.log("scan %s ended: its ledger written (%s)" % (scan, "; ".join(
            "%s %d of %d recorded" % (w["writer"], w["recorded"], w["expected"])
            for w in rec["writers"]) or "no writer recorded it"))


def why(e):
    """One line for an etcd3, grpc or other error."""
    if callable(getattr(e, "code", None)) and callable(getattr(e, "details", None)):
        return "%s: %s" % (e.code().name, e.details())
    return ((str(e).splitlines() or [""])[0] or type(e).__name__)[:200]


def quiet_watch_thread(args):
    """etcd3's watch thread dies with a ValueError when its client is closed
    (at each reconnection and at exit): expected, not worth a traceback."""
    if (args.thread is not None and args.thread.name.startswith("etcd3_watch_") and
            isinstance(args.exc_value, ValueError)):
        return
    threading.__excepthook__(args)


def utc(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)


def main():
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-agent", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 stopped by SIGTERM or SIGINT (its lease revoked: the host "
               "shows DOWN at once); 2 bad usage.")
    ap.add_argument("--etcd", type=endpoints, default=endpoints("127.0.0.1:2379"),
                    metavar="HOST:PORT[,...]",
                    help="etcd members' client addresses, tried in turn (default 127.0.0.1:2379)")
    ap.add_argument("--array", type=name, required=True, help="the array's name (its key prefix "
                    "/ibvcap/ARRAY/)")
    ap.add_argument("--host", type=name, default=socket.gethostname().split(".")[0],
                    help="this host's name in the array (default: the short hostname)")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--ttl", type=seconds, default=10.0, metavar="SECONDS",
                    help="the liveness lease's TTL: the host is DOWN this long after the agent "
                         "stops refreshing it (default 10)")
    ap.add_argument("--period", type=seconds, default=5.0, metavar="SECONDS",
                    help="write the state record every SECONDS (default 5)")
    ap.add_argument("--keep", type=seconds, default=3600.0, metavar="SECONDS",
                    help="replies expire from etcd after SECONDS (default 3600)")
    ap.add_argument("--rpc-timeout", type=seconds, default=3.0, metavar="SECONDS",
                    help="one etcd request's, and one telemetry query's, time limit (default 3)")
    ap.add_argument("--config-file", metavar="FILE",
                    help="where a pushed configuration that passed --check-config is kept "
                         "(e.g. /etc/dpdk-ibvcap/INSTANCE.ini)")
    ap.add_argument("--ibvcap", metavar="PATH", help="dpdk-ibvcap for --check-config "
                    "(default: beside this tool)")
    ap.add_argument("--prom", metavar="FILE",
                    help="write the agent's figures (lease held, reconnections, commands by "
                         "result) to FILE every period, for node_exporter's textfile collector")
    ap.add_argument("--version", action="version", version=version_line())
    a = ap.parse_args()
    if a.ttl < 2:
        ap.error("--ttl %g: expected at least 2 seconds (etcd's lease granularity is 1 s)" % a.ttl)
    try:
        import etcd3
    except ImportError as e:
        print("dpdk-ibvcap-agent: cannot import etcd3 (%s): install Debian's python3-etcd3 "
              "and run with /usr/bin/python3" % e, file=sys.stderr)
        return 1
    threading.excepthook = quiet_watch_thread
    agent = Agent(a, load_ctl(), etcd3)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: agent.stop.set())
    agent.run()
    agent.held = False
    agent.prom()
    agent.log("stopped (lease revoked)")
    # etcd3's watch thread would die noisily in the interpreter's shutdown
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
