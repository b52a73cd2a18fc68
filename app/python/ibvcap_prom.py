# SPDX-License-Identifier: BSD-3-Clause
"""The capture's figures in the Prometheus text exposition format
(dpdk-ibvcap-stat --prom): every metric named, explained and scaled by the
capture's own counter tables (lib/stats, served by /ibvcap/counters), plus
the few figures that are not counters (per-stream identities, the sampler
occupancy, fringe checks, the scans' ledgers, the data clock and the
export's own time). Nothing here names a counter: a figure the tables do
not name is left out."""
import os
import tempfile

from ibvcap_tools import replaceable, tel_key


def fringe_metrics(out, inst, fringes):
    """Each baseline's latest fringe check, per thread and channel."""
    figs = (("lag_samples", "lag_samples", 1, "The lag of the peak, samples of B behind A."),
            ("lag_seconds", "lag_ps", 1e-12, "The lag of the peak, seconds of B behind A."),
            ("coefficient", "coefficient_ppm", 1e-6,
             "The normalised correlation coefficient at the peak (complex: its magnitude)."),
            ("coefficient_sigma", "sigma_ppm", 1e-6,
             "The noise of one lag's coefficient, 1/sqrt(samples)."),
            ("pairs", "pairs", 1, "Frame pairs the check correlated."))
    for name, key, scale, help_ in figs:
        out.append("# HELP ibvcap_fringe_%s %s" % (name, help_))
        out.append("# TYPE ibvcap_fringe_%s gauge" % name)
        for bl, st in sorted(fringes.items()):
            for k, c in sorted(st.items()):
                if not (k.startswith("t") and isinstance(c, dict)) or key not in c:
                    continue
                out.append('ibvcap_fringe_%s{%s,a="%s",b="%s",thread="%d",channel="%d"} %s'
                           % (name, inst, prom_escape(st["a"]), prom_escape(st["b"]),
                              c["thread"], c["channel"], "%.9g" % (c[key] * scale)))


def bstate_rows(cur):
    """The sampler statistics' rows: each antenna's, and each of its channel
    groups' labelled (antenna, group)."""
    r = dict(cur.get("bstate", {}))
    for n, d in sorted(cur.get("bstate_detail", {}).items()):
        for g, v in d.get("groups", {}).items():
            r[(("antenna", n), ("group", g[len("group"):]))] = v
    return r


def occupancy_metrics(out, inst, cur):
    """Each antenna's share of each sampler state and the Gaussian's at the
    optimal level, labelled by the state's value in steps."""
    for what, help_ in (("occupancy", "share of the samples in each sampler state"),
                        ("expected", "that share for Gaussian noise at the optimal level")):
        name = "ibvcap_bstate_%s_ratio" % what
        lines = []
        for n, d in sorted(cur.get("bstate_detail", {}).items()):
            for v, x in zip(d.get("state_value", []), d.get(what, [])):
                lines.append('%s{%s,antenna="%s",state="%g"} %s'
                             % (name, inst, prom_escape(n), v, repr(x)))
        if lines:
            out += ["# HELP %s The last --quicklook-window's %s (dpdk-ibvcap /ibvcap/bstate)."
                    % (name, help_), "# TYPE %s gauge" % name] + lines


def scale_of(desc, tables, group, key):
    """The factor from a value of group's field key, as desc (the capture's
    or the snapshot's counters) stores it, to the metric's base unit: the
    lib/stats table's scale (tables) when desc says the same unit; 1 for a
    snapshot saved before the quick look's figures were integers (its
    counters table gives them in their base unit)."""
    f = tables.get(group, {}).get(key)
    unit = desc.get(group, {}).get(key, ("",))[0]
    return f.scale if f is not None and unit == f.unit else 1


