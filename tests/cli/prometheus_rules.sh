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
# a broken rule fails its test: ALERT, what is broken, the sed expression
# that breaks it in ibvcap-array.rules.yml
broken() {
	local a=$1 what=$2 expr=$3 d=$T/broken-$1
	mkdir -p "$d"
	sed "$expr" "$D/ibvcap-array.rules.yml" > "$d/ibvcap-array.rules.yml"
	cmp -s "$D/ibvcap-array.rules.yml" "$d/ibvcap-array.rules.yml" && fail "$a: the rule to break was not found"
	cp "$D/ibvcap-array.tests.yml" "$d/"
	if (cd "$d" && promtool test rules ibvcap-array.tests.yml) > "$d/out" 2>&1; then
		fail "a broken $a ($what) passed its test"
	fi
	grep -q "alertname: $a," "$d/out" || { cat "$d/out"; fail "the failure does not name $a"; }
	ok "a broken rule ($a: $what) fails promtool test rules"
}
broken IbvcapHostDown "never firing" 's/expr: up{job="ibvcap"} == 0/expr: up{job="ibvcap"} == 2/'
broken IbvcapNotRecorded "firing on a counter that stands still" \
	's/(rate(ibvcap_antenna_not_recorded_frames_total\[5m\])) > 0/(rate(ibvcap_antenna_not_recorded_frames_total[5m])) >= 0/'
broken IbvcapDataClockOffset "1 s where the host exports its own --clock-warn" \
	's/ unless on (instance, instance_prefix) ibvcap_data_clock_warn_seconds$//'
echo "$CHECKS checks passed"
