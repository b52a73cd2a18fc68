#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap-stat: the live status of a running dpdk-ibvcap, through DPDK
telemetry (the primary's socket; no hugepages, no EAL, read-only).

A refreshing status screen that fits the terminal (80 columns and up;
wider terminals get more columns) -- per antenna its rate, lost and late
frames, its newest frame's UTC and age; per writer (by the --name it was
given) its lag behind the newest frame, lost frames, files, write rate and
the disk space left to it; the ports' figures -- or one snapshot (--once),
as JSON (--json), or the counters in the Prometheus text format for
node_exporter's textfile collector (--prom), or PNG figures of each
antenna's bandpass and sampler-state occupancy (--plot DIR).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.realpath(__file__))
# the tools' shared module: beside this tool (the build tree), else where the
# package installs it (relative to bindir: a DESTDIR too), else the source tree
sys.path[:0] = [HERE, os.path.join(HERE, os.path.relpath("@PYDIR@", "@BINDIR@")),
                os.path.join(HERE, "..", "python")]
import ibvcap_tools as common  # noqa: E402
from ibvcap_tools import (GROUPS, Telemetry, TelemetryError, TelemetryTimeout,  # noqa: E402,F401
                          natural, rows, screen_width, writers)
from ibvcap_prom import prometheus, scale_of, write_atomic  # noqa: E402

# every counter's name, unit, kind, help and Prometheus name come from the
# capture (/ibvcap/counters, the tables of lib/stats), or without one from
# counters.json (the same rows): none is written here
# /ibvcap/bstate's verdicts (lib/quicklook ql_bstate.h), and as the screen shows them
BSTATE = ("nodata", "ok", "under-driven", "over-driven", "dead", "saturated", "stuck bit")
BSTATE_SHORT = ("-", "ok", "UNDER", "OVER", "DEAD", "SAT", "STUCK")


def describe(tables):
    """What each counter means, from the counter tables (common.counter_tables):
    group -> name -> (unit, kind, help, elements): elements, an array's
    element names (its values are NAME_ELEMENT in the rows), empty for a
    scalar."""
    return {g: {k: (f.unit, f.kind, f.help, f.elems) for k, f in tables.get(g, {}).items()}
            for g in GROUPS}


def saved_counters(desc):
    """describe()'s tables for a saved snapshot: per group a list of [name,
    unit, kind, help, elements...], in the capture's order (JSON objects
    are written with sorted keys). A group the snapshot had none of (one
    saved before the capture had that table) is left out, as it was."""
    return {g: [[k, v[0], v[1], v[2]] + list(v[3]) for k, v in t.items()]
            for g, t in desc.items() if t}


