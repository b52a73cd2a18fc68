# SPDX-License-Identifier: BSD-3-Clause
# What the consumer tests share (sourced after tests/lib.sh): codifgen
# through memif into dpdk-ibvcap on hugepages, 6 antennas x 2 streams of
# 256-byte frames at 1000 frames/s of data time.
need_root
need_hugepages 200
need_cmd dpdk-telemetry.py
READ=$BUILD/tests/consumer/consumer_read
GP=${PREFIX}g
CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
LAYOUT="--groups 1 --threads 2 --antennas 6 --data-bytes 256"
SIG="--nchan 1 --nbits 8 --real --period 1 --total-samples 256000"
FRAME_RATE=1000   # frames per second per stream of data time (SIG's)

# cons_capture GENARGS RING WINDOW [CAPTURE-OPTIONS...]: the frames GENARGS
# will send in N, and the capture of exactly those (its pid CPID, log
# cap.log, summary sum.json); its EAL lcores $CAP_LCORES (default -l 0,1)
cons_capture() {
	# shellcheck disable=SC2086
	"$GEN" $1 --pcap "$T/dry.pcap" --truth "$T/dry.json" --quiet
	N=$(json_get "$T/dry.json" totals sent)
	rm -f "$T/dry.pcap" "$SOCK" # a capture before this one left its socket
	# shellcheck disable=SC2086
	"$CAP" ${CAP_LCORES:--l 0,1} --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
		--vdev "net_memif0,role=server,$MEMIF" -- $LAYOUT --frame-rate "$FRAME_RATE" --stats-period 0 \
		--count-packets "$N" --idle-timeout 30s --ring "$2" --reorder-window "$3" \
		--summary-json "$T/sum.json" "${@:4}" > "$T/cap.log" 2>&1 &
	CPID=$!
	CLEANUP_PIDS+=("$CPID")
	wait_started "$T/cap.log" 30 "primary did not start"
}

# cons_start NAME LOG ARGS...: consumer_read NAME in the background (its
# pid RPID, figures NAME.json), once it says it attached
cons_start() {
	local name=$1 log=$2
	shift 2
	"$READ" -i "$PREFIX" -n "$name" "$@" > "$T/$name.json" 2> "$log" &
	RPID=$!
	CLEANUP_PIDS+=("$RPID")
	wait_for_line "$log" 30 'attached to' || { cat "$log"; fail "consumer $name did not attach"; }
}

# cons_run GENARGS RATE: send (pcap sent.pcap, truth truth.json), wait for
# the capture (exit status $CAP_STATUS, default 0) and the consumer RPID to
# end (0), stop the sender and compare the capture's counts with the truth
cons_run() {
	# shellcheck disable=SC2086
	"$GEN" -l 1 --no-pci --file-prefix="$GP" --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,$MEMIF" -- --tx-port 0 --queue-per-antenna $1 \
		--rate-fps "$2" --linger 60s --pcap "$T/sent.pcap" --truth "$T/truth.json" \
		> "$T/gen.log" 2>&1 &
	GPID=$!
	CLEANUP_PIDS+=("$GPID")
	local st=0
	wait "$CPID" || st=$?
	[ "$st" = "${CAP_STATUS:-0}" ] ||
		{ cat "$T/cap.log"; fail "primary exit status $st, expected ${CAP_STATUS:-0}"; }
	wait "$RPID" || { cat "$T"/*.log; fail "consumer exit status"; }
	kill -INT "$GPID" 2>/dev/null || true
	wait "$GPID" 2>/dev/null || true
	python3 "$CMP" "$T/truth.json" "$T/sum.json" > "$T/cmp" || { head "$T/cmp"; fail "capture counts"; }
}

# cons_check NAME MODE [ARGS]: check_blocks.py over consumer NAME's records
cons_check() {
	python3 "$SRC/tests/consumer/check_blocks.py" "$T/$1.recs" "$T/sent.pcap" "$T/truth.json" \
		"$T/$1.json" "${@:2}" > "$T/check" || { cat "$T/check" "$T/$1.json"; fail "$1's blocks vs sent"; }
	ok "$(cat "$T/check")"
}
