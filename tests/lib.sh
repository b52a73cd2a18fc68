# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the shell tests. Each test sources this; BUILD and SRC come
# from meson (env), T is the test's scratch directory, removed at exit with
# everything the test registered for cleanup (processes by pid, namespaces,
# hugepage files of its own --file-prefix).

set -u
: "${BUILD:?BUILD must point at the build directory}"
: "${SRC:?SRC must point at the source directory}"
T=$(mktemp -d /tmp/ibvcap-test.XXXXXX)
TEST_NAME=$(basename "$0" .sh)
PREFIX="ibvt$$"             # unique DPDK --file-prefix / namespace prefix
CLEANUP_PIDS=()
CLEANUP_NETNS=()
CLEANUP_CMDS=()
CHECKS=0
# python3 is Debian's, as the tools run in production (/usr/bin/python3 with
# the python3-* packages scripts/setup.sh installs): a python3 earlier on
# PATH (a pyenv shim, seconds a call on a loaded host) is not what ships
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$T/bin"
	ln -s /usr/bin/python3 "$T/bin/python3"
	PATH="$T/bin:$PATH"
fi

cleanup() {
	local pid ns c
	for pid in "${CLEANUP_PIDS[@]+"${CLEANUP_PIDS[@]}"}"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.3
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
	done
	for c in "${CLEANUP_CMDS[@]+"${CLEANUP_CMDS[@]}"}"; do
		eval "$c" >/dev/null 2>&1 || true
	done
	for ns in "${CLEANUP_NETNS[@]+"${CLEANUP_NETNS[@]}"}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	# hugepage and runtime files of our own prefixes only: ibvt123 and
	# ibvt123g..., never ibvt1234's (another test's pid)
	rm -f /dev/hugepages/"$PREFIX"[!0-9]* 2>/dev/null || true
	rm -rf /var/run/dpdk/"$PREFIX" /var/run/dpdk/"$PREFIX"[!0-9]* 2>/dev/null || true
	if [ "${KEEP_T:-0}" = 1 ]; then
		echo "scratch kept in $T" >&2
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT

fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $TEST_NAME: $*" >&2
	exit 77
}

ok() { # the test's seconds so far: a test meson killed at its limit tells where it was
	CHECKS=$((CHECKS + 1))
	echo "ok $CHECKS - $* [${SECONDS} s]"
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	ok "$1 = $3"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

need_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip "needs $1 (run scripts/setup.sh --test)"
}

# Free 2 MiB hugepages, and a mounted hugetlbfs.
need_hugepages() {
	local want=${1:-256} free
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	grep -qs hugetlbfs /proc/mounts || skip "no hugetlbfs mounted (run scripts/setup.sh)"
	[ "${free:-0}" -ge "$want" ] || skip "needs $want free hugepages, $free free (run scripts/setup.sh)"
}

need_netns() {
	need_root
	need_cmd ip
	ip netns add "${PREFIX}probe" 2>/dev/null || skip "cannot create network namespaces"
	ip netns del "${PREFIX}probe"
}

# run_expect_fail NAME EXPECTED_RC MESSAGE_SUBSTRING CMD...
# The command must exit with EXPECTED_RC (or any non-zero for '!0') and
# print MESSAGE_SUBSTRING on stderr/stdout.
run_expect_fail() {
	local name=$1 want=$2 msg=$3 rc out
	shift 3
	set +e
	out=$("$@" 2>&1)
	rc=$?
	set -e
	if [ "$want" = '!0' ]; then
		[ "$rc" -ne 0 ] || fail "$name: exit 0, expected failure; output: $out"
	else
		[ "$rc" -eq "$want" ] || fail "$name: exit $rc, expected $want; output: $out"
	fi
	case "$out" in
	*"$msg"*) ;;
	*) fail "$name: message lacks '$msg'; got: $out" ;;
	esac
	ok "$name (exit $rc: ${msg})"
}

# json_get FILE KEY...: the value under KEY... in the JSON of FILE (- for
# stdin), a list's KEY a number, printed as Python prints it (a list as
# ['a', 'b']). The truth's frames sent: json_get "$T/truth.json" totals sent
json_get() {
	python3 -c 'import json, sys
f = sys.argv[1]
v = json.load(sys.stdin if f == "-" else open(f))
for k in sys.argv[2:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$@"
}

# json_eval FILE EXPR: a Python expression over the JSON of FILE, bound to
# j, printed: json_eval "$T/report.json" '(j["result"], j["frames"])'
json_eval() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$@"
}

# packets_in N TRIES: ask this test's primary (--file-prefix $PREFIX) for
# /ibvcap/stats every 0.1 s, at most TRIES times, until it counts N packets;
# prints the last count (empty if it never answered) for the caller to
# assert: got=$(packets_in "$n" 600); expect_eq "packets in" "$got" "$n"
packets_in() {
	local want=$1 tries=$2 got='' i
	for ((i = 0; i < tries; i++)); do
		got=$(python3 "$SRC/app/dpdk-ibvcap-stat/dpdk-ibvcap-stat.py" --file-prefix "$PREFIX" \
			--query /ibvcap/stats 2>/dev/null | json_get - packets 2>/dev/null || true)
		[ "$got" = "$want" ] && break
		sleep 0.1
	done
	echo "$got"
}

