#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Multi-process: dpdk-ibvcap as a hugepage primary, fed by codifgen through
# net_memif with each antenna on its own queue (as NIC steering would do).
# The stock dpdk-pdump (queue=N) and dpdk-dumpcap (-s 9000) attach and write
# files holding exactly the frames of that queue or port (counted by tshark);
# dpdk-ibvcap-dump --source pdump (queue=N) writes exactly the packets the
# generator sent for that antenna, byte for byte, with no tap drops, in
# files named by their first frame's CODIF time; telemetry answers
# /ibvcap/stats while it runs.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 600
need_cmd tshark
need_cmd dpdk-pdump
need_cmd dpdk-dumpcap
need_cmd dpdk-telemetry.py
need_cmd mergecap
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
GPREFIX=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GPREFIX}*; rm -rf /var/run/dpdk/${GPREFIX}")

tel() { # telemetry command -> JSON of the primary
	echo "$1" | timeout 10 dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | tail -1
}

stat_field() { # field of /ibvcap/stats
	tel /ibvcap/stats | json_get - /ibvcap/stats "$1"
}

# phase NAME TAP: start the primary, attach the tap, send, stop in order
phase() {
	local name=$1 tap=$2 n cpid tpid gpid i
	tpid2=
	rm -f "$SOCK"
	"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
		--vdev "net_memif0,role=server,$MEMIF" -- --stats-period 0 \
		--summary-json "$T/$name.sum.json" > "$T/$name.cap.log" 2>&1 &
	cpid=$!
	CLEANUP_PIDS+=("$cpid")
	wait_started "$T/$name.cap.log" 30 "$name: primary did not start"
	if [ "$tap" = pdump ]; then
		stdbuf -oL dpdk-pdump -l 0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error -- \
			--pdump "port=0,queue=3,rx-dev=$T/q3.pcap,mbuf-size=10240,total-num-mbufs=4096" \
			> "$T/$name.tap.log" 2>&1 &
		tpid=$!
		wait_for_line "$T/$name.tap.log" 30 'MAC' || { cat "$T/$name.tap.log"; fail "pdump did not start"; }
		sleep 2 # rte_pdump_enable follows the port line synchronously
		# rte_pdump takes one tap per queue: a second one on queue 3 is
		# refused, named, and exits non-zero (it would capture nothing)
		mkdir -p "$T/taken"
		set +e
		"$BUILD/app/dpdk-ibvcap-dump" --file-prefix "$PREFIX" --lcore 0 --source pdump \
			--port 0 --queue 3 --write "pcap:$T/taken" > "$T/taken.log" 2>&1
		trc=$?
		set -e
		[ "$trc" -ne 0 ] || { cat "$T/taken.log"; fail "a second tap on a tapped queue exited 0"; }
		grep -q 'port 0 queue 3 is already tapped by another tool' "$T/taken.log" ||
			{ cat "$T/taken.log"; fail "a second tap on a tapped queue: no clear message"; }
		[ -z "$(ls "$T/taken")" ] || fail "the refused tap left files: $(ls "$T/taken")"
		ok "a second tap on queue 3 (dpdk-pdump has it): exit $trc, 'port 0 queue 3 is already tapped', no file"
	elif [ "$tap" = ibvdump ]; then
		mkdir -p "$T/dq2"
		"$BUILD/app/dpdk-ibvcap-dump" --file-prefix "$PREFIX" --lcore 0 --source pdump \
			--port 0 --queue 2 --write "pcap:$T/dq2" --summary-json "$T/dq2.json" \
			> "$T/$name.tap.log" 2>&1 &
		tpid=$!
		wait_for_line "$T/$name.tap.log" 30 'tapping port 0 queue 2' || { cat "$T/$name.tap.log"; fail "dpdk-ibvcap-dump --source pdump did not start"; }
		# a second tap on another queue that stops by itself at --count
		mkdir -p "$T/dq4"
		"$BUILD/app/dpdk-ibvcap-dump" --file-prefix "$PREFIX" --lcore 0 --source pdump \
			--port 0 --queue 4 --count 100 --stats-period 50ms --write "pcap:$T/dq4,rotate-size=256K" \
			--summary-json "$T/dq4.json" > "$T/$name.tap2.log" 2>&1 &
		tpid2=$!
		CLEANUP_PIDS+=("$tpid2")
		wait_for_line "$T/$name.tap2.log" 30 'tapping port 0 queue 4' || { cat "$T/$name.tap2.log"; fail "second dpdk-ibvcap-dump did not start"; }
	else
		stdbuf -oL dpdk-dumpcap --file-prefix="$PREFIX" -i 0 -s 9000 -P -w "$T/port.pcap" \
			> "$T/$name.tap.log" 2>&1 &
		tpid=$!
		wait_for_line "$T/$name.tap.log" 30 'Packets captured' || { cat "$T/$name.tap.log"; fail "dumpcap did not start"; }
	fi
	CLEANUP_PIDS+=("$tpid")
	# the generator stays connected until the primary has stopped: a memif
	# server (22.11) must not poll while its client disconnects
	"$GEN" -l 1 --no-pci --file-prefix="$GPREFIX" --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
		--count 30 --seed 9 --loss 0.02 --duplicate 0.02 --reorder 0.05 --bad-sync 0.02 \
		--rate-fps 2000 --linger 120s --truth "$T/$name.json" > "$T/$name.gen.log" 2>&1 &
	gpid=$!
	CLEANUP_PIDS+=("$gpid")
	# the truth is written at exit; the count is logged when sending ends
	wait_for_line "$T/$name.gen.log" 60 ' packets, ' || true
	n=$(sed -n 's/.* \([0-9]*\) packets, .*/\1/p' "$T/$name.gen.log")
	[ -n "$n" ] || { cat "$T/$name.gen.log"; fail "$name: codifgen did not finish sending"; }
	for i in $(seq 1 100); do
		[ "$(stat_field packets)" = "$n" ] && break
		sleep 0.2
	done
	expect_eq "$name: telemetry /ibvcap/stats packets" "$(stat_field packets)" "$n"
	kill -INT "$tpid"
	wait "$tpid" || true
	if [ -n "$tpid2" ]; then
		wait "$tpid2" || fail "$name: the --count tap's exit status $?"
	fi
	kill -INT "$cpid"
	wait "$cpid" || fail "$name: primary exit status $?"
	kill -INT "$gpid"
	wait "$gpid" || true
	[ -s "$T/$name.json" ] || fail "$name: no truth written"
	python3 "$SRC/tests/tools/compare.py" "$T/$name.json" "$T/$name.sum.json" > "$T/$name.cmp" ||
		{ head -20 "$T/$name.cmp"; fail "$name: primary counts differ from the truth"; }
	ok "$name: primary counts = truth ($(tail -1 "$T/$name.cmp"))"
	echo "$n"
}

