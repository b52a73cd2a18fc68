# SPDX-License-Identifier: BSD-3-Clause
"""The controller of bench/consumer_rx_paired.sh (not a tool): inside one
running capture, something (a libibvcap consumer, nothing, or a memory hog)
comes and goes in turns, and the capture's own counters over telemetry give
the rx lcore's cycles per frame in each window of WINDOW seconds. With
WHAT plugin, the capture's --consumer plugin (scans=1, named rxpplug)
follows a scan that the controller starts for on windows and stops for
off ones (/ibvcap/record, at the newest frame's data time: ringgen
--start-now makes the data clock run ahead of the host's): it is handed
blocks, or nothing.

Windows go in quads, off on on off, then on off off on (ABBA): drift falls
on both states alike, and each quad gives one ratio, the on windows' cycles
per frame over the off windows'. Printed: every window, then the ratios'
geometric mean with a 95 % bootstrap interval, their median and range, of
all quads and of those in which no other task held the rx lcore's CPU for
more than WAIT_MAX_MS in a window (its time would count in the rx lcore's
busy cycles: the rx thread's schedstat says how long it waited).

Checks that make a window count (else exit 1, said): the capture took
packets in it; in an on window of a consumer, the consumer was attached
(its registry entry live, with its pid, at both ends) and was handed
frames (over all on windows at least 90 % of their frames: a consumer
that reads them); in an off window, no consumer process
lives; the plugin was handed frames in each on window and none in an off
one. Each consumer's life ends with its own figures ("end": "terminated").

  rx_paired.py PREFIX CAP_PID RX_CPU WHAT QUADS WINDOW SETTLE OUT_JSON -- ON_CMD...
  (WHAT: consumer, plugin, none, hog or share; ON_CMD: what runs in on windows,
  for none and plugin: -)
"""
import glob
import json
import math
import os
import random
import signal
import statistics as st
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app",
                                "python"))
from ibvcap_tools import Telemetry  # noqa: E402

NAME = "rxpaired"   # the consumer's name (consumer_read -n)
PLUGIN = "rxpplug"  # the plugin's (--consumer ...,name=)
WAIT_MAX_MS = 5     # a window whose rx thread waited longer for its CPU is held


def fail(msg):
    sys.exit("FAIL: rx_paired: " + msg)


def rx_schedstat(cap_pid):
    for c in glob.glob("/proc/%d/task/*/comm" % cap_pid):
        try:
            if open(c).read().strip() == "rte-worker-1":
                return c[:-4] + "schedstat"
        except OSError:
            pass
    fail("no thread rte-worker-1 (the rx lcore) in the capture, pid %d" % cap_pid)


class Other:
    """What comes and goes: started for on windows, ended for off ones."""

    def __init__(self, what, cmd, log, tel):
        self.what, self.cmd, self.log, self.tel = what, cmd, log, tel
        self.p, self.lives, self.scan, self.nscan = None, [], None, 0

    def data_now(self):
        """The newest frame's CODIF time, as a UTC time for at=."""
        ns = self.tel.query("/ibvcap/stats")["last_frame_ns"]
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) + \
            ".%09dZ" % (ns % 10**9)

    def record(self, words):
        r = self.tel.query("/ibvcap/record," + words)
        if not isinstance(r, dict) or r.get("result") != "done":
            fail("/ibvcap/record,%s: %s" % (words, r))

    def on(self):
        if self.what == "plugin" and self.scan is None:
            self.nscan += 1
            self.scan = "pq%d" % self.nscan
            self.record("on scan=%s at=%s" % (self.scan, self.data_now()))
        if self.p is not None or self.what in ("none", "plugin"):
            return
        err = open(self.log, "w")
        self.p = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        err.close()
        if self.what != "consumer":
            return
        end = time.monotonic() + 15
        while time.monotonic() < end:
            if "attached to" in open(self.log).read():
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.02)
        fail("the consumer did not attach: %s" % open(self.log).read().strip())

    def off(self):
        if self.scan is not None:
            self.record("off scan=%s at=%s" % (self.scan, self.data_now()))
            self.scan = None
        if self.p is None:
            return
        self.p.send_signal(signal.SIGTERM)
        try:
            out, _ = self.p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("%s did not end within 15 s of SIGTERM" % self.what)
        rc, self.p = self.p.returncode, None
        if self.what != "consumer":
            return
        if rc != 0:
            fail("the consumer ended with %d: %s" % (rc, open(self.log).read().strip()))
        fig = json.loads(out.strip().splitlines()[-1])
        if fig["end"] != "terminated":
            fail("the consumer ended '%s', expected terminated (SIGTERM)" % fig["end"])
        self.lives.append(fig)

    def alive(self):
        return self.p is not None and self.p.poll() is None


