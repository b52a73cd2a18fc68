#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Signals a terminal or a pipe sends: a capture on hugepages fed through
# memif by codifgen, with its own --write writer and a dpdk-ibvcap-dump
# writer attached.
#  1. SIGHUP to the dump writer, then SIGHUP to the capture: each exits 0
#     (not 129), writes its --summary-json, leaves no .part file; the files
#     hold exactly the frames its summary says it wrote (codifcheck);
#     nothing of the test's --file-prefix is left in /dev/hugepages or
#     /var/run/dpdk.
#  2. The capture's stdout and the dump's stderr piped into `head -1`
#     (a reader that goes away at once): both run to their own end
#     (--idle-timeout, --duration), exit 0 (not 141), write their --summary-json and
#     finished files; the same nothing left behind.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
DUMP=$BUILD/app/dpdk-ibvcap-dump
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
MEMIF="socket=$T/memif.sock,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--antennas 1 --groups 1 --threads 2"

start_gen() { # the generator, paced: FRAMES per stream, then it lingers
	# shellcheck disable=SC2086
	"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
		$LAYOUT --count "$1" --seed 5 --rate-fps 500 --linger 60s > "$T/gen.log" 2>&1 &
	GPID=$!
	CLEANUP_PIDS+=("$GPID")
}
stop_gen() {
	kill -INT "$GPID" 2>/dev/null || true
	wait "$GPID" 2>/dev/null || true
}

# wait (up to 30 s) until a file in progress in DIR holds 1 MB
wait_part() {
	for _ in $(seq 300); do
		[ -n "$(find "$1" -name '*.part' -size +1M)" ] && return 0
		sleep 0.1
	done
	fail "no data reached $1"
}

# left behind: the test's own prefix only (the generator's is cleaned apart)
leftovers() {
	local l
	l=$(ls -d /dev/hugepages/"$PREFIX"map_* /var/run/dpdk/"$PREFIX" 2>/dev/null || true)
	echo "${l:-none}"
}

