#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The shipped Prometheus alerting rules (config/prometheus): promtool
# accepts them, and its unit test (config/prometheus/dpdk-ibvcap.tests.yml) shows each
# alert firing on the series the export writes -- frames lost (a 2 s
# outage), a timeline resync and the frames it skipped, frames received but
# recorded nowhere, malformed packets by cause, a sampler's wrong levels --
# and quiet when they stop growing. Every ibvcap_ metric the rules name is one docs/counters.md
# documents (its naming rule), so a renamed figure fails here.
. "$(dirname "$0")/../lib.sh"
set -e
command -v promtool > /dev/null || skip "promtool not installed (Debian: prometheus; scripts/setup.sh --test)"
R=$SRC/config/prometheus/dpdk-ibvcap.rules.yml
promtool check rules "$R" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "promtool check rules"; }
ok "promtool check rules: $(grep -o '[0-9]* rules found' "$T/check.out")"
(cd "$SRC/config/prometheus" && promtool test rules dpdk-ibvcap.tests.yml) > "$T/test.out" 2>&1 ||
	{ cat "$T/test.out"; fail "promtool test rules"; }
ok "promtool test rules: lost, resyncs, resync_skipped, not_recorded, malformed by cause fire, and stop"
python3 "$SRC/tests/tools/promcounters.py" --names "$SRC/docs/counters.md" /dev/null > "$T/names"
grep -o 'ibvcap_[a-z0-9_]*' "$R" | sort -u > "$T/used"
missing=$(grep -vxF -f "$T/names" "$T/used" || true)
[ -z "$missing" ] || fail "metrics the rules name that docs/counters.md does not: $missing"
ok "every metric the rules name is a docs/counters.md figure ($(wc -l < "$T/used") names)"
