#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every bad codifgen option is refused with exit 1 and a message naming the
# option, the value and what was expected; --help documents every option.
. "$(dirname "$0")/../lib.sh"
set -e
G=$BUILD/app/codifgen
o="$T/x.pcap"
run_expect_fail "unknown option" 1 "unrecognized option '--antenas'" "$G" --antenas 3 --pcap "$o"
run_expect_fail "--antennas 0" 1 "--antennas: '0': expected an integer between 1 and 64" "$G" --antennas 0 --pcap "$o"
run_expect_fail "--antennas 65" 1 "--antennas: '65': expected an integer between 1 and 64" "$G" --antennas 65 --pcap "$o"
run_expect_fail "--antenna-base bad IP" 1 "--antenna-base: '10.0.0.300': expected an IPv4 address" "$G" --antenna-base 10.0.0.300 --pcap "$o"
run_expect_fail "--antenna-ip duplicate" 1 "antenna source IP 10.0.0.1 given twice" "$G" --antenna-ip 10.0.0.1,10.0.0.2,10.0.0.1 --pcap "$o"
run_expect_fail "--group not multicast" 1 "--group: '10.0.0.1:36001': expected an IPv4 multicast address" "$G" --group 10.0.0.1:36001 --pcap "$o"
run_expect_fail "--group no port" 1 "--group: '239.1.1.1': expected IPV4:PORT" "$G" --group 239.1.1.1 --pcap "$o"
run_expect_fail "--loss > 1" 1 "--loss: '1.5': expected a number between 0 and 1" "$G" --loss 1.5 --pcap "$o"
run_expect_fail "--signal no level" 1 "--signal '3': expected A:LEVEL" "$G" --signal 3 --pcap "$o"
run_expect_fail "--signal bad level" 1 "--signal 1:loud: expected an RMS in steps" "$G" --signal 1:loud --pcap "$o"
run_expect_fail "--signal negative RMS" 1 "--signal 1:-2: expected an RMS in steps (>= 0" "$G" --signal 1:-2 --pcap "$o"
run_expect_fail "--signal antenna beyond --antennas" 1 "--signal: antenna 5 of 2 antennas (0..1)" "$G" --antennas 2 --signal 5:dead --pcap "$o"
run_expect_fail "--signal, undecoded nbits" 1 "--signal: nbits 12 not decoded" "$G" --nbits 12 --signal 0:3 --pcap "$o"
run_expect_fail "--reorder text" 1 "--reorder: 'some': expected a number between 0 and 1" "$G" --reorder some --pcap "$o"
run_expect_fail "faults add up beyond 1" 1 "fault probabilities add up to 1.2" "$G" --loss 0.6 --duplicate 0.6 --pcap "$o"
run_expect_fail "--reorder-depth 0" 1 "--reorder-depth: '0': expected an integer between 1 and 1024" "$G" --reorder-depth 0 --pcap "$o"
run_expect_fail "--data-bytes not multiple of 8" 1 "--data-bytes: '8190': expected a multiple of 8 bytes" "$G" --data-bytes 8190 --pcap "$o"
run_expect_fail "inconsistent stream parameters" 1 "totalsamples 1000, expected a non-zero multiple of 512 samples per frame" "$G" --total-samples 1000 --pcap "$o"
run_expect_fail "--station length" 1 "--station: 'ASKAP': expected two characters" "$G" --station ASKAP --pcap "$o"
run_expect_fail "--start garbage" 1 "--start: 'tomorrow': expected a UTC time" "$G" --start tomorrow --pcap "$o"
run_expect_fail "--start before epoch" 1 "is before the reference epoch 60" "$G" --epoch 60 --pcap "$o"
run_expect_fail "--count 1" 1 "--count: '1': expected an integer between 2" "$G" --count 1 --pcap "$o"
run_expect_fail "--data-duration unit" 1 "--data-duration: '5 parsecs': expected a duration" "$G" --data-duration "5 parsecs" --pcap "$o"
run_expect_fail "--count and --data-duration" 1 "--count and --data-duration exclude each other" "$G" --count 5 --data-duration 1s --pcap "$o"
run_expect_fail "--map bad entry" 1 "--map: 'x': expected ANTENNA:GROUP" "$G" --map x --pcap "$o"
run_expect_fail "--map antenna missing" 1 "--map: antenna 1 has no group" "$G" --antennas 2 --groups 2 --map 0:0+1 --pcap "$o"
run_expect_fail "--map antenna beyond" 1 "--map: antenna 5: expected an antenna index 0..1 (2 antennas)" \
	"$G" --antennas 2 --map 0:0,1:1,5:0 --pcap "$o"
