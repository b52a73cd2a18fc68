#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The CPU a dpdk-ibvcap-dump runs on without --lcore: the capture publishes
# its lcores' CPUs, each dump writer its own; a dump takes the lowest CPU of
# its affinity that none of them uses, says it in its start line, and runs
# there (its thread's affinity and the CPU it last ran on, /proc). The
# capture here runs both its lcores on CPU 0 (--lcores 0@0,1@0):
#  - dump-a: CPU 1, free;
#  - dump-b: with 3 CPUs or more, CPU 2; on 2 CPUs every CPU is used: one
#    line says so, naming each CPU and what uses it, and it shares the least
#    used, CPU 1 (a dump writer's, not the capture's);
#  - dump-c under taskset -c 0: its only CPU is the capture's: said, shared;
#  - dump-d --lcore 0: where it was told, nothing said.
. "$(dirname "$0")/../lib.sh"
set -e
need_root
need_hugepages 300
need_cmd taskset
DUMP=$BUILD/app/dpdk-ibvcap-dump
NCPU=$(taskset -cp $$ | python3 -c '
import sys
s = sys.stdin.read().split(":")[1].strip()
n = 0
for part in s.split(","):
    a, _, b = part.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
[ "$NCPU" -ge 2 ] || skip "needs 2 CPUs, this process may use $NCPU"
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no,bsize=16384,rsize=9"
"$CAP" --lcores 0@0,1@0 --no-pci --file-prefix="$PREFIX" --log-level=lib.eal:error \
	--vdev "net_memif0,role=server,$MEMIF" -- --groups 1 --threads 2 --stats-period 0 \
	--duration 120s --link-timeout 1s > "$T/cap.log" 2>&1 &
CPID=$!
CLEANUP_PIDS+=("$CPID")
wait_started "$T/cap.log" 30 "primary did not start"

# the CPU a process's main thread may run on (taskset), and the one it ran on last
where() {
	local pid=$1 aff last
	aff=$(taskset -cp "$pid" | sed 's/.*: *//')
	last=$(python3 -c 'import sys; print(open("/proc/%s/stat" % sys.argv[1]).read().rsplit(")", 1)[1].split()[36])' "$pid")
	echo "$aff $last"
}

mkdir -p "$T/a" "$T/b" "$T/c" "$T/d"
start_dump "$T/a.log" --write "codif:$T/a" --name dump-a
APID=$DPID
start_dump "$T/b.log" --write "codif:$T/b" --name dump-b
BPID=$DPID
# taskset execs the dump: its pid is the dump's
taskset -c 0 "$BUILD/app/dpdk-ibvcap-dump" --file-prefix "$PREFIX" --write "codif:$T/c" \
	--name dump-c 2> "$T/c.log" &
CPID2=$!
CLEANUP_PIDS+=("$CPID2")
wait_for_line "$T/c.log" 30 'attached to' || { cat "$T/c.log"; fail "dump-c did not attach"; }
start_dump "$T/d.log" --write "codif:$T/d" --name dump-d --lcore 0
DPID_D=$DPID
sleep 0.5 # each has run on its CPU since

cpu_of() { sed -n 's/.*, on CPU \([0-9]*\)$/\1/p' "$1" | head -1; }
expect_eq "dump-a: its start line's CPU" "$(cpu_of "$T/a.log")" 1
expect_eq "dump-a: affinity and last CPU" "$(where "$APID")" "1 1"
grep -q "no free CPU" "$T/a.log" && fail "dump-a said no CPU was free: $(cat "$T/a.log")"
if [ "$NCPU" -ge 3 ]; then
	expect_eq "dump-b: its start line's CPU (neither the capture's nor dump-a's)" "$(cpu_of "$T/b.log")" 2
	expect_eq "dump-b: affinity and last CPU" "$(where "$BPID")" "2 2"
	grep -q "no free CPU" "$T/b.log" && fail "dump-b said no CPU was free: $(cat "$T/b.log")"
else
	expect_eq "dump-b: every CPU used, said in one line" "$(grep 'no free CPU' "$T/b.log")" \
		"dpdk-ibvcap-dump dump-b: no free CPU among the 2 it may run on: CPU 0: the capture's lcores; CPU 1: writer dump-a; sharing CPU 1, the least used (not the capture's)"
	expect_eq "dump-b: shares dump-a's CPU, not the capture's" "$(cpu_of "$T/b.log") $(where "$BPID")" "1 1 1"
fi
echo "# the start lines: $(grep -h 'attached to' "$T/a.log" "$T/b.log")"
ok "two dumps without --lcore: dump-a on CPU $(cpu_of "$T/a.log"), dump-b on CPU $(cpu_of "$T/b.log"), the capture on CPU 0"
expect_eq "dump-c (taskset -c 0): its only CPU is the capture's, said" "$(grep 'no free CPU' "$T/c.log")" \
	"dpdk-ibvcap-dump dump-c: no free CPU among the 1 it may run on: CPU 0: the capture's lcores; sharing CPU 0, the least used (with the capture's lcores)"
expect_eq "dump-c: on CPU 0" "$(cpu_of "$T/c.log") $(where "$CPID2")" "0 0 0"
expect_eq "dump-d --lcore 0: where it was told" "$(cpu_of "$T/d.log") $(where "$DPID_D")" "0 0 0"
grep -q "no free CPU" "$T/d.log" && fail "dump-d (--lcore 0) said something: $(cat "$T/d.log")"
ok "an explicit --lcore wins, and says nothing"

kill -INT "$CPID"
wait "$CPID" || { cat "$T/cap.log"; fail "primary exit status"; }
for p in $APID $BPID $CPID2 $DPID_D; do
	wait "$p" || fail "a dump exited non-zero"
done
echo "$CHECKS checks passed"
