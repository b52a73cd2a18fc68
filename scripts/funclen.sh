#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# funclen.sh [-n LINES] [PATH...]: list the C functions longer than LINES
# (default 100) under PATH (default app lib), longest first, as
# "LINES FILE:LINE NAME", then the .c/.h files over 1,000 lines.
# Needs universal-ctags (its "end" field gives each function's last line).
set -eu
max=100
if [ "${1:-}" = "-n" ]; then max=$2; shift 2; fi
[ $# -gt 0 ] || set -- app lib
files=$(find "$@" -name '*.[ch]' | sort)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
ctags -x --_xformat='%{line} %{end} %{input} %N' --kinds-C=f --languages=C \
	--langmap=C:.c.h $files |
	awk -v max="$max" '{ n = $2 - $1 + 1; if (n > max) printf "%5d %s:%d %s\n", n, $3, $1, $4 }' |
	sort -rn
# shellcheck disable=SC2086
wc -l $files | awk '$2 != "total" && $1 > 1000 { printf "%5d %s (file)\n", $1, $2 }' | sort -rn