run_expect_fail "--map group beyond" 1 "--map: antenna 1: group 7: expected a group index 0..3 (4 groups)" \
	"$G" --antennas 2 --map 0:0,1:7 --pcap "$o"
run_expect_fail "--antenna-ip then --antennas" 1 "--antennas 5 and --antenna-ip (2 given) disagree" \
	"$G" --antenna-ip 10.0.0.1,10.0.0.2 --antennas 5 --pcap "$o"
run_expect_fail "--antennas then --antenna-ip" 1 "--antennas 5 and --antenna-ip (2 given) disagree" \
	"$G" --antennas 5 --antenna-ip 10.0.0.1,10.0.0.2 --pcap "$o"
run_expect_fail "--group then --groups" 1 "--groups 3 and --group (1 given) disagree" \
	"$G" --group 239.1.1.1:5000 --groups 3 --pcap "$o"
run_expect_fail "--antenna out of range" 1 "--antenna: '99': expected an antenna name or index (0=ant0, 1=ant1, 2=ant2" \
	"$G" --antenna 99 --pcap "$o"
"$G" --antennas 64 --antenna 63 --count 2 --pcap "$T/s64.pcap" --truth "$T/s64.json" --quiet ||
	fail "--antennas 64 --antenna 63 refused"
expect_eq "--antennas 64 --antenna 63: only antenna 63 sends" \
	"$(python3 -c 'import json,sys; print(sorted({s["antenna"] for s in json.load(open(sys.argv[1]))["streams"] if s["sent"] > 0}))' "$T/s64.json")" "[63]"
run_expect_fail "--antenna beyond antennas" 1 "--antenna: '7': expected an antenna name or index (0=ant0, 1=ant1, 2=ant2, 3=ant3, 4=ant4, 5=ant5)" "$G" --antenna 7 --pcap "$o"
# by name (--antenna-ip IP=NAME, as the capture spells it) and by index at once
"$G" --antenna-ip 10.0.0.1=ak01,10.0.0.2=ak02,10.0.0.3 --antenna ak02,2 --count 2 --pcap "$T/sn.pcap" \
	--truth "$T/sn.json" --quiet || fail "--antenna ak02,2 refused"
expect_eq "--antenna ak02,2: antennas 1 and 2 send" \
	"$(python3 -c 'import json,sys; print(sorted({s["antenna"] for s in json.load(open(sys.argv[1]))["streams"] if s["sent"] > 0}))' "$T/sn.json")" "[1, 2]"
run_expect_fail "--antenna unknown name" 1 "--antenna: 'ak09': expected an antenna name or index (0=ak01, 1=ak02, 2=ant2)" \
	"$G" --antenna-ip 10.0.0.1=ak01,10.0.0.2=ak02,10.0.0.3 --antenna ak09 --pcap "$o"
run_expect_fail "--antenna-ip bad name" 1 "--antenna-ip: 'a-1': expected a name of 1..31 letters, digits or '_'" \
	"$G" --antenna-ip 10.0.0.1=a-1 --pcap "$o"
run_expect_fail "no output" 1 "no output: give --pcap FILE, --socket or --tx-port N" "$G" --count 5
run_expect_fail "unwritable pcap" 1 "--pcap: '/nonexistent/x.pcap'" "$G" --pcap /nonexistent/x.pcap
run_expect_fail "stray argument" 1 "unexpected argument 'extra'" "$G" --pcap "$o" extra
# nothing was written by any refused run
[ ! -e "$o" ] || fail "a refused run wrote $o"
ok "no refused run wrote an output file"
# --help lists every long option the program accepts
"$G" --help > "$T/help.txt"
# a renamed option (OPT_F_GONE) is refused, not documented
opts=$(grep -v OPT_F_GONE "$SRC/app/codifgen/options.c" | grep -o '{"[a-z-]*", ' | sed 's/{"\([a-z-]*\)", /\1/' | sort -u)
for x in $opts; do
	grep -q -- "--$x" "$T/help.txt" || fail "--help does not document --$x"
done
ok "--help documents all $(echo "$opts" | wc -w) options"
echo "$CHECKS checks passed"
