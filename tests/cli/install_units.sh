#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Deployment: `meson install` into a DESTDIR puts the binaries, systemd
# units, example configurations and docs in standard places; every unit
# passes `systemd-analyze verify`; --check-config accepts the shipped
# configurations and rejects broken ones naming the key.
. "$(dirname "$0")/../lib.sh"
set -e
R=$T/root
DESTDIR=$R meson install -C "$BUILD" --no-rebuild --quiet > "$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "meson install failed"; }
prefix=$(meson introspect "$BUILD" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
P=$R$prefix
for b in dpdk-ibvcap dpdk-ibvcap-dump dpdk-ibvcap-stat dpdk-ibvcap-diagnostics codifgen codifcheck; do
	[ -x "$P/bin/$b" ] || fail "not installed: $prefix/bin/$b"
	"$P/bin/$b" --help > /dev/null 2>&1 || "$P/bin/$b" -h > /dev/null 2>&1 || fail "$b --help fails when installed"
done
ok "six programs in $prefix/bin, each answering --help"
for u in dpdk-ibvcap@.service dpdk-ibvcap-dump@.service dpdk-ibvcap-hugepages.service; do
	f=$P/lib/systemd/system/$u
	[ -f "$f" ] || fail "unit not installed: $f"
	if grep -q '@[A-Z]*@' "$f"; then fail "$u: unsubstituted @VARIABLE@"; fi
done
grep -q "^ExecStart=$prefix/bin/dpdk-ibvcap " "$P/lib/systemd/system/dpdk-ibvcap@.service" ||
	fail "dpdk-ibvcap@.service does not run the installed binary"
ok "three systemd units in $prefix/lib/systemd/system, paths substituted"
for f in askap.ini lab.ini askap.env askap.dump.env hugepages.env sysctl-hugepages.conf; do
	[ -s "$P/share/doc/dpdk-ibvcap/examples/$f" ] || fail "example not installed: $f"
done
for f in README.md architecture.md formats.md operations.md performance.md testing.md codifcheck.md; do
	[ -s "$P/share/doc/dpdk-ibvcap/$f" ] || fail "doc not installed: $f"
done
ok "example configurations and docs in $prefix/share/doc/dpdk-ibvcap"
if command -v help2man > /dev/null; then
	for b in dpdk-ibvcap dpdk-ibvcap-dump dpdk-ibvcap-stat codifgen codifcheck; do
		[ -s "$P/share/man/man1/$b.1" ] || fail "man page not installed: $prefix/share/man/man1/$b.1"
	done
	ok "five man pages in $prefix/share/man/man1"
fi

if command -v systemd-analyze > /dev/null; then
	mkdir -p "$T/units"
	# instances of the templates; binaries taken from the build tree
	for u in dpdk-ibvcap@askap.service dpdk-ibvcap-dump@askap.service dpdk-ibvcap-hugepages.service; do
		src=$(echo "$u" | sed 's/@askap/@/')
		sed -e "s|$prefix/bin/dpdk-ibvcap-dump|$BUILD/app/dpdk-ibvcap-dump|" \
		    -e "s|$prefix/bin/dpdk-ibvcap |$BUILD/app/dpdk-ibvcap |" \
			"$P/lib/systemd/system/$src" > "$T/units/$u"
	done
	(cd "$T/units" && systemd-analyze verify --man=no ./dpdk-ibvcap@askap.service \
		./dpdk-ibvcap-dump@askap.service ./dpdk-ibvcap-hugepages.service) > "$T/verify.log" 2>&1 ||
		{ cat "$T/verify.log"; fail "systemd-analyze verify failed"; }
	[ ! -s "$T/verify.log" ] || { cat "$T/verify.log"; fail "systemd-analyze verify warned"; }
	ok "systemd-analyze verify: all three units clean"
	# and it does catch a broken unit
	sed 's/^KillSignal=SIGINT/KillSignal=SIGBOGUS/' "$T/units/dpdk-ibvcap@askap.service" > "$T/units/broken@x.service"
	(cd "$T/units" && systemd-analyze verify --man=no ./broken@x.service) > "$T/broken.log" 2>&1 || true
	[ -s "$T/broken.log" ] || fail "systemd-analyze verify did not notice a broken unit"
	ok "a broken unit is noticed ($(head -1 "$T/broken.log" | cut -c1-60)...)"
else
	echo "systemd-analyze not present: units not verified" >&2
fi

C=$BUILD/app/dpdk-ibvcap
# the shipped files are for capture hosts (their lcores, directories):
# checked as files here (tests/cli/ibvcap_check_config.sh checks hosts)
for f in askap.ini lab.ini; do
	"$C" --check-config --config "$SRC/config/$f" --skip-host-checks > "$T/$f.out" 2>&1 ||
		{ cat "$T/$f.out"; fail "$f refused"; }
done
grep -q '^antenna-ip = 10.10.0.216=ak06' "$T/askap.ini.out" || fail "askap.ini: antennas not read"
grep -q '^group = 239.17.0.4:36004@1' "$T/askap.ini.out" || fail "askap.ini: groups not read"
grep -q '^write = codif:/var/lib/dpdk-ibvcap/askap,rotate-time=10m' "$T/askap.ini.out" || fail "askap.ini: writer"
grep -q '^isolate = yes' "$T/askap.ini.out" || fail "askap.ini: isolate"
ok "--check-config accepts the shipped askap.ini and lab.ini"
sed 's/^isolate = yes/isolate = perhaps/' "$SRC/config/askap.ini" > "$T/bad1.ini"
run_expect_fail "broken config: bad flag" 1 "bad1.ini: [steering] --isolate: 'perhaps': expected yes or no" \
	"$C" --check-config --config "$T/bad1.ini"
sed 's/^ring = 1s/rings = 1s/' "$SRC/config/askap.ini" > "$T/bad2.ini"
run_expect_fail "broken config: unknown key" 1 "bad2.ini: [buffers] rings = 1s: unknown key" \
	"$C" --check-config --config "$T/bad2.ini"
sed 's/10.10.0.216=ak06/10.10.0.215=ak06/' "$SRC/config/askap.ini" > "$T/bad3.ini"
run_expect_fail "broken config: duplicate antenna" 1 "antenna 4 and antenna 5 have the same source address 10.10.0.215" \
	"$C" --check-config --config "$T/bad3.ini"
sed 's/^write = codif:/write = tape:/' "$SRC/config/askap.ini" > "$T/bad4.ini"
run_expect_fail "broken config: writer format" 1 "format 'tape', expected raw, codif or pcap" \
	"$C" --check-config --config "$T/bad4.ini"
echo "$CHECKS checks passed"
