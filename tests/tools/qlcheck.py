#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check dpdk-ibvcap's quick-look figures against codifgen's truth.

  qlcheck.py TRUTH.json summary SUMMARY.json EVERY
  qlcheck.py TRUTH.json rows ROWS.json          (rows in base units: antenna -> {field: value})
  qlcheck.py TRUTH.json tel REPLY.json UNITS.json
        (/ibvcap/quicklook[/run] as served: every value a JSON integer in the
        unit /ibvcap/counters,quicklook (UNITS.json) gives; the rounding to
        that unit, half of it, is added to each tolerance)
  qlcheck.py TRUTH.json prom PROM.json          (promcheck.py's samples)

Per antenna with a --signal in the truth: the state (ok, dead, saturated)
and each figure within its statistical tolerance. Over n samples (what the
capture says it used; I and Q count two) a figure's mean has standard error
sd / sqrt(n) (sd: the truth's per-sample standard deviation, the largest of
any channel and part); allowed: 6 standard errors plus 1e-9 relative (the
sums are exact integers up to 16 bits); fractions also 4 / n (rare events
are Poisson). The mean of one part has n / ncomp samples. Frames of one
stream are independent draws (a counter-based generator per frame), and so
are the samples within a frame.

summary mode also checks the sampling exactly, per stream: sampled =
ceil(offered / EVERY) (the first frame, then one in EVERY), offered =
received, used = sampled, and samples = used * (data bits / nbits).
Exit 1 listing every mismatch.
"""
import json
import math
import sys

K = 6.0
# the telemetry's fixed-point units, as docs/counters.md states them (this
# test's own reading: the tool under test has its own)
FIXED = {"milli-steps": 1e-3, "micro-steps^2": 1e-6, "milli-dB": 1e-3, "ppm": 1e-6,
         "ns": 1e-9}
QUANT = {}  # field -> half its telemetry unit (tel mode)


def close(what, got, want, sd, n, frac, errs):
    if got is None or want is None:
        errs.append("%s: got %r, expected %r" % (what, got, want))
        return
    tol = K * sd / math.sqrt(max(n, 1)) + 1e-9 * max(abs(want), 1.0) + (4.0 / n if frac else 0)
    tol += QUANT.get(what.split()[-1], 0)
    if not abs(got - want) <= tol:
        errs.append("%s: got %.9g, expected %.9g +- %.3g (n %d)" % (what, got, want, tol, n))


def check_ant(name, got, truth, ncomp, errs):
    e = truth["expected"]
    n = int(got["samples"])
    if n <= 0:
        errs.append("%s: no samples" % name)
        return
    close(name + " power", got["power"], e["power"], e["sd_power"], n, False, errs)
    close(name + " mean_re", got["mean_re"], e["mean_re"], e["sd_mean"], n // ncomp, False, errs)
    if ncomp == 2:
        close(name + " mean_im", got["mean_im"], e["mean_im"], e["sd_mean"], n // 2, False, errs)
    close(name + " saturated", got["saturated"], e["saturated"], e["sd_saturated"], n, True, errs)
    close(name + " zero", got["zero"], e["zero"], e["sd_zero"], n, True, errs)
    state = got.get("state")
    if state is None:  # telemetry and Prometheus give the verdict's number
        state = {0: "nodata", 1: "ok", 2: "dead", 3: "saturated"}.get(int(got["verdict"]), "?")
    if state != e["state"]:
        errs.append("%s: state %s, expected %s" % (name, state, e["state"]))


def main():
    truth = json.load(open(sys.argv[1]))
    mode, path = sys.argv[2], sys.argv[3]
    cfg = truth["config"]
    ncomp = 2 if cfg["complex"] else 1
    errs = []
    if mode == "summary":
        every = int(sys.argv[4])
        ql = json.load(open(path))["quicklook"]
        if ql["every"] != every:
            errs.append("every %s, expected %d" % (ql["every"], every))
        ants = {a["antenna"]: a for a in ql.get("antennas", [])}
        per_frame = cfg["data_bytes"] * 8 // cfg["nbits"]
        tstreams = {(s["antenna"], s["groupid"], s["threadid"], s["port"]): s
                    for s in truth["streams"]}
        streams = ql.get("streams", [])
        if len(streams) != len(tstreams):
            errs.append("%d streams, expected %d" % (len(streams), len(tstreams)))
        for s in streams:
            key = (s["antenna"], s["groupid"], s["threadid"], s["port"])
            t = tstreams.get(key)
            what = "stream %s g%s t%s" % (s["name"], s["groupid"], s["threadid"])
            if t is None:
                errs.append("%s: not in the truth" % what)
                continue
            want = (t["received"] + every - 1) // every
            for k, v in (("offered", t["received"]), ("sampled", want), ("used", want),
                         ("samples", want * per_frame)):
                if s[k] != v:
                    errs.append("%s: %s %s, expected %s" % (what, k, s[k], v))
        if ql.get("unsampled_frames", 0) != 0:
            errs.append("unsampled_frames %s" % ql["unsampled_frames"])
    elif mode == "rows":
        ants = {int(k[3:]): v for k, v in json.load(open(path)).items()}
    elif mode == "tel":
        units = {k: v[0] for k, v in json.load(open(sys.argv[4])).items()}
        reply = json.load(open(path))
        fields = reply.pop("fields")
        ants = {}
        for k, row in reply.items():
            if not isinstance(row, dict):
                errs.append("%s: a row that is not a dictionary: %r" % (k, row))
                continue
            for f, v in row.items():
                if f not in fields:
                    errs.append("%s: %s is not in fields" % (k, f))
                if not isinstance(v, int) or isinstance(v, bool):
                    errs.append("%s: %s = %r, not a JSON integer" % (k, f, v))
            ants[int(k[3:])] = {f: v * FIXED.get(units[f], 1) for f, v in row.items()
                                if isinstance(v, int)}
        QUANT.update({f: FIXED[u] / 2 for f, u in units.items() if u in FIXED})
    else:
        ants = {}
        for smp in json.load(open(path)):
            if smp["name"].startswith("ibvcap_quicklook_"):
                a = int(smp["labels"]["antenna"][3:])
                f = smp["name"][len("ibvcap_quicklook_"):]
                for suffix in ("_steps2", "_steps", "_ratio"):
                    if f.endswith(suffix):
                        f = f[:-len(suffix)]
                ants.setdefault(a, {})[f] = smp["value"]
    for t in truth.get("signal", []):
        a = t["antenna"]
        if a not in ants:
            errs.append("ant%d: no figures" % a)
            continue
        check_ant("ant%d" % a, ants[a], t, ncomp, errs)
    for e in errs:
        print(e)
    if errs:
        return 1
    print("%d antennas' figures within tolerance (%d standard errors)"
          % (len(truth.get("signal", [])), K))
    return 0


if __name__ == "__main__":
    sys.exit(main())