phase pdump pdump > "$T/pdump.out"
cat "$T/pdump.out"
want=$(python3 -c 'import json,sys; print(sum(s["sent"] for s in json.load(open(sys.argv[1]))["streams"] if s["antenna"] == 3))' "$T/pdump.json")
got=$(tshark -r "$T/q3.pcap" -T fields -e ip.src 2>/dev/null | wc -l)
expect_eq "dpdk-pdump queue=3: packets in its pcap = antenna 3's packets sent" "$got" "$want"
expect_eq "dpdk-pdump queue=3: every source is antenna 3" \
	"$(tshark -r "$T/q3.pcap" -T fields -e ip.src 2>/dev/null | sort -u)" "10.17.0.214"
expect_eq "dpdk-pdump: whole frames" "$(tshark -r "$T/q3.pcap" -T fields -e frame.cap_len 2>/dev/null | sort -u)" "8298"

phase dumpcap dumpcap > "$T/dumpcap.out"
cat "$T/dumpcap.out"
n=$(tail -1 "$T/dumpcap.out")
expect_eq "dpdk-dumpcap -s 9000: packets in its file = packets sent" \
	"$(tshark -r "$T/port.pcap" -T fields -e frame.number 2>/dev/null | wc -l)" "$n"
expect_eq "dpdk-dumpcap -s 9000: frames not truncated" \
	"$(tshark -r "$T/port.pcap" -T fields -e frame.cap_len 2>/dev/null | sort -u)" "8298"
expect_eq "dpdk-dumpcap: all six antennas" \
	"$(tshark -r "$T/port.pcap" -T fields -e ip.src 2>/dev/null | sort -u | wc -l)" 6
