#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Rewrite the golden screens (tests/golden/TESTLIST -> screens/NAME.out)
# from the build's tools; review `git diff tests/golden/screens` as code.
# Usage: tests/golden/update.sh [BUILDDIR] (default: build)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
BUILD=$(cd "${1:-$src/build}" && pwd) || exit 1
BUILD=$BUILD SRC=$src UPDATE=1 exec bash "$here/screens.sh"
