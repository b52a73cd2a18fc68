#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --version everywhere: every tool says its name, this project's version
# (meson.build's, the one owner) and, for the DPDK ones, the DPDK it was
# built with (pkg-config's), exits 0 and starts nothing (no EAL: no
# hugepage, no runtime directory). Man pages (help2man, built from --help
# and --version): one per tool, its version, every option of its table.
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
	if [ "$name" != dpdk-ibvcap-stat ]; then
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

# man pages: every option row (--dump-options) in the page of its tool
command -v help2man >/dev/null || skip "needs help2man (run scripts/setup.sh)"
for tool in dpdk-ibvcap dpdk-ibvcap-dump codifgen codifcheck dpdk-ibvcap-stat; do
	page=$BUILD/app/$tool.1
	[ -s "$page" ] || fail "no man page $page"
	grep -q "^.TH ${tool^^} \"1\" .* \"dpdk-ibvcap $want[,\"]" "$page" ||
		fail "$page: header $(grep '^.TH' "$page")"
	case $tool in
	dpdk-ibvcap) exe=$BUILD/app/dpdk-ibvcap ;;
	codifcheck) exe=$BUILD/app/codifcheck/codifcheck ;;
	dpdk-ibvcap-stat) exe= ;;
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
			esc=${name//-/\\-} # help2man writes each - as \-
			grep -qF -- "\\-\\-$esc" "$page" || fail "$page lacks --$name"
			n=$((n + 1))
		done < <($exe --dump-options)
	fi
	how=
	if command -v man > /dev/null; then
		how=", rendered by man -l"
		MANWIDTH=80 man -l "$page" 2> "$T/man.err" > "$T/man.txt" || fail "man -l $page: $(cat "$T/man.err")"
		grep -q "^NAME" "$T/man.txt" && grep -q "^ *$tool  *- " "$T/man.txt" ||
			fail "man -l $page: no NAME section naming $tool"
		[ ! -s "$T/man.err" ] || fail "man -l $page warns: $(cat "$T/man.err")"
	fi
	ok "$tool.1: version $want, $n options$how"
done
echo "versions: $CHECKS checks passed"
