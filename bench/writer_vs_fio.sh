#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): lib/writer's files (bench/writer_bench: codif and
# raw from a full antenna buffer, io_uring and synchronous pwrite) against
# fio writing the same bytes with io_uring, O_DIRECT, the writer's block
# size (4 MiB: half its 8 MiB staging buffer) and queue depth (FIO_INFLIGHT
# = 2), in the same directory, in the same run; 1 and 2 writers at once
# (fio: numjobs). raw twice: through staging (copied, as codif) and from the
# ring (rows written by reference, no copy: the default where O_DIRECT and
# io_uring allow), with the writer's CPU (getrusage, user + system seconds
# per GB) beside the rate. Each figure RUNS times: min / median / max, and
# the ratio of medians. writer_bench fails unless every frame was written
# once and the files on disk are as large as the writer says.
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

stats() { # name, unit, values -> "name  min median max unit"
	python3 - "$@" <<'PY'
import statistics, sys
v = sorted(float(x) for x in sys.argv[3:])
f = "%8.0f" if sys.argv[2] == "MB/s" else "%8.3f"
print(("%-34s " + f + " " + f + " " + f + " %s") % (sys.argv[1], v[0], statistics.median(v), v[-1], sys.argv[2]))
PY
}

fio_mbs() { # jobs -> aggregate MB/s
	fio --name=w --directory="$W" --rw=write --bs=4M --size="$BYTES" --ioengine=io_uring \
		--direct=1 --iodepth=2 --numjobs="$1" --group_reporting --output-format=json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["write"]["bw_bytes"] / 1e6)'
	rm -f "$W"/w.*
}

writer_mbs() { # jobs, format, keys, mode (staged|ring|"") -> "aggregate MB/s
	# (bytes of all / the longest writing time each reports: filling its
	# buffer in memory comes first) CPU s/GB (all writers' CPU / bytes)"
	local jobs=$1 fmt=$2 keys=${3:-} mode=${4:-} i pids=() total=0 tmax=0 t cpu=0
	for i in $(seq "$jobs"); do mkdir -p "$W/$i"; done
	for i in $(seq "$jobs"); do
		"$B/bench/writer_bench" "$W/$i" "$BYTES" "$fmt" "$keys" "$mode" > "$W/$i.out" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || { cat "$W"/*.out >&2; exit 1; }; done
	for i in $(seq "$jobs"); do
		total=$((total + $(sed -n 's/.*: \([0-9]*\) bytes in .*/\1/p' "$W/$i.out")))
		t=$(sed -n 's/.* bytes in \([0-9.]*\) s: .*/\1/p' "$W/$i.out")
		tmax=$(python3 -c "print(max($tmax, $t))")
		cpu=$(python3 -c "print($cpu + $(sed -n 's/.*, CPU \([0-9.]*\) s: .*/\1/p' "$W/$i.out"))")
		grep -q "($([ "$keys" = io=sync ] && echo pwrite || echo io_uring))" "$W/$i.out" ||
			{ echo "writer_vs_fio: not the I/O asked for: $(cat "$W/$i.out")" >&2; exit 1; }
		case $mode in
		ring) grep -q "rows written from the ring (no copy)$" "$W/$i.out" ;;
		staged) grep -q "rows copied through staging" "$W/$i.out" ;;
		esac || { echo "writer_vs_fio: not the raw path asked for ($mode): $(cat "$W/$i.out")" >&2; exit 1; }
		rm -rf "${W:?}/$i"
	done
	python3 -c "print($total / $tmax / 1e6, $cpu / ($total / 1e9))"
}

printf "%-34s %8s %8s %8s\n" "" min median max
for jobs in ${JOBS:-1 2}; do
	declare -A r=() c=()
	for run in $(seq "$RUNS"); do
		r[fio]+=" $(fio_mbs "$jobs")"
		for k in "codif||" "codif_sync|io=sync|" "raw||staged" "raw_ring||ring"; do
			IFS='|' read -r name keys mode <<< "$k"
			read -r mbs cpu <<< "$(writer_mbs "$jobs" "${name%%_*}" "$keys" "$mode")"
			r[$name]+=" $mbs"
			c[$name]+=" $cpu"
		done
	done
	# shellcheck disable=SC2086
	{
		stats "fio io_uring direct bs=4M qd=2 x$jobs" MB/s ${r[fio]}
		stats "codif writer io_uring x$jobs" MB/s ${r[codif]}
		stats "codif writer pwrite x$jobs" MB/s ${r[codif_sync]}
		stats "raw writer io_uring staged x$jobs" MB/s ${r[raw]}
		stats "raw writer io_uring ring x$jobs" MB/s ${r[raw_ring]}
	} | tee "$W/table"
	# shellcheck disable=SC2086
	{
		stats "codif writer io_uring x$jobs" "CPU s/GB" ${c[codif]}
		stats "raw writer io_uring staged x$jobs" "CPU s/GB" ${c[raw]}
		stats "raw writer io_uring ring x$jobs" "CPU s/GB" ${c[raw_ring]}
	}
	python3 - "$W/table" "$jobs" <<'PY'
import sys
m = {l[:34].strip(): float(l[34:].split()[1]) for l in open(sys.argv[1])}
j = sys.argv[2]
f = m["fio io_uring direct bs=4M qd=2 x" + j]
for k in ("codif writer io_uring", "codif writer pwrite", "raw writer io_uring staged",
          "raw writer io_uring ring"):
    print("  %s x%s / fio: %.2f (median; target >= 0.9)" % (k, j, m["%s x%s" % (k, j)] / f))
PY
	unset r c
done
