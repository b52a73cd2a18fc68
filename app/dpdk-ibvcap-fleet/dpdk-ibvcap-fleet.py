#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-fleet: one array over several capture hosts.

split: derive each host's dpdk-ibvcap INI file from one array layout and a
host list. The array file is a dpdk-ibvcap INI file for the whole array
(antennas, groups, buffers, writers, ...) plus one [host NAME] section per
host with that host's own keys (port, lcore-map, write, ... and args, its
EAL arguments). Every group is recorded by exactly one host, whole: a
host section's group keys (IP:PORT[@P], P an index in that host's ports)
give it those groups; the others are dealt in the array's order, each to
the host with the fewest groups so far (the first in --hosts on a tie):
round-robin when no host names a group. A layout that leaves a host
without a group, gives a group to two hosts or names a group the array
does not have is refused. Each host's file is the array's keys (its group
keys replaced by the host's share) followed by its [host NAME] section, so
a host key adds to a list (port, write) or overrides a single value; host
args follow the array's [eal] args. Each file is checked by dpdk-ibvcap
--check-config --skip-host-checks.

view: one per-antenna table of several captures' figures, summed over the
hosts: from telemetry (a capture on this host, by --file-prefix), summary
JSON files (--summary-json), Prometheus text (dpdk-ibvcap-stat --prom
files, or node_exporter over http), or a Prometheus server that scrapes
the hosts (--prometheus URL: its HTTP API, PromQL, no host scraped; each
target of --job a host, named by its ibvcap_host label, fleet split
--prom-sd's, or its instance; a target whose last scrape failed, up == 0,
is a host that does not answer). Antennas are matched by name (every
host of a split has the array's antenna list); an antenna whose streams
are split over groups on several hosts is the sum of its figures on each:
counters add up, first_frame is the earliest and last_frame the latest.
With summary files the streams are matched too, by their identity
(source, group, port, CODIF ids): a stream on two hosts is flagged (a
group joined by two hosts counts its frames twice). A host that does not
answer is flagged, and the table holds the others.
"""
import argparse
import ipaddress
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import urllib.error
import urllib.parse
import urllib.request

PROG = "dpdk-ibvcap-fleet"
HERE = os.path.dirname(os.path.realpath(__file__))
# the tools' shared module: beside this tool (the build tree), else where the
# package installs it (relative to bindir: a DESTDIR too), else the source tree
sys.path[:0] = [HERE, os.path.join(HERE, os.path.relpath("@PYDIR@", "@BINDIR@")),
                os.path.join(HERE, "..", "python")]
import ibvcap_tools as common  # noqa: E402


class FleetError(Exception):
    pass


def version_line():
    return common.version_line(PROG)


def sibling(name, program=True):
    """A tool installed beside this one (bindir, or the build's app/),
    else from PATH; a script (program False) need not be executable."""
    p = os.path.join(HERE, name)
    if os.path.isfile(p) and (not program or os.access(p, os.X_OK)):
        return p
    return shutil.which(name)


# ---- split -----------------------------------------------------------------

HOST_RE = re.compile(r"^host\s+(\S+)$")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# the keys that define the array's groups (dpdk-ibvcap's [groups] options)
GROUP_KEYS = ("group", "groups", "group-base", "udp-port-base")


def read_ini(path):
    """The lines of an INI file as dpdk-ibvcap reads it (common.read_ini)."""
    try:
        return common.read_ini(path)
    except common.IniError as e:
        raise FleetError(str(e))


def group_id(text, where):
    """IP:PORT[@P] -> ('IP:PORT', P or None), IP a multicast address."""
    m = re.fullmatch(r"([0-9.]+):([0-9]+)(?:@([0-9]+))?", text.strip())
    try:
        ip = ipaddress.IPv4Address(m.group(1)) if m else None
    except ValueError:
        ip = None
    if not m or ip is None or not ip.is_multicast or not 0 < int(m.group(2)) < 65536:
        raise FleetError("%s: group '%s': expected IP:PORT[@P] with a multicast IPv4 "
                         "address, a UDP port 1..65535 and a port index P" % (where, text))
    return "%s:%d" % (ip, int(m.group(2))), (int(m.group(3)) if m.group(3) else None)


def check_config(ibvcap, path):
    """dpdk-ibvcap --check-config --skip-host-checks: (ok, its output)."""
    r = subprocess.run([ibvcap, "--check-config", path, "--skip-host-checks"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode == 0, r.stdout


def array_groups(ibvcap, path, common):
    """The array's groups, in order, as dpdk-ibvcap expands them (group
    lines, or --groups from --group-base/--udp-port-base, or its defaults)."""
    with tempfile.NamedTemporaryFile("w", prefix="ibvcap-fleet.", suffix=".ini") as f:
        f.write("".join(l.text + "\n" for l in common))
        f.flush()
        ok, out = check_config(ibvcap, f.name)
    if not ok:
        msg = out.strip().replace(f.name, path + " (its array keys)")
        raise FleetError("%s: the array is not a valid dpdk-ibvcap configuration:\n%s"
                         % (path, msg))
    groups = []
    for s in out.splitlines():
        m = re.match(r"group = (\S+)", s)
        if m:
            groups.append(group_id(m.group(1).split("@")[0], path)[0])
    return groups


def split(a):
    """fleet split: each host's INI file from the array's, checked by
    dpdk-ibvcap --check-config; its exit status."""
    ibvcap = a.ibvcap or sibling("dpdk-ibvcap")
    if not ibvcap:
        raise FleetError("dpdk-ibvcap not found beside %s nor in PATH: give --ibvcap PATH" % PROG)
    common, hosts_in_file, host_lines = array_lines(a.array)
    hosts = split_hosts(a, hosts_in_file)
    groups = array_groups(ibvcap, a.array, common)
    share, port_of = share_groups(a.array, hosts, groups, host_lines)
    return write_hosts(a, ibvcap, hosts, groups, common, host_lines, share, port_of)


def array_lines(array):
    """The array file's lines: (the lines outside host sections, the host
    sections' names in file order, each host's key lines)."""
    lines = read_ini(array)
    common, hosts_in_file, host_lines = [], [], {}
    for l in lines:
        m = HOST_RE.match(l.section) if l.section is not None else None
        if m:
            name = m.group(1)
            if name not in host_lines:
                hosts_in_file.append(name)
                host_lines[name] = []
            if l.key is not None:
                host_lines[name].append(l)
        else:
            if l.key == "group" and "@" in l.value:
                raise FleetError("%s: line %d: group = %s: a port index (@P) is a host's "
                                 "choice: give the group in that host's [host NAME] section"
                                 % (array, l.n, l.value))
            common.append(l)
    return common, hosts_in_file, host_lines


def split_hosts(a, hosts_in_file):
    """The hosts to split over: --hosts, else the file's host sections."""
    if a.hosts is not None:
        hosts = [h.strip() for h in a.hosts.split(",")]
    else:
        hosts = hosts_in_file
    if not hosts or hosts == [""]:
        raise FleetError("%s: no hosts: give --hosts h1,h2,... or [host NAME] sections"
                         % a.array)
    for h in hosts:
        if not NAME_RE.match(h):
            raise FleetError("--hosts: '%s': expected a host name (letters, digits, "
                             "'.', '-', '_'; it names the host's INI file)" % h)
        if hosts.count(h) > 1:
            raise FleetError("--hosts: host '%s' given twice" % h)
    return hosts


def share_groups(array, hosts, groups, host_lines):
    """Each host's groups, in the array's order, and the port index a host
    section gave a group: the host sections' explicit groups first, then
    each other group to the host with the fewest so far. ({host: [group]},
    {group: port index or None})."""
    # explicit groups: a host section's group keys
    owner, port_of = {}, {}
    share = {h: [] for h in hosts}
    for h, hl in host_lines.items():
        for l in hl:
            where = "%s: line %d: [host %s]" % (array, l.n, h)
            if l.key in GROUP_KEYS[1:]:
                raise FleetError("%s: %s: the array's groups are its own keys (outside "
                                 "the host sections); a host section names its groups "
                                 "with group = IP:PORT[@P]" % (where, l.key))
            if l.key != "group":
                continue
            for g in l.value.split(","):
                gid, p = group_id(g, where)
                if gid not in groups:
                    raise FleetError("%s: group %s is not one of the array's %d groups (%s)"
                                     % (where, gid, len(groups), ", ".join(groups)))
                if gid in owner:
                    raise FleetError("%s: group %s is already host %s's: a group is "
                                     "recorded by one host" % (where, gid, owner[gid]))
                if h not in share:
                    raise FleetError("%s: group %s is given to host %s, which is not in "
                                     "--hosts (%s): no host would record it"
                                     % (where, gid, h, ",".join(hosts)))
                owner[gid], port_of[gid] = h, p
    for g in groups:
        if g in owner:
            share[owner[g]].append(g)
    # the rest: each to the host with the fewest groups so far
    for g in groups:
        if g not in owner:
            h = min(hosts, key=lambda x: (len(share[x]), hosts.index(x)))
            owner[g] = h
            share[h].append(g)
    for h in hosts:
        share[h].sort(key=groups.index)
        if not share[h]:
            raise FleetError("%s: host %s gets no group: %d hosts for %d groups (%s), and a "
                             "group is recorded whole by one host"
                             % (array, h, len(hosts), len(groups), ", ".join(groups)))

    return share, port_of


def write_hosts(a, ibvcap, hosts, groups, common, host_lines, share, port_of):
    """Write and check each host's file; print (or --json) what each got."""
    os.makedirs(a.outdir, exist_ok=True)
    out, bad = [], []
    for h in hosts:
        path = os.path.join(a.outdir, h + ".ini")
        text = host_ini(a.array, h, common, host_lines.get(h, []), share[h], port_of)
        with open(path, "w") as f:
            f.write(text)
        ok, msg = (True, "") if a.no_check else check_config(ibvcap, path)
        if not ok:
            bad.append("host %s: %s:\n%s" % (h, path, msg.strip()))
        out.append({"host": h, "config": path, "checked": not a.no_check and ok,
                    "groups": [g + ("@%d" % port_of[g] if port_of.get(g) is not None else "")
                               for g in share[h]]})
    if a.prom_sd:
        write_sd(a.prom_sd, hosts, a.prom_port, os.path.splitext(os.path.basename(a.array))[0])
    if a.json:
        print(json.dumps({"array": a.array, "groups": groups, "hosts": out}, indent=2))
    else:
        for o in out:
            print("%s: %d group%s (%s) -> %s%s"
                  % (o["host"], len(o["groups"]), "" if len(o["groups"]) == 1 else "s",
                     ", ".join(o["groups"]), o["config"],
                     " (checked)" if o["checked"] else ""))
    if bad:
        raise FleetError("dpdk-ibvcap --check-config refused:\n" + "\n".join(bad))
    return 0


def write_sd(path, hosts, port, array):
    """Prometheus file-based service discovery (file_sd_configs): one
    target per host, its node_exporter (HOST:PORT), labelled with the
    host's and the array's names; written atomically (Prometheus rereads
    the file when it changes)."""
    sd = [{"targets": ["%s:%d" % (h, port)], "labels": {"ibvcap_host": h, "ibvcap_array": array}}
          for h in hosts]
    why = common.replaceable(path)
    if why:
        raise FleetError("--prom-sd: %s" % why)
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".sd.", suffix=".json", dir=d)
        with os.fdopen(fd, "w") as f:
            json.dump(sd, f, indent=2)
            f.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        raise FleetError("--prom-sd %s: %s" % (path, e.strerror))


