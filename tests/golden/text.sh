#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden text: the rows of tests/golden/TESTLIST but the screens
# (screens.sh's) and the capture's (capture.sh's), run by
# tests/golden/golden.sh, each equal byte for byte to out/NAME.out: every
# tool's --help, codifcheck's reports on its corpus and on codifgen's data;
# and no file in out/ that no row names.
# UPDATE=1 (tests/golden/update.sh) rewrites the .out files instead.
. "$(dirname "$0")/../lib.sh"
set -e
. "$(dirname "$0")/golden.sh"
while read -r name tool cols input args; do
	# shellcheck disable=SC2086 # the row's arguments, split as written
	golden_run "$name" "$tool" "$cols" "$input" $args
	golden_check "$name" "$G/out"
	ok "$name: the text = out/$name.out"
done < <(golden_rows text)
[ "$GOLDEN_ROWS" -ge 1 ] || fail "$G/TESTLIST: no rows"
# every golden file is a row's
for f in "$G"/out/*.out; do
	grep -q "^$(basename "$f" .out) " "$G/TESTLIST" || fail "$f: no row of $G/TESTLIST names it"
done
ok "every file of $G/out is a row's"
echo "$CHECKS checks passed"
