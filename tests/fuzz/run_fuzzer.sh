#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run a libFuzzer target for a bounded time on a scratch copy of its corpus
# (the committed corpus is read, never written). Fails on any crash.
set -euo pipefail
bin=$1 corpus=$2 secs=${FUZZ_SECONDS:-45}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$work/" "$work" "$corpus" 2>&1 | tail -n 5
status=${PIPESTATUS[0]}
if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* >/dev/null 2>&1; then
	echo "fuzzer found a failing input:" "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null
	exit 1
fi
exit "$status"
