#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# pcapng from the capture's writers (one file per antenna, and all=yes) and
# from dpdk-ibvcap-dump, beside a pcap writer of the same run: tshark shows
# one interface per antenna, by its name, holding exactly that antenna's
# packets, and every frame; each interface's address and the program are
# in the blocks; codifcheck's counts of the pcapng files equal those of
# the pcap files; codifcheck convert --to pcapng of a codif file gives the
# same packets as --to pcap.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 200
need_cmd tshark
DUMP=$BUILD/app/dpdk-ibvcap-dump
ANTS="10.17.0.211=ak01,10.17.0.212=ak02,10.17.0.213=ak03"
# shellcheck disable=SC2086
pcap_antennas "$T" 3 --antennas 3 --count 150 --groups 1 --threads 2 --seed 9 --loss 0.03 --reorder 0.03
mkdir -p "$T/pcap" "$T/ng" "$T/all" "$T/dump"
"$CAP" --lcores 0@0,1@1,2@0,3@1,4@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error --vdev "$VDEV" -- \
	--antenna-ip "$ANTS" --groups 1 --threads 2 --idle-timeout 3s --stats-period 0 \
	--write "pcap:$T/pcap" --write "pcapng:$T/ng" --write "pcapng:$T/all,all=yes" \
	--summary-json "$T/sum.json" > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"
"$DUMP" --file-prefix "$PREFIX" --write "pcapng:$T/dump,oldest=yes" --name ng \
	--summary-json "$T/w.json" > "$T/w.log" 2>&1 || { cat "$T/w.log"; fail "dump exit status"; }
wait "$CPID" || { cat "$T/cap.log"; fail "capture failed"; }
python3 "$CMP" "$T/truth.json" "$T/sum.json" --unattributed > "$T/cmp" ||
	{ head "$T/cmp"; fail "capture counts differ from the truth"; }
RECV=$(json_get "$T/truth.json" totals received)
expect_eq "files: pcap, pcapng per antenna, pcapng all=yes, the dump's" \
	"$(ls "$T/pcap" | wc -l) $(ls "$T/ng"/*.pcapng | wc -l) $(ls "$T/all" | wc -l) $(ls "$T/dump"/*.pcapng | wc -l)" "3 3 1 3"