# the frames received in a writer's files (codifcheck: placeholders for
# frames lost or overrun are not received) = its summary's written; every
# file renamed (no .part) and whole (verify: no torn last frame)
files_ok() { # WHAT DIR SUMMARY-JSON
	local what=$1 dir=$2 sum=$3 part n w
	part=$(find "$dir" -name '*.part' | wc -l)
	expect_eq "$what: .part files left" "$part" 0
	n=$(find "$dir" -name '*.codif' | wc -l)
	[ "$n" -gt 0 ] || fail "$what: no file in $dir"
	"$CHK" verify "$dir"/*.codif > "$T/verify.log" 2>&1 || { cat "$T/verify.log"; fail "$what: codifcheck verify"; }
	for f in "$dir"/*.codif; do
		"$CHK" info --json "$f" > "$f.info.json" || fail "$what: codifcheck info $f"
	done
	w=$(python3 - "$sum" "$dir" <<'PY'
import glob, json, sys
s = json.load(open(sys.argv[1]))
w = [x for x in s["buffers"]["writers"] if x["name"].startswith("primary-")][0] if "buffers" in s else s
got = sum(st["received"] for f in glob.glob(sys.argv[2] + "/*.info.json")
          for st in json.load(open(f))["streams"])
print(w["written"], got)
PY
)
	set -- $w
	[ "$1" = "$2" ] && [ "$1" -gt 0 ] || fail "$what: summary's written $1, frames received in the files $2"
	ok "$what: $n file(s) renamed and whole, $2 frames in them = the summary's written"
}

# --- 1. SIGHUP -------------------------------------------------------------
mkdir -p "$T/w1" "$T/d1"
# shellcheck disable=SC2086
"$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 200ms --ring 1024 \
	--write "codif:$T/w1" --duration 60s --summary-json "$T/sum1.json" > "$T/cap1.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap1.log" 30 "primary did not start"
start_dump "$T/d1.log" --write "codif:$T/d1" --name hup --summary-json "$T/d1.json"
start_gen 100000
wait_part "$T/d1"
kill -HUP "$DPID"
rc=0
wait "$DPID" || rc=$?
expect_eq "dump writer after SIGHUP: exit status" "$rc" 0
[ -s "$T/d1.json" ] || { cat "$T/d1.log"; fail "dump writer: no --summary-json after SIGHUP"; }
ok "dump writer: summary written after SIGHUP ($(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["written"], "frames,", d["stop_reason"])' "$T/d1.json"))"
files_ok "dump writer, SIGHUP" "$T/d1" "$T/d1.json"
wait_part "$T/w1"
kill -HUP "$CPID"
rc=0
wait "$CPID" || rc=$?
stop_gen
expect_eq "capture after SIGHUP: exit status" "$rc" 0
grep -q 'stopped by SIGHUP\|SIGHUP' "$T/cap1.log" || { tail -20 "$T/cap1.log"; fail "the capture's summary does not name SIGHUP"; }
[ -s "$T/sum1.json" ] || { tail "$T/cap1.log"; fail "capture: no --summary-json after SIGHUP"; }
expect_eq "capture's summary: stop reason" \
	"$(json_get "$T/sum1.json" stop_reason)" SIGHUP
files_ok "capture's --write, SIGHUP" "$T/w1" "$T/sum1.json"
expect_eq "after SIGHUP: hugepage and runtime files of $PREFIX" "$(leftovers)" none

# --- 2. stdout (the capture) and stderr (the dump) read by head -1 ----------
mkdir -p "$T/w2" "$T/d2"
rm -f "$T/memif.sock"
# shellcheck disable=SC2086
( "$CAP" --lcores 0@0,1@1,2@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 100ms --ring 1024 \
	--write "codif:$T/w2" --duration 60s --idle-timeout 1s --summary-json "$T/sum2.json" 2> "$T/cap2.err" |
	head -1 > "$T/head2.txt"
  echo "${PIPESTATUS[0]}" > "$T/cap2.rc" ) &
SUB=$!
CLEANUP_PIDS+=("$SUB")
# the capture's start (stdout is gone by then: its log is on stderr)
for _ in $(seq 300); do
	[ -S "$T/memif.sock" ] && break
	sleep 0.1
done
start_gen 3000
( "$DUMP" --file-prefix "$PREFIX" --write "codif:$T/d2" --name pipe --duration 2s \
	--summary-json "$T/d2.json" 2>&1 | head -1 > "$T/dhead2.txt"
  echo "${PIPESTATUS[0]}" > "$T/d2.rc" ) &
DSUB=$!
CLEANUP_PIDS+=("$DSUB")
wait "$DSUB" || true
wait "$SUB" || true
stop_gen
expect_eq "capture | head -1: exit status" "$(cat "$T/cap2.rc")" 0
[ -s "$T/head2.txt" ] || fail "head read nothing from the capture"
grep -q 'stdout closed' "$T/cap2.err" || { cat "$T/cap2.err"; fail "the capture did not say its stdout closed"; }
ok "capture | head -1: ran to its end, said on stderr: $(grep 'stdout closed' "$T/cap2.err")"
expect_eq "capture | head -1: stop reason in the summary" \
	"$(json_get "$T/sum2.json" stop_reason)" --idle-timeout
files_ok "capture's --write, stdout closed" "$T/w2" "$T/sum2.json"
expect_eq "dump 2>&1 | head -1: exit status" "$(cat "$T/d2.rc")" 0
[ -s "$T/d2.json" ] || fail "dump writer: no --summary-json with its output closed"
files_ok "dump writer, output closed" "$T/d2" "$T/d2.json"
expect_eq "after the closed pipes: hugepage and runtime files of $PREFIX" "$(leftovers)" none
echo "$CHECKS checks passed"
