#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-ibvcap refuses bad configuration before touching any device: exit 1
# and a message naming the option or key, the value and what was expected.
# (--check-config needs no EAL, hugepages or root; this host's side, with
# --skip-host-checks left out, is tests/cli/ibvcap_check_config.sh.)
. "$(dirname "$0")/../lib.sh"
set -e
C=$BUILD/app/dpdk-ibvcap
cc() { "$C" --check-config "$@" --skip-host-checks; }

run_expect_fail "unknown option" 1 "unknown option '--antenas'" cc --antenas 3
run_expect_fail "bad IP" 1 "--antenna-ip: '10.17.0.300': expected an IPv4 address" cc --antenna-ip 10.17.0.300
run_expect_fail "duplicate antenna IP" 1 "antenna 0 and antenna 2 have the same source address 10.0.0.1" \
	cc --antenna-ip 10.0.0.1,10.0.0.2,10.0.0.1
run_expect_fail "duplicate antenna name" 1 "antennas 0 and 1 are both named 'ak1'" \
	cc --antenna-ip 10.0.0.1=ak1,10.0.0.2=ak1
run_expect_fail "bad antenna name" 1 "--antenna-ip: 'a b': expected a name" cc --antenna-ip "10.0.0.1=a b"
run_expect_fail "antenna name telemetry cannot key" 1 "--antenna-ip: 'ak-01': expected a name of 1..31 letters, digits or '_'" cc --antenna-ip "10.0.0.1=ak-01"
run_expect_fail "multicast antenna" 1 "--antenna-ip: '239.0.0.1': expected a sender's unicast address: 224.0.0.0/4 is multicast" cc --antenna-ip 239.0.0.1
# a sender's address: not broadcast, 0/8, loopback, multicast nor reserved
run_expect_fail "broadcast antenna" 1 "--antenna-ip: '255.255.255.255': expected a sender's unicast address: 255.255.255.255 is the limited broadcast address" \
	cc --antenna-ip 10.0.0.1,255.255.255.255
run_expect_fail "0.0.0.0 antenna" 1 "--antenna-ip: '0.0.0.0': expected a sender's unicast address: 0.0.0.0/8 is 'this network'" cc --antenna-ip 0.0.0.0
run_expect_fail "loopback antenna" 1 "127.0.0.0/8 is loopback" cc --antenna-ip 127.0.0.1
run_expect_fail "reserved antenna" 1 "240.0.0.0/4 is reserved" cc --antenna-ip 240.1.2.3
run_expect_fail "--antenna-base broadcast" 1 "--antenna-base: '255.255.255.255': expected a sender's unicast address" \
	cc --antenna-base 255.255.255.255
run_expect_fail "--antenna-base + i into multicast" 1 \
	"antenna 2: source address 224.0.0.0 (--antenna-base 223.255.255.254 + 2) is not a sender's unicast address: 224.0.0.0/4 is multicast" \
	cc --antenna-base 223.255.255.254 --antennas 3
printf '[antennas]\nantenna-ip = 10.0.0.1=a1,255.255.255.255=a2\n' > "$T/bcast.ini"
run_expect_fail "INI broadcast antenna" 1 "bcast.ini: [antennas] --antenna-ip: '255.255.255.255': expected a sender's unicast address" \
	cc --config "$T/bcast.ini"
run_expect_fail "group not multicast" 1 "--group: '10.1.1.1:5000': expected an IPv4 multicast address" cc --group 10.1.1.1:5000
run_expect_fail "group port 0" 1 "--group: '239.1.1.1:0': expected IPV4:PORT" cc --group 239.1.1.1:0
run_expect_fail "group twice" 1 "group 239.1.1.1:5000 given twice" cc --group 239.1.1.1:5000,239.1.1.1:5000
run_expect_fail "group on a port not given" 1 "joined on port index 3, but only 2 ports (--port) are given" \
	cc --port 0,1 --group 239.1.1.1:5000@3
run_expect_fail "--antennas range" 1 "--antennas: '65': expected an integer between 1 and 64" cc --antennas 65
run_expect_fail "--antennas vs list" 1 "--antennas 3 and --antenna-ip (2 addresses) disagree" \
	cc --antennas 3 --antenna-ip 10.0.0.1,10.0.0.2