for f in "$T"/ng/*.pcapng "$T"/all/*.pcapng "$T"/dump/*.pcapng; do
	case $(basename "$f") in
	ibvcap_ak0[123]_*.pcapng | ibvcap_all_*.pcapng) ;;
	*) fail "pcapng file name $(basename "$f")" ;;
	esac
done

# tshark: each packet's interface is named after the antenna that sent it
tsh() { tshark -r "$1" -T fields -e frame.interface_name -e ip.src 2>/dev/null; }
for d in ng all dump; do
	for f in "$T/$d"/*.pcapng; do tsh "$f"; done | sort | uniq -c | awk '{print $2, $3, $1}' > "$T/$d.tsh"
	expect_eq "$d: tshark's interfaces (name, address, packets)" \
		"$(awk '{print $1, $2}' "$T/$d.tsh" | tr '\n' ';')" \
		"ak01 10.17.0.211;ak02 10.17.0.212;ak03 10.17.0.213;"
	expect_eq "$d: tshark reads every frame received" "$(awk '{s += $3} END {print s}' "$T/$d.tsh")" "$RECV"
done
ok "pcapng (per antenna, all=yes, the dump's): one interface per antenna, by name, with its packets; all $RECV frames"

# the blocks: each interface's address and ns resolution; the program
python3 - "$T"/all/*.pcapng <<'PY' || fail "pcapng blocks"
import socket, struct, sys
b = open(sys.argv[1], "rb").read()
off, ifs, app = 0, [], None
while off < len(b):
    t, n = struct.unpack_from("<II", b, off)
    if t in (0x0A0D0D0A, 1):
        o, opts = off + (24 if t != 1 else 16), {}
        while True:
            c, l = struct.unpack_from("<HH", b, o)
            if c == 0:
                break
            opts[c] = b[o + 4:o + 4 + l]
            o += 4 + (l + 3) // 4 * 4
        if t == 1:
            ifs.append((opts[2].decode(), socket.inet_ntoa(opts[4][:4]), opts[9]))
        else:
            app = opts[4].decode()
    off += n
assert off == len(b)
assert ifs == [("ak0%d" % i, "10.17.0.21%d" % i, b"\x09") for i in (1, 2, 3)], ifs
assert app.startswith("dpdk-ibvcap "), app
PY
ok "pcapng blocks: if_name, if_IPv4addr per antenna, if_tsresol 9, shb_userappl dpdk-ibvcap"

# codifcheck: the pcapng files' counts are the pcap files'
counts() {
	"$CHK" info --json --antenna-ip "$ANTS" "$@" | python3 -c '
import json, sys
j = json.load(sys.stdin)
fs = j["files"] if "files" in j else [j]
st = sorted((s["src"], s["dst"], s["port"], s["threadid"], s["expected"], s["received"], s["lost"],
             s["late"], s["duplicate"], s["invalid"]) for f in fs for s in f["streams"])
print(len(st), sum(s[5] for s in st), sum(s[6] for s in st))
for s in st:
    print(*s)'
}
counts "$T"/pcap/*.pcap > "$T/pcap.cnt"
[ "$(head -1 "$T/pcap.cnt" | cut -d' ' -f2)" = "$RECV" ] || fail "pcap path: $(head -1 "$T/pcap.cnt"), received $RECV"
for d in ng all dump; do
	counts "$T/$d"/*.pcapng > "$T/$d.cnt"
	cmp -s "$T/pcap.cnt" "$T/$d.cnt" || { diff "$T/pcap.cnt" "$T/$d.cnt" | head; fail "$d: codifcheck's counts differ from the pcap path's"; }
done
ok "codifcheck info: pcapng counts = pcap counts (streams, received, lost: $(head -1 "$T/pcap.cnt"))"
"$CHK" verify "$T/ng" "$T/dump" > "$T/ver" 2>&1 || { cat "$T/ver"; fail "codifcheck verify of pcapng files"; }

# codifcheck convert --to pcapng: the packets of --to pcap, one named interface
mkdir -p "$T/c" "$T/cp" "$T/cn"
"$CHK" convert --to codif --antenna-ip "$ANTS" --outdir "$T/c" "$T"/pcap/ibvcap_ak02_*.pcap > /dev/null ||
	fail "pcap -> codif"
"$CHK" convert --to pcap --src 10.17.0.212 --outdir "$T/cp" "$T"/c/*.codif > /dev/null || fail "codif -> pcap"
"$CHK" convert --to pcapng --src 10.17.0.212 --outdir "$T/cn" "$T"/c/*.codif > "$T/cn.out" || fail "codif -> pcapng"
ls "$T"/cn/ibvcap_ak02_*.pcapng > /dev/null || fail "convert's pcapng name: $(ls "$T/cn")"
expect_eq "convert --to pcapng: interface" "$(tsh "$T"/cn/*.pcapng | sort -u | tr '\t\n' ' ;')" "ak02 10.17.0.212;"
pkts() { tshark -r "$1" -T fields -e frame.time_epoch -e udp.payload 2>/dev/null | awk 'length($2) > 16000'; }
pkts "$T"/cn/*.pcapng > "$T/cn.pkts"
pkts "$T"/cp/*.pcap > "$T/cp.pkts"
[ "$(wc -l < "$T/cp.pkts")" -gt 250 ] || fail "tshark shows $(wc -l < "$T/cp.pkts") packets of convert's pcap"
cmp -s "$T/cn.pkts" "$T/cp.pkts" || fail "convert: the pcapng's packets (tshark: times, payloads) differ from the pcap's"
counts "$T"/cp/*.pcap > "$T/cp.cnt"
counts "$T"/cn/*.pcapng > "$T/cn.cnt"
cmp -s "$T/cp.cnt" "$T/cn.cnt" || fail "convert: codifcheck's counts of pcapng and pcap differ"
run_expect_fail "pcap -> pcapng is no conversion" 1 "pcap to pcapng is not a conversion" \
	"$CHK" convert --to pcapng --outdir "$T/cn" "$T"/pcap/ibvcap_ak01_*.pcap
ok "codifcheck convert --to pcapng: interface ak02 10.17.0.212, the packets and counts of --to pcap"
expect_eq "no .part left" "$(find "$T" -name '*.part' | wc -l)" 0
echo "$CHECKS checks passed"
