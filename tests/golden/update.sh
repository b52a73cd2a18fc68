#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Rewrite the golden text (every row of tests/golden/TESTLIST ->
# out/NAME.out) from the build's tools; then review
# `git diff tests/golden/out` as code: each changed line is a change the
# users see. The capture's rows need DPDK (no hugepages), as their test.
# Usage: tests/golden/update.sh [BUILDDIR] (default: build)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
BUILD=$(cd "${1:-$src/build}" && pwd) || exit 1
export BUILD SRC=$src UPDATE=1
bash "$here/screens.sh" && bash "$here/text.sh" && bash "$here/capture.sh"