run_expect_fail "--steer value" 1 "--steer: 'hardware': expected auto, flow or software" cc --steer hardware
run_expect_fail "--isolate with software" 1 "--isolate needs rte_flow rules" cc --isolate --steer software
run_expect_fail "--duration unit" 1 "--duration: '10 fortnights': expected a duration" cc --duration "10 fortnights"
run_expect_fail "--mbuf-size" 1 "--mbuf-size: '100': expected a size" cc --mbuf-size 100
run_expect_fail "--lcore-map form" 1 "--lcore-map: '0:1': expected PORTINDEX.QUEUE@LCORE" cc --lcore-map 0:1
run_expect_fail "--lcore-map queue" 1 "--lcore-map: queue 9, but ports have 7 queues" cc --lcore-map 0.9@1
run_expect_fail "--lcore-map twice" 1 "--lcore-map: queue 0.1 mapped twice" cc --lcore-map 0.1@1,0.1@2
run_expect_fail "--join-iface form" 1 "--join-iface: 'eth0': expected PORTINDEX=IFNAME" cc --join-iface eth0
run_expect_fail "missing value" 1 "option '--port' needs a value" "$C" --check-config --skip-host-checks --port
run_expect_fail "stray argument" 1 "unexpected argument 'now'" cc --antennas 3 now
run_expect_fail "--check-config FILE missing" 1 "--config: 'now': No such file or directory" cc now

# INI: the same keys, named with file, section and value
cat > "$T/bad.ini" <<'INI'
[layout]
antennas = 4
[capture]
colour = blue
INI
run_expect_fail "INI unknown key" 1 "bad.ini: [capture] colour = blue: unknown key" cc --config "$T/bad.ini"
printf '[layout]\nantenna-base = 10.0.0.999\n' > "$T/bad2.ini"
run_expect_fail "INI bad value" 1 "bad2.ini: [layout] --antenna-base: '10.0.0.999': expected an IPv4 address" \
	cc --config "$T/bad2.ini"
printf 'this is not ini\n' > "$T/bad3.ini"
run_expect_fail "INI not INI" 1 "bad3.ini: line 1: 'this is not ini': expected [section] or key = value" cc --config "$T/bad3.ini"
run_expect_fail "--join-iface beyond --port" 1 "--join-iface: port index 1 (eth9), but only 1 ports (--port) are given" \
	cc --port 0 --join-iface 1=eth9
printf '[x]\ncheck-config = yes\n' > "$T/cc.ini"
run_expect_fail "INI action key" 1 "cc.ini: [x] check-config: not a configuration key (a command-line action)" \
	cc --config "$T/cc.ini"
run_expect_fail "INI missing" 1 "--config: '$T/none.ini': No such file or directory" cc --config "$T/none.ini"

# a good file: effective configuration printed; the command line wins
cat > "$T/good.ini" <<'INI'
; a small lab host
[ports]
port = 0
[layout]
antenna-ip = 10.1.0.1=ak01,10.1.0.2=ak02
group = 239.2.0.1:40001@0
group = 239.2.0.2:40002@0
[capture]
mtu = 9000
isolate = no
stats-period = 2s
INI
cc --config "$T/good.ini" --stats-period 5s > "$T/eff.txt" || fail "good INI refused"
grep -q '^antenna-ip = 10.1.0.2=ak02' "$T/eff.txt" || fail "antenna from INI missing"
grep -q '^group = 239.2.0.2:40002@0' "$T/eff.txt" || fail "repeated key did not append"
grep -q '^stats-period = 5.000s' "$T/eff.txt" || fail "command line did not win"
ok "INI accepted, repeated keys append, the command line wins"
# lists too: the command line's replace the file's, for the whole family
cc --config "$T/good.ini" --port 1 --antennas 3 --groups 2 > "$T/eff3.txt" || fail "overrides refused"
expect_eq "command line --port replaces the INI's ports" "$(grep -c '^port = ' "$T/eff3.txt")" 1
grep -q '^port = 1$' "$T/eff3.txt" || fail "--port 1 not used: $(grep '^port' "$T/eff3.txt")"
expect_eq "command line --antennas replaces the INI's antenna-ip list" \
	"$(grep -c '^antenna-ip = ' "$T/eff3.txt") $(grep -c 'ak0' "$T/eff3.txt")" "3 0"
