#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The shipped Prometheus alert rules (config/prometheus/*.rules.yml):
# promtool check rules accepts each file, promtool test rules passes each
# file's synthetic series (*.tests.yml), every alert of a rules file is
# raised by its tests at least once, and a rule broken on purpose makes
# its test fail (the tests can fail).
. "$(dirname "$0")/../lib.sh"
set -e
need_cmd promtool
D=$SRC/config/prometheus
n=0
for r in "$D"/*.rules.yml; do
	b=$(basename "$r" .rules.yml)
	promtool check rules "$r" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "promtool check rules $r"; }
	t=$D/$b.tests.yml
	[ -f "$t" ] || fail "$r has no tests ($t)"
	(cd "$D" && promtool test rules "$b.tests.yml") > "$T/test.out" 2>&1 ||
		{ cat "$T/test.out"; fail "promtool test rules $t"; }
	for a in $(sed -n 's/^ *- alert: *\([A-Za-z0-9_]*\).*/\1/p' "$r"); do
		# a test that expects the alert to fire: its alertname followed by a
		# non-empty exp_alerts list
		awk -v a="$a" '$0 ~ "alertname: " a "$" {want = 1; next}
			want && /exp_alerts: *\[\]/ {want = 0}
			want && /exp_labels:/ {found = 1}
			/alertname:/ {want = 0}
			END {exit !found}' "$t" || fail "$b: alert $a is never expected to fire in $t"
		n=$((n + 1))
	done
	ok "$b: promtool check rules and test rules pass ($(grep -c '^ *- alert:' "$r") alerts, each raised by a test)"
done
[ $n -gt 0 ] || fail "no alert rules in $D"
# a broken rule (IbvcapHostDown never fires) fails its test
mkdir -p "$T/broken"
sed 's/expr: up{job="ibvcap"} == 0/expr: up{job="ibvcap"} == 2/' "$D/ibvcap-array.rules.yml" \
	> "$T/broken/ibvcap-array.rules.yml"
cmp -s "$D/ibvcap-array.rules.yml" "$T/broken/ibvcap-array.rules.yml" && fail "the rule to break was not found"
cp "$D/ibvcap-array.tests.yml" "$T/broken/"
if (cd "$T/broken" && promtool test rules ibvcap-array.tests.yml) > "$T/broken.out" 2>&1; then
	fail "a broken IbvcapHostDown passed its test"
fi
grep -q 'alertname: IbvcapHostDown' "$T/broken.out" || { cat "$T/broken.out"; fail "the failure does not name IbvcapHostDown"; }
ok "a broken rule (IbvcapHostDown never firing) fails promtool test rules"
echo "$CHECKS checks passed"