def host_ini(array, host, common, hl, groups, port_of):
    """A host's INI: the array's lines without its group keys, its [eal]
    args followed by the host's args, then the host's section."""
    hargs = [l.value for l in hl if l.key == "args"]
    out = ["; %s: generated by %s split from %s: do not edit, edit the array"
           % (host, PROG, array),
           "; groups of host %s: %s" % (host, ", ".join(groups))]
    # the host's args follow the array's [eal] args, or open [eal] (one
    # [eal] section: rte_cfgfile reads the first of two)
    done_args, array_args = False, any(l.key == "args" for l in common)
    for l in common:
        if l.key in GROUP_KEYS:
            out.append("; (the array's %s key: the host's share is in [host %s])"
                       % (l.key, host))
        elif l.key == "args" and hargs and not done_args:
            done_args = True
            out.append("args = %s %s" % (l.value, " ".join(hargs)))
        else:
            out.append(l.text)
            if (hargs and not done_args and not array_args and l.key is None and
                    l.section == "eal" and l.text.strip().startswith("[")):
                done_args = True
                out.append("args = %s" % " ".join(hargs))
    if hargs and not done_args:
        out += ["", "[eal]", "args = %s" % " ".join(hargs)]
    out += ["", "[host %s]" % host]
    out += ["%s = %s" % (l.key, l.value) for l in hl if l.key not in ("group", "args")]
    out += ["group = %s%s" % (g, "@%d" % port_of[g] if port_of.get(g) is not None else "")
            for g in groups]
    return "\n".join(out) + "\n"


