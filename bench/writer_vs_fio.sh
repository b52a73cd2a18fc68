#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): lib/writer's files (bench/writer_bench: codif and
# raw from a full antenna buffer, io_uring and synchronous pwrite) against
# fio writing the same bytes with io_uring, O_DIRECT, the writer's block
# size (4 MiB: half its 8 MiB staging buffer) and queue depth (FIO_INFLIGHT
# = 2), in the same directory, in the same run; 1 and 2 writers at once
# (fio: numjobs). Each figure RUNS times: min / median / max, and the ratio
# of medians. writer_bench fails unless every frame was written once and
# the files on disk are as large as the writer says.
#
#   bench/writer_vs_fio.sh [DIR (/var/tmp)] [RUNS (3)] [BYTES per writer (2 GiB)]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
DIR=${1:-/var/tmp}
RUNS=${2:-3}
BYTES=${3:-$((2 << 30))}
command -v fio > /dev/null || { echo "writer_vs_fio: fio is not installed (scripts/setup.sh --test installs it)" >&2; exit 1; }
W=$(mktemp -d "$DIR/ibvcap-wvf.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "# $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%FT%TZ)"
echo "# directory $DIR: $(df -hT "$DIR" | awk 'NR==2 {print $1, $2, $3}'), $BYTES bytes per writer, $RUNS runs"

stats() { # name, values (MB/s) -> "name  min median max"
	python3 - "$@" <<'PY'
import statistics, sys
v = sorted(float(x) for x in sys.argv[2:])
print("%-34s %8.0f %8.0f %8.0f MB/s" % (sys.argv[1], v[0], statistics.median(v), v[-1]))
PY
}

fio_mbs() { # jobs -> aggregate MB/s
	fio --name=w --directory="$W" --rw=write --bs=4M --size="$BYTES" --ioengine=io_uring \
		--direct=1 --iodepth=2 --numjobs="$1" --group_reporting --output-format=json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["write"]["bw_bytes"] / 1e6)'
	rm -f "$W"/w.*
}

writer_mbs() { # jobs, format, keys -> aggregate MB/s (bytes of all / the longest
	# writing time each reports: filling its buffer in memory comes first)
	local jobs=$1 fmt=$2 keys=${3:-} i pids=() total=0 tmax=0 t
	for i in $(seq "$jobs"); do mkdir -p "$W/$i"; done
	for i in $(seq "$jobs"); do
		"$B/bench/writer_bench" "$W/$i" "$BYTES" "$fmt" "$keys" > "$W/$i.out" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || { cat "$W"/*.out >&2; exit 1; }; done
	for i in $(seq "$jobs"); do
		total=$((total + $(sed -n 's/.*: \([0-9]*\) bytes in .*/\1/p' "$W/$i.out")))
		t=$(sed -n 's/.* bytes in \([0-9.]*\) s: .*/\1/p' "$W/$i.out")
		tmax=$(python3 -c "print(max($tmax, $t))")
		grep -q "($([ "$keys" = io=sync ] && echo pwrite || echo io_uring))" "$W/$i.out" ||
			{ echo "writer_vs_fio: not the I/O asked for: $(cat "$W/$i.out")" >&2; exit 1; }
		rm -rf "${W:?}/$i"
	done
	python3 -c "print($total / $tmax / 1e6)"
}

printf "%-34s %8s %8s %8s\n" "" min median max
for jobs in 1 2; do
	declare -A r=()
	for run in $(seq "$RUNS"); do
		r[fio]+=" $(fio_mbs "$jobs")"
		r[codif]+=" $(writer_mbs "$jobs" codif)"
		r[codif_sync]+=" $(writer_mbs "$jobs" codif io=sync)"
		r[raw]+=" $(writer_mbs "$jobs" raw)"
	done
	# shellcheck disable=SC2086
	{
		stats "fio io_uring direct bs=4M qd=2 x$jobs" ${r[fio]}
		stats "codif writer io_uring x$jobs" ${r[codif]}
		stats "codif writer pwrite x$jobs" ${r[codif_sync]}
		stats "raw writer io_uring x$jobs" ${r[raw]}
	} | tee "$W/table"
	python3 - "$W/table" "$jobs" <<'PY'
import sys
m = {l[:34].strip(): float(l[34:].split()[1]) for l in open(sys.argv[1])}
j = sys.argv[2]
f = m["fio io_uring direct bs=4M qd=2 x" + j]
for k in ("codif writer io_uring", "codif writer pwrite", "raw writer io_uring"):
    print("  %s x%s / fio: %.2f (median; target >= 0.9)" % (k, j, m["%s x%s" % (k, j)] / f))
PY
	unset r
done
