#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --zero-copy with a writer in another process: dpdk-ibvcap on hugepages
# fed through memif keeps every frame in the mbuf it arrived in; a
# dpdk-ibvcap-dump reads the payload there (the same addresses in every
# DPDK process) and writes codif files byte for byte as sent; the counts
# equal the truth, and at exit every mbuf is back in its pool.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 700
DUMP=$BUILD/app/dpdk-ibvcap-dump
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2"
GENARGS="$LAYOUT --count 1500 --seed 17 --loss 0.01 --reorder 0.02 --duplicate 0.01 --invalid 0.01"
# shellcheck disable=SC2086
"$GEN" $GENARGS --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
N=$(json_get "$T/dry.json" totals sent)

mkdir -p "$T/out"
# shellcheck disable=SC2086
"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --stats-period 0 --zero-copy yes \
	--ring 2048 --count-packets "$N" --idle-timeout 60s --summary-json "$T/sum.json" \
	> "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
grep -q -- "--zero-copy: one mbuf pool of" "$T/cap.log" || { cat "$T/cap.log"; fail "no zero-copy pool line"; }
"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/out,oldest=yes" --name zc \
	--summary-json "$T/dump.json" 2> "$T/dump.log" &
DPID=$!
CLEANUP_PIDS+=("$DPID")
wait_for_line "$T/dump.log" 30 'attached to' || { cat "$T/dump.log"; fail "dump did not attach"; }
# shellcheck disable=SC2086
"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
	--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna \
	$GENARGS --rate-fps 1000 --linger 120s --pcap "$T/sent.pcap" \
	--truth "$T/truth.json" > "$T/gen.log" 2>&1 &
GPID=$!
CLEANUP_PIDS+=("$GPID")
wait "$CPID" || { cat "$T/cap.log"; fail "primary exit status"; }
wait "$DPID" || { cat "$T/dump.log"; fail "dump exit status"; }
kill -INT "$GPID" 2>/dev/null || true
wait "$GPID" 2>/dev/null || true
python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" || { cat "$T/cmp"; fail "counts differ from the truth"; }
ok "zero-copy primary: counts = truth ($(tail -1 "$T/cmp"))"
python3 "$VER" "$T/sent.pcap" --format codif "$T/out" > "$T/ver" || { cat "$T/ver"; fail "dump's codif files"; }
ok "a writer process reads the payload in the primary's mbufs: $(cat "$T/ver")"
grep -q "^dpdk-ibvcap: mbufs at exit: all [0-9]* back in their pool" "$T/cap.log" ||
	{ grep mbufs "$T/cap.log"; fail "mbufs not all returned"; }
ok "every mbuf back in its pool at exit"
echo "$CHECKS checks passed"