expect_eq "command line --groups replaces the INI's group list" \
	"$(grep -c '^group = ' "$T/eff3.txt") $(grep -c '239.2.0' "$T/eff3.txt")" "2 0"
cc --config "$T/good.ini" --antenna-ip 10.9.0.1=x1 > "$T/eff4.txt" || fail "--antenna-ip override refused"
expect_eq "command line --antenna-ip replaces the INI's" "$(grep '^antenna-ip' "$T/eff4.txt" | cut -d' ' -f3)" "10.9.0.1=x1"
# an overridden key is still checked
printf '[ports]
port = 0,,1
' > "$T/badport.ini"
run_expect_fail "overridden INI key still checked" 1 "badport.ini: [ports] --port" \
	cc --config "$T/badport.ini" --port 1
# --check-config FILE: the file as --config FILE
"$C" --check-config "$T/good.ini" --stats-period 5s --skip-host-checks > "$T/eff2.txt" ||
	fail "--check-config FILE refused"
cmp -s "$T/eff.txt" "$T/eff2.txt" || fail "--check-config FILE differs from --check-config --config FILE"
run_expect_fail "--check-config FILE, bad key" 1 "bad.ini: [capture] colour = blue: unknown key" \
	"$C" --check-config "$T/bad.ini"
ok "--check-config FILE is --check-config --config FILE"

# --write lcores=N: what one writer keeps for all its antennas is refused
run_expect_fail "lcores with all=yes" 1 \
	"--write lcores: '2': all=yes writes every antenna into one file, which one lcore writes: expected lcores=1 with all=yes" \
	cc --write "pcap:$T,all=yes,lcores=2"
run_expect_fail "lcores with count=" 1 \
	"--write lcores: '3': count=500 stops the writer after that many frames in all, which its lcores cannot count together: expected lcores=1 with count=" \
	cc --write "codif:$T,count=500,lcores=3"
run_expect_fail "lcores beyond the antennas" 1 \
	"--write codif:$T,lcores=7: lcores: '7': more writer lcores than the 6 antennas it writes (antenna i on lcore i mod N): expected 1..6" \
	cc --write "codif:$T,lcores=7"
run_expect_fail "lcores 0" 1 "--write lcores: '0': expected an integer between 1 and 64" \
	cc --write "codif:$T,lcores=0"
run_expect_fail "writer lcores beyond the writer table" 1 \
	"--write: 18 writer lcores in all (lcores= of each --write summed): at most 16, the writer table's entries" \
	cc --write "codif:$T,lcores=6" --write "raw:$T,lcores=6" --write "pcap:$T,lcores=6"
# GPU options: validated without a GPU
printf '[buffers]\ngpu = 0\ngpu-split = on\n' > "$T/gpu.ini"
"$C" --check-config "$T/gpu.ini" --skip-host-checks > "$T/gpu.txt" || fail "gpu INI refused"
grep -q '^gpu-split = on' "$T/gpu.txt" || fail "gpu-split from INI missing"
printf '[buffers]\ngpu = 0\ngpu-split = sometimes\n' > "$T/gpu2.ini"
run_expect_fail "INI gpu-split value" 1 "gpu2.ini: [buffers] --gpu-split: 'sometimes': expected auto, on or off" \
	"$C" --check-config "$T/gpu2.ini"
# --help lists every option
"$C" --help > "$T/help.txt"
# a renamed option (OPT_F_GONE) is refused, not documented
# (the rows of the options' table, not of a key=value list's: those --help
# lists under their option)
opts=$(sed -n '/^static const struct opt_def ibv_opts\[\] = {/,/^};/p' "$SRC/app/dpdk-ibvcap/config.c" |
	grep -v OPT_F_GONE | grep -o '{"[a-z-]*", ' | sed 's/{"\([a-z-]*\)", /\1/' | sort -u)
[ "$(echo "$opts" | wc -w)" -gt 50 ] || fail "the options' table not found in config.c"
for x in $opts; do
	grep -q -- "--$x" "$T/help.txt" || fail "--help does not document --$x"
done
ok "--help documents all $(echo "$opts" | wc -w) options"
echo "$CHECKS checks passed"
