#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# libibvcap as a user gets it from `meson install`: into a DESTDIR tree,
# the header, libibvcap.so.1 (soname, only ibvcap_* exported, symbol
# version IBVCAP_1), libibvcap.pc, ibvcap(3) and the Python module; a
# program compiled with `pkg-config --cflags --libs libibvcap` against that
# tree links and runs; `import ibvcap` from its dist-packages loads the
# installed library; both refuse a capture that is not there, naming it.
. "$(dirname "$0")/../lib.sh"
set -e
need_cmd pkg-config
need_cmd cc
R=$T/root
DESTDIR=$R meson install -C "$BUILD" --no-rebuild --quiet > "$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "meson install"; }
LIBDIR=$(pkg-config --variable=libdir libdpdk)
for f in /usr/include/ibvcap.h "$LIBDIR/libibvcap.so.1" "$LIBDIR/libibvcap.so" \
	"$LIBDIR/pkgconfig/libibvcap.pc" /usr/share/man/man3/ibvcap.3 \
	/usr/lib/python3/dist-packages/ibvcap.py; do
	[ -e "$R$f" ] || fail "not installed: $f"
done
ok "installed: ibvcap.h, libibvcap.so.1, libibvcap.pc, ibvcap(3), ibvcap.py"
expect_eq "soname" "$(objdump -p "$R$LIBDIR/libibvcap.so.1" | awk '/SONAME/ {print $2}')" libibvcap.so.1
other=$(nm -D --defined-only "$R$LIBDIR/libibvcap.so.1" | awk '$3 !~ /^ibvcap_/ && $3 != "IBVCAP_1" {print $3}')
expect_eq "symbols exported beyond ibvcap_*" "$other" ""
nm -D --defined-only "$R$LIBDIR/libibvcap.so.1" | grep -q ' ibvcap_acquire@@IBVCAP_1$' ||
	fail "ibvcap_acquire is not versioned IBVCAP_1"
ok "only ibvcap_* exported, versioned IBVCAP_1"
man -l "$R/usr/share/man/man3/ibvcap.3" 2>/dev/null | grep -q 'ibvcap_acquire' ||
	fail "ibvcap(3) does not render"
ok "ibvcap(3) renders"

cat > "$T/hello.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <ibvcap.h>

int main(int argc, char **argv)
{
	char err[512];
	struct ibvcap *c;

	printf("libibvcap %s, ABI %d\n", ibvcap_version(), IBVCAP_ABI);
	c = ibvcap_open(argv[1], "hello", 0, err, sizeof(err));
	if (c != NULL)
		return 1;
	printf("%s: %s\n", strerror(errno), err);
	return argc == 2 ? 0 : 1;
}
C
# a sanitized build's library needs its runtimes: the program is built
# with them too, Python gets them preloaded; EAL's own allocations at a
# failed attach are not this library's leaks
SAN=$(meson introspect "$BUILD" --buildoptions | python3 -c 'import json, sys
print([o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"][0])')
SANFLAGS=
PRELOAD=
if [ "$SAN" != none ]; then
	SANFLAGS="-fsanitize=$SAN"
	case $SAN in *address*) PRELOAD="$PRELOAD $(cc -print-file-name=libasan.so)" ;; esac
	case $SAN in *undefined*) PRELOAD="$PRELOAD $(cc -print-file-name=libubsan.so)" ;; esac
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
export PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_PATH=$R$LIBDIR/pkgconfig
# shellcheck disable=SC2046,SC2086
cc $SANFLAGS -o "$T/hello" "$T/hello.c" $(pkg-config --cflags --libs libibvcap) ||
	fail "cannot build against the installed tree with pkg-config"
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
LD_LIBRARY_PATH=$R$LIBDIR "$T/hello" "${PREFIX}none" > "$T/hello.out" 2>&1 ||
	{ cat "$T/hello.out"; fail "the program built with pkg-config"; }
grep -q "^libibvcap 1.0.0, ABI 1$" "$T/hello.out" || { cat "$T/hello.out"; fail "version line"; }
grep -q "instance '${PREFIX}none': cannot attach" "$T/hello.out" || { cat "$T/hello.out"; fail "refusal"; }
ok "a program built with pkg-config --cflags --libs libibvcap runs: $(grep "^libibvcap" "$T/hello.out"); refuses a capture not there by name"
LD_PRELOAD=${PRELOAD# } PYTHONPATH=$R/usr/lib/python3/dist-packages IBVCAP_LIB=$R$LIBDIR/libibvcap.so.1 \
	python3 - "${PREFIX}nopy" > "$T/py.out" 2>&1 <<'PY' || { cat "$T/py.out"; fail "import ibvcap"; }
import sys
import ibvcap
assert ibvcap.__file__.endswith("dist-packages/ibvcap.py"), ibvcap.__file__
print(ibvcap.version())
try:
    ibvcap.open(sys.argv[1], "py")
except ibvcap.IbvcapError as e:
    print(e)
    assert "cannot attach" in str(e) and sys.argv[1] in str(e)
else:
    raise SystemExit("opened a capture that is not there")
PY
ok "import ibvcap from the installed dist-packages: $(head -1 "$T/py.out"), refuses a capture not there by name"
