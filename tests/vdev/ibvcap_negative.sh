#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-ibvcap start-up errors that need EAL: --steer flow with more antennas
# than the port's queues, no port, a missing port, no hugepages, no worker lcore, rules
# demanded where the port has none, GPU memory or buffer split where there
# is none: exit 1, the problem named. And those found before EAL init (the
# host checks --check-config makes too): nothing run, nothing left behind.
. "$(dirname "$0")/../lib.sh"
set -e
C=$BUILD/app/dpdk-ibvcap
EAL="-l 0,1 $EAL_COMMON --no-huge -m 1024 --no-telemetry"
python3 "$SRC/tests/tools/emptypcap.py" "$T/e.pcap"
V="net_pcap0,rx_pcap=$T/e.pcap"
# shellcheck disable=SC2086
{
run_expect_fail "--steer flow, more antennas than queues" 1 \
	"port 0 (net_pcap0) has 1 rx queue; --steer flow needs 7 (6 antennas + 1 default)" \
	"$C" $EAL --vdev "$V" -- --idle-timeout 1s --steer flow
run_expect_fail "no port at all" 1 "no DPDK port: give a device with -a PCI_ADDRESS or --vdev" \
	"$C" $EAL -- --steer software
run_expect_fail "missing port" 1 "--port 4: no such DPDK port (available: 0 (net_pcap0))" \
	"$C" $EAL --vdev "$V" -- --port 4 --steer software
run_expect_fail "--join-iface beyond the probed ports" 1 "--join-iface: port index 2 (lo), but there is only 1 port" \
	"$C" $EAL --vdev "$V" -- --steer software --join-iface 2=lo
run_expect_fail "missing device name" 1 "--port net_ring9: no such DPDK device" \
	"$C" $EAL --vdev "$V" -- --port net_ring9 --steer software
run_expect_fail "no worker lcore" 1 "no worker lcore: the main lcore reports, rx needs at least one more (e.g. -l 0,1)" \
	"$C" -l 0 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev "$V" -- --steer software
run_expect_fail "lcore-map to the main lcore" 1 "lcore 0 is not a worker lcore" \
	"$C" $EAL --vdev "$V" -- --steer software --lcore-map 0.0@0
run_expect_fail "--steer flow on a port without rte_flow" 1 \
	"rte_flow refused the antenna rules (validation of rule 0 failed: Function not implemented); --steer flow needs them" \
	"$C" $EAL --vdev "net_pcap0,rx_pcap=$T/e.pcap,rx_pcap=$T/e.pcap" -- --antennas 1 --steer flow
run_expect_fail "--isolate on a port without rte_flow" 1 "--isolate:" \
	"$C" $EAL --vdev "net_pcap0,rx_pcap=$T/e.pcap,rx_pcap=$T/e.pcap" -- --antennas 1 --isolate
run_expect_fail "bad option after EAL" 1 "unknown option '--bogus'" \
	"$C" $EAL --vdev "$V" -- --bogus
run_expect_fail "--gpu without a GPU device" 1 \
	"--gpu 0: no GPU device 0 (rte_gpu_count_avail() = 0): a gpudev driver must be loaded" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu 0
run_expect_fail "--gpu: the port's buffer-split capability checked first" 1 \
	"--gpu: port 0 (net_pcap0): no buffer split (rx offloads lack BUFFER_SPLIT): payload reaches GPU memory by CPU copy" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu 0
run_expect_fail "--gpu-split on where a port cannot split" 1 \
	"--gpu-split on: port 0 (net_pcap0): no buffer split (rx offloads lack BUFFER_SPLIT); every port must split" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu 0 --gpu-split on
run_expect_fail "--gpu-split off: no split, then the missing device" 1 \
	"--gpu 0: no GPU device 0" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu 0 --gpu-split off
run_expect_fail "--gpu-split without --gpu" 1 \
	"--gpu-split on splits payload into GPU memory: it needs --gpu DEV" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu-split on
run_expect_fail "--zero-copy-split on where a port cannot split" 1 \
	"--zero-copy-split on: port 0 (net_pcap0): no buffer split (rx offloads lack BUFFER_SPLIT); every port must split headers from payload (mlx5 does), or use --zero-copy-split auto (then the rings keep whole mbufs)" \
	"$C" $EAL --vdev "$V" -- --steer software --zero-copy yes --zero-copy-split on
run_expect_fail "--zero-copy-split without --zero-copy" 1 \
	"--zero-copy-split on splits payload into buffers the rings keep: it needs --zero-copy yes" \
	"$C" $EAL --vdev "$V" -- --steer software --zero-copy-split on
run_expect_fail "--gpu-split bad value" 1 "--gpu-split: 'half': expected auto, on or off" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu 0 --gpu-split half
run_expect_fail "--write to a missing directory" 1 "--write codif:$T/nowhere: directory '$T/nowhere' does not exist" \
	"$C" --lcores 0@0,1@1,2@0 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev "$V" -- \
	--steer software --write "codif:$T/nowhere"
run_expect_fail "--write without an lcore of its own" 1 "--write: 1 writer needs an lcore each besides at least one rx lcore" \
	"$C" $EAL --vdev "$V" -- --steer software --write "codif:$T"
run_expect_fail "buffers larger than memory" 1 "more than the 1024 MiB EAL has with --no-huge -m: lower --ring (65536 frames)" \
	"$C" $EAL --vdev "$V" -- --steer software --ring 65536
mkdir -p "$T/nohuge"
run_expect_fail "no hugepages" 1 "memory: no hugepages EAL could use" \
	"$C" -l 0,1 $EAL_COMMON --huge-dir "$T/nohuge" --no-telemetry --vdev "$V" -- --steer software
}
# what --check-config refuses, the start refuses before EAL init (the
# same checks: tests/cli/ibvcap_check_config.sh), so a refused start runs
# nothing and leaves nothing: no hugepage file, no runtime directory
W=(--lcores 0@0,1@1,2@0,3@1 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev "$V" --)
run_expect_fail "--summary-json in a missing directory: refused at start, not after the run" 1 \
	"--summary-json $T/none/s.json: directory '$T/none' does not exist" \
	"$C" "${W[@]}" --steer software --duration 200ms --summary-json "$T/none/s.json"
