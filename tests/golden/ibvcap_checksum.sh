#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv4 header checksums checked: codifgen's frames carry correct ones (every
# packet of a clean run passes lib/pkt's check), and its bad-ip-checksum
# fault (one bit of each checksum byte flipped) is counted by dpdk-ibvcap as
# malformed `ip-checksum`, per antenna, in the summary JSON, exactly as many
# as the generator's truth says it sent to each antenna (the frames lost, no
# other cause); codifcheck counts the same offline, and verify names it.
# (No vdev here offers the rx checksum offload: this is the software check.)
. "$(dirname "$0")/../lib.sh"
set -e
EAL="-l 0,1 $EAL_COMMON --no-huge -m 512 --no-telemetry"
LAY="--antennas 2 --groups 2 --threads 2"
pcap_antennas "$T" 2 $LAY --count 300 --seed 11 --bad-ip-checksum 0.05 --loss 0.01
# shellcheck disable=SC2086
"$CAP" $EAL --vdev "$VDEV" -- $LAY --no-buffers --count-packets "$SENT" --idle-timeout 10s \
	--stats-period 0 --summary-json "$T/sum.json" > "$T/cap.log" 2>&1 ||
	{ cat "$T/cap.log"; fail "dpdk-ibvcap failed"; }
python3 "$CMP" "$T/truth.json" "$T/sum.json" --unattributed > "$T/cmp" ||
	{ cat "$T/cmp"; fail "capture counts differ from the truth"; }
ok "capture = truth field by field ($(tail -1 "$T/cmp"))"
# the ground truth by cause, from the truth's own per-stream fault counts
python3 - "$T/truth.json" "$T/sum.json" <<'PY' || fail "ip-checksum by antenna"
import json, sys
t = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
want = {}
for st in t["streams"]:
    want[st["src"]] = want.get(st["src"], 0) + st["faults"]["bad-ip-checksum"]
assert sum(want.values()) > 10, want
got = {a["src"]: a for a in s["antennas"]}
for src, n in want.items():
    by = got[src]["malformed_by_cause"]
    assert by["ip-checksum"] == n, (src, by, n)
    assert got[src]["malformed"] == n, (src, got[src]["malformed"], n)
    assert sum(v for k, v in by.items() if k != "ip-checksum") == 0, by
print(" ".join("%s:%d" % kv for kv in sorted(want.items())))
PY
ok "malformed ip-checksum per antenna = the truth's bad-ip-checksum faults ($(python3 -c '
import json,sys; print(sum(s["faults"]["bad-ip-checksum"] for s in json.load(open(sys.argv[1]))["streams"]))' "$T/truth.json") in all)"

# offline: the same count, and verify names the cause
"$CHK" info --json "$T/sent.pcap" > "$T/info.json" || true
python3 "$CMP" "$T/truth.json" "$T/info.json" --unattributed > "$T/icmp" ||
	{ cat "$T/icmp"; fail "codifcheck info differs from the truth"; }
ok "codifcheck info = truth ($(tail -1 "$T/icmp"))"
rc=0
"$CHK" verify "$T/sent.pcap" > "$T/verify.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "ip-checksum" "$T/verify.log" ||
	{ cat "$T/verify.log"; fail "codifcheck verify: exit $rc, no ip-checksum named"; }
ok "codifcheck verify fails naming ip-checksum"

# a clean run: every packet codifgen builds has a correct checksum
"$GEN" $LAY --count 300 --seed 11 --pcap "$T/clean.pcap" --truth "$T/clean.json" --quiet
"$CHK" info --json "$T/clean.pcap" > "$T/cinfo.json"
python3 - "$T/cinfo.json" <<'PY' || fail "clean run"
import json, sys
s = json.load(open(sys.argv[1]))
for a in s.get("antennas", []):
    assert a["malformed"] == 0, a
print("ok")
PY
ok "a clean codifgen run: no malformed packet (its checksums are right)"
