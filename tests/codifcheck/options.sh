#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every bad codifcheck option is refused with exit 2 and a message naming
# the option, the value and what was expected; --help of each command
# documents every option of its table in main.c, and codifcheck --help all.
. "$(dirname "$0")/../lib.sh"
set -e
CC=$BUILD/app/codifcheck/codifcheck
: > "$T/f.codif"
f="$T/f.codif"
run_expect_fail "no command" 2 "Usage: codifcheck COMMAND" "$CC"
run_expect_fail "unknown command" 2 "unknown command 'inspect': expected info, verify, convert, extract, bstate, spectrum or fringe" "$CC" inspect "$f"
run_expect_fail "unknown option" 2 "codifcheck info: unrecognized option '--jsn' (try codifcheck info --help)" "$CC" info --jsn "$f"
run_expect_fail "option of another command" 2 "codifcheck info: unrecognized option '--strict'" "$CC" info --strict "$f"
run_expect_fail "missing value" 2 "codifcheck verify: option '--since' needs a value" "$CC" verify "$f" --since
run_expect_fail "no FILE" 2 "codifcheck verify: no FILE given" "$CC" verify --strict
run_expect_fail "--max-gaps text" 2 "--max-gaps: 'some': expected an integer between 0 and 18446744073709551615" "$CC" info --max-gaps some "$f"
run_expect_fail "--max-problems 0" 2 "--max-problems: '0': expected an integer between 1 and 1000000" "$CC" verify --max-problems 0 "$f"
run_expect_fail "--window too small" 2 "--window: '10': expected an integer between 64 and 16777216" "$CC" info --window 10 "$f"
run_expect_fail "--window negative" 2 "--window: '-5': expected an integer between 64 and 16777216" "$CC" verify --window -5 "$f"
run_expect_fail "--since garbage" 2 "--since: 'yesterday': expected a UTC time such as 2025-03-10T12:00:00Z or @1741608000" "$CC" verify --since yesterday "$f"
run_expect_fail "--since bad date" 2 "--since: '2025-02-30T00:00:00Z': expected a UTC time" "$CC" verify --since 2025-02-30T00:00:00Z "$f"
run_expect_fail "--to unknown" 2 "--to: 'vdif': expected codif, pcap, pcapng or raw" "$CC" convert --to vdif "$f"
run_expect_fail "--to missing" 2 "codifcheck convert: --to is required: codif, pcap, pcapng or raw" "$CC" convert "$f"
run_expect_fail "--src bad" 2 "--src: '10.17.0.300': expected an IPv4 address such as 10.0.0.1" "$CC" convert --to pcap --src 10.17.0.300 "$f"
run_expect_fail "--dst no port" 2 "--dst: '239.17.0.1': expected IPV4:PORT such as 239.17.0.1:36001 (port 1..65535)" "$CC" convert --to pcap --dst 239.17.0.1 "$f"
run_expect_fail "--dst port 0" 2 "--dst: '239.17.0.1:0': expected IPV4:PORT" "$CC" convert --to pcap --dst 239.17.0.1:0 "$f"
run_expect_fail "--outdir missing" 2 "--outdir: '$T/none': expected an existing directory" "$CC" convert --to pcap --outdir "$T/none" "$f"
run_expect_fail "--antenna-name with _" 2 "--antenna-name: 'ant_0': expected 1..63 characters without '/' or '_'" "$CC" convert --to pcap --antenna-name ant_0 "$f"
run_expect_fail "--antenna without --antenna-ip" 2 "--antenna 'ak01': selects among the --antenna-ip antennas: give them" "$CC" info --antenna ak01 "$f"
run_expect_fail "--antenna not among them" 2 "--antenna: 'ak09': expected an antenna name or index (0=ak01, 1=ant1)" "$CC" verify --antenna-ip 10.0.0.1=ak01,10.0.0.2 --antenna ak09 "$f"
run_expect_fail "--antenna-ip bad name" 2 "--antenna-ip: 'ak 1': expected a name of 1..31 letters, digits or '_'" "$CC" info --antenna-ip "10.0.0.1=ak 1" "$f"
run_expect_fail "--prefix with /" 2 "--prefix: 'a/b': expected 1..63 characters without '/'" "$CC" convert --to pcap --prefix a/b "$f"
run_expect_fail "--antenna-ip bad address" 2 "--antenna-ip: '10.0.0.x': expected an IPv4 address such as 10.0.0.1" "$CC" info --antenna-ip 10.0.0.1,10.0.0.x "$f"
run_expect_fail "--antenna-ip empty item" 2 "--antenna-ip: '10.0.0.1,,10.0.0.2': expected a ','-separated list without empty items" "$CC" verify --antenna-ip 10.0.0.1,,10.0.0.2 "$f"
run_expect_fail "--group without port" 2 "--group: '239.17.0.1': expected IPV4:PORT such as 239.17.0.1:36001" "$CC" convert --to codif --group 239.17.0.1 "$f"
run_expect_fail "-o with two inputs" 2 "--output names one output; 2 inputs given (use --outdir)" "$CC" convert --to pcap -o "$T/x.pcap" "$f" "$f"
run_expect_fail "-o and --outdir" 2 "--output and --outdir exclude each other" "$CC" convert --to pcap -o "$T/x.pcap" --outdir "$T" "$f"
run_expect_fail "-o and --outdir ." 2 "--output and --outdir exclude each other" "$CC" convert --to pcap -o "$T/x.pcap" --outdir . "$f"
[ ! -e "$T/x.pcap" ] && [ ! -e "$T/x.pcap.part" ] || fail "a refused run wrote an output"
ok "no refused run wrote an output file"

# --help lists every long option of each command's table in main.c
"$CC" --help > "$T/help-all.txt"
for cmd in info verify convert; do
	"$CC" $cmd --help > "$T/help-$cmd.txt" || fail "$cmd --help: exit $?"
	opts=$(awk "/^static const struct opt_def (${cmd}|common)_opts\\[\\]/,/^};/" "$SRC/app/codifcheck/main.c" |
		grep -o '{"[a-z-]*", ' | sed 's/{"\([a-z-]*\)", /\1/' | sort -u)
	[ "$(echo "$opts" | wc -w)" -ge 4 ] || fail "$cmd: option table not found in main.c"
	for x in $opts; do
		grep -q -- "--$x\b" "$T/help-$cmd.txt" || fail "$cmd --help does not document --$x"
		grep -q -- "--$x\b" "$T/help-all.txt" || fail "codifcheck --help does not document $cmd --$x"
	done
	ok "$cmd --help documents all $(echo "$opts" | wc -w) options"
done
for w in "info FILE|DIR" "verify FILE|DIR" "convert FILE" "Exit status" "16 buckets per power of two" \
	"pcap/pcapng -> codif" "codif -> raw" "raw -> codif" "codif -> pcap"; do
	grep -q -- "$w" "$T/help-all.txt" || fail "codifcheck --help lacks '$w'"
done
ok "codifcheck --help documents the commands, conversions, histogram resolution and exit status"
"$CC" help | cmp -s - "$T/help-all.txt" || fail "codifcheck help differs from --help"
ok "codifcheck help = codifcheck --help"
echo "$CHECKS checks passed"