# Wait (up to $2 s) until file $1 has a line matching $3.
wait_for_line() {
	local f=$1 t=$2 re=$3 i
	for ((i = 0; i < t * 10; i++)); do
		grep -qE "$re" "$f" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# wait_started LOG SECONDS MESSAGE: wait (up to SECONDS) until the capture
# whose output is LOG says 'capturing on'; else print LOG and fail with
# MESSAGE.
wait_started() {
	wait_for_line "$1" "$2" 'capturing on' || { cat "$1"; fail "$3"; }
}

# A dpdk-ibvcap-dump attached to this test's primary ($PREFIX), its stderr
# in $1, the rest its arguments; its pid in DPID, registered for cleanup.
start_dump() {
	local log=$1
	shift
	"$BUILD/app/dpdk-ibvcap-dump" --file-prefix "$PREFIX" "$@" 2> "$log" &
	DPID=$!
	CLEANUP_PIDS+=("$DPID")
	wait_for_line "$log" 30 'attached to' || { cat "$log"; fail "dump did not attach: $*"; }
}

# codifgen's traffic as the net_pcap replay the golden tests capture: in
# DIR, sent.pcap (all of it) and truth.json (its truth), a$A.pcap per
# antenna (one rx queue each) and, last, an empty pcap for the default
# queue; sets VDEV to the net_pcap0 argument and SENT to the frames sent.
#   pcap_antennas DIR NANT CODIFGEN-ARGS...
pcap_antennas() {
	local dir=$1 nant=$2 a
	shift 2
	"$GEN" "$@" --pcap "$dir/sent.pcap" --truth "$dir/truth.json" --quiet
	VDEV=net_pcap0
	for ((a = 0; a < nant; a++)); do
		"$GEN" "$@" --antenna $a --pcap "$dir/a$a.pcap" --quiet
		VDEV="$VDEV,rx_pcap=$dir/a$a.pcap"
	done
	[ -s "$T/empty.pcap" ] || python3 "$SRC/tests/tools/emptypcap.py" "$T/empty.pcap"
	VDEV="$VDEV,rx_pcap=$T/empty.pcap"
	# shellcheck disable=SC2034 # for the caller
	SENT=$(json_get "$dir/truth.json" totals sent)
}

# A recording test's capture, fed by codifgen through memif on hugepages,
# its data time starting T0, 10 minutes ahead of the wall clock (every scan
# asked for is in the future): sets CTL (dpdk-ibvcap-ctl on this primary),
# GP (the generator's file prefix, cleaned up), SOCK, MEMIF and T0; then
# `utc MS` and `ns MS` give T0 + MS milliseconds as UTC and Unix ns.
record_setup() {
	CTL="python3 $BUILD/app/dpdk-ibvcap-ctl --file-prefix $PREFIX"
	GP=${PREFIX}g
	CLEANUP_CMDS+=("rm -f /dev/hugepages/${GP}*; rm -rf /var/run/dpdk/${GP}")
	SOCK=$T/memif.sock
	MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
	T0=$(($(date +%s) + 600))
}
utc() { utc_ms "$T0" "$1"; }
ns() { echo $(((T0 * 1000 + $1) * 1000000)); }

# The UTC (ISO-8601, milliseconds) of Unix second $1 + $2 milliseconds.
utc_ms() {
	python3 -c 'import datetime,sys; t=int(sys.argv[1])*1000+int(sys.argv[2]); print(datetime.datetime.utcfromtimestamp(t//1000).strftime("%Y-%m-%dT%H:%M:%S")+".%03dZ" % (t%1000))' "$1" "$2"
}

EAL_COMMON="--no-pci --file-prefix=$PREFIX --log-level=lib.eal:error"

# the programs under test and the independent checkers
GEN=$BUILD/app/codifgen
CAP=$BUILD/app/dpdk-ibvcap
CHK=$BUILD/app/codifcheck/codifcheck
CMP=$SRC/tests/tools/compare.py
VER=$SRC/tests/tools/verify_outputs.py

# bridge_probe SW GENNS SRC: a snooping bridge (br0 in namespace SW)
# forwards registered groups only once it counts a querier, a moment after
# its querier is enabled that a loaded machine stretches to seconds. A
# probe port (namespace ${PREFIX}pr, 10.17.0.9 on br0, mcast_flood off)
# joins a group of its own (239.17.0.99:36099) and waits for a datagram
# that GENNS sends from SRC through the bridge: once one arrives,
# registered groups are forwarded (the querier state is the bridge's).
bridge_probe() {
	local sw=$1 gen=$2 src=$3 PR=${PREFIX}pr PROBE
	ip netns add "$PR"; CLEANUP_NETNS+=("$PR")
	ip -n "$PR" link set lo up
	ip link add pr0 netns "$PR" type veth peer name ppr netns "$sw"
	ip -n "$PR" link set pr0 up
	ip -n "$PR" addr add 10.17.0.9/24 dev pr0
	ip -n "$sw" link set ppr master br0 up
	bridge -n "$sw" link set dev ppr mcast_flood off
	ip netns exec "$PR" python3 -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("239.17.0.99", 36099))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             struct.pack("4s4s", socket.inet_aton("239.17.0.99"), socket.inet_aton("10.17.0.9")))
s.settimeout(60)
s.recv(64)' &
	PROBE=$!
	CLEANUP_PIDS+=("$PROBE")
	ip netns exec "$gen" python3 - "$PROBE" "$src" <<'PY' || fail "the bridge forwarded no probe in 60 s"
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[2]))
for i in range(600):
    try:
        os.kill(int(sys.argv[1]), 0)
    except ProcessLookupError:
        sys.exit(0)
    s.sendto(b"probe", ("239.17.0.99", 36099))
    time.sleep(0.1)
sys.exit(1)
PY
	wait "$PROBE" || fail "the probe port received nothing"
}
