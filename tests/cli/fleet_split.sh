#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-ibvcap-fleet split without a device: the shipped array example
# splits into host files dpdk-ibvcap accepts, whose groups partition the
# array's (round-robin; a host's claimed group kept, with its port index;
# host keys after the array's); layouts that cannot be split are refused
# naming why; view over summary files sums an antenna over hosts.
. "$(dirname "$0")/../lib.sh"
set -e
FLEET="python3 $BUILD/app/dpdk-ibvcap-fleet"

$FLEET split "$SRC/config/askap-array.ini" --outdir "$T/ex" --json > "$T/ex.json" ||
	fail "the shipped askap-array.ini does not split"
python3 - "$T/ex.json" <<'PY' || fail "askap-array.ini: not 4 groups to each host, round-robin"
import json, sys
h = {o["host"]: (o["groups"], o["checked"]) for o in json.load(open(sys.argv[1]))["hosts"]}
g = ["239.17.0.%d:%d" % (i, 36000 + i) for i in range(1, 9)]
assert h == {"cap1": (g[0::2], True), "cap2": (g[1::2], True)}, h
PY
for h in cap1 cap2; do
	"$CAP" --check-config "$T/ex/$h.ini" --skip-host-checks > "$T/$h.eff" ||
		fail "dpdk-ibvcap refuses $h.ini"
done
grep -h '^group = ' "$T/ex/cap1.ini" "$T/ex/cap2.ini" | sort > "$T/union"
[ "$(wc -l < "$T/union")" = 8 ] && [ "$(sort -u "$T/union" | wc -l)" = 8 ] ||
	fail "the hosts' groups are not the array's 8, each once: $(cat "$T/union")"
grep -q '^group = 239.17.0.3:36003   # joined on port index 1' "$T/cap1.eff" ||
	fail "cap1: its second group not on its second port: $(grep group "$T/cap1.eff")"
grep -q '^# \[eal\] args = -n 4 -l 0-3 -a 0000:5e:00.0 -a 0000:5e:00.1$' "$T/cap2.eff" ||
	fail "cap2: EAL args not the array's then the host's: $(grep args "$T/cap2.eff")"
ok "askap-array.ini: 8 groups, 4 per host round-robin, spread over each host's 2 ports, args joined"

# Prometheus file-based service discovery: a target per host, which
# promtool accepts as a job's file_sd_configs
$FLEET split "$SRC/config/askap-array.ini" --outdir "$T/sd" --no-check --prom-sd "$T/sd/ibvcap.json" \
	--prom-port 9101 > /dev/null || fail "split --prom-sd"
python3 - "$T/sd/ibvcap.json" <<'PY' || fail "--prom-sd: not one target per host"
import json, sys
sd = json.load(open(sys.argv[1]))
want = [{"targets": ["%s:9101" % h], "labels": {"ibvcap_host": h, "ibvcap_array": "askap-array"}}
        for h in ("cap1", "cap2")]
assert sd == want, sd
PY
if command -v promtool > /dev/null; then
	printf 'scrape_configs:\n  - job_name: ibvcap\n    file_sd_configs:\n      - files: [%s]\n' \
		"$T/sd/ibvcap.json" > "$T/sd/prometheus.yml"
	promtool check config "$T/sd/prometheus.yml" > "$T/sd/check.out" 2>&1 ||
		{ cat "$T/sd/check.out"; fail "promtool check config refuses the targets"; }
	echo '[{"targets": "cap1:9100"}]' > "$T/sd/ibvcap.json"
	if promtool check config "$T/sd/prometheus.yml" > "$T/sd/check2.out" 2>&1; then
		fail "promtool check config accepted a malformed targets file (it does not read it)"
	fi
	ok "split --prom-sd: cap1:9101, cap2:9101 labelled ibvcap_host, ibvcap_array; promtool check config accepts them"
else
	ok "split --prom-sd: cap1:9101, cap2:9101 labelled ibvcap_host, ibvcap_array (no promtool here)"
fi

# a claimed group (with its port), host keys overriding the array's
cat > "$T/claim.ini" <<'EOF'
[groups]
groups = 6
[buffers]
ring = 2048
[host a]
port = 0,1
[host b]
port = 0,1
ring = 4096
group = 239.17.0.1:36001@1,239.17.0.2:36002@1
EOF
$FLEET split "$T/claim.ini" --outdir "$T/claim" > "$T/claim.out" || fail "split claim.ini"
grep -q '^a: 3 groups (239.17.0.3:36003, 239.17.0.4:36004, 239.17.0.5:36005)' "$T/claim.out" &&
	grep -q '^b: 3 groups (239.17.0.1:36001@1, 239.17.0.2:36002@1, 239.17.0.6:36006)' \
		"$T/claim.out" || fail "claimed groups: $(cat "$T/claim.out")"
"$CAP" --check-config "$T/claim/b.ini" --skip-host-checks > "$T/b.eff"
grep -q '^ring = 4096' "$T/b.eff" && grep -q '^group = 239.17.0.1:36001@1' "$T/b.eff" ||
	fail "b.ini: host ring or the claimed port lost: $(grep -E '^(ring|group)' "$T/b.eff")"
ok "a host's claimed groups kept with their port, the rest dealt to the fewest; host keys win"

