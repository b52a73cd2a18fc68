#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A writer process beside a primary whose net_pcap port has devargs longer
# than net_pcap keeps for secondaries (63 characters: the README demo's):
# dpdk-ibvcap-dump writing the antenna buffers prints no "Couldn't open" /
# "probe failed" line (it needs no port; lib/quirks holds back net_pcap's
# failed re-probe) and writes every frame; a pdump tap of that port says
# why it cannot have it and exits 1.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 200
DUMP=$BUILD/app/dpdk-ibvcap-dump
# long paths, as mktemp gives the demo: the devargs run past 63 characters
D=$T/a-directory-with-a-long-name-as-mktemp-makes-them
mkdir -p "$D" "$T/files" "$T/tap"
"$GEN" --count 200 --groups 1 --threads 2 --seed 5 --pcap "$T/all.pcap" --truth "$T/truth.json" --quiet
vdev=net_pcap0
for a in 0 1 2 3 4 5; do
	"$GEN" --count 200 --groups 1 --threads 2 --seed 5 --antenna $a --pcap "$D/ant$a.pcap" --quiet
	vdev="$vdev,rx_pcap=$D/ant$a.pcap"
done
python3 "$SRC/tests/tools/emptypcap.py" "$D/default.pcap"
vdev="$vdev,rx_pcap=$D/default.pcap"
[ ${#vdev} -gt 64 ] || fail "the devargs are only ${#vdev} characters"
"$CAP" -l 0,1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error --vdev "$vdev" -- \
	--groups 1 --threads 2 --idle-timeout 4s --stats-period 0 --summary-json "$T/sum.json" \
	> "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
run_expect_fail "a pdump tap of a port net_pcap cannot attach in a secondary" 1 \
	"--port 0: not usable in this process: net_pcap0 could not be attached here, as net_pcap re-opens its files in a secondary from the first 63 characters" \
	"$DUMP" --file-prefix "$PREFIX" --lcore 0 --source pdump --port 0 --queue 0 --write "pcap:$T/tap"
"$DUMP" --file-prefix "$PREFIX" --write "codif:$T/files,oldest=yes" --name quiet \
	--summary-json "$T/w.json" > "$T/w.log" 2>&1 || { cat "$T/w.log"; fail "dump exit status"; }
wait "$CPID" || { cat "$T/cap.log"; fail "capture failed"; }
if grep -E "Couldn't open|probe failed|failed to initialize" "$T/w.log"; then
	fail "the buffers writer printed net_pcap's re-probe failure"
fi
ok "buffers writer beside a net_pcap primary with ${#vdev}-character devargs: no 'Couldn't open' or 'probe failed' line"
got=$(json_get "$T/w.json" written)
want=$(json_get "$T/sum.json" totals received)
expect_eq "its files: frames written = frames the capture received" "$got" "$want"
"$CHK" verify "$T/files" > "$T/chk" 2>&1 || { cat "$T/chk"; fail "files not valid"; }
echo "$CHECKS checks passed"
