# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2034 # (its variables are the callers')
# Sourced by bench/consumer_rx_bench.sh and bench/consumer_rx_paired.sh (not
# run): the capture they measure and what feeds it, one place for both.
#
# rx_env: the environment's layout, with its defaults (RATE, MODE, SIZE,
#   ANTENNAS, T, RX_CPU, OTHER_CPU; SIZE_SET: SIZE as the caller gave it);
#   ROWS the ring's rows (a smoke run lowers it before rx_check).
# rx_check: those checked (else FAIL and exit 1), the programs found (CAP,
#   GEN, CONS, PLUGIN), ZC for --zero-copy, ringgen's layout (NG groups,
#   SPA streams an antenna, POOL mbufs), MASK of every antenna, and
#   RTG=(chrt -r 11) for ringgen where real-time priorities are allowed
#   (it sleeps between its paced bursts), with prio saying which.
# rx_machine: the machine, its load and the time, a line.

rx_env() {
	RATE=${RATE:-250000}
	MODE=${MODE:-zerocopy}
	SIZE_SET=${SIZE:-}
	SIZE=${SIZE:-8192}
	ROWS=1024
	NANT=${ANTENNAS:-6}
	TB=${T:-64}
	RX_CPU=${RX_CPU:-1}
	OTHER_CPU=${OTHER_CPU:-0}
}

rx_check() {
	local x
	[[ $RATE =~ ^[1-9][0-9]*$ ]] ||
		{ echo "FAIL: RATE=$RATE: expected frames per second, a positive integer" >&2; exit 1; }
	case $MODE in
	zerocopy) ZC=yes ;;
	copy) ZC=no ;;
	*) echo "FAIL: MODE=$MODE: expected zerocopy or copy" >&2; exit 1 ;;
	esac
	if ! [ "$NANT" -ge 1 ] 2>/dev/null || [ "$NANT" -gt 15 ]; then
		echo "FAIL: ANTENNAS=$NANT: expected 1 to 15 (a net_ring queue each)" >&2
		exit 1
	fi
	CAP=$B/app/dpdk-ibvcap
	GEN=$B/bench/ringgen
	CONS=$B/tests/consumer/consumer_read
	PLUGIN=$B/examples/beam_plugin.so
	for x in "$CAP" "$GEN" "$CONS" "$PLUGIN"; do
		[ -e "$x" ] || { echo "FAIL: $x missing: build first (ninja -C $B)" >&2; exit 1; }
	done
	# ringgen's layout: 4 groups x 2 threads (capture_bench's up to 8 antennas)
	NG=4
	SPA=$((NG * 2))
	# zero-copy keeps ringgen's mbufs in the rings: its pool must outlast them
	POOL=$((NANT * ROWS * SPA + 16384))
	MASK=$(python3 -c "print(hex((1 << $NANT) - 1))")
	RTG=() prio="ringgen at normal priority (chrt -r not allowed here)"
	if chrt -r 11 true 2>/dev/null; then
		RTG=(chrt -r 11) prio="ringgen chrt -r 11"
	fi
}

rx_machine() {
	echo "$(nproc --all) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
}
