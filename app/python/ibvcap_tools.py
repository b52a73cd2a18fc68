# SPDX-License-Identifier: BSD-3-Clause
"""What the dpdk-ibvcap Python tools share (stat, ctl, fleet, agent, array):
their version line, loading one tool as a module, the client of DPDK's
telemetry socket, the counter tables as the capture serves them
(/ibvcap/counters: unit, kind, merge rule, Prometheus name and scale of
every figure; counters.json, the same rows, without a capture), the INI
reader and small helpers.

It is a private module: installed in /usr/share/dpdk-ibvcap/python (beside
counters.json), or found beside the tools in the build tree; each tool puts
that directory on sys.path (app/meson.build writes the installed copies).
Standard library only."""

import json
import os
import re
import shutil
import socket
import stat
import time
import importlib.machinery
import importlib.util

# meson writes the built copy with the project's version (app/meson.build)
VERSION = "@VERSION@"
HERE = os.path.dirname(os.path.realpath(__file__))
RUNDIR = os.environ.get("DPDK_RUNTIME_DIR", "/var/run/dpdk")
# the counter groups the tools show and export (lib/stats stats_groups;
# lcore is the summary's only, stream the counts a stream has)
GROUPS = ("counts", "buffer", "writer", "port", "capture", "quicklook", "bstate")


def version_line(prog):
    """PROG (dpdk-ibvcap) VERSION, as every program of the package says it."""
    v = VERSION if not VERSION.startswith("@") else "(source tree)"
    return "%s (dpdk-ibvcap) %s" % (prog, v)


