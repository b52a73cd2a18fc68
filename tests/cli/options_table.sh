#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Options as data: each tool's option table (read back with the hidden
# --dump-options, which checks the table first) drives --help, and for the
# capture also the INI keys and the effective configuration. Every row of
# every table: help text present; its own entry in --help; for the capture,
# accepted as an INI key in its [section] by --check-config and shown in
# the effective configuration. The checker is run once on doctored input
# too, to show that it fails.
. "$(dirname "$0")/../lib.sh"
set -e
C=$BUILD/app/dpdk-ibvcap
G=$BUILD/app/codifgen
CC=$BUILD/app/codifcheck/codifcheck
D=$BUILD/app/dpdk-ibvcap-dump

# check_table NAME DUMP HELP [PRINT]: every row has help and an entry in
# HELP; with PRINT, every printable row has a line there. Prints each
# problem; exit 1 if any.
check_table() {
	python3 - "$@" <<'PY'
import re, sys
name, dump, helpf = sys.argv[1:4]
printf = sys.argv[4] if len(sys.argv) > 4 else None
rows = [l.rstrip('\n').split('\t') for l in open(dump) if not l.startswith('#')]
helptext = open(helpf).read()
printed = open(printf).read() if printf else None
bad = []
if len(rows) < 3:
    bad.append('only %d rows' % len(rows))
for r in rows:
    if len(r) != 8:
        bad.append('row %r: expected 8 fields' % r)
        continue
    opt, letter, kind, where, sec, hidden, example, text = r
    if not text.strip():
        bad.append('--%s: no help text' % opt)
    if hidden == 'yes':
        continue
    if where == 'key':  # a key of an option's KEY=VALUE list, under that option
        parent, key = opt.split('.', 1)
        if not re.search(r'^  (-., )?--%s ' % re.escape(parent), helptext, re.M) or \
           not re.search(r'^ {20,}%s=' % re.escape(key), helptext, re.M):
            bad.append('--%s: key %s: no entry of its own in --help' % (parent, key))
        continue
    if where == 'ini':
        entry = r'^  %s = ' % re.escape(opt)
    else:
        short = r'-%s, ' % re.escape(letter) if letter != '-' else ''
        entry = r'^  %s--%s( |$)' % (short, re.escape(opt))
    if not re.search(entry, helptext, re.M):
        bad.append('--%s: no entry of its own in --help' % opt)
    if printed is not None and where != 'action':
        key = r'(\[%s\] )?%s' % (re.escape(sec), re.escape(opt))
        if not re.search(r'^(# )?%s( = |: )' % key, printed, re.M):
            bad.append('--%s: not in the effective configuration' % opt)
for b in bad:
    print('%s: %s' % (name, b))
sys.exit(1 if bad else 0)
PY
}

for tool in capture codifgen dump info verify convert; do
	case $tool in
	capture) run=("$C") ;;
	codifgen) run=("$G") ;;
	dump) run=("$D") ;;
	*) run=("$CC" "$tool") ;;
	esac
	"${run[@]}" --dump-options > "$T/$tool.tab" 2> "$T/$tool.err" ||
		fail "$tool --dump-options: exit $? ($(cat "$T/$tool.err"))"
	"${run[@]}" --help > "$T/$tool.help" || fail "$tool --help: exit $?"
	n=$(grep -vc '^#' "$T/$tool.tab")
	if [ $tool = capture ]; then
		"$C" --check-config --skip-host-checks > "$T/capture.print" || fail "capture --check-config: exit $?"
		check_table $tool "$T/$tool.tab" "$T/$tool.help" "$T/capture.print" ||
			fail "$tool: the table, --help and the effective configuration disagree"
		ok "$tool: all $n rows have help, an entry in --help and a line in the effective configuration"
	else
		check_table $tool "$T/$tool.tab" "$T/$tool.help" ||
			fail "$tool: the table and --help disagree"
		ok "$tool: all $n rows have help and an entry in --help"
	fi
done

# every INI key of the capture's table, alone in a file in its section with
# the table's example value: accepted by --check-config and printed (the
# configuration alone: --skip-host-checks; this host's side is
# tests/cli/ibvcap_check_config.sh)
nkey=0
while IFS=$'\t' read -r opt letter kind where sec hidden example text; do
	case "$opt" in '#'*) continue ;; esac
	case $where in cli+ini | ini) ;; *) continue ;; esac
	[ "$example" != - ] || fail "INI key $opt: the table gives no example value"
	printf '[%s]\n%s = %s\n' "$sec" "$opt" "$example" > "$T/key.ini"
	"$C" --check-config --config "$T/key.ini" --skip-host-checks > "$T/key.out" 2>&1 ||
		fail "INI key [$sec] $opt = $example refused: $(cat "$T/key.out")"
	grep -qE "^(# )?(\[$sec\] )?$opt( = |: )" "$T/key.out" ||
		fail "INI key $opt: not in the effective configuration"
	grep -q "^config = $T/key.ini$" "$T/key.out" || fail "INI key $opt: config not printed"
	nkey=$((nkey + 1))
done < "$T/capture.tab"
[ "$nkey" -ge 40 ] || fail "only $nkey INI keys in the capture's table"
ok "every one of the capture's $nkey INI keys is accepted in its [section] and printed"

# the generated effective configuration reads back as the same configuration
"$C" --check-config --config "$SRC/config/askap.ini" --skip-host-checks > "$T/askap.print" ||
	fail "askap.ini refused"
{ echo "[all]"; grep -v '^#' "$T/askap.print" | sed 's/   #.*//; s/  join-iface=.*//' |
	grep -v -e '^port = (every probed port)$' -e '^config = '; } > "$T/again.ini"
"$C" --check-config --config "$T/again.ini" --skip-host-checks > "$T/again.print" 2>&1 ||
	fail "the effective configuration does not read back: $(cat "$T/again.print")"
diff <(grep -v -e '^#' -e '^config = ' "$T/askap.print") \
	<(grep -v -e '^#' -e '^config = ' "$T/again.print") > "$T/again.diff" ||
	fail "the effective configuration read back differs: $(cat "$T/again.diff")"
ok "the effective configuration of askap.ini reads back as itself"

# the checker itself: a row without help, an option --help forgets and a
# key the print leaves out are each found
awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "mtu" { $8 = "" } { print }' "$T/capture.tab" > "$T/nohelp.tab"
if check_table doctored "$T/nohelp.tab" "$T/capture.help" > "$T/doctored.out"; then
	fail "a row without help passed"
fi
grep -q -- "--mtu: no help text" "$T/doctored.out" || fail "checker: $(cat "$T/doctored.out")"
grep -v -- '^  --burst ' "$T/capture.help" > "$T/forgot.help"
if check_table doctored "$T/capture.tab" "$T/forgot.help" > "$T/doctored.out"; then
	fail "an option missing from --help passed"
fi
grep -v '^burst = ' "$T/capture.print" > "$T/forgot.print"
if check_table doctored "$T/capture.tab" "$T/capture.help" "$T/forgot.print" > "$T/doctored.out"; then
	fail "an option missing from the effective configuration passed"
fi
grep -v -- '^ *on-full=' "$T/dump.help" > "$T/forgot.help"
if check_table doctored "$T/dump.tab" "$T/forgot.help" > "$T/doctored.out"; then
	fail "a --write key missing from --help passed"
fi
grep -q -- "--write: key on-full: no entry of its own in --help" "$T/doctored.out" ||
	fail "checker: $(cat "$T/doctored.out")"
ok "the checker finds a row without help, an option or a key --help leaves out, and an option the print leaves out"
echo "$CHECKS checks passed"
