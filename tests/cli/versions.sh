#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --version everywhere: every tool says its name, this project's version
# (meson.build's, the one owner) and, for the DPDK ones, the DPDK it was
# built with (pkg-config's), exits 0 and starts nothing (no EAL: no
# hugepage, no runtime directory). Man pages (help2man, built from --help
# and --version): one per tool, its version, every option of its table;
# dpdk-ibvcap.ini(5): every INI key of the capture's table, with its
# section; each page rendered by man -l with groff's warnings on, none.
. "$(dirname "$0")/../lib.sh"
set -e
want=$(sed -n "s/^\tversion: '\([^']*\)',/\1/p" "$SRC/meson.build")
dpdk=$(pkg-config --modversion libdpdk)
[ -n "$want" ] || fail "no version in meson.build"
check() { # NAME CMD...
	local name=$1 out
	shift
	out=$("$@" 2>&1) || fail "$name --version: exit $?: $out"
	case "$out" in
	"$name (dpdk-ibvcap) $want"*) ;;
	*) fail "$name --version: '$out', expected '$name (dpdk-ibvcap) $want...'" ;;
	esac
	if [ "$name" != dpdk-ibvcap-stat ] && [ "$name" != dpdk-ibvcap-diagnostics ] &&
	   [ "$name" != dpdk-ibvcap-fleet ] && [ "$name" != dpdk-ibvcap-ctl ] &&
	   [ "$name" != dpdk-ibvcap-agent ] && [ "$name" != dpdk-ibvcap-array ]; then
		case "$out" in
		*"built with DPDK $dpdk") ;;
		*) fail "$name --version: '$out' does not name DPDK $dpdk" ;;
		esac
	fi
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "$name --version: more than one line: $out"
	ok "$name --version: $out"
}
check dpdk-ibvcap "$BUILD/app/dpdk-ibvcap" --version
check dpdk-ibvcap "$BUILD/app/dpdk-ibvcap" -l 0 --file-prefix "${PREFIX}v" -- --version
[ ! -e /var/run/dpdk/"${PREFIX}v" ] || fail "--version after -- started EAL"
check codifgen "$BUILD/app/codifgen" --version
check codifcheck "$BUILD/app/codifcheck/codifcheck" --version
check codifcheck "$BUILD/app/codifcheck/codifcheck" info --version
check dpdk-ibvcap-dump "$BUILD/app/dpdk-ibvcap-dump" --version
check dpdk-ibvcap-stat python3 "$BUILD/app/dpdk-ibvcap-stat" --version
check dpdk-ibvcap-diagnostics "$BUILD/dpdk-ibvcap-diagnostics" --version
check dpdk-ibvcap-fleet python3 "$BUILD/app/dpdk-ibvcap-fleet" --version
check dpdk-ibvcap-ctl python3 "$BUILD/app/dpdk-ibvcap-ctl" --version
check dpdk-ibvcap-agent python3 "$BUILD/app/dpdk-ibvcap-agent" --version
check dpdk-ibvcap-array python3 "$BUILD/app/dpdk-ibvcap-array" --version

# render PAGE NAME: man -l with groff's warnings, a NAME section naming NAME
render() {
	MANWIDTH=80 man --warnings -l "$1" 2> "$T/man.err" > "$T/man.txt" || fail "man -l $1: $(cat "$T/man.err")"
	grep -q "^NAME" "$T/man.txt" && grep -q "^ *$2  *- " "$T/man.txt" ||
		fail "man -l $1: no NAME section naming $2"
	[ ! -s "$T/man.err" ] || fail "man -l $1 warns: $(cat "$T/man.err")"
}