def load_snapshot(path):
    """A snapshot saved by --once --json (with its counters), for --from:
    (snapshot, describe()'s tables). Errors name the file and what was expected."""
    try:
        with (sys.stdin if path == "-" else open(path)) as f:
            cur = json.load(f)
    except OSError as e:
        raise TelemetryError("--from %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise TelemetryError("--from %s: not JSON (%s)" % (path, e))
    need = ("time", "stats", "antennas", "writers", "ports", "counters")
    if not isinstance(cur, dict) or not all(k in cur for k in need):
        raise TelemetryError("--from %s: not a snapshot of dpdk-ibvcap-stat --once --json "
                             "(expected the keys %s)" % (path, ", ".join(need)))
    desc = {g: {} for g in GROUPS}
    for g, t in cur.pop("counters").items():
        desc[g] = {r[0]: (r[1], r[2], r[3], tuple(r[4:])) for r in t}
    return cur, desc


def snapshot(tel):
    """Everything the table, JSON and Prometheus outputs need."""
    s = {"time": time.time(), "pid": tel.pid}
    stats = tel.query("/ibvcap/stats")
    if not isinstance(stats, dict) or "packets" not in stats:
        raise TelemetryError("the process at this prefix serves no /ibvcap/stats: not "
                             "dpdk-ibvcap, or one starting or stopping")
    s["stats"] = stats
    s["antennas"] = rows(tel.query("/ibvcap/antennas"))
    s["buffers"] = rows(tel.query("/ibvcap/buffers"))
    # each stream's counts and identity, an antenna at a time (a reply's size
    # is bounded); a stream seen by several rx lcores has a row from each
    s["streams"] = {}
    for i in range(len(s["antennas"])):
        s["streams"].update(rows(tel.query("/ibvcap/streams,%d" % i)))
    s["writers"] = writers(tel)
    # quick look: integers in fixed-point units (/ibvcap/counters,quicklook);
    # a figure the row leaves out is not a number (power_db of zeros, no data)
    ql = tel.query("/ibvcap/quicklook")
    names = ql.get("fields", []) if isinstance(ql, dict) else []
    s["quicklook"] = {k: {f: r.get(f, float("nan")) for f in names}
                      for k, r in rows(ql).items()}
    # sampler statistics (integers: ppm, milli-steps), per antenna, and each
    # antenna's occupancy and channel groups
    s["bstate"] = rows(tel.query("/ibvcap/bstate"))
    s["bstate_detail"] = {n: bstate_detail(tel.query("/ibvcap/bstate,%s" % n))
                          for n in s["bstate"]}
    # the --write writers' scans: the current and the next (scans.c)
    rec = tel.query("/ibvcap/record,status")
    s["record"] = rec if isinstance(rec, dict) and rec.get("result") == "status" else {}
    s["ports"] = {}
    ports = tel.query("/ethdev/list")
    for p in ports if isinstance(ports, list) else []:
        st = tel.query("/ethdev/stats,%d" % p)
        if isinstance(st, dict):
            s["ports"][str(p)] = st
    return s


# ---- the figures (--plot DIR) -----------------------------------------------

def spectrum(tel, ant, nfft, wait_s):
    """/ibvcap/spectrum,ANT,NFFT once the capture has a window of it (asking
    starts it): {stream: {"fields": {...}, "freq_mhz": [...], "db": [[...] per
    channel]}}, or a string saying why not."""
    t_end = time.time() + wait_s
    while True:
        r = tel.query("/ibvcap/spectrum,%s,%d" % (ant, nfft))
        state = r.get("state") if isinstance(r, dict) else None
        if state == "ready":
            break
        if state != "pending" or time.time() > t_end:
            return r.get("error", state) if isinstance(r, dict) else "no quick look"
        time.sleep(0.2)
    out = {}
    cols = r.get("stream_fields", [])
    for k, v in r.items():
        if k.startswith("g") and isinstance(v, list) and "_" in k and k + "_freq_hz" in r:
            f = dict(zip(cols, v))
            out[k] = {"fields": f, "freq_mhz": [x / 1e6 for x in r[k + "_freq_hz"]],
                      "db": [[x / 1e3 for x in r["%s_c%d_power_mdb" % (k, c)]]
                             for c in range(f["nchan"])]}
    return out


def gnuplot(script, png):
    """Draw with gnuplot (pngcairo); an error names the figure."""
    try:
        p = subprocess.run(["gnuplot"], input=script.encode(), capture_output=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TelemetryError("--plot %s: gnuplot could not run (%s): is gnuplot installed?"
                             % (png, e))
    if p.returncode != 0 or not os.path.exists(png):
        raise TelemetryError("--plot %s: gnuplot failed: %s"
                             % (png, p.stderr.decode(errors="replace").strip()[-300:]))


def plot_bandpass(d, ant, sp, nfft):
    """ANT-bandpass.png: each stream's channels side by side along its band
    (MHz from the header's sample rate) against power (dB, steps^2 a bin)."""
    png, dat = os.path.join(d, "%s-bandpass.png" % ant), os.path.join(d, "%s-bandpass.dat" % ant)
    with open(dat, "w") as f:
        for k, s in sorted(sp.items()):
            bw = s["fields"]["chan_bw_hz"] / 1e6
            mid = bw / 2 if s["fields"]["complex"] else 0
            f.write("# %s\n" % k)
            for c, db in enumerate(s["db"]):
                for x, y in zip(s["freq_mhz"], db):
                    f.write("%.6f %.3f\n" % (c * bw + mid + x, y))
            f.write("\n\n")
    lines = ",".join("'%s' index %d with lines title '%s'" % (dat, i, k)
                     for i, k in enumerate(sorted(sp)))
    gnuplot("set terminal pngcairo size 1000,500 font 'sans,10'\nset output '%s'\n"
            "set title \"%s: bandpass, %d points per FFT, the last window\" noenhanced\n"
            "set xlabel 'frequency across the channels (MHz)'\n"
            "set ylabel 'power (dB, steps^2 per bin)'\nset grid\nset key outside below "
            "noenhanced\nplot %s\n" % (png, ant, nfft, lines), png)
    return png


def plot_bstate(d, ant, b, row):
    """ANT-bstate.png: the share of each sampler state as bars, the Gaussian's
    at the optimal level as points, the verdict and RMS in the title."""
    png, dat = os.path.join(d, "%s-bstate.png" % ant), os.path.join(d, "%s-bstate.dat" % ant)
    with open(dat, "w") as f:
        f.write("# state_value_steps occupancy expected\n")
        for v, o, e in zip(b["state_value"], b["occupancy"], b["expected"]):
            f.write("%g %.6f %.6f\n" % (v, o, e))
    vals = b["state_value"]
    width = 0.8 * (vals[1] - vals[0]) if len(vals) > 1 else 1
    rms = "RMS %.3f steps" % (row.get("rms", 0) / 1e3) if row.get("rms_known") else \
        "RMS below what the states tell"
    gnuplot("set terminal pngcairo size 800,500 font 'sans,10'\nset output '%s'\n"
            "set title \"%s: sampler states (%d-bit), %s: %s (optimal %.2f), %d samples\" "
            "noenhanced\nset xlabel 'sampler state (value, steps)'\n"
            "set ylabel 'share of the samples'\nset yrange [0:*]\nset grid\n"
            "set boxwidth %g\nset style fill solid 0.5\nset key top center\n"
            "plot '%s' using 1:2 with boxes title 'occupancy', '' using 1:3 with points "
            "pt 7 ps 1.5 title 'expected at the optimal level'\n"
            % (png, ant, b["nbits"], b["verdict"], rms, row.get("rms_optimal", 0) / 1e3,
               row.get("samples", 0), width, dat), png)
    return png


def plot(tel, d, nfft):
    """--plot DIR: each antenna's bandpass and sampler-state figures, the data
    each one draws beside it (.dat). @return the files written."""
    bad = [c for c in "'\"\\\n" if c in d]
    if bad:  # gnuplot's script names the files in quotes
        raise TelemetryError("--plot %r: expected a directory name without %s (gnuplot "
                             "reads the file names in quotes)" % (d, " or ".join(map(repr, bad))))
    os.makedirs(d, exist_ok=True)
    tables = common.counter_tables(tel)
    desc = describe(tables)
    ql = rows(tel.query("/ibvcap/quicklook"))
    bs = rows(tel.query("/ibvcap/bstate"))
    if not bs:
        raise TelemetryError("--plot: the capture keeps no frames (--quicklook or "
                             "--quicklook-min off)")
    # the capture computes one antenna's spectra at a time, from the window
    # after it was asked: up to two windows and a half each
    window = max([r.get("window", 1e9) * scale_of(desc, tables, "quicklook", "window")
                  for r in ql.values()] + [1.0])
    done = []
    for ant in bs:
        # a window with the antenna's frames (a slow stream may miss one)
        t_end = time.time() + 2.5 * window + 1
        while True:
            b = bstate_detail(tel.query("/ibvcap/bstate,%s" % ant))
            if b.get("row", {}).get("samples", 0) > 0 or time.time() > t_end:
                break
            time.sleep(0.2)
        if b.get("occupancy"):
            done.append(plot_bstate(d, ant, b, b["row"]))
        sp = spectrum(tel, ant, nfft, 2.5 * window + 1)
        if isinstance(sp, dict) and sp:
            done.append(plot_bandpass(d, ant, sp, nfft))
        else:
            print("dpdk-ibvcap-stat: --plot: %s: no bandpass (%s)" % (ant, sp), file=sys.stderr)
    return done


def bstate_detail(r):
    """/ibvcap/bstate,ANT -> its occupancy (ratios), the expected, the states'
    values (steps), the verdict's name, its row and its channel groups' rows."""
    if not isinstance(r, dict):
        return {}
    g = rows({"fields": r.get("fields", []),
              **{k: v for k, v in r.items() if k.startswith("group")}})
    return {"occupancy": [x / 1e6 for x in r.get("occupancy_ppm", [])],
            "expected": [x / 1e6 for x in r.get("expected_ppm", [])],
            "state_value": [x / 1e3 for x in r.get("state_value", [])],
            "verdict": r.get("verdict_name", "nodata"), "nbits": r.get("nbits", 0),
            "row": dict(zip(r.get("fields", []), r.get("antenna", []))),
            "chan_per_group": r.get("chan_per_group", 0), "groups": g}


# ---- the status screen ------------------------------------------------------

def fit_count(n, w):
    """An integer in w characters: exact where it fits, else 12.3k, 4.56M ...
    (the unit that leaves under 1000 of it)."""
    t = "%d" % n
    if len(t) <= w:
        return t
    for div, suf in ((1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P")):
        if abs(n) / div >= 999.5 and suf != "P":
            continue
        for prec in (2, 1, 0):
            t = "%.*f%s" % (prec, n / div, suf)
            if len(t) <= w:
                return t
    return "#" * w


def fit_bytes(n):
    """Bytes in binary units: 980M, 12.3G, 1.20T."""
    v, suf = float(n), "B"
    for suf in ("B", "K", "M", "G", "T", "P"):
        if v < 1000 or suf == "P":
            break
        v /= 1024
    return ("%d%s" % (v, suf)) if suf == "B" or v >= 100 else ("%.1f%s" % (v, suf))


def fit_age(sec):
    """A duration in at most 6 characters: 850ms, 12.3s, 5m03s, 2h15m, 431d."""
    if sec is None:
        return "-"
    sign, sec = ("-", -sec) if sec < 0 else ("", sec)
    if sec < 1:
        t = "%dms" % (sec * 1000)
    elif sec < 60:
        t = "%.1fs" % sec
    elif sec < 3600:
        t = "%dm%02ds" % (sec // 60, sec % 60)
    elif sec < 86400:
        t = "%dh%02dm" % (sec // 3600, sec % 3600 // 60)
    else:
        t = "%dd" % (sec // 86400)
    return sign + t


def short_utc(s):
    """A scan's UTC as /ibvcap/record says it, to the millisecond ('open' as is)."""
    if len(s) == 30 and s.endswith("Z"):
        s = s[:23] + "Z"
        return s[:19] + "Z" if s.endswith(".000Z") else s
    return s


def fit_utc(ns):
    """Unix ns as 2025-03-10T12:00:13.500Z (ms), '-' for none (0)."""
    if not ns:
        return "-"
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) + \
        ".%03dZ" % (ns % 10**9 // 10**6)


class Col:
    """A column of the screen: heading (one word: the screen reads as
    whitespace-separated fields), width, priority (1 shows first, the
    larger go first as the terminal narrows) and text(name, record): a cell."""

    def __init__(self, head, width, prio, text, left=False):
        self.head, self.width, self.prio, self.text, self.left = head, width, prio, text, left

    def cell(self, s):
        return s.ljust(self.width) if self.left else s.rjust(self.width)


def fit_cols(cols, avail):
    """The columns that fit avail characters (each after a space), the most
    important first, shown in their table order."""
    keep, used = set(), 0
    for i, c in sorted(enumerate(cols), key=lambda ic: (ic[1].prio, ic[0])):
        if used + 1 + c.width <= avail:
            keep.add(i)
            used += 1 + c.width
    return [c for i, c in enumerate(cols) if i in keep]


def block(title, names, cols, width, what):
    """A heading and one row per name: the name column then what fits."""
    nw = min(16, max([len(title)] + [len(n) for n in names]))
    shown = fit_cols(cols, width - nw)
    out = [title.ljust(nw) + "".join(" " + c.cell(c.head) for c in shown)]
    for n in names:
        label = n if len(n) <= nw else n[:nw - 1] + "+"
        out.append(label.ljust(nw) + "".join(" " + c.cell(c.text(n, what[n])) for c in shown))
    return out


def wrap_items(items, width):
    """Items joined by two spaces, in lines of at most width characters."""
    lines, cur = [], ""
    for it in items:
        if cur and len(cur) + 2 + len(it) > width:
            lines.append(cur)
            cur = ""
        cur = (cur + "  " + it) if cur else it[:width]
    return lines + ([cur] if cur else [])


def rates(prev, cur):
    """Per antenna (Gb/s, frames/s) between two snapshots; None with one."""
    out = {}
    dt = cur["time"] - prev["time"] if prev else 0
    for name, a in cur["antennas"].items():
        p = prev["antennas"].get(name) if prev else None
        if p and dt > 0:
            out[name] = ((a["bytes"] - p["bytes"]) * 8 / dt / 1e9,
                         (a["received"] - p["received"]) / dt)
        else:
            out[name] = (None, None)
    return out


# the totals line's events (the counts table's live counters but these levels)
LEVELS = ("streams", "expected", "bytes", "wire_bytes", "last_frame_ns")
SHORT = {"duplicate": "dup"}


# a main loop that has not turned for this long is stuck (it turns 100 times a second)
LOOP_STALE_MS = 2000


def moving(prev, cur, interval):
    """Why the capture's figures stand still although it answers ('' when
    they move): its main loop stopped turning, or its uptime did not advance."""
    st = cur["stats"]
    if st.get("loop_age_ms", 0) > LOOP_STALE_MS:
        return "the capture answers but its main loop has not turned for %.1fs" % (
            st["loop_age_ms"] / 1000)
    if prev is not None and st.get("uptime_ms", 0) <= prev["stats"].get("uptime_ms", 0):
        return "the capture answers but its uptime stands still"
    return ""


def stale_line(since, why):
    """The STALE mark: since when (UTC, and how long), and why; '' when fresh."""
    if since is None:
        return ""
    return "STALE since %s (%s): %s" % (time.strftime("%H:%M:%SZ", time.gmtime(since)),
                                        fit_age(time.time() - since), why)


def table(prefix, prev, cur, desc, tables, width=80, height=0, stale=""):
    """The status screen: lines of at most width characters (at most height
    lines when height > 0). docs/operations.md §6 says what each column means.
    stale: the STALE mark, first (the figures below are the last answered)."""
    lines = head_lines(prefix, cur, desc, width, stale)
    ants, wrs = cur["antennas"], cur["writers"]
    body = [""] + block("antenna", sorted(ants, key=natural),
                        antenna_cols(rates(prev, cur), cur, desc, tables), width, ants)
    wbody = []
    if wrs:
        wbody = [""] + block("writer", sorted(wrs, key=natural), writer_cols(), width, wrs)
    pcols = [Col(k, 11, 1, count(k, 11)) for k in desc["port"]]
    pbody = [""] + block("port", sorted(cur["ports"], key=int), pcols, width, cur["ports"])
    # a short terminal: the ports go first, then antennas beyond what fits
    if height > 0 and len(lines) + len(body) + len(wbody) + len(pbody) > height:
        pbody = []
        room = height - len(lines) - len(wbody) - 1
        if len(body) > room:
            body = body[:max(room, 2)] + ["(%d more antennas: a taller terminal shows them)"
                                          % (len(body) - max(room, 2))]
    return "\n".join(x[:width] for x in lines + body + wbody + pbody)


def head_lines(prefix, cur, desc, width, stale):
    """The screen's head: the STALE mark, the capture's identity and rate,
    the scans, and the capture-wide event counts."""
    st, now = cur["stats"], cur["time"]
    lines = (textwrap.wrap(stale, width) if stale else []) + wrap_items(
        ["dpdk-ibvcap '%s'" % prefix, "pid %s" % cur["pid"],
         "up %s" % fit_age(st.get("uptime_ms", 0) / 1000),
         "%.3f Gb/s" % (st.get("rate_mbps", 0) / 1000),
         "%.4f Mpps" % (st.get("rate_pps", 0) / 1e6),
         time.strftime("%H:%M:%SZ", time.gmtime(now))], width)
    rec = cur.get("record", {})
    if rec.get("writers"):
        lines += wrap_items(
            ["scan %s until %s" % (rec["current_scan"], short_utc(rec["current_stop_utc"]))
             if rec.get("current_scan") else "scan none",
             "next %s at %s" % (rec["next_scan"], short_utc(rec["next_start_utc"]))
             if rec.get("next_scan") else "next none",
             "writers " + ", ".join(rec.get("writer_states", []))], width)
    ev = [k for k in desc["counts"] if k in st and k not in LEVELS]
    lines += wrap_items(["%s %s" % (SHORT.get(k, k), st[k]) for k in ev] +
                        ["unattributed %s" % st["unattributed"]] +
                        ["%s %s" % (k, st[k]) for k in desc["port"] if k in st and
                         k != "ipackets"], width)
    return lines


def count(key, w):
    """A column of a row's count, fitted to w characters."""
    return lambda n, x: fit_count(x.get(key, 0), w)


def antenna_cols(r, cur, desc, tables):
    """The antenna block's columns (r: rates()): the rate, lost, late, newest
    frame and its age first; the signal (quick look) and more counts as the
    terminal widens."""
    now = cur["time"]
    ql, bs = cur.get("quicklook", {}), cur.get("bstate", {})

    def rate(i, fmt):
        return lambda n, a: "-" if r[n][i] is None else fmt % r[n][i]

    def age(n, a):
        ns = a.get("last_frame_ns", 0)
        return fit_age(now - ns / 1e9) if ns else "-"

    def signal(n, a):  # quick look's verdict over its last window
        v = ql.get(n, {}).get("verdict")
        return "-" if v is None else {1: "ok", 2: "DEAD", 3: "SAT"}.get(int(v), "-")

    def sampler(n, a):  # the sampler statistics' verdict over the last window
        v = bs.get(n, {}).get("verdict")
        return "-" if v is None or not 0 <= v < len(BSTATE_SHORT) else BSTATE_SHORT[v]

    def power(n, a):  # left out (telemetry) or not finite (an old snapshot): none
        v = ql.get(n, {}).get("power_db")
        if v is None or v != v or v in (float("inf"), float("-inf")):
            return "-"
        return "%.1f" % (v * scale_of(desc, tables, "quicklook", "power_db"))

    acols = [Col("Gb/s", 6, 1, rate(0, "%.3f")),
             Col("frames/s", 9, 2, rate(1, "%.0f")),
             Col("received", 10, 3, count("received", 10)),
             Col("lost", 7, 1, count("lost", 7)),
             Col("late", 7, 1, count("late", 7)),
             Col("dup", 7, 3, count("duplicate", 7)),
             Col("invalid", 7, 4, count("invalid", 7)),
             Col("malformed", 9, 4, count("malformed", 9)),
             Col("too_late", 8, 5, count("too_late", 8)),
             Col("expected", 10, 5, count("expected", 10)),
             Col("resyncs", 7, 3, count("resyncs", 7)),
             Col("skipped", 8, 4, count("resync_skipped", 8))]
    if "not_recorded" in desc["counts"]:  # received, in no file (by cause: --json)
        acols += [Col("not_rec", 8, 2, count("not_recorded", 8))]
    acols += [Col("last-frame-UTC", 24, 1, lambda n, a: fit_utc(a.get("last_frame_ns", 0)),
                  left=True),
              Col("age", 6, 1, age),
              Col("signal", 6, 2, signal),
              Col("dB", 6, 3, power),
              Col("sampler", 7, 4, sampler)]
    return acols


def writer_cols():
    """The writer block's columns, per writer by the name it was given: how
    far behind, what it lost, files, the disk left to it and the time that
    is at its rate (or that it recycles: on-full=remove-oldest); narrow
    enough that 80 columns keep its format beside a 16-character name."""
    def state(n, w):  # dead: its process died without ending (the primary saw it)
        return "dead" if w.get("dead") else "failed" if w.get("error") else \
            "full" if w.get("full") else "hung" if w.get("active") and w.get("hung") else \
            "run" if w.get("active") else "ended"

    def live(key, fn):
        return lambda n, w: fn(w.get(key, 0)) if w.get("active") else "-"

    def left(n, w):  # recording time left at its rate, above its min-free
        if not w.get("active"):
            return "-"
        if w.get("recycles"):  # on-full=remove-oldest: at min-free it removes, not stops
            return "recycles"
        if not w.get("write_rate"):
            return "-"
        return fit_age(w["time_left_ns"] / 1e9)

    def io(n, w):  # io_uring: writes in flight now / the most it may have; or sync
        if not w.get("active"):
            return "-"
        if not w.get("io_uring"):
            return "sync"
        return "%s/%s" % (fit_count(w.get("io_inflight", 0), 2), fit_count(w.get("io_depth", 0), 2))

    return [Col("state", 6, 1, state),
            Col("format", 6, 3, lambda n, w: w.get("format", "")),
            Col("lag", 6, 1, live("lag_frames", lambda v: fit_count(v, 6))),
            Col("behind", 6, 1, live("lag_ns", lambda v: fit_age(v / 1e9))),
            Col("MB/s", 7, 2, live("write_rate", lambda v: "%.1f" % (v / 1e6))),
            Col("written", 10, 3, count("written", 10)),
            Col("lost", 5, 1, count("overrun", 5)),
            Col("cut", 6, 3, count("cut", 6)),
            Col("placeholders", 12, 4, count("placeholders", 12)),
            Col("files", 5, 1, count("files", 5)),
            Col("bytes", 7, 4, lambda n, w: fit_bytes(w.get("bytes", 0))),
            Col("free", 6, 1, lambda n, w: fit_bytes(w["disk_free"]) if w.get("disk_free")
                else "-"),
            Col("left", 8, 1, left),
            Col("removed", 7, 4, count("files_removed", 7)),
            Col("io", 5, 5, io),
            Col("pid", 8, 5, lambda n, w: "%d" % w.get("pid", 0))]


class Fringes:
    """The chosen baselines' fringe checks (/ibvcap/fringe, one at a time in
    the capture): each step reads the latest check's status, keeps a done
    one's result under its baseline, and starts the next baseline's once
    none runs. results: {"A-B": the /ibvcap/fringe/status reply}."""

    def __init__(self, baselines, seconds):
        self.baselines = baselines
        self.seconds = seconds
        self.next = 0
        self.results = {}

    def step(self, tel):
        st = tel.query("/ibvcap/fringe/status")
        running = st.get("state") == "running"
        if st.get("state") == "done":
            self.results["%s-%s" % (st["a"], st["b"])] = st
        if not running:
            a, b = self.baselines[self.next % len(self.baselines)]
            self.next += 1
            tel.query("/ibvcap/fringe,%s,%s,%g" % (a, b, self.seconds))
        return running

    def all(self, tel, timeout):
        """--once: every baseline in turn, each to its end."""
        for a, b in self.baselines:
            r = tel.query("/ibvcap/fringe,%s,%s,%g" % (a, b, self.seconds))
            if r.get("error"):
                raise TelemetryError("/ibvcap/fringe,%s,%s refused: %s '%s': expected %s"
                                     % (a, b, r.get("input"), r.get("value"),
                                        r.get("expected")))
            t_end = time.time() + self.seconds + timeout
            while time.time() < t_end:
                time.sleep(0.1)
                st = tel.query("/ibvcap/fringe/status")
                if st.get("state") == "done":
                    self.results["%s-%s" % (a, b)] = st
                    break


def seconds(text):
    """--interval and --timeout: a duration (common.seconds) for argparse."""
    try:
        return common.seconds(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def version_line():
    return common.version_line("dpdk-ibvcap-stat")


def show_saved(ap, a):
    """--from: the screen, JSON or Prometheus text of saved snapshots."""
    if len(a.saved) > 2:
        ap.error("--from: %d files: expected one snapshot, or two (the earlier first)"
                 % len(a.saved))
    try:
        snaps = [load_snapshot(p) for p in a.saved]
    except TelemetryError as e:
        print("dpdk-ibvcap-stat: %s" % e, file=sys.stderr)
        return 1
    prev = snaps[0][0] if len(snaps) == 2 else None
    cur, desc = snaps[-1]
    prefix = cur.get("file_prefix", a.file_prefix)
    tables = common.saved_tables()
    if a.prom:
        write_atomic(a.prom, prometheus(prefix, cur, desc, tables))
    if a.json:
        cur["counters"] = saved_counters(desc)
        print(json.dumps(cur, indent=2, sort_keys=True))
    elif not a.prom:
        print(table(prefix, prev, cur, desc, tables, screen_width(),
                    stale=cur.get("stale", "")))
    return 0


def parse_args():
    """The command line: (the parser, its values, the fringe baselines)."""
    ap = argparse.ArgumentParser(
        prog="dpdk-ibvcap-stat", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="A screen is marked STALE (since when, and why) while the capture does "
               "not answer within --timeout, or answers but its main loop has not turned "
               "for 2 s (loop_age_ms) or its uptime stands still; --prom is then not "
               "rewritten (its ibvcap_export_time_seconds ages). "
               "Exit status: 0 done; 1 no capture at that prefix, it went away, or (--once) "
               "it is stale or did not answer within --timeout; 2 bad option.")
    ap.add_argument("--file-prefix", default="rte", metavar="PREFIX",
                    help="the capture's EAL --file-prefix (default: rte)")
    ap.add_argument("--interval", type=seconds, default=1.0, metavar="DURATION",
                    help="refresh period of the table and of --prom, with a unit as "
                    "every tool takes them: 1s, 500ms, 1m (default: 1s)")
    ap.add_argument("--once", action="store_true", help="print one snapshot and exit")
    ap.add_argument("--timeout", type=seconds, default=5.0, metavar="DURATION",
                    help="the longest the capture may take to answer (default: 5s); "
                    "past it the screen is marked STALE, --once exits 1")
    ap.add_argument("--version", action="version", version=version_line())
    ap.add_argument("--json", action="store_true",
                    help="snapshots as JSON: one, indented, with --once; else one "
                         "object per line every --interval")
    ap.add_argument("--prom", metavar="FILE",
                    help="write the counters in Prometheus text format to FILE "
                         "(atomically; with --once, once), e.g. "
                         "/var/lib/prometheus/node-exporter/ibvcap.prom")
    ap.add_argument("--from", dest="saved", action="append", metavar="FILE",
                    help="show a snapshot saved by --once --json ('-': standard "
                    "input) instead of asking a capture, as --once would (the screen "
                    "COLUMNS wide, 80 when not a terminal; --json, --prom FILE); given "
                    "twice, the earlier first, the rates between the two")
    ap.add_argument("--plot", metavar="DIR",
                    help="write PNG figures (gnuplot) of each antenna's bandpass "
                         "(DIR/ANT-bandpass.png, over the last --quicklook-window) and "
                         "sampler-state occupancy with the expected levels "
                         "(DIR/ANT-bstate.png), the data each draws beside it (.dat), "
                         "and exit")
    ap.add_argument("--plot-nfft", type=int, default=128, metavar="N",
                    help="points per FFT of --plot's bandpasses (a power of two, "
                         "16..512; default 128)")
    ap.add_argument("--query", metavar="COMMAND",
                    help="send one raw telemetry command (e.g. /ethdev/xstats,0) and "
                         "print its JSON reply")
    ap.add_argument("--fringe", metavar="A-B", action="append", default=[],
                    help="a baseline (antenna names or indices) whose fringe check "
                    "(/ibvcap/fringe: lag and coefficient per channel) --json and --prom "
                    "carry; repeat for more, checked in turn, one at a time")
    ap.add_argument("--fringe-seconds", type=seconds, default=1.0, metavar="DURATION",
                    help="how long each fringe check correlates (default: 1s)")
    a = ap.parse_args()
    why = common.replaceable(a.prom) if a.prom else None
    if why:
        ap.error("--prom: %s" % why)
    if a.plot_nfft not in [1 << k for k in range(4, 10)]:
        ap.error("--plot-nfft %d: expected a power of two, 16..512" % a.plot_nfft)
    baselines = []
    for f in a.fringe:
        ab = f.split("-")
        if len(ab) != 2 or not all(ab):
            ap.error("--fringe %s: expected A-B, two antennas (names or indices)" % f)
        baselines.append(tuple(ab))
    return ap, a, baselines


def main():
    ap, a, baselines = parse_args()
    fringes = Fringes(baselines, a.fringe_seconds) if baselines else None
    if a.saved:
        return show_saved(ap, a)
    watch = Watch(a)
    try:
        tel = Telemetry(a.file_prefix, a.timeout)
        if a.query:
            print(json.dumps(tel.query(a.query), indent=2))
            return 0
        if a.plot:
            for f in plot(tel, a.plot, a.plot_nfft):
                print(f)
            return 0
        watch.tables = common.counter_tables(tel)
        watch.desc = describe(watch.tables)
        return watch.run(tel, fringes)
    except TelemetryTimeout as e:
        print("dpdk-ibvcap-stat: %s" % e, file=sys.stderr)
        return 1
    except TelemetryError as e:
        if watch.prev is not None or watch.stale_since is not None:  # it answered before
            print("dpdk-ibvcap-stat: the capture at --file-prefix %s went away" %
                  a.file_prefix, file=sys.stderr)
            return 1
        print("dpdk-ibvcap-stat: %s" % e, file=sys.stderr)
        return 1
    except (ConnectionError, BrokenPipeError, json.JSONDecodeError):
        print("dpdk-ibvcap-stat: the capture at --file-prefix %s went away" % a.file_prefix,
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


class Watch:
    """Asking the capture every --interval and showing each answer (the
    screen, JSON lines, the Prometheus file), or once (--once); a capture
    that does not answer in time, or whose figures stand still, marks what
    is shown STALE."""

    def __init__(self, a):
        self.a = a
        self.prev, self.stale_since, self.stale_why = None, None, ""
        self.desc = self.tables = None

    def ask(self, tel, fringes):
        """One snapshot: (the telemetry connection, the snapshot or None
        when it timed out, why it is stale or '')."""
        a = self.a
        try:
            if tel is None:
                tel = Telemetry(a.file_prefix, a.timeout)
            cur = snapshot(tel)
            why = moving(self.prev, cur, a.interval)
            if fringes is not None:
                if a.once:
                    fringes.all(tel, a.timeout)
                else:
                    fringes.step(tel)
                cur["fringe"] = fringes.results
        except TelemetryTimeout as e:
            if a.once or self.desc is None:
                raise
            tel, cur, why = None, None, str(e)
        return tel, cur, why

    def run(self, tel, fringes):
        a = self.a
        while True:
            tel, cur, why = self.ask(tel, fringes)
            if why:
                self.stale_since = self.stale_since or time.time()
                self.stale_why = why
            else:
                self.stale_since = None
            mark = stale_line(self.stale_since, self.stale_why)
            if a.once:
                return self.once(cur, mark)
            self.refresh(cur, mark)
            if cur is not None:
                self.prev = cur
            time.sleep(a.interval)

    def once(self, cur, mark):
        """--once: one snapshot shown; 1 when it is stale."""
        a = self.a
        if a.prom and not mark:
            write_atomic(a.prom, prometheus(a.file_prefix, cur, self.desc, self.tables))
        if a.json:
            cur["stale"] = mark
            # all that --from needs to show it again
            cur["counters"] = saved_counters(self.desc)
            cur.setdefault("file_prefix", a.file_prefix)
            print(json.dumps(cur, indent=2, sort_keys=True))
        elif not a.prom:
            print(table(a.file_prefix, None, cur, self.desc, self.tables, screen_width(),
                        stale=mark))
        if mark:
            print("dpdk-ibvcap-stat: %s" % mark, file=sys.stderr)
        return 1 if mark else 0

    def refresh(self, cur, mark):
        """One turn of the refreshing outputs (cur None: the capture did not
        answer; the last answer is shown, marked)."""
        a = self.a
        if a.prom and cur is not None and not mark:
            write_atomic(a.prom, prometheus(a.file_prefix, cur, self.desc, self.tables))
        if a.json:
            line = dict(cur) if cur is not None else {"time": time.time()}
            line["stale"] = mark
            print(json.dumps(line, sort_keys=True))
            sys.stdout.flush()
        elif not a.prom or sys.stdout.isatty():
            tty = sys.stdout.isatty()
            sys.stdout.write("\033[H\033[2J" if tty else "")
            size = shutil.get_terminal_size()
            shown = cur if cur is not None else self.prev
            if shown is None:
                print(mark)
            else:
                print(table(a.file_prefix, self.prev if cur is not None else None, shown,
                            self.desc, self.tables, screen_width(),
                            size.lines - 1 if tty else 0, stale=mark))
            sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