def load_tool(name, here, prog):
    """Another tool of the package as a module (ctl's parser for the agent
    and the array): beside the caller (bindir, or the build's app/), else
    from PATH. Exits naming what is missing."""
    path = os.path.join(here, name)
    if not os.path.isfile(path):
        path = shutil.which(name)
    if path is None:
        raise SystemExit("%s: %s not found beside %s nor in PATH" % (prog, name, here))
    mod_name = name.replace("dpdk-", "").replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(mod_name, path)
    spec = importlib.util.spec_from_loader(mod_name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# ---- the telemetry client ----------------------------------------------------

class TelemetryError(Exception):
    pass


class TelemetryTimeout(TelemetryError):
    """The capture did not answer within the timeout (stopped, hung)."""


class Telemetry:
    """A client of DPDK's telemetry socket (dpdk_telemetry.v2). timeout:
    seconds each connect, send and reply may take (None: no limit); past it
    TelemetryTimeout, and the connection is of no more use (a late reply
    would answer the next question)."""

    # DPDK's telemetry serves at most 10 connections at once (22.11's
    # MAX_CONNECTIONS); past them it accepts one and closes it at once
    BUSY_WAIT_S = 10.0

    def __init__(self, prefix, timeout=None):
        self.path = os.path.join(RUNDIR, prefix, "dpdk_telemetry.v2")
        self.prefix, self.timeout, self.pid = prefix, timeout, self.pid_of(prefix)
        # a connection closed before its greeting: every connection taken
        # (tools run at once): tried again, for timeout (or BUSY_WAIT_S)
        busy_end = time.monotonic() + (timeout or self.BUSY_WAIT_S)
        pause = 0.02
        while True:
            greeting = self.connect(prefix, timeout)
            if greeting:
                break
            self.sock.close()
            if time.monotonic() >= busy_end:
                raise TelemetryError(
                    "the capture at --file-prefix %s (pid %s) closed every connection "
                    "for %gs: its telemetry serves 10 at once (DPDK), all taken by "
                    "other clients, or it is stopping"
                    % (prefix, self.pid if self.pid else "?", timeout or self.BUSY_WAIT_S))
            time.sleep(pause)
            pause = min(pause * 2, 0.3)
        hello = json.loads(greeting.decode())
        self.maxlen = hello.get("max_output_len", 16384)
        self.pid = hello.get("pid")

    def connect(self, prefix, timeout):
        """A connection and its greeting (b"": closed at once)."""
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        deadline = time.monotonic() + (timeout or 0)
        while True:
            try:
                self.sock.connect(self.path)
                break
            except socket.timeout:
                self.late("connect")
            except BlockingIOError:
                # its listen queue is full: it accepts no connection (stopped,
                # hung); with no timeout, a blocking connect would wait
                if time.monotonic() >= deadline:
                    self.late("connect: its queue of connections is full")
                time.sleep(0.05)
            except OSError as e:
                raise TelemetryError(
                    "no dpdk-ibvcap telemetry at %s (%s): is it running with "
                    "--file-prefix %s, without --no-telemetry, and may this user "
                    "read its runtime directory?" % (self.path, e.strerror, prefix))
        try:
            return self.sock.recv(16384)
        except socket.timeout:
            self.late("its greeting")
        except ConnectionResetError:
            return b""

    @staticmethod
    def pid_of(prefix):
        """The primary's pid, from the lock on its runtime config file
        (whoever holds it), or None."""
        import fcntl
        import struct
        try:
            fd = os.open(os.path.join(RUNDIR, prefix, "config"), os.O_RDONLY)
        except OSError:
            return None
        try:
            lk = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
            r = fcntl.fcntl(fd, fcntl.F_GETLK, lk)
            typ, _, _, _, pid = struct.unpack("hhqqi", r)
            return pid if typ != fcntl.F_UNLCK else None
        except OSError:
            return None
        finally:
            os.close(fd)

    def late(self, what):
        self.close()
        raise TelemetryTimeout(
            "the capture at --file-prefix %s (pid %s) did not answer (%s) within %gs: "
            "stopped (SIGSTOP, a debugger), hung or overloaded?"
            % (self.prefix, self.pid if self.pid else "?", what, self.timeout))

    def query(self, cmd):
        try:
            self.sock.send(cmd.encode())
            reply = json.loads(self.sock.recv(self.maxlen).decode())
        except socket.timeout:
            self.late(cmd)
        return reply.get(cmd.split(",")[0], reply)

    def close(self):
        self.sock.close()


def rows(reply):
    """A reply of rows: {"fields": [names], key: [values] or {name: value},
    ...} -> {key: {name: value}}."""
    if not isinstance(reply, dict):
        return {}
    fields = reply.get("fields", [])
    return {k: dict(v) if isinstance(v, dict) else dict(zip(fields, v))
            for k, v in reply.items() if k != "fields" and isinstance(v, (list, dict))}


def writers(tel):
    """The writers by the name each was given (--name: the name of the
    summaries), with its format, pid and registry key; telemetry keys its
    rows w<slot>_<format> (keys take no '-' or '.'), /ibvcap/writer names them."""
    out = {}
    for key, w in rows(tel.query("/ibvcap/writers")).items():
        info = tel.query("/ibvcap/writer,%s" % key)
        name = info.get("name", key) if isinstance(info, dict) else key
        if name in out:  # two writers given one name: tell them apart
            name = "%s#%s" % (name, key.split("_")[0][1:])
        info = info if isinstance(info, dict) else {}
        w.update({"key": key, "format": info.get("format", ""), "pid": info.get("pid", 0),
                  "io": info.get("io", ""), "io_why": info.get("io_why", "")})
        out[name] = w
    return out


# ---- the counter tables (lib/stats) ------------------------------------------

class Figure:
    """One figure of a counter table, as /ibvcap/counters,GROUP serves it:
    [unit, kind, help, merge, prometheus, scale, element...]. prom: its
    Prometheus name ("" not exported); scale: a stored value times it is
    the metric's value; elems: an array's element names (its values are
    NAME_ELEMENT in telemetry rows)."""

    __slots__ = ("unit", "kind", "help", "merge", "prom", "scale", "elems")

    def __init__(self, row):
        if not isinstance(row, list) or len(row) < 6 or not all(
                isinstance(x, str) for x in row):
            raise ValueError("a counter's row: expected [unit, kind, help, merge, "
                             "prometheus, scale, element...], got %r" % (row,))
        self.unit, self.kind, self.help, self.merge, self.prom = row[:5]
        self.scale = float(row[5])
        self.elems = tuple(row[6:])


def counter_tables(tel, groups=GROUPS + ("stream",)):
    """The capture's tables: group -> {name: Figure}, in table order."""
    out = {}
    for g in groups:
        r = tel.query("/ibvcap/counters,%s" % g)
        out[g] = {k: Figure(v) for k, v in r.items()} if isinstance(r, dict) else {}
    return out


def counters_json_path():
    """counters.json (statsdoc --json): beside this module, installed or built."""
    return os.path.join(HERE, "counters.json")


def saved_tables(path=None):
    """The same tables without a capture: from counters.json, the rows of
    the lib/stats this package was built with. {} when it is missing."""
    try:
        with open(path or counters_json_path()) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return {}
    return {g: {k: Figure(v) for k, v in o.get("fields", {}).items()} for g, o in d.items()}


def tel_key(name, elem):
    """The row key of an array's element (lib/stats stats_tel: '-' as '_')."""
    return ("%s_%s" % (name, elem)).replace("-", "_")


def prom_index(table):
    """A group's Prometheus names back to its figures: {metric name:
    (figure name, Figure)} (a metric's value divided by the Figure's scale
    is the figure's stored value)."""
    return {f.prom: (k, f) for k, f in table.items() if f.prom}


def figure_order(table):
    """The telemetry row keys of a table's figures, in table order (an
    array's as NAME_ELEMENT)."""
    out = []
    for k, f in table.items():
        out += [tel_key(k, e) for e in f.elems] if f.elems else [k]
    return out


# ---- the INI files (lib/opt/opt_ini.c) ---------------------------------------

class IniError(Exception):
    pass


class IniLine:
    """One line of an INI file: a section header, a key = value, or other
    text (comments, blank lines), kept to copy it."""

    def __init__(self, n, text, section, key=None, value=None):
        self.n, self.text, self.section, self.key, self.value = n, text, section, key, value


def read_ini(path):
    """The lines of an INI file as dpdk-ibvcap reads it (lib/opt/opt_ini.c
    over rte_cfgfile: [section] lines, key = value lines, ';' or '#'
    comment lines, a value ending at an unescaped ';'). IniError names the
    file, the line and what was expected."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise IniError("%s: %s" % (path, e.strerror))
    out, section = [], None
    for n, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s[0] in ";#":
            out.append(IniLine(n, raw, section))
        elif s.startswith("[") and "]" in s:
            section = s[1:s.index("]")].strip()
            out.append(IniLine(n, raw, section))
        elif "=" in s and s[0] != "=" and section is not None:
            k, v = s.split("=", 1)
            v = re.split(r"(?<!\\);", v, 1)[0]
            out.append(IniLine(n, raw, section, k.strip(), v.strip()))
        else:
            raise IniError("%s: line %d: '%s': expected [section] or key = value "
                           "(inside a section)" % (path, n, s))
    return out


# ---- small helpers -------------------------------------------------------------

def replaceable(path):
    """Why path cannot be written whole and renamed over (what --prom and
    --prom-sd do), or None: where it exists it must be a regular file (or a
    link), never a device, FIFO or directory (/dev/null renamed over as
    root breaks the host)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return "'%s': %s" % (path, e.strerror)
    if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
        return None
    return "'%s' is not a regular file: expected a regular file (it is replaced whole)" % path


def natural(name):
    """A sort key that orders the digits in a name by value: ak2 before ak10."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t)
            for t in re.split(r"([0-9]+)", name) if t]


def screen_width():
    """The terminal's columns (COLUMNS overrides; 80 when not a terminal)."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


# the units of lib/util's parse_duration_ns, the C tools' (a bare number is seconds)
UNITS = {"": 1.0, "s": 1.0, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "m": 60.0, "min": 60.0,
         "h": 3600.0, "d": 86400.0}


def seconds(text):
    """A duration (10s, 500ms, 5m, 2h; a bare number is seconds) in seconds,
    else ValueError naming the text and what was expected."""
    m = re.fullmatch(r"([0-9][0-9.]*(?:[eE][-+]?[0-9]+)?)([a-z]*)", text)
    v = -1.0
    if m and m.group(2) in UNITS:
        try:
            v = float(m.group(1)) * UNITS[m.group(2)]
        except ValueError:
            v = -1.0
    if not v > 0 or v != v or v == float("inf"):
        raise ValueError("'%s': expected a duration > 0 (10s, 500ms, 5m, 2h; a bare number "
                         "is seconds)" % text)
    return v