def main():
    a = sys.argv[1:]
    if "--" not in a:
        fail("usage: see its docstring")
    k = a.index("--")
    prefix, cap_pid, rx_cpu, what, quads, window, settle, out = a[:k]
    cmd = a[k + 1:]
    cap_pid, quads, window, settle = int(cap_pid), int(quads), float(window), float(settle)
    if what not in ("consumer", "plugin", "none", "hog", "share"):
        fail("WHAT %r: expected consumer, plugin, none, hog or share" % what)
    sched = rx_schedstat(cap_pid)
    tel = Telemetry(prefix, timeout=10)
    other = Other(what, cmd, out + ".other.log", tel)
    entry = {"consumer": NAME, "plugin": PLUGIN}.get(what)

    def sample():
        s = tel.query("/ibvcap/stats")
        cpu = [ln.split() for ln in open("/proc/stat") if ln.startswith("cpu%s " % rx_cpu)][0]
        w = tel.query("/ibvcap/writer,%s" % entry) if entry else None
        return {"cyc": s["busy_cycles"], "pkt": s["packets"], "polls": s["polls"],
                "empty": s["busy_wait"], "steal": int(cpu[8]) * 1000 // os.sysconf("SC_CLK_TCK"),
                "wait": int(open(sched).read().split()[1]) // 1000000,
                "w": w if isinstance(w, dict) else None}

    # ringgen has started: the capture takes packets
    end = time.monotonic() + 30
    while sample()["pkt"] == 0:
        if time.monotonic() > end:
            fail("the capture took no packet in 30 s: ringgen?")
        time.sleep(0.1)
    time.sleep(window)  # a window to warm up, not counted
    wins = []
    for q in range(quads):
        for state in (("off", "on", "on", "off") if q % 2 == 0 else ("on", "off", "off", "on")):
            other.on() if state == "on" else other.off()
            time.sleep(settle)
            s0 = sample()
            time.sleep(window)
            s1 = sample()
            dp = s1["pkt"] - s0["pkt"]
            if dp <= 0:
                fail("quad %d: a %s window without packets (ringgen ended?)" % (q, state))
            busy = (s1["polls"] - s1["empty"]) - (s0["polls"] - s0["empty"])
            x = {"quad": q, "state": state, "cycles": s1["cyc"] - s0["cyc"], "packets": dp,
                 "per_poll": dp / busy if busy else 0, "steal_ms": s1["steal"] - s0["steal"],
                 "waited_ms": s1["wait"] - s0["wait"], "handed": None}
            if what == "plugin":
                for s in (s0, s1):
                    if s["w"] is None or s["w"].get("pid") != cap_pid:
                        fail("quad %d: the plugin %s not in the registry: %s"
                             % (q, PLUGIN, s["w"]))
                x["handed"] = s1["w"]["written"] - s0["w"]["written"]
                if (state == "on") != (x["handed"] > 0):
                    fail("quad %d: the plugin was handed %d frames in a%s %s window "
                         "(expected %s)" % (q, x["handed"], "n" if state == "on" else "",
                                            state, "some" if state == "on" else "none"))
            if what == "consumer" and state == "on":
                pid = other.p.pid
                for s in (s0, s1):
                    if s["w"] is None or s["w"].get("pid") != pid:
                        fail("quad %d: the consumer (pid %d) not in the registry: %s"
                             % (q, pid, s["w"]))
                x["handed"] = s1["w"]["written"] - s0["w"]["written"]
                if x["handed"] <= 0:
                    fail("quad %d: the consumer was handed none of the window's %d frames "
                         "(it was not reading)" % (q, dp))
            if state == "off" and other.alive():
                fail("quad %d: an off window with %s running" % (q, what))
            x["cpf"] = x["cycles"] / dp
            wins.append(x)
            print("# quad %d %-3s %7.1f cycles/frame, %d frames (%.1f a busy poll), "
                  "handed to the consumer %s, rx CPU stolen %d ms, rx thread waited %d ms"
                  % (q, state, x["cpf"], dp, x["per_poll"],
                     "-" if x["handed"] is None else x["handed"], x["steal_ms"],
                     x["waited_ms"]), flush=True)
    other.off()
    json.dump({"windows": wins, "lives": other.lives}, open(out, "w"))

    # one ratio per quad: its on windows' cycles per frame over its off ones'
    def cpf(q, state):
        w = [x for x in wins if x["quad"] == q and x["state"] == state]
        return sum(x["cycles"] for x in w) / sum(x["packets"] for x in w)

    def summary(qs, what):
        r = [cpf(q, "on") / cpf(q, "off") for q in qs]
        if not r:
            print("ratio on/off of %s: none" % what)
            return
        lg = [math.log(v) for v in r]
        rnd = random.Random(24)
        boot = sorted(math.exp(st.mean(rnd.choices(lg, k=len(lg)))) for _ in range(10000))
        print("ratio on/off of %d quads%s: geometric mean %.3f, 95%% interval %.3f..%.3f "
              "(bootstrap), median %.3f, min %.3f, max %.3f"
              % (len(r), what, math.exp(st.mean(lg)), boot[250], boot[9749], st.median(r),
                 min(r), max(r)))

    on = sorted(x["cpf"] for x in wins if x["state"] == "on")
    off = sorted(x["cpf"] for x in wins if x["state"] == "off")
    print("off windows: cycles/frame %.0f/%.0f/%.0f (min/med/max), on windows: %.0f/%.0f/%.0f"
          % (off[0], st.median(off), off[-1], on[0], st.median(on), on[-1]))
    summary(range(quads), "")
    # a window in which another task held the rx lcore's CPU counts that
    # task's time in the rx lcore's busy cycles: the quads without one
    held = {x["quad"] for x in wins if x["waited_ms"] > WAIT_MAX_MS}
    summary([q for q in range(quads) if q not in held],
            " in which no task held the rx CPU over %d ms a window (%d quads left out)"
            % (WAIT_MAX_MS, len(held)))
    steal = {s: sum(x["steal_ms"] for x in wins if x["state"] == s) for s in ("on", "off")}
    wait = {s: sum(x["waited_ms"] for x in wins if x["state"] == s) for s in ("on", "off")}
    print("rx CPU stolen by the host: %d ms in on windows, %d ms in off; rx thread waited "
          "for its CPU: %d ms on, %d ms off" % (steal["on"], steal["off"], wait["on"],
                                              wait["off"]))
    if what in ("consumer", "plugin"):
        on_w = [x for x in wins if x["state"] == "on"]
        h, n = sum(x["handed"] for x in on_w), sum(x["packets"] for x in on_w)
        low = sorted(x["handed"] / x["packets"] for x in on_w)
        print("%s: handed %d of the on windows' %d frames (%.1f %%; the least in a "
              "window %.1f %%)" % (what, h, n, 100.0 * h / n, 100.0 * low[0]))
        if what == "consumer" and h < 0.9 * n:
            fail("the consumer was handed %.1f %% of the on windows' frames: expected at "
                 "least 90 %% (a consumer reading them)" % (100.0 * h / n))
    if other.lives:
        print("consumer: %d lives, %d frames handed, %d overrun, %d torn (each ended "
              "terminated)" % (len(other.lives), sum(x["frames"] for x in other.lives),
                               sum(x["overrun"] for x in other.lives),
                               sum(x["torn"] for x in other.lives)))


if __name__ == "__main__":
    main()