# ---- view ------------------------------------------------------------------

# not figures: identity
IDENT = ("antenna", "name", "src")


def counts_table():
    """The frame counts' table (lib/stats, counters.json): each figure's
    merge rule and Prometheus name, as the capture has them."""
    if not hasattr(counts_table, "t"):
        counts_table.t = common.saved_tables().get("counts", {})
        if not counts_table.t:
            raise FleetError("%s not found or not the counter tables: the package's "
                             "counters.json (is %s installed whole?)"
                             % (common.counters_json_path(), PROG))
    return counts_table.t


def skey(s):
    return (s["src"], s["dst"], int(s["port"]), int(s["groupid"]),
            int(s["secondaryid"]), int(s["threadid"]))


def from_summary(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as e:
        raise FleetError("%s: %s" % (path, e.strerror))
    except ValueError as e:
        raise FleetError("%s: not JSON (%s)" % (path, e))
    if not isinstance(d, dict) or not isinstance(d.get("antennas"), list):
        raise FleetError("%s: not a dpdk-ibvcap --summary-json file (no antennas)" % path)
    ants = {}
    for x in d["antennas"]:
        ants[x.get("name") or x["src"]] = {k: v for k, v in x.items() if k != "antenna"}
    return ants, d.get("streams")


def from_telemetry(prefix):
    try:
        tel = common.Telemetry(prefix)
        try:
            # /ibvcap/antenna has its buffer's figures too: keep the
            # frame counts (an array's elements are NAME_ELEMENT)
            counts = tuple(common.counter_tables(tel, ("counts",))["counts"])
            names = [k for k in tel.query("/ibvcap/antennas") if k != "fields"]
            ants = {}
            for n in names:
                r = tel.query("/ibvcap/antenna,%s" % n)
                if not isinstance(r, dict) or "src" not in r:
                    raise FleetError("telemetry '%s': no /ibvcap/antenna,%s: not dpdk-ibvcap?"
                                     % (prefix, n))
                ants[n] = {k: v for k, v in r.items() if k in IDENT or k in counts or
                           k.startswith(tuple(c + "_" for c in counts))}
        finally:
            tel.close()
    except common.TelemetryError as e:
        raise FleetError(str(e))
    except (OSError, ValueError) as e:
        raise FleetError("telemetry '%s': the capture went away (%s)" % (prefix, e))
    return ants


PROM_LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
PROM_LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def prom_key(metric):
    """A frame count's Prometheus name (dpdk-ibvcap-stat --prom, lib/stats
    stats_prom_name) -> (its telemetry name, the factor from the metric's
    unit back to the figure's), or None for another metric."""
    got = common.prom_index(counts_table()).get(metric)
    if got is None:
        return None
    key, f = got
    return key, round(1 / f.scale) if f.scale < 1 else 1


def from_prom(src, timeout):
    """Prometheus text: {instance_prefix: {antenna: figures}}."""
    try:
        if re.match(r"https?://", src):
            with urllib.request.urlopen(src, timeout=timeout) as r:
                text = r.read().decode("utf-8", "replace")
        else:
            with open(src) as f:
                text = f.read()
    except (OSError, urllib.error.URLError) as e:
        raise FleetError("%s: %s" % (src, getattr(e, "reason", None) or e.strerror or e))
    out = {}
    for line in text.splitlines():
        m = PROM_LINE.match(line)
        if not m or line.startswith("#"):
            continue
        kv = prom_key(m.group(1))
        if kv is None:
            continue
        labels = {k: v.encode().decode("unicode_escape")
                  for k, v in PROM_LABEL.findall(m.group(2) or "")}
        if "antenna" not in labels:
            continue
        try:
            v = float(m.group(3))
        except ValueError:
            continue
        a = out.setdefault(labels.get("instance_prefix", ""), {}).setdefault(
            labels["antenna"], {"name": labels["antenna"]})
        # an array's element is one metric labelled by cause; telemetry
        # names it NAME_ELEMENT ('-' as '_', lib/stats stats_tel)
        key = kv[0] if "cause" not in labels else (
            "%s_%s" % (kv[0], labels["cause"])).replace("-", "_")
        a[key] = int(round(v * kv[1]))
    if not out:
        raise FleetError("%s: no ibvcap_antenna_* figures (not dpdk-ibvcap-stat --prom "
                         "output?)" % src)
    return out


class PromAPI:
    """A Prometheus server's HTTP API (/api/v1/query), standard library
    only; every failure a FleetError naming the server, the query and
    what failed."""

    def __init__(self, url, timeout):
        if not re.match(r"https?://[^/]", url):
            raise FleetError("--prometheus %s: expected the server's URL, "
                             "http://HOST:PORT (e.g. http://prom:9090)" % url)
        self.url, self.timeout = url.rstrip("/"), timeout

    def get(self, path, query=None):
        what = "%s %s" % (path, query) if query else path
        u = self.url + path + ("?" + urllib.parse.urlencode({"query": query}) if query else "")
        try:
            with urllib.request.urlopen(u, timeout=self.timeout) as r:
                body = r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            # the API's own error (bad_data, execution, timeout) in its body
            try:
                d = json.loads(e.read().decode("utf-8", "replace"))
                why = "%s: %s" % (d.get("errorType"), d.get("error"))
            except ValueError:
                why = e.reason
            raise FleetError("Prometheus %s: %s: HTTP %d (%s)" % (self.url, what, e.code, why))
        except urllib.error.URLError as e:
            r = e.reason
            if isinstance(r, socket.timeout):
                r = "no answer in %g s (--timeout)" % self.timeout
            raise FleetError("Prometheus %s: %s: %s" % (self.url, what, r))
        except socket.timeout:
            raise FleetError("Prometheus %s: %s: no answer in %g s (--timeout)"
                             % (self.url, what, self.timeout))
        except OSError as e:
            raise FleetError("Prometheus %s: %s: %s" % (self.url, what, e.strerror or e))
        try:
            d = json.loads(body)
        except ValueError:
            raise FleetError("Prometheus %s: %s: not JSON: not a Prometheus server's HTTP "
                             "API (%r...)" % (self.url, what, body[:60]))
        if not isinstance(d, dict) or d.get("status") != "success":
            raise FleetError("Prometheus %s: %s: %s: %s" % (
                self.url, what, d.get("errorType", "no status") if isinstance(d, dict) else "?",
                d.get("error", d) if isinstance(d, dict) else d))
        return d.get("data")

    def query(self, q):
        """An instant query's vector: [(labels, value)]."""
        data = self.get("/api/v1/query", q)
        if not isinstance(data, dict) or data.get("resultType") != "vector":
            raise FleetError("Prometheus %s: /api/v1/query %s: expected a vector, got %s"
                             % (self.url, q, data.get("resultType") if isinstance(data, dict)
                                else data))
        out = []
        for x in data.get("result", []):
            try:
                out.append((x["metric"], float(x["value"][1])))
            except (KeyError, IndexError, TypeError, ValueError):
                raise FleetError("Prometheus %s: /api/v1/query %s: a sample without a value: "
                                 "%s" % (self.url, q, x))
        return out


def in_stats_order(x):
    """An antenna record with its figures in lib/stats' order (the counts
    table, the order of dpdk-ibvcap-stat --prom, the summaries and
    telemetry): a Prometheus server returns its series by name, and the
    table's columns keep this order (a figure not in it follows, by name;
    array-prometheus-netns compares the tables)."""
    rank = {k: i for i, k in enumerate(common.figure_order(counts_table()))}
    return {k: x[k] for k in sorted(x, key=lambda k: (k not in IDENT, k not in rank,
                                                       rank.get(k, 0), k))}


def prom_host(labels):
    """A target's host: the ibvcap_host label of fleet split --prom-sd's
    targets, else its instance (HOST:PORT)."""
    return labels.get("ibvcap_host") or labels.get("instance", "?")


def from_prometheus(url, job, timeout):
    """A Prometheus server's view of every host of JOB:
    [(host, antennas or None, error)], in host order."""
    api = PromAPI(url, timeout)
    sel = 'job="%s"' % job.replace("\\", "\\\\").replace('"', '\\"') if job else ""
    targets = api.query("up{%s}" % sel)
    if not targets:
        raise FleetError("Prometheus %s: no target%s: up{%s} is empty (is the job's "
                         "file_sd_configs the file fleet split --prom-sd wrote?)"
                         % (api.url, " of job '%s'" % job if job else "", sel))
    down, hosts, inst, why = {}, [], {}, {}
    for labels, v in sorted(targets, key=lambda t: prom_host(t[0])):
        h = prom_host(labels)
        if h not in hosts:
            hosts.append(h)
            inst[h] = labels.get("instance", h)
        if v != 1:
            down[h] = labels.get("instance", h)
    if down:
        # the reason of each failed scrape, where the server says it
        try:
            why = {t.get("labels", {}).get("instance"): t.get("lastError")
                   for t in api.get("/api/v1/targets", None).get("activeTargets", [])}
        except (FleetError, AttributeError):
            why = {}
    sel = ",".join(x for x in ('__name__=~"ibvcap_antenna_.+"', sel) if x)
    got = {}
    for labels, v in api.query("{%s}" % sel):
        kv = prom_key(labels["__name__"])
        if kv is None or "antenna" not in labels or not math.isfinite(v):
            continue
        a = got.setdefault(prom_host(labels), {}).setdefault(
            labels.get("instance_prefix", ""), {}).setdefault(
            labels["antenna"], {"name": labels["antenna"]})
        key = kv[0] if "cause" not in labels else (
            "%s_%s" % (kv[0], labels["cause"])).replace("-", "_")
        a[key] = int(round(v * kv[1]))
    out = []
    for h in hosts:
        if h in down:
            w = why.get(down[h])
            out.append((h, None, "Prometheus %s: target %s is down (up == 0)%s"
                        % (api.url, down[h], ": " + w if w else "")))
        elif h not in got:
            out.append((h, None, "Prometheus %s: target %s is up but gives no ibvcap_antenna_* "
                        "figure (its dpdk-ibvcap-stat --prom export: the "
                        "dpdk-ibvcap-prom@ timer, node_exporter's textfile directory)"
                        % (api.url, inst[h])))
        else:
            for p, ants in sorted(got[h].items()):
                out.append((h if len(got[h]) == 1 else "%s/%s" % (h, p),
                            {n: in_stats_order(x) for n, x in sorted(ants.items())}, None))
    return out


def merge_into(m, x):
    """Add antenna record x into m, by lib/stats' merge rules (the counts
    table's: a time by its min or max, every other figure summed)."""
    for k, v in x.items():
        if k in IDENT:
            continue
        base = re.sub(r"_(ns|utc)$", "", k)
        f = counts_table().get(base + "_ns")
        if f is not None and f.merge in ("min", "max"):  # a time: the least, the greatest
            pick = min if f.merge == "min" else max
            if k.endswith("_ns") and v:   # 0 / null: no frame yet
                ns = m.get(base + "_ns")
                if not ns or pick(v, ns) == v:
                    m[base + "_ns"] = v
                    if base + "_utc" in x:
                        m[base + "_utc"] = x[base + "_utc"]
            continue
        if isinstance(v, dict):
            d = m.setdefault(k, {})
            for e, n in v.items():
                d[e] = d.get(e, 0) + n
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            m[k] = m.get(k, 0) + v


def view_sources(a):
    """[(host, kind, what)] in the order given."""
    out = []
    for kind in ("telemetry", "summary", "prom"):
        for s in getattr(a, kind) or []:
            host, sep, what = s.partition("=")
            if not sep or re.match(r"https?://", s) and "://" in host:
                host, what = None, s
            out.append((host, kind, what))
    for url in a.prometheus or []:
        out.append((None, "prometheus", url))
    return out


def fleet_view(a):
    srcs = view_sources(a)
    if not srcs:
        raise FleetError("view: no source: give --telemetry PREFIX, --summary FILE, "
                         "--prom FILE|URL (each repeatable, optionally HOST=...) or "
                         "--prometheus URL")
    hosts = []      # {host, source, ok, error, antennas}
    per_host = []   # (host, antennas, streams or None)
    for host, kind, what in srcs:
        try:
            if kind == "telemetry":
                parts = [(host or what, from_telemetry(what), None)]
            elif kind == "summary":
                ants, streams = from_summary(what)
                parts = [(host or os.path.basename(what), ants, streams)]
            elif kind == "prometheus":
                # (a target down is a host that does not answer: ants None)
                parts = [(name, ants if ants is not None else FleetError(err), None)
                         for name, ants, err in from_prometheus(what, a.job, a.timeout)]
            else:
                got = from_prom(what, a.timeout)
                base = host or re.sub(r"^https?://", "", what).split("/")[0]
                parts = [(base if len(got) == 1 else "%s/%s" % (base, p), ants, None)
                         for p, ants in sorted(got.items())]
            for name, ants, streams in parts:
                if isinstance(ants, FleetError):
                    hosts.append({"host": name, "source": "%s %s" % (kind, what),
                                  "ok": False, "error": str(ants)})
                    continue
                hosts.append({"host": name, "source": "%s %s" % (kind, what), "ok": True,
                              "antennas": len(ants)})
                per_host.append((name, ants, streams))
        except FleetError as e:
            hosts.append({"host": host or what, "source": "%s %s" % (kind, what),
                          "ok": False, "error": str(e)})
    problems = ["host %s does not answer: %s" % (h["host"], h["error"])
                for h in hosts if not h["ok"]]

    # the figures every answering host gives (telemetry, summary and
    # Prometheus carry different sets): only these are summed
    fields = None
    for _, ants, _ in per_host:
        for x in ants.values():
            ks = [k for k in x if k not in IDENT]
            fields = ks if fields is None else [k for k in fields if k in ks]
    fields = fields or []
    antennas, order = {}, []
    for h, ants, _ in per_host:
        for name, x in ants.items():
            if name not in antennas:
                order.append(name)
                antennas[name] = {"name": name, "hosts": []}
            m = antennas[name]
            if "src" in x:
                if m.get("src", x["src"]) != x["src"]:
                    problems.append("antenna %s is %s on host %s but %s on host %s: not "
                                    "one array" % (name, x["src"], h, m["src"], m["src_host"]))
                m.setdefault("src", x["src"])
                m.setdefault("src_host", h)
            if x.get("packets", x.get("received", 0)):
                m["hosts"].append(h)
            merge_into(m, {k: v for k, v in x.items() if k in fields})
    for m in antennas.values():
        m.pop("src_host", None)
    totals = {}
    for m in antennas.values():
        merge_into(totals, m)
    res = {"hosts": hosts, "fields": fields,
           "antennas": [antennas[n] for n in order], "totals": totals}
    if per_host and all(s is not None for _, _, s in per_host):
        seen, streams = {}, []
        for h, _, ss in per_host:
            for s in ss:
                k = skey(s)
                if k in seen:
                    problems.append("stream %s -> %s:%s (groupid %s, thread %s) counted "
                                    "on host %s and host %s: a group joined by two hosts"
                                    % (s["src"], s["dst"], s["port"], s["groupid"],
                                       s["threadid"], seen[k], h))
                    continue
                seen[k] = h
                streams.append(dict(s, host=h))
        res["streams"] = streams
    res["problems"] = problems
    return res


# the figures an operator looks at first; the others follow, in the
# sources' order, as the terminal's width allows
VIEW_FIRST = ("received", "lost", "late", "duplicate", "invalid", "malformed", "expected",
              "not_recorded")


def wrapped(text, width):
    """A line of at most width characters, or several, the rest indented."""
    return textwrap.wrap(text, width, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False) or [""]


def view_table(res, width, natural):
    """The per-antenna table in lines of at most width characters: the
    antennas in natural order (dpdk-ibvcap-stat's: ak2 before ak10), each
    its source, its hosts, then the figures that fit (VIEW_FIRST first,
    each as wide as its largest value), the others named below."""
    lines = []
    for h in res["hosts"]:
        lines += wrapped("host %-16s %s  (%s)" % (h["host"], "%d antennas" % h["antennas"]
                                                   if h["ok"] else "NO ANSWER", h["source"]),
                         width)
    nums = [k for k in res["fields"] if not k.endswith(("_ns", "_utc")) and
            all(isinstance(m.get(k, 0), (int, float)) for m in res["antennas"])]
    shown = [k for k in nums if any(m.get(k) for m in res["antennas"])]
    rows = sorted(res["antennas"], key=lambda m: natural(m["name"])) + \
        [dict(res["totals"], name="total", hosts=[])]
    nw = min(16, max(len(m["name"]) for m in rows + [{"name": "antenna"}]))
    sw = max(len(m.get("src", "")) for m in rows + [{"src": "source"}])
    used = nw + 1 + sw + 1 + 5
    wid = {k: max(len(k), len("%d" % rows[-1].get(k, 0))) for k in shown}
    fits = []
    for k in sorted(shown, key=lambda k: (VIEW_FIRST.index(k) if k in VIEW_FIRST
                                          else len(VIEW_FIRST), shown.index(k))):
        if used + 1 + wid[k] <= width:
            fits.append(k)
            used += 1 + wid[k]
    cols = [k for k in shown if k in fits]
    lines.append("%-*s %-*s %5s" % (nw, "antenna", sw, "source", "hosts") +
                 "".join(" %*s" % (wid[k], k) for k in cols))
    for m in rows:
        name = m["name"] if len(m["name"]) <= nw else m["name"][:nw - 1] + "+"
        lines.append("%-*s %-*s %5s" % (nw, name, sw, m.get("src", ""),
                                        len(m["hosts"]) if m["name"] != "total" else "") +
                     "".join(" %*d" % (wid[k], m.get(k, 0)) for k in cols))
    hidden = [k for k in shown if k not in fits]
    if hidden:
        lines += wrapped("not shown (a wider terminal, or --json): " + ", ".join(hidden),
                         width)
    zero = [k for k in nums if k not in shown]
    if zero:
        lines += wrapped("zero on every antenna: " + ", ".join(zero), width)
    if "streams" in res:
        lines.append("%d streams, each on one host" % len(res["streams"])
                     if not any(p.startswith("stream") for p in res["problems"]) else
                     "%d streams" % len(res["streams"]))
    for p in res["problems"]:
        lines += wrapped("PROBLEM: " + p, width)
    return "\n".join(lines)


def view(a):
    res = fleet_view(a)
    if a.json:
        print(json.dumps(res, indent=2, sort_keys=True))
    else:
        # the status screen's width and order (dpdk-ibvcap-stat's)
        print(view_table(res, common.screen_width(), common.natural))
    for p in res["problems"]:
        print("%s: %s" % (PROG, p), file=sys.stderr)
    return 1 if res["problems"] else 0


def main():
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 done; 1 a layout that cannot be split, a host file\n"
        "dpdk-ibvcap refuses, a host that does not answer or a stream on two hosts;\n"
        "2 bad option. The commands' options:")
    ap.add_argument("--version", action="version", version=version_line())
    sub = ap.add_subparsers(dest="cmd", metavar="split|view")
    sp = sub.add_parser("split", help="each host's INI file from the array's",
                        description="Each host's dpdk-ibvcap INI file from the array "
                        "layout ARRAY (see dpdk-ibvcap-fleet --help).")
    sp.add_argument("array", metavar="ARRAY.ini")
    sp.add_argument("--hosts", metavar="H1,H2,...",
                    help="the hosts, in dealing order (default: the [host NAME] "
                    "sections, in file order)")
    sp.add_argument("--outdir", default=".", metavar="DIR",
                    help="where HOST.ini files go (default: .)")
    sp.add_argument("--ibvcap", metavar="PATH",
                    help="dpdk-ibvcap to check with (default: beside this tool, or PATH)")
    sp.add_argument("--no-check", action="store_true",
                    help="do not check each file with dpdk-ibvcap --check-config")
    sp.add_argument("--json", action="store_true",
                    help="print the assignment as JSON (hosts, their groups and files)")
    sp.add_argument("--prom-sd", metavar="FILE",
                    help="also write Prometheus file-based service discovery targets: "
                    "HOST:PORT of each host's node_exporter, labelled ibvcap_host and "
                    "ibvcap_array (a job_name ibvcap's file_sd_configs)")
    sp.add_argument("--prom-port", type=int, default=9100, metavar="PORT",
                    help="the node_exporter port for --prom-sd (default: 9100)")
    vp = sub.add_parser("view", help="one per-antenna table of several captures",
                        description="One per-antenna table of several captures' figures, "
                        "summed over hosts (see dpdk-ibvcap-fleet --help).")
    vp.add_argument("--telemetry", action="append", metavar="[HOST=]PREFIX",
                    help="a capture on this host, by its --file-prefix (repeatable)")
    vp.add_argument("--summary", action="append", metavar="[HOST=]FILE",
                    help="a capture's --summary-json file (repeatable)")
    vp.add_argument("--prom", action="append", metavar="[HOST=]FILE|URL",
                    help="Prometheus text: a dpdk-ibvcap-stat --prom file, or a "
                    "node_exporter URL (http://host:9100/metrics) (repeatable)")
    vp.add_argument("--prometheus", action="append", metavar="URL",
                    help="a Prometheus server that scrapes the hosts "
                    "(http://prom:9090): every target of --job is a host, named by "
                    "its ibvcap_host label (fleet split --prom-sd) or instance; its "
                    "figures from the server's HTTP API (PromQL), no host scraped; a "
                    "target with up == 0 does not answer (repeatable)")
    vp.add_argument("--job", default="ibvcap", metavar="JOB",
                    help="the Prometheus job of the capture hosts' node_exporters, for "
                    "--prometheus ('' for every job; default: ibvcap)")
    vp.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                    help="for each URL and each --prometheus query (default: 5)")
    vp.add_argument("--json", action="store_true",
                    help="as JSON: hosts, fields, antennas (name, src, hosts, figures), "
                    "totals, streams (summary files), problems")
    ap.epilog += "\n\n" + "\n".join(p.format_help() for p in (sp, vp))
    a = ap.parse_args()
    if a.cmd is None:
        ap.print_usage(sys.stderr)
        print("%s: a command: split or view" % PROG, file=sys.stderr)
        return 2
    for u in (getattr(a, "prometheus", None) or []):
        if not re.match(r"https?://[^/]", u):
            vp.error("--prometheus %s: expected the server's URL, http://HOST:PORT "
                     "(e.g. http://prom:9090)" % u)
    try:
        return split(a) if a.cmd == "split" else view(a)
    except FleetError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