phase ibvdump ibvdump > "$T/ibvdump.out"
cat "$T/ibvdump.out"
cat "$T/ibvdump.tap.log"
ls "$T/dq2"
[ "$(ls "$T/dq2" | grep -c '\.part$')" = 0 ] || fail "dpdk-ibvcap-dump left a .part file"
f=$(ls "$T"/dq2/*.pcap)
[ "$(echo "$f" | wc -l)" = 1 ] || fail "dpdk-ibvcap-dump --source pdump: expected one file, got: $f"
# the reference: the same generator run (same seed and faults) into a pcap,
# antenna 2's packets only, in sending order
"$GEN" --pcap "$T/ref.pcap" --count 30 --seed 9 --loss 0.02 --duplicate 0.02 --reorder 0.05 \
	--bad-sync 0.02 --truth "$T/ref.json" > /dev/null 2>&1 || fail "codifgen --pcap reference"
tshark -r "$T/ref.pcap" -Y 'ip.src == 10.17.0.213' -F pcap -w "$T/ref2.pcap" 2>/dev/null
want=$(python3 -c 'import json,sys; print(sum(s["sent"] for s in json.load(open(sys.argv[1]))["streams"] if s["antenna"] == 2))' "$T/ibvdump.json")
expect_eq "dpdk-ibvcap-dump --source pdump queue=2: packets = antenna 2's packets sent" \
	"$(tshark -r "$f" -T fields -e frame.number 2>/dev/null | wc -l)" "$want"
python3 "$SRC/tests/tools/pcapdiff.py" "$T/ref2.pcap" "$f" ||
	fail "dpdk-ibvcap-dump --source pdump: packets differ from what the generator sent"
ok "dpdk-ibvcap-dump --source pdump: every packet byte for byte as the generator sent it"
expect_eq "dpdk-ibvcap-dump --source pdump: summary written, tap drops, files" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["source"], j["written"], j["tap_drops"], j["files"], j["error"])' "$T/dq2.json")" \
	"pdump $want 0 1 0"
# its I/O queue: one file at a time, through io_uring where its directory
# takes O_DIRECT (2 writes in flight at most), else sync naming why
direct=$(python3 -c 'import os,sys
try:
    os.close(os.open(sys.argv[1] + "/.probe", os.O_CREAT | os.O_WRONLY | os.O_DIRECT)); print("uring 2")
except OSError:
    print("sync 0")
os.path.exists(sys.argv[1] + "/.probe") and os.unlink(sys.argv[1] + "/.probe")' "$T/dq2")
expect_eq "dpdk-ibvcap-dump --source pdump: summary io, io_depth" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["io"], j["io_depth"])' "$T/dq2.json")" \
	"$direct"

# rotate-size=256K: 32 packets of 8330 bytes fill a file, so 100 make 4;
# together, in name (time) order, they are antenna 4's first 100 packets
nf=$(ls "$T"/dq4/*.pcap | wc -l)
mergecap -a -F pcap -w "$T/dq4.pcap" $(ls "$T"/dq4/*.pcap | sort)
tshark -r "$T/ref.pcap" -Y 'ip.src == 10.17.0.215' -F pcap -w "$T/ref4all.pcap" 2>/dev/null
tshark -r "$T/ref4all.pcap" -c 100 -F pcap -w "$T/ref4.pcap" 2>/dev/null
python3 "$SRC/tests/tools/pcapdiff.py" "$T/ref4.pcap" "$T/dq4.pcap" ||
	fail "dpdk-ibvcap-dump --source pdump --count 100: packets differ from the generator's first 100"
ok "dpdk-ibvcap-dump --source pdump --count 100 rotate-size=256K: $nf files, together exactly antenna 4's first 100 packets"
expect_eq "dpdk-ibvcap-dump --count 100: stop reason, written, files" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["stop_reason"], j["written"], j["files"])' "$T/dq4.json")" \
	"--count 100 4"
# one clock in file names (docs/formats.md): each tap file is named by its
# first packet's CODIF frame time, as the buffer writers' files are, not by
# when it arrived (this run's wall clock: codifgen's frames are of 2025)
python3 - "$SRC/tests/tools" "$T"/dq2/*.pcap "$T"/dq4/*.pcap <<'PY' || fail "tap file names"
import os, sys
sys.path.insert(0, sys.argv[1])
from pcaprec import records, codif_time_ns, name_utc
n = 0
for f in sys.argv[2:]:
    t = codif_time_ns(next(records(f)))
    assert t is not None, (f, "begins with a packet of no frame time: this run's data has none")
    stamp = os.path.basename(f).rsplit("_", 1)[1][:-len(".pcap")]
    assert stamp == name_utc(t), (f, stamp, name_utc(t))
    n += 1
print("%d tap files, each named by its first frame's CODIF time" % n)
PY
ok "dpdk-ibvcap-dump --source pdump: every file named by its first frame's CODIF UTC"
grep -qE 'dump-[0-9]+: [0-9]+ packets taken, [0-9]+ written, [0-9]+ files, tap drops 0$' "$T/ibvdump.tap2.log" ||
	{ cat "$T/ibvdump.tap2.log"; fail "--stats-period: no progress line from the pdump tap"; }
ok "dpdk-ibvcap-dump --source pdump --stats-period: progress lines"

echo "$CHECKS checks passed"
