#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up (packages, hugepages, build) and run the whole test suite:
#   1. every suite on the -Werror build (unit, fuzz replay, cli, golden,
#      vdev, mp, netns, ...);
#   2. unit, fuzz-replay, cli and codifcheck again under ASan/UBSan;
#   3. the libFuzzer target for a bounded time (clang);
#   4. the README's demo (scripts/demo.sh), counted as one test.
# Ends with the line "N passed, N failed"; exit 0 only when none failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/setup.sh" --test || { echo "0 passed, 1 failed"; exit 1; }

logs=()
build_failures=()
stage_start=0
stage_done() { # what: its wall time, so a slow CI tells where it went
	echo "=== $1: $((SECONDS - stage_start)) s (total $SECONDS s)"
	stage_start=$SECONDS
}
stage_done "set-up and build"
run_suite() { # builddir, meson test args...
	local dir=$1
	shift
	echo "=== meson test -C $dir $*"
	# a stale log must never stand in for a run that did not happen
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --print-errorlogs "$@" | grep -vE '^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): '
	logs+=("$dir/meson-logs/testlog.json")
	stage_done "meson test -C $dir"
}
build() { # builddir: a failed build is a failed test
	ninja -C "$1" >/dev/null 2>&1 || { ninja -C "$1"; build_failures+=("build of $1 failed"); }
}

run_suite build --no-suite fuzzer

# the cli suite's install walkthrough installs as docs/operations.md does:
# prefix /usr, configuration in /etc (setup.sh configures build/ so)
if [ ! -f build-asan/build.ninja ]; then
	meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true \
		--prefix=/usr --sysconfdir=/etc >/dev/null
else
	meson configure build-asan --prefix=/usr --sysconfdir=/etc >/dev/null
fi
build build-asan
stage_done "build-asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	run_suite build-asan --suite unit --suite fuzz --suite cli --suite codifcheck

if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null
fi
# only the fuzz targets: meson test builds what its tests need (the
# whole tree is built twice above already)
run_suite build-fuzz --suite fuzzer

# the README's first command, as a newcomer runs it (its set-up is done)
echo "=== README demo: scripts/demo.sh"
if "$ROOT/scripts/demo.sh" > build/demo.log 2>&1; then
	grep -E '^(compare|verify):' build/demo.log
	demo=PASS:demo
	# a demo that works shows no error line (net_pcap's re-probe in the
	# writer process was one: lib/quirks)
	if grep -E "Couldn't open|probe failed|^EAL: .*([Ff]ail|[Ee]rror)" build/demo.log; then
		demo="BUILD:README demo (scripts/demo.sh) printed error lines: build/demo.log"
	fi
else
	tail -20 build/demo.log
	demo="BUILD:README demo (scripts/demo.sh) failed: build/demo.log"
fi
stage_done "README demo"

python3 - "$demo" "${build_failures[@]/#/BUILD:}" "${logs[@]}" <<'PY'
import json, sys
passed = failed = skipped = 0
names = []
for path in sys.argv[1:]:
    if path.startswith("PASS:"):
        passed += 1
        continue
    if path.startswith("BUILD:"):
        failed += 1
        names.append(path[6:])
        continue
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        names.append("no test results in %s (the suite did not run)" % path)
        continue
    for line in lines:
        r = json.loads(line)
        res = r["result"]
        out = (r.get("stdout") or "") + (r.get("stderr") or "")
        if res in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif res == "SKIP":
            skipped += 1
            why = [l for l in out.splitlines() if l.startswith("SKIP")]
            names.append("skipped: %s%s" % (r["name"], (" (" + why[-1] + ")") if why else ""))
        else:
            failed += 1
            names.append("%s: %s (%s)" % (res, r["name"], path.split("/")[0]))
            # the failure's last words, so a CI log alone tells what broke
            names.extend("    " + l for l in out.splitlines()[-8:])
for n in names:
    print(n)
if skipped:
    print("%d skipped (missing environment; see their logs)" % skipped)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
