#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Clients that cannot hang: a capture on hugepages (a memif port no peer
# joins), dpdk-ibvcap-stat refreshing its screen (to a file), exporting to
# Prometheus, and, while the capture is stopped with SIGSTOP:
#  - the screen marks STALE (since when, why) within its --timeout;
#  - `dpdk-ibvcap-stat --once` and `dpdk-ibvcap-ctl status` exit 1 within
#    their --timeout (not blocked);
#  - the Prometheus file is not rewritten: its ibvcap_export_time_seconds
#    stays at the last answer;
# after SIGCONT the screen is fresh again; when the capture stops, the
# refreshing stat exits 1 ("went away"), not 0.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 200
STAT="python3 $BUILD/app/dpdk-ibvcap-stat --file-prefix $PREFIX"
CTL="python3 $BUILD/app/dpdk-ibvcap-ctl --file-prefix $PREFIX"
MEMIF="socket=$T/memif.sock,socket-abstract=no,bsize=16384,rsize=9"
"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- --antennas 1 --groups 1 --threads 2 \
	--ring 256 --stats-period 0 --duration 120s --link-timeout 1s \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
CLEANUP_CMDS+=("kill -CONT $CPID")
wait_started "$T/cap.log" 30 "primary did not start"

# fresh: --once answers, exit 0; the main loop turns (loop_age_ms small)
$STAT --once > "$T/once0.txt" || fail "stat --once on a running capture"
grep -q STALE "$T/once0.txt" && fail "a running capture's screen marked STALE: $(cat "$T/once0.txt")"
age=$($STAT --query /ibvcap/stats | json_get - loop_age_ms)
[ "$age" -lt 1000 ] || fail "loop_age_ms of a running capture: $age"
ok "running: stat --once exit 0, no STALE mark; loop_age_ms $age"

# the refreshing screen (not a terminal: each refresh printed after the
# last) and the Prometheus export, every 250 ms
$STAT --interval 250ms --timeout 2s > "$T/screen.txt" 2> "$T/screen.err" &
SPID=$!
CLEANUP_PIDS+=("$SPID")
$STAT --interval 250ms --timeout 2s --prom "$T/ibvcap.prom" 2> "$T/prom.err" &
PPID_=$!
CLEANUP_PIDS+=("$PPID_")
end=$((SECONDS + 30))
until [ -s "$T/ibvcap.prom" ] && grep -q "^dpdk-ibvcap '$PREFIX'" "$T/screen.txt"; do
	[ $SECONDS -lt $end ] || fail "no screen or export within 30 s"
	sleep 0.1
done
exp_time() { sed -n 's/^ibvcap_export_time_seconds{[^}]*} //p' "$T/ibvcap.prom"; }
t0=$(exp_time)
python3 -c 'import sys, time; d = time.time() - float(sys.argv[1]); assert 0 <= d < 10, d' "$t0" ||
	fail "ibvcap_export_time_seconds $t0 is not now ($(date +%s))"
grep -q '^# TYPE ibvcap_export_time_seconds gauge' "$T/ibvcap.prom" || fail "the export's time is no gauge"
ok "Prometheus: ibvcap_export_time_seconds (gauge) = now ($t0)"

kill -STOP "$CPID"
stopped=$(date +%s.%N)
# --once and ctl status: exit 1, within their --timeout (2 s) and a margin
for tool in stat ctl; do
	s=$(date +%s.%N)
	rc=0
	if [ $tool = stat ]; then
		timeout 20 $STAT --once --timeout 2s > "$T/once1.txt" 2> "$T/once1.err" || rc=$?
	else
		timeout 20 $CTL --timeout 2s status > "$T/once1.txt" 2> "$T/once1.err" || rc=$?
	fi
	took=$(python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$s" "$(date +%s.%N)")
	[ $rc = 1 ] || { cat "$T/once1.err"; fail "$tool on a stopped capture: exit $rc (124: it blocked)"; }
	python3 -c 'import sys; assert 1.9 < float(sys.argv[1]) < 20, sys.argv[1]' "$took" ||
		fail "$tool on a stopped capture took ${took}s with --timeout 2s"
	grep -q "did not answer" "$T/once1.err" || { cat "$T/once1.err"; fail "$tool: no reason given"; }
	ok "$tool on a stopped capture: exit 1 after ${took}s (--timeout 2s): $(head -1 "$T/once1.err")"
done
# the screen: STALE, since the stop (to the second)
end=$((SECONDS + 30))
until tail -c 2000 "$T/screen.txt" | grep -q "STALE since"; do
	[ $SECONDS -lt $end ] || break
	sleep 0.1
done
# the mark's "since": the stop, to the second (a mark before it, from a
# loaded machine's slow answer, is not this one)
line=$(python3 - "$T/screen.txt" "$stopped" <<'PY'
import sys, time
t = float(sys.argv[2])
stop = time.gmtime(t)
s0 = stop.tm_hour * 3600 + stop.tm_min * 60 + stop.tm_sec
for l in open(sys.argv[1]):
    if l.startswith("STALE since "):
        h, m, s = (int(x) for x in l.split()[2].rstrip("Z").split(":"))
        if 0 <= (h * 3600 + m * 60 + s - s0) % 86400 <= 5:
            print(l.strip())
            break
PY
)
[ -n "$line" ] || { tail -20 "$T/screen.txt"; fail "the screen is not marked STALE since the stop"; }
kill -0 "$SPID" || fail "the refreshing stat ended while the capture was stopped"
ok "screen: '$line'"
t1=$(exp_time)
sleep 1.5
expect_eq "Prometheus file while stopped: export time not rewritten" "$(exp_time)" "$t1"
python3 -c 'import sys; assert float(sys.argv[1]) <= float(sys.argv[2]), sys.argv' "$t1" "$stopped" ||
	fail "export time $t1 after the stop $stopped"
ok "Prometheus: the last export time ($t1) is before the stop ($stopped): an alert on its age fires"

kill -CONT "$CPID"
# a screen after the stale ones without the mark (the last header's line
# before it is not a STALE one), and an export newer than the stop
fresh_screen() {
	awk '/^STALE since/ { s = 1; f = 0; prev = "S"; next }
	     /^dpdk-ibvcap / { if (s && prev != "S") f = 1 }
	     { prev = substr($0, 1, 1) == " " ? prev : "x" }
	     END { exit !f }' "$T/screen.txt"
}
end=$((SECONDS + 30))
until fresh_screen && [ "$(exp_time | cut -d. -f1)" -gt "${stopped%%.*}" ]; do
	[ $SECONDS -lt $end ] || { tail -30 "$T/screen.txt"; fail "still STALE 30 s after SIGCONT (export time $(exp_time))"; }
	sleep 0.2
done
ok "after SIGCONT: the screen fresh again (no STALE mark), the Prometheus export rewritten ($(exp_time))"

kill -INT "$CPID"
wait "$CPID" || { cat "$T/cap.log"; fail "capture exit status"; }
for p in "$SPID" "$PPID_"; do
	rc=0
	wait "$p" || rc=$?
	expect_eq "refreshing stat (pid $p) when the capture went away: exit status" "$rc" 1
done
grep -q "went away" "$T/screen.err" || { cat "$T/screen.err"; fail "stat did not say the capture went away"; }
ok "stat: '$(cat "$T/screen.err")'"
echo "$CHECKS checks passed"