mkdir "$T/out"
run_expect_fail "two writers whose file names collide" 1 \
	"--write codif:$T/out and --write codif:$T/out/.: both write codif files named ibvcap_* into $T/out" \
	"$C" "${W[@]}" --steer software --duration 200ms --write "codif:$T/out" --write "codif:$T/out/."
run_expect_fail "--config /dev/zero" 1 "--config: '/dev/zero' is a character device: expected a regular file" \
	timeout 20 "$C" "${W[@]}" --steer software --duration 200ms --config /dev/zero
printf '[antennas]\nantenna-ip = 10.0.0.1=a1,255.255.255.255=a2\n' > "$T/bcast.ini"
run_expect_fail "255.255.255.255 as an antenna" 1 "expected a sender's unicast address: 255.255.255.255 is the limited broadcast address" \
	"$C" "${W[@]}" --steer software --duration 200ms --config "$T/bcast.ini"
max=$(cat /proc/sys/net/ipv4/igmp_max_memberships 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -lt 64 ]; then
	# was: the port configured and started, then "cannot join group ...:
	# No buffer space available"
	run_expect_fail "more groups on a port than one socket may join" 1 \
		"port index 0 joins $((max + 1)) groups on lo, more than the kernel lets one socket join" \
		"$C" --lcores 0@0,1@1 $EAL_COMMON --no-huge -m 1024 --no-telemetry --vdev net_null0 -- \
		--steer software --port 0 --join-iface 0=lo --groups $((max + 1)) --no-buffers --duration 200ms
fi
if grep -qs hugetlbfs /proc/mounts; then
	H=(-l 0,1 --no-pci --file-prefix "${PREFIX}h" --no-telemetry --log-level=lib.eal:error --vdev "$V" --)
	run_expect_fail "--reorder-window 100000: 16 GiB per antenna, refused with what to lower" 1 \
		"lower --ring (262144 frames, grown for the reorder window), --reorder-window (100000 frames" \
		"$C" "${H[@]}" --steer software --duration 200ms --reorder-window 100000 --window 131072
	run_expect_fail "--write to a read-only place, on hugepages" 1 \
		"--write raw:/proc/$$: directory '/proc/$$' is not writable" \
		"$C" "${H[@]}" --steer software --duration 200ms --write "raw:/proc/$$"
	expect_eq "hugepage files and runtime directory left by refused starts" \
		"$(find /dev/hugepages -maxdepth 1 -name "${PREFIX}h*" | wc -l) $(ls -d /var/run/dpdk/"${PREFIX}h" 2>/dev/null | wc -l)" "0 0"
fi
grep -q "reserve and mount some (scripts/setup.sh), or run without them: --no-huge -m MiB" <("$C" -l 0,1 $EAL_COMMON --huge-dir "$T/nohuge" \
	--no-telemetry --vdev "$V" -- --steer software 2>&1) || fail "no-hugepages hint missing"
ok "the no-hugepages failure says to check hugepages"
# a clean stop exits 0 (idle timeout on an empty capture... nothing arrives,
# so use --duration)
# shellcheck disable=SC2086
"$C" $EAL --vdev "$V" -- --steer software --duration 200ms --stats-period 0 > "$T/ok.log" 2>&1 ||
	{ cat "$T/ok.log"; fail "clean stop did not exit 0"; }
grep -q "stopped by --duration" "$T/ok.log" || fail "stop reason not reported"
ok "a clean stop exits 0 and says why it stopped"
grep -q '^dpdk-ibvcap: memory: antenna buffers 6 x [0-9,]* bytes .* = [0-9,]* bytes' "$T/ok.log" &&
	grep -q '^dpdk-ibvcap: memory: the capture takes [0-9,]* bytes .*; EAL can have 1,073,741,824 bytes (1.0 GiB) (-m with --no-huge)' "$T/ok.log" ||
	fail "the start does not state the memory: $(grep memory "$T/ok.log")"
ok "the start states the buffers' memory, per antenna and in all, and what EAL has"
echo "$CHECKS checks passed"
