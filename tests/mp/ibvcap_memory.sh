#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The memory the capture states is the memory it takes: for the defaults
# (6 antennas), 64 antennas (rings of 256 frames: what setup.sh --test
# reserves) and --zero-copy yes, the start-up line "the
# capture takes N bytes of 2 MiB pages" against the hugepages gone from
# HugePages_Free - HugePages_Rsvd between before the start and once it is
# capturing (net_pcap of a two-frame pcap: its rings and pools allocated,
# nothing else running), within 2 %; --check-config states the same N.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 900 # 64 antennas of 256-frame rings: ~1.4 GiB of 2 MiB pages
[ "$(awk '/Hugepagesize/ {print $2}' /proc/meminfo)" = 2048 ] || skip "the default hugepage size is not 2 MiB"
"$GEN" --antennas 1 --groups 1 --threads 1 --count 2 --pcap "$T/one.pcap" --quiet || fail "codifgen"
avail() { awk '/HugePages_Free/ {f = $2} /HugePages_Rsvd/ {r = $2} END {print f - r}' /proc/meminfo; }
for setting in "defaults:" "64 antennas:--antennas 64 --ring 256" "zero-copy:--zero-copy yes"; do
	name=${setting%%:*} args=${setting#*:}
	# shellcheck disable=SC2086
	"$CAP" --lcores 0@0,1@1 --no-pci --file-prefix="$PREFIX" --check-config -- $args \
		> "$T/check.txt" 2>&1 || { cat "$T/check.txt"; fail "$name: --check-config"; }
	before=$(avail)
	# shellcheck disable=SC2086
	"$CAP" --lcores 0@0,1@1 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
		--vdev "net_pcap0,rx_pcap=$T/one.pcap" -- $args --stats-period 0 --duration 60s \
		> "$T/cap.log" 2>&1 &
	CPID=$!
	CLEANUP_PIDS+=("$CPID")
	wait_started "$T/cap.log" 60 "$name: no start"
	sleep 0.5
	after=$(avail)
	kill -INT "$CPID"
	wait "$CPID" || { tail "$T/cap.log"; fail "$name: exit status"; }
	stated=$(sed -n 's/^dpdk-ibvcap: memory: the capture takes \([0-9,]*\) bytes .*/\1/p' "$T/cap.log" | tr -d ,)
	checked=$(sed -n 's/.*memory: the capture takes \([0-9,]*\) bytes .*/\1/p' "$T/check.txt" | tr -d ,)
	[ -n "$stated" ] || { grep memory "$T/cap.log"; fail "$name: no 'the capture takes' line"; }
	[ "$checked" = "$stated" ] || fail "$name: --check-config states $checked bytes, the start $stated"
	taken=$(((before - after) * 2097152))
	python3 - "$name" "$stated" "$taken" <<'PY' || { grep memory "$T/cap.log"; fail "$name: stated vs taken"; }
import sys
name, stated, taken = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
err = (stated - taken) / taken
print("%s: stated %.1f MiB, taken %.1f MiB (%+.2f %%)" % (name, stated / 2**20, taken / 2**20, 100 * err))
sys.exit(abs(err) > 0.02)
PY
	ok "$name: $(python3 -c 'import sys; s, t = int(sys.argv[1]), int(sys.argv[2]); print("stated %.1f MiB = taken %.1f MiB %+.2f %% (HugePages_Free)" % (s / 2**20, t / 2**20, 100 * (s - t) / t))' "$stated" "$taken")"
done
echo "$CHECKS checks passed"