# man pages: every option row (--dump-options) in the page of its tool
command -v help2man >/dev/null || skip "needs help2man (run scripts/setup.sh)"
for tool in dpdk-ibvcap dpdk-ibvcap-dump codifgen codifcheck dpdk-ibvcap-stat dpdk-ibvcap-diagnostics dpdk-ibvcap-fleet dpdk-ibvcap-ctl \
	dpdk-ibvcap-agent dpdk-ibvcap-array; do
	page=$BUILD/app/$tool.1
	[ $tool = dpdk-ibvcap-diagnostics ] && page=$BUILD/man/$tool.1
	[ -s "$page" ] || fail "no man page $page"
	grep -q "^.TH ${tool^^} \"1\" .* \"dpdk-ibvcap $want[,\"]" "$page" ||
		fail "$page: header $(grep '^.TH' "$page")"
	case $tool in
	dpdk-ibvcap) exe=$BUILD/app/dpdk-ibvcap ;;
	codifcheck) exe=$BUILD/app/codifcheck/codifcheck ;;
	dpdk-ibvcap-stat | dpdk-ibvcap-diagnostics | dpdk-ibvcap-fleet | dpdk-ibvcap-ctl | \
	dpdk-ibvcap-agent | dpdk-ibvcap-array) exe= ;;
	*) exe=$BUILD/app/$tool ;;
	esac
	n=0
	if [ -n "$exe" ]; then
		# codifcheck's top page names its commands; their options are in
		# codifcheck CMD --help
		[ "$tool" = codifcheck ] && exe="$exe info"
		while IFS=$'\t' read -r name _ _ where _ hidden _; do
			case $name in \#*) continue ;; esac
			[ "$hidden" = yes ] && continue
			[ "$where" = ini ] && continue # an INI key only
			[ "$tool" = codifcheck ] && continue
			if [ "$where" = key ]; then # a key of an option's KEY=VALUE list
				esc=${name#*.}
				esc=${esc//-/\\-}
				grep -qF -- "$esc=" "$page" || fail "$page lacks the key $name"
				n=$((n + 1))
				continue
			fi
			esc=${name//-/\\-} # help2man writes each - as \-
			grep -qF -- "\\-\\-$esc" "$page" || fail "$page lacks --$name"
			n=$((n + 1))
		done < <($exe --dump-options)
	fi
	how=
	if command -v man > /dev/null; then
		how=", rendered by man -l"
		render "$page" "$tool"
	fi
	ok "$tool.1: version $want, $n options$how"
done
# the diagnostics page: its options from its --help
for o in -o -c -d -s --version; do
	grep -qF -- "${o//-/\\-}" "$BUILD/man/dpdk-ibvcap-diagnostics.1" ||
		fail "dpdk-ibvcap-diagnostics.1 lacks $o"
done

# the configuration file's page: every INI key of the capture's table under
# the [section] it belongs to, its value syntax; rendered
page=$BUILD/man/dpdk-ibvcap.ini.5
[ -s "$page" ] || fail "no man page $page"
grep -q "^.TH DPDK-IBVCAP.INI 5 .* \"dpdk-ibvcap $want\"" "$page" || fail "$page: header $(grep '^.TH' "$page")"
n=0
while IFS=$'\t' read -r name _ kind where section _; do
	case $name in \#*) continue ;; esac
	case +$where+ in *+ini+*) ;; *) continue ;; esac
	esc=${name//-/\\-}
	# the key's entry, and the subsection heading it stands under
	line=$(grep -nF -- "\\fB$esc\\fR = \\fI" "$page" | head -1 | cut -d: -f1)
	[ -n "$line" ] || fail "$page lacks the key $name"
	head -n "$line" "$page" | grep '^\.SS ' | tail -1 | grep -qF "[$section]" ||
		fail "$page: $name not under [$section] ($(head -n "$line" "$page" | grep '^\.SS ' | tail -1))"
	[ "$kind" != flag ] || sed -n "${line}p" "$page" | grep -qF 'yes|no' || fail "$page: flag $name without yes|no"
	n=$((n + 1))
done < <("$BUILD/app/dpdk-ibvcap" --dump-options)
[ $n -ge 30 ] || fail "only $n INI keys in --dump-options"
grep -qF 'write = codif:/var/lib/dpdk\-ibvcap/askap' "$page" || fail "$page: no askap.ini example"
if command -v man > /dev/null; then
	render "$page" dpdk-ibvcap.ini
	grep -q '^SYNTAX' "$T/man.txt" && grep -q '^THE \[eal\] SECTION' "$T/man.txt" &&
		grep -q '^THE COMMAND LINE WINS' "$T/man.txt" && grep -q '^EXAMPLE' "$T/man.txt" ||
		fail "man -l $page: a hand-written section is missing"
fi
ok "dpdk-ibvcap.ini.5: version $want, $n INI keys each under its [section]${how}"
echo "versions: $CHECKS checks passed"
