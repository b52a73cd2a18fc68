#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-ibvcap-dump refuses bad options before attaching (exit 1, the option,
# value and expectation named), and says so clearly when no primary runs.
. "$(dirname "$0")/../lib.sh"
set -e
D=$BUILD/app/dpdk-ibvcap-dump
run_expect_fail "no --write" 1 "--write FORMAT:DIR is required" "$D" --file-prefix x
run_expect_fail "bad format" 1 "--write: 'tar:/tmp': format 'tar', expected raw, codif, pcap or pcapng" "$D" --write tar:/tmp
run_expect_fail "bad key" 1 "--write: 'colour': unknown key" "$D" --write codif:/tmp,colour=red
run_expect_fail "bad rotate-size" 1 "--write rotate-size: '1Q': expected a size" "$D" --write codif:/tmp,rotate-size=1Q
run_expect_fail "bad rotate-time" 1 "--write rotate-time: 'soon': expected a duration" "$D" --write codif:/tmp,rotate-time=soon
run_expect_fail "all=yes for codif" 1 "all=yes is for pcap" "$D" --write codif:/tmp,all=yes
run_expect_fail "lcores=2 in a dump" 1 \
	"--write lcores: '2': a dpdk-ibvcap-dump writes on one lcore: expected lcores=1 (spread antennas over several dpdk-ibvcap-dump with --antenna)" \
	"$D" --write codif:/tmp,lcores=2
run_expect_fail "bad --lcore" 1 "--lcore: 'any': expected a CPU number 0..127 or auto" "$D" --write codif:/tmp --lcore any
run_expect_fail "bad --count" 1 "--count: '0': expected an integer between 1" "$D" --write codif:/tmp --count 0
run_expect_fail "bad --max-rate" 1 "--max-rate: 'fast': expected a number" "$D" --write codif:/tmp --max-rate fast
run_expect_fail "bad --source" 1 "--source: 'nic': expected buffers or pdump" "$D" --write pcap:/tmp --source nic
run_expect_fail "bad --record" 1 "--record: 'idle': expected follow or always" "$D" --write codif:/tmp --record idle
run_expect_fail "pdump without --port" 1 "--source pdump needs --port" "$D" --write pcap:/tmp --source pdump
run_expect_fail "pdump writes pcap" 1 "--source pdump writes whole packets: use --write pcap:DIR" \
	"$D" --write codif:/tmp --source pdump --port 0
run_expect_fail "--antenna with pdump" 1 "--antenna is for --source buffers" \
	"$D" --write pcap:/tmp --source pdump --port 0 --antenna 1
run_expect_fail "--max-rate with pdump" 1 "--max-rate is for --source buffers" \
	"$D" --write pcap:/tmp --source pdump --port 0 --max-rate 100
run_expect_fail "--port without pdump" 1 "--port and --queue are for --source pdump" "$D" --write codif:/tmp --port 1
run_expect_fail "missing output directory" 1 "--write: output directory '$T/nowhere': No such file or directory" \
	"$D" --write "pcap:$T/nowhere" --source pdump --port 0
run_expect_fail "unknown option" 1 "unknown option '--frobnicate'" "$D" --write codif:/tmp --frobnicate
run_expect_fail "no primary running" 1 "cannot attach to a dpdk-ibvcap with --file-prefix ${PREFIX}none" \
	"$D" --file-prefix "${PREFIX}none" --write "codif:$T"
"$D" --help > "$T/help.txt"
opts=$(grep -o '{"[a-z-]*", ' "$SRC/app/dpdk-ibvcap-dump/options.c" | sed 's/{"\([a-z-]*\)", /\1/' | sort -u)
for x in $opts; do
	grep -q -- "--$x" "$T/help.txt" || fail "--help does not document --$x"
done
for k in prefix rotate-size rotate-time snaplen all direct oldest count buffer; do
	grep -q -- "$k=" "$T/help.txt" || fail "--help does not document the --write key $k"
done
ok "--help documents all $(echo "$opts" | wc -w) options and every --write key"
echo "$CHECKS checks passed"