# refusals, each naming why
printf '[groups]\ngroups = 2\n' > "$T/two.ini"
run_expect_fail "more hosts than groups" 1 "host c gets no group: 3 hosts for 2 groups" \
	$FLEET split "$T/two.ini" --hosts a,b,c --outdir "$T/o"
printf '[groups]\ngroups = 2\n[host a]\ngroup = 239.17.0.1:36001\n[host b]\ngroup = 239.17.0.1:36001\n' \
	> "$T/twice.ini"
run_expect_fail "a group claimed by two hosts" 1 "group 239.17.0.1:36001 is already host a's" \
	$FLEET split "$T/twice.ini" --outdir "$T/o"
printf '[groups]\ngroups = 2\n[host a]\ngroup = 239.17.0.9:36009\n' > "$T/notours.ini"
run_expect_fail "a claimed group not the array's" 1 \
	"group 239.17.0.9:36009 is not one of the array's 2 groups" \
	$FLEET split "$T/notours.ini" --hosts a,b --outdir "$T/o"
printf '[groups]\ngroups = 2\n[host z]\ngroup = 239.17.0.1:36001\n' > "$T/spare.ini"
run_expect_fail "a group claimed by a host not in --hosts" 1 "which is not in --hosts" \
	$FLEET split "$T/spare.ini" --hosts a,b --outdir "$T/o"
printf '[groups]\ngroup = 239.17.0.1:36001@1\n' > "$T/at.ini"
run_expect_fail "a port index in the array's groups" 1 "a port index (@P) is a host's choice" \
	$FLEET split "$T/at.ini" --hosts a --outdir "$T/o"
printf '[groups]\ngroups = 2\n[host a]\ngroup-base = 239.1.0.1\n' > "$T/base.ini"
run_expect_fail "a host redefining the array's groups" 1 "group-base: the array's groups" \
	$FLEET split "$T/base.ini" --outdir "$T/o"
printf '[groups]\ngroups = 2\nbogus = 1\n' > "$T/bad.ini"
run_expect_fail "an array dpdk-ibvcap refuses" 1 "the array is not a valid dpdk-ibvcap" \
	$FLEET split "$T/bad.ini" --hosts a,b --outdir "$T/o"
printf '[groups]\ngroups = 2\n[host a]\nmtu = 99\n' > "$T/badhost.ini"
run_expect_fail "a host file dpdk-ibvcap refuses" 1 "host a: $T/o/a.ini" \
	$FLEET split "$T/badhost.ini" --hosts a,b --outdir "$T/o"
run_expect_fail "a host name that is no file name" 1 "--hosts: 'a/b': expected a host name" \
	$FLEET split "$T/two.ini" --hosts a/b,c --outdir "$T/o"
run_expect_fail "a host given twice" 1 "host 'a' given twice" \
	$FLEET split "$T/two.ini" --hosts a,a --outdir "$T/o"
run_expect_fail "no command" 2 "a command: split or view" $FLEET

# view over summary files: an antenna's figures summed over the hosts
cat > "$T/s1.json" <<'EOF'
{"antennas": [{"antenna": 0, "name": "ak01", "src": "10.0.0.1", "received": 10, "lost": 1,
  "packets": 11, "first_frame_ns": 200, "first_frame_utc": "B", "last_frame_ns": 900,
  "last_frame_utc": "D", "malformed_by_cause": {"not-codif": 1}}],
 "streams": [{"src": "10.0.0.1", "dst": "239.17.0.1", "port": 36001, "groupid": 1,
  "secondaryid": 0, "threadid": 0, "received": 10}]}
EOF
cat > "$T/s2.json" <<'EOF'
{"antennas": [{"antenna": 0, "name": "ak01", "src": "10.0.0.1", "received": 5, "lost": 2,
  "packets": 7, "first_frame_ns": 100, "first_frame_utc": "A", "last_frame_ns": 800,
  "last_frame_utc": "C", "malformed_by_cause": {"not-codif": 2}}],
 "streams": [{"src": "10.0.0.1", "dst": "239.17.0.2", "port": 36002, "groupid": 1,
  "secondaryid": 0, "threadid": 0, "received": 5}]}
EOF
$FLEET view --summary "x=$T/s1.json" --summary "y=$T/s2.json" --json > "$T/v.json" ||
	fail "view over two summaries: exit $?"
python3 - "$T/v.json" <<'PY' || fail "view: not the sum over hosts"
import json, sys
v = json.load(open(sys.argv[1]))
a = v["antennas"][0]
want = {"name": "ak01", "src": "10.0.0.1", "hosts": ["x", "y"], "received": 15, "lost": 3,
        "packets": 18, "first_frame_ns": 100, "first_frame_utc": "A", "last_frame_ns": 900,
        "last_frame_utc": "D", "malformed_by_cause": {"not-codif": 3}}
assert a == want, a
assert len(v["streams"]) == 2 and not v["problems"], v
PY
ok "view: counters summed, earliest first frame, latest last frame, streams of both hosts"
sed 's/10.0.0.1/10.0.0.9/g' "$T/s2.json" > "$T/s3.json"
run_expect_fail "an antenna of two addresses" 1 "antenna ak01 is 10.0.0.9 on host y but 10.0.0.1" \
	$FLEET view --summary "x=$T/s1.json" --summary "y=$T/s3.json"
run_expect_fail "a summary that is not one" 1 "not a dpdk-ibvcap --summary-json file" \
	$FLEET view --summary "$T/ex.json"
echo "$CHECKS checks passed"
