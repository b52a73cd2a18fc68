#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-ibvcap start-up errors that need EAL: --steer flow with more antennas
# than the port's queues, no port, a missing port, no hugepages, no worker lcore, rules
# demanded where the port has none, GPU memory or buffer split where there
# is none: exit 1, the problem named.
. "$(dirname "$0")/../lib.sh"
set -e
C=$BUILD/app/dpdk-ibvcap
EAL="-l 0,1 $EAL_COMMON --no-huge -m 512 --no-telemetry"
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
run_expect_fail "--join-iface beyond the probed ports" 1 "--join-iface: port index 2 (eth9), but there is only 1 port" \
	"$C" $EAL --vdev "$V" -- --steer software --join-iface 2=eth9
run_expect_fail "missing device name" 1 "--port net_ring9: no such DPDK device" \
	"$C" $EAL --vdev "$V" -- --port net_ring9 --steer software
run_expect_fail "no worker lcore" 1 "no worker lcore: the main lcore reports, rx needs at least one more (e.g. -l 0,1)" \
	"$C" -l 0 $EAL_COMMON --no-huge -m 512 --no-telemetry --vdev "$V" -- --steer software
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
run_expect_fail "--gpu-split bad value" 1 "--gpu-split: 'half': expected auto, on or off" \
	"$C" $EAL --vdev "$V" -- --steer software --gpu 0 --gpu-split half
run_expect_fail "--write to a missing directory" 1 "output directory '$T/nowhere': No such file or directory" \
	"$C" --lcores 0@0,1@1,2@0 $EAL_COMMON --no-huge -m 512 --no-telemetry --vdev "$V" -- \
	--steer software --write "codif:$T/nowhere"
run_expect_fail "--write without an lcore of its own" 1 "--write: 1 writer needs an lcore each besides at least one rx lcore" \
	"$C" $EAL --vdev "$V" -- --steer software --write "codif:$T"
run_expect_fail "buffers larger than memory" 1 "hugepages exhausted? reserve more, or a smaller --ring" \
	"$C" $EAL --vdev "$V" -- --steer software --ring 65536
mkdir -p "$T/nohuge"
run_expect_fail "no hugepages" 1 "EAL initialisation failed" \
	"$C" -l 0,1 $EAL_COMMON --huge-dir "$T/nohuge" --no-telemetry --vdev "$V" -- --steer software
}
grep -q "hugepages reserved and mounted" <("$C" -l 0,1 $EAL_COMMON --huge-dir "$T/nohuge" \
	--no-telemetry --vdev "$V" -- --steer software 2>&1) || fail "no-hugepages hint missing"
ok "the no-hugepages failure says to check hugepages"
# a clean stop exits 0 (idle timeout on an empty capture... nothing arrives,
# so use --duration)
# shellcheck disable=SC2086
"$C" $EAL --vdev "$V" -- --steer software --duration 200ms --stats-period 0 > "$T/ok.log" 2>&1 ||
	{ cat "$T/ok.log"; fail "clean stop did not exit 0"; }
grep -q "stopped by --duration" "$T/ok.log" || fail "stop reason not reported"
ok "a clean stop exits 0 and says why it stopped"
echo "$CHECKS checks passed"
