#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up a Debian 12 machine for dpdk-ibvcap, idempotently: the Debian
# packages it uses, 2 MiB hugepages and hugetlbfs, then configure and build
# build/ for the install docs/operations.md describes (ninja -C build install).
#
#   scripts/setup.sh [--test] [--no-build] [--hugepages N] [--prefix DIR]
#     --test        also the packages the test suite and benchmarks use
#     --no-build    packages and hugepages only
#     --hugepages N 2 MiB pages to have reserved (default 1024 = 2 GiB,
#                   or $IBVCAP_HUGEPAGES)
#     --prefix DIR  install prefix of build/ (default /usr, configuration in
#                   /etc; another DIR keeps it in DIR/etc); an existing
#                   build/ configured otherwise is reconfigured
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HUGEPAGES=${IBVCAP_HUGEPAGES:-1024}
WITH_TEST=0
DO_BUILD=1
PREFIX=/usr

die() { echo "setup: error: $*" >&2; exit 1; }
say() { echo "setup: $*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--test) WITH_TEST=1 ;;
	--no-build) DO_BUILD=0 ;;
	--hugepages) shift; HUGEPAGES=${1:-} ;;
	--hugepages=*) HUGEPAGES=${1#*=} ;;
	--prefix) shift; PREFIX=${1:-} ;;
	--prefix=*) PREFIX=${1#*=} ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (expected --test, --no-build, --hugepages N, --prefix DIR)" ;;
	esac
	shift
done
case $HUGEPAGES in
''|*[!0-9]*) die "--hugepages: '$HUGEPAGES': expected a number of 2 MiB pages" ;;
esac
case $PREFIX in
/*) PREFIX=${PREFIX%/}; PREFIX=${PREFIX:-/} ;;
*) die "--prefix: '$PREFIX': expected an absolute directory (/usr, /usr/local, /opt/dpdk-ibvcap)" ;;
esac
# meson's own rule for /usr (configuration in /etc), said explicitly
if [ "$PREFIX" = /usr ]; then SYSCONFDIR=/etc; else SYSCONFDIR=etc; fi

[ "$(id -u)" = 0 ] || die "must run as root: it installs packages and reserves hugepages (try: sudo $0)"
if [ -r /etc/os-release ]; then
	. /etc/os-release
	if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ]; then
		echo "setup: warning: made for Debian 12; this is ${PRETTY_NAME:-unknown}" >&2
	fi
fi

# --- packages: what the build, the programs and the tests use, nothing else
PKGS=(gcc libc6-dev pkg-config meson ninja-build
      dpdk dpdk-dev libdpdk-dev libpcap-dev libibverbs-dev libjansson-dev help2man liburing-dev
      libfftw3-dev
      rdma-core ibverbs-providers iproute2 python3 python3-numpy)
if [ "$WITH_TEST" = 1 ]; then
	PKGS+=(tshark tcpdump clang libclang-rt-14-dev gnuplot-nox systemd kmod man-db fio tmux)
	# the array's control plane and health (dpdk-ibvcap-agent, dpdk-ibvcap-array,
	# config/prometheus): the tests start etcd, promtool, prometheus,
	# alertmanager and node_exporter themselves, by pid, inside network
	# namespaces on addresses of their own (array-prometheus-netns). Where
	# systemd runs, Debian enables and starts the packages' own services
	# (prometheus :9090, alertmanager :9093, node_exporter :9100 in the root
	# namespace): left as they are (a capture host wants its node_exporter,
	# docs/operations.md §6); no test uses or collides with them
	PKGS+=(etcd-server python3-etcd3 prometheus prometheus-alertmanager prometheus-node-exporter)
fi
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed (is Debian's archive reachable?)"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
		die "could not install: ${missing[*]} (apt-get's messages are above)"
else
	say "packages present"
fi

# --- hugepages: DPDK's memory, and needed by every secondary process
if ! grep -qs ' /dev/hugepages hugetlbfs' /proc/mounts; then
	mkdir -p /dev/hugepages
	mount -t hugetlbfs nodev /dev/hugepages ||
		die "cannot mount hugetlbfs on /dev/hugepages"
	say "mounted hugetlbfs on /dev/hugepages"
fi
have=$(cat /proc/sys/vm/nr_hugepages)
if [ "$have" -lt "$HUGEPAGES" ]; then
	echo "$HUGEPAGES" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
	have=$(cat /proc/sys/vm/nr_hugepages)
	if [ "$have" -lt "$HUGEPAGES" ]; then
		die "reserved only $have of $HUGEPAGES 2 MiB hugepages (memory too small or fragmented:" \
		    "free memory with 'echo 3 > /proc/sys/vm/drop_caches', reboot, or ask for fewer" \
		    "with --hugepages N)"
	fi
fi
say "hugepages: $have x 2 MiB reserved, $(awk '/HugePages_Free/ {print $2}' /proc/meminfo) free"

# --- build
if [ "$DO_BUILD" = 1 ]; then
	cd "$ROOT"
	if [ ! -f build/build.ninja ]; then
		meson setup build -Dwerror=true --prefix="$PREFIX" --sysconfdir="$SYSCONFDIR" >/dev/null ||
			die "meson setup failed (see build/meson-logs/meson-log.txt)"
	else
		# a build/ made before (another prefix): `meson setup` would refuse
		# it ("Directory already configured"); meson configure changes it
		have=$(meson introspect build --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["sysconfdir"])') || die "cannot read build/'s options (meson introspect build)"
		if [ "$have" != "$PREFIX $SYSCONFDIR" ]; then
			meson configure build --prefix="$PREFIX" --sysconfdir="$SYSCONFDIR" >/dev/null ||
				die "meson configure build --prefix=$PREFIX --sysconfdir=$SYSCONFDIR failed"
			say "build/ reconfigured: prefix and sysconfdir '$have' -> '$PREFIX $SYSCONFDIR'"
		fi
	fi
	ninja -C build >/dev/null || { ninja -C build; die "build failed"; }
	say "built in $ROOT/build (install: ninja -C build install, to prefix $PREFIX)"
fi