def prom_escape(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def prometheus(prefix, cur, desc, tables):
    """The counters in the Prometheus text exposition format, named and
    explained by the capture's own tables: desc (the counters' rows as the
    capture or a snapshot describes them) gives the help, tables
    (counter_tables, or saved_tables without a capture) each figure's
    Prometheus name and scale (lib/stats stats_prom_name); a figure neither
    names is left out."""
    out = []
    inst = 'instance_prefix="%s"' % prom_escape(prefix)
    table_metrics(out, inst, cur, desc, tables)
    stream_metrics(out, inst, cur, desc, tables)
    if cur.get("fringe"):
        fringe_metrics(out, inst, cur["fringe"])
    occupancy_metrics(out, inst, cur)
    gauge(out, "ibvcap_uptime_seconds", "Seconds since the capture started.",
          [(inst, cur["stats"].get("uptime_ms", 0) / 1000)])
    rec = cur.get("record", {})
    clock_metrics(out, inst, rec, list(cur["antennas"]))
    scan_metrics(out, inst, rec)
    # the export's own age: a file no longer rewritten (the capture stopped
    # answering, or this exporter died) keeps its time; alert on
    # time() - ibvcap_export_time_seconds (docs/operations.md)
    gauge(out, "ibvcap_export_time_seconds", "Unix time at which the capture last "
          "answered and this export was written.", [(inst, "%.3f" % cur["time"])])
    return "\n".join(out) + "\n"


def gauge(out, name, help_, samples):
    """A gauge's HELP and TYPE lines and its samples: (labels, value)."""
    out.append("# HELP %s %s" % (name, help_))
    out.append("# TYPE %s gauge" % name)
    for labels, v in samples:
        out.append("%s{%s} %s" % (name, labels, v))


def prom_value(v):
    """A sample's value as the exposition format spells it."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    return v


def table_metrics(out, inst, cur, desc, tables):
    """Every figure of the capture's counter tables (docs/counters.md): the
    capture's own, then per antenna, buffer, writer, port, quick look and
    sampler statistics; an array's elements as one metric labelled by
    cause."""
    def metric(group, key, label, samples):
        f = tables.get(group, {}).get(key)
        if f is None or not f.prom:
            return
        help_ = desc[group].get(key, (f.unit, f.kind, f.help))[2]
        scale = scale_of(desc, tables, group, key)
        out.append("# HELP %s %s" % (f.prom, help_))
        out.append("# TYPE %s %s" % (f.prom, f.kind))
        for lab, value in samples:
            # lab: a label value, or (label, value) pairs (an array's element)
            pairs = lab if isinstance(lab, tuple) else ((label, lab),) if label else ()
            labs = ",".join([inst] + ['%s="%s"' % (k, prom_escape(x)) for k, x in pairs])
            out.append("%s{%s} %s" % (f.prom, labs,
                                      prom_value(value * scale if scale != 1 else value)))

    st = cur["stats"]
    for key in desc["capture"]:
        if key in st:
            metric("capture", key, None, [(None, st[key])])
    for group, data, label in (("counts", cur["antennas"], "antenna"),
                               ("buffer", cur["buffers"], "antenna"),
                               ("writer", cur["writers"], "writer"),
                               ("port", cur["ports"], "port"),
                               ("quicklook", cur.get("quicklook", {}), "antenna"),
                               ("bstate", bstate_rows(cur), "antenna")):
        for key, (_, _, _, elems) in desc[group].items():
            if elems:
                samples = [(((label, n), ("cause", e)), v[tel_key(key, e)])
                           for n, v in sorted(data.items()) for e in elems
                           if tel_key(key, e) in v]
            else:  # row keys: names, or (label, value) pairs
                samples = [(n, v[key]) for n, v in sorted(data.items(), key=lambda kv: str(kv[0]))
                           if key in v]
            if samples:
                metric(group, key, label, samples)


def clock_metrics(out, inst, rec, names):
    """Each antenna's data clock against the host's, and the capture's own
    --clock-warn (so an alert compares against it: IbvcapDataClockOffset in
    config/prometheus/ibvcap-array.rules.yml). rec: /ibvcap/record,status;
    names: the antennas in the capture's order."""
    offs, known = rec.get("data_offset_ms", []), rec.get("data_offset_known", [])
    if offs:
        gauge(out, "ibvcap_data_clock_offset_seconds", "The antenna's newest frame's "
              "data time minus the host clock when it came (absent before its first "
              "frame); the capture warns past --clock-warn.",
              [('%s,antenna="%s"' % (inst, prom_escape(names[i])), v / 1000)
               for i, v in enumerate(offs) if i < len(known) and known[i] and i < len(names)])
    if "clock_warn_ms" in rec:
        gauge(out, "ibvcap_data_clock_warn_seconds", "The capture's --clock-warn: it warns "
              "when an antenna's data clock offset exceeds it.",
              [(inst, "%g" % (rec["clock_warn_ms"] / 1000))])


def scan_metrics(out, inst, rec):
    """The ended scans' ledgers per --write writer (rec: /ibvcap/record,status)."""
    if not rec.get("ledger_scan"):
        return
    samples = []
    for i, scan in enumerate(rec["ledger_scan"]):
        for what in ("expected", "recorded", "lost", "not_recorded", "overrun", "cut",
                     "not_arrived"):
            col = rec.get("ledger_" + what, [])
            if i < len(col):
                samples.append(('%s,scan="%s",writer="%s",what="%s"'
                                % (inst, prom_escape(scan), prom_escape(rec["ledger_writer"][i]),
                                   what), "%d" % col[i]))
    gauge(out, "ibvcap_scan_frames", "Frames of an ended scan per --write writer: "
          "expected (its data-time span), recorded, and missing by cause (lost, "
          "not_recorded, overrun, cut, not_arrived).", samples)
    gauge(out, "ibvcap_scan_short", "An ended scan recorded fewer frames than its span "
          "holds (1), or all of them (0); the reason is in its log line and the summary.",
          [('%s,scan="%s",writer="%s"' % (inst, prom_escape(scan),
                                          prom_escape(rec["ledger_writer"][i])),
            "%d" % (rec["ledger_recorded"][i] < rec["ledger_expected"][i]))
           for i, scan in enumerate(rec["ledger_scan"])])


STREAM_ID = ("antenna", "stationid", "groupid", "secondaryid", "threadid", "dst", "port",
             "slot")
STREAM_FIGURES = ("received", "recorded", "not_recorded", "lost")


def station_str(sid):
    """A CODIF stationid as the capture prints it: two letters, or a number."""
    hi, lo = sid >> 8, sid & 0xff
    if 0x20 < hi < 0x7f and 0x20 < lo < 0x7f:
        return chr(hi) + chr(lo)
    return str(sid)


def stream_metrics(out, inst, cur, desc, tables):
    """Per stream: received, recorded, not recorded (in all and by cause) and
    lost, labelled with the stream's identity; rows of one stream (several rx
    lcores) summed."""
    names = list(cur["antennas"].keys())
    agg = {}
    for row in cur.get("streams", {}).values():
        if not all(k in row for k in STREAM_ID):
            continue
        a = row["antenna"]
        dst = row["dst"]
        labels = (("antenna", names[a] if a < len(names) else str(a)),
                  ("station", station_str(row["stationid"])),
                  ("groupid", str(row["groupid"])), ("secondaryid", str(row["secondaryid"])),
                  ("threadid", str(row["threadid"])),
                  ("dst", "%d.%d.%d.%d" % (dst >> 24, dst >> 16 & 255, dst >> 8 & 255, dst & 255)),
                  ("port", str(row["port"])))
        t = agg.setdefault(labels, {})
        for k, v in row.items():
            if k not in STREAM_ID:
                t[k] = t.get(k, 0) + v
    if not agg:
        return

    def lab(labels, extra=()):
        return ",".join([inst] + ['%s="%s"' % (k, prom_escape(v)) for k, v in labels + extra])

    def head(key):  # the stream table's name of the figure, its HELP and TYPE lines
        f = tables.get("stream", {}).get(key)
        if f is None or not f.prom:
            return None
        out.append("# HELP %s %s" % (f.prom, desc["counts"].get(key, (0, 0, f.help))[2]))
        out.append("# TYPE %s %s" % (f.prom, f.kind))
        return f.prom

    for key in STREAM_FIGURES:
        name = head(key)
        for labels, t in sorted(agg.items()) if name else ():
            if key in t:
                out.append("%s{%s} %s" % (name, lab(labels), t[key]))
    name = head("not_recorded_by_cause")
    if name is None:
        return
    for labels, t in sorted(agg.items()):
        for k, v in sorted(t.items()):
            # not_recorded_<cause>; the table's own array elements
            # (not_recorded_by_cause_<cause>, the same values) not twice
            if k.startswith("not_recorded_") and not k.startswith("not_recorded_by_cause"):
                cause = k[len("not_recorded_"):].replace("_", "-")
                out.append("%s{%s} %s" % (name, lab(labels, (("cause", cause),)), v))


def write_atomic(path, text):
    """node_exporter reads *.prom files: never let it see half a file.
    OSError when path is not a file to replace (replaceable)."""
    why = replaceable(path)
    if why:
        raise OSError(why)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ibvcap-stat.", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


