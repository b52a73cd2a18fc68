#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --check-config catches, on this host and without a device, what the start
# would fail on (issue 11, "--check-config accepts what the start then
# refuses"): output directories missing or not writable, --summary-json
# where it cannot be written, two writers whose file names would collide,
# a config file that is not a regular file or holds a NUL byte, lcores,
# join interfaces (and how many groups one may join), and antenna buffers that do not fit the memory EAL will
# have; the memory is stated exactly. Exit 1, the input, the value and
# what was expected named; nothing left behind. The EAL arguments are
# given (lcores all on CPU 0, --no-huge -m) so that the answers do not
# depend on the host, except where hugepages themselves are tested.
. "$(dirname "$0")/../lib.sh"
set -e
C=$BUILD/app/dpdk-ibvcap
E=(--lcores 0@0,1@0,2@0,3@0 --no-huge -m 2048)
ck() { "$C" "${E[@]}" -- --check-config "$@"; }
mkdir "$T/ok" "$T/ok2"
touch "$T/file"

# 1. output directories
run_expect_fail "--write: missing directory" 1 "--write codif:$T/none: directory '$T/none' does not exist" \
	ck --write "codif:$T/none"
run_expect_fail "--write: under a regular file" 1 \
	"--write raw:$T/file/out,prefix=x: directory '$T/file/out' does not exist: '$T/file' is a regular file" \
	ck --write "raw:$T/file/out,prefix=x"
run_expect_fail "--write: a regular file" 1 "--write pcap:$T/file: directory '$T/file' is a regular file, not a directory" \
	ck --write "pcap:$T/file"
if [ "$(id -u)" = 0 ]; then
	# root passes access(W_OK) on any mode: a read-only mount and an
	# immutable directory are what stop it (access() and the file the check
	# makes in each directory both see them)
	mkdir "$T/ro" "$T/imm"
	if mount --bind "$T/ro" "$T/ro" 2>/dev/null; then
		CLEANUP_CMDS+=("umount '$T/ro'")
		mount -o remount,bind,ro "$T/ro"
		run_expect_fail "--write: read-only bind mount (root)" 1 \
			"--write codif:$T/ro: directory '$T/ro' is not writable: Read-only file system" \
			ck --write "codif:$T/ro"
		run_expect_fail "--summary-json: read-only bind mount (root)" 1 \
			"--summary-json $T/ro/s.json: directory '$T/ro' is not writable: Read-only file system" \
			ck --summary-json "$T/ro/s.json"
	else
		echo "# no bind mount here: read-only directory not tested" >&2
	fi
	if chattr +i "$T/imm" 2>/dev/null; then
		CLEANUP_CMDS+=("chattr -i '$T/imm'")
		run_expect_fail "--write: immutable directory (root)" 1 \
			"--write codif:$T/imm: directory '$T/imm' is not writable: Operation not permitted" \
			ck --write "codif:$T/imm"
		touch "$T/ok2/last.json"
		chattr +i "$T/ok2/last.json"
		CLEANUP_CMDS+=("chattr -i '$T/ok2/last.json'")
		run_expect_fail "--summary-json: an immutable file it would replace (root)" 1 \
			"--summary-json $T/ok2/last.json: '$T/ok2/last.json' is immutable (chattr +i): it cannot be replaced" \
			ck --summary-json "$T/ok2/last.json"
		chattr -i "$T/ok2/last.json"
		rm "$T/ok2/last.json"
	else
		echo "# chattr +i not supported here: immutable directory not tested" >&2
	fi
	# what access() cannot see and the file made in the directory does:
	# a file system with no inode left (a writer could open no file there)
	mkdir "$T/full"
	if mount -t tmpfs -o size=1M,nr_inodes=2 tmpfs "$T/full" 2>/dev/null; then
		CLEANUP_CMDS+=("umount '$T/full'")
		touch "$T/full/taken"
		run_expect_fail "--write: no inode left, access() says writable (root)" 1 \
			"--write codif:$T/full: directory '$T/full' does not take new files: creating a file in it failed: No space left on device" \
			ck --write "codif:$T/full"
	else
		echo "# cannot mount a tmpfs here: the inode-less directory not tested" >&2
	fi
else
	mkdir "$T/ro"
	chmod 555 "$T/ro"
	run_expect_fail "--write: directory without write permission" 1 \
		"--write codif:$T/ro: directory '$T/ro' is not writable: Permission denied" ck --write "codif:$T/ro"
fi
ck --write "codif:$T/ok" --summary-json "$T/ok2/s.json" > "$T/good.out" ||
	{ cat "$T/good.out"; fail "a writable directory refused"; }
expect_eq "files left in the checked directories" "$(find "$T/ok" "$T/ok2" -mindepth 1 | wc -l)" 0

# 2. --summary-json: refused at start, not after the run
run_expect_fail "--summary-json: missing directory" 1 "--summary-json $T/none/s.json: directory '$T/none' does not exist" \
	ck --summary-json "$T/none/s.json"
run_expect_fail "--summary-json: a device" 1 \
	"--summary-json /dev/null: '/dev/null' is a character device: expected a regular file (it is replaced at the end)" \
	ck --summary-json /dev/null
run_expect_fail "--summary-json: a directory" 1 "--summary-json $T/ok: '$T/ok' is a directory" ck --summary-json "$T/ok"
printf '[reporting]\nsummary-json = %s/none/s.json\n' "$T" > "$T/sum.ini"
run_expect_fail "--summary-json from the INI file" 1 "--summary-json $T/none/s.json: directory '$T/none' does not exist" \
	ck --config "$T/sum.ini"
ck --config "$T/sum.ini" --summary-json "$T/ok/s.json" > /dev/null ||
	fail "an INI value the command line overrides was held against the host"
ok "the command line's --summary-json replaces the file's before the host is checked"

# 3. two writers on one directory: refused where their file names collide
# (same directory, format and prefix), taken where format or prefix differ
ln -s ok "$T/link"
run_expect_fail "two writers, one directory, one format" 1 \
	"--write codif:$T/ok and --write codif:$T/link: both write codif files named ibvcap_* into $T/ok: their names would collide" \
	ck --write "codif:$T/ok" --write "codif:$T/link"
run_expect_fail "two writers, same prefix given" 1 "both write raw files named p_* into $T/ok" \
	ck --write "raw:$T/ok,prefix=p" --write "raw:$T/ok/.,prefix=p,rotate-size=1G"
ck --write "codif:$T/ok" --write "pcap:$T/ok" > /dev/null || fail "codif and pcap writers in one directory refused"
ck --write "codif:$T/ok" --write "codif:$T/ok,prefix=b" > /dev/null || fail "two prefixes in one directory refused"
ok "two writers in one directory: taken with another format or prefix"

# 4. the config file: only a regular file is read (/dev/zero hung, a
# directory read as empty)
mkfifo "$T/fifo"
for f in /dev/zero:"a character device" "$T/ok":"a directory" "$T/fifo":"a FIFO"; do
	run_expect_fail "--config ${f%%:*}" 1 "--config: '${f%%:*}' is ${f#*:}: expected a regular file (an INI file)" \
		timeout 10 "$C" "${E[@]}" -- --check-config "${f%%:*}"
done

# 5. NUL bytes: "antennas = 4\0junk" was read as 4
printf '[layout]\nantennas = 4\0junk\n' > "$T/nul.ini"
run_expect_fail "NUL byte in an INI line" 1 "nul.ini: line 2: a NUL byte (column 13): not a text file" \
	ck --config "$T/nul.ini"
{ printf '[writers]\nwrite = codif:/'; head -c 300 /dev/zero | tr '\0' x; echo; } > "$T/long.ini"
run_expect_fail "INI value rte_cfgfile would cut" 1 "long.ini: line 2: a value of 307 characters: at most 255 are read" \
	ck --config "$T/long.ini"

# 7. memory: stated exactly, refused where it cannot fit, with what to lower
# (slots: the default is 4 groups x 2 threads + 2 spare, said so; pinned to
# 8 below, so the sums are those of groups x threads)
ck > "$T/slots.out" || { cat "$T/slots.out"; fail "defaults refused"; }
grep -q '^slots = auto   # 10 slots per antenna buffer: 4 groups x 2 threads + 2 spare$' "$T/slots.out" &&
	grep -q '^ring = 1024   # frames per antenna (10 slots x 8192 bytes)' "$T/slots.out" ||
	fail "auto slots not stated: $(grep -e '^slots' -e '^ring' "$T/slots.out")"
ok "--slots auto: 10 per antenna (groups x threads + a quarter spare), stated in the ring's memory"
ck --slots 8 > "$T/mem.out" || { cat "$T/mem.out"; fail "defaults refused with -m 2048"; }
per=$(sed -n 's/^# memory: antenna buffers 6 x \([0-9,]*\) bytes.*/\1/p' "$T/mem.out" | tr -d ,)
ring=$(sed -n 's/^ring = 1024 .* buffer \([0-9,]*\) bytes.*/\1/p' "$T/mem.out" | tr -d ,)
tot=$(sed -n 's/^# memory: antenna buffers 6 x [0-9,]* bytes ([^)]*) = \([0-9,]*\) bytes.*/\1/p' "$T/mem.out" | tr -d ,)
[ -n "$per" ] && [ "$per" = "$ring" ] && [ "$tot" = $((6 * per)) ] ||
	fail "memory statement: per antenna '$per', ring line '$ring', total '$tot': $(grep -e memory -e '^ring' "$T/mem.out")"
# payload 1024 frames x 8 streams x 8192 bytes, plus metadata (a few %)
[ "$per" -ge $((1024 * 8 * 8192)) ] && [ "$per" -lt $((1024 * 8 * 8192 * 105 / 100)) ] ||
	fail "per-antenna bytes $per: not the payload plus metadata"
ok "memory stated exactly: ring line and memory line agree ($per bytes per antenna, $tot in all)"
grep -q '^# memory: the capture takes [0-9,]* bytes .*EAL can have 2,147,483,648 bytes (2.0 GiB) (-m with --no-huge)' "$T/mem.out" ||
	fail "memory available not stated: $(grep memory "$T/mem.out")"
run_expect_fail "--reorder-window 5000 grows the ring past -m" 1 \
	"need 6.2 GiB, more than the 2048 MiB EAL has with --no-huge -m: lower --ring (16384 frames, grown for the reorder window), --reorder-window (5000 frames; the ring is at least twice it) or --antennas (6)" \
	ck --slots 8 --reorder-window 5000 --window 8192
"$C" --lcores 0@0,1@0 --no-huge -m 8192 -- --check-config --slots 8 --reorder-window 5000 --window 8192 > "$T/grown.out" ||
	fail "6.2 GiB of buffers refused with -m 8192"
grep -q '^ring = 16384   # frames per antenna, grown from 1024 to hold twice the reorder window' "$T/grown.out" ||
	fail "the grown ring not said: $(grep '^ring' "$T/grown.out")"
ok "a ring grown by --reorder-window is said so, with its bytes"
# --retain sizes the ring (in place of --ring), on the command line or in
# [buffers]; beyond the memory it is named with its value, need and free
run_expect_fail "--retain beyond the memory" 1 \
	"--retain 5s: 6 antenna rings of 16384 frames (11575 frames of data time at --frame-rate 2314.81 + the reorder window) need 6.2 GiB in all, 2.0 GiB free: " \
	ck --slots 8 --retain 5s
printf '[buffers]\nretain = 1s\n' > "$T/retain.ini"
for how in "--retain 1s" "--config $T/retain.ini"; do
	# shellcheck disable=SC2086
	ck $how > "$T/retain.out" || { cat "$T/retain.out"; fail "$how refused"; }
	grep -q '^ring = 4096   # frames per antenna, from --retain (not --ring)' "$T/retain.out" &&
		grep -q '^retain = 1.000s   # 2315 frames at --frame-rate 2314.81 + the reorder window 64: a ring of at least 2379 frames' \
			"$T/retain.out" || fail "$how: $(grep -e '^ring' -e '^retain' "$T/retain.out")"
	ok "$how: a ring of 4096 rows (2315 frames of 1 s + the window, a power of two), said so"
done
run_expect_fail "--no-huge without -m" 1 "more than the 64 MiB EAL has with --no-huge (no -m)" \
	"$C" --lcores 0@0,1@0 --no-huge -- --check-config
printf '[eal]\nargs = --lcores 0@0,1@0 --no-huge -m 100\n' > "$T/eal.ini"
run_expect_fail "[eal] args count" 1 "more than the 100 MiB EAL has with --no-huge -m" \
	"$C" --check-config "$T/eal.ini"
run_expect_fail "no hugetlbfs under --huge-dir" 1 "memory: no hugepages EAL could use" \
	"$C" --lcores 0@0,1@0 --huge-dir "$T/ok" -- --check-config
if grep -qs hugetlbfs /proc/mounts; then
	# 16 GiB per antenna: more than one of EAL's segment lists holds with
	# 2 MiB pages, or more than the hugepages here
	run_expect_fail "--reorder-window 100000 (16 GiB per antenna), hugepages" 1 \
		"lower --ring (262144 frames, grown for the reorder window), --reorder-window (100000 frames; the ring is at least twice it) or --antennas (6)" \
		"$C" --lcores 0@0,1@0 -- --check-config --reorder-window 100000 --window 131072
	run_expect_fail "-m more than the hugepages" 1 "-m 100000000: EAL takes that many MiB of hugepages at start" \
		"$C" --lcores 0@0,1@0 -m 100000000 -- --check-config
else
	echo "# no hugetlbfs mounted: the hugepage memory checks not run" >&2
fi

# lcores: as the start places writers (the last workers) and rx
run_expect_fail "one lcore" 1 "no worker lcore: the main lcore reports, rx needs at least one more (e.g. -l 0,1): --lcores 0@0 gives none" \
	"$C" --lcores 0@0 --no-huge -m 2048 -- --check-config
run_expect_fail "writers without lcores" 1 \
	"--write: 2 writers need an lcore each besides at least one rx lcore: --lcores 0@0,1@0,2@0 gives 2 worker lcores" \
	"$C" --lcores 0@0,1@0,2@0 --no-huge -m 2048 -- --check-config --write "codif:$T/ok" --write "raw:$T/ok"
run_expect_fail "lcores=2 counts two writer lcores" 1 \
	"--write: 3 writers need an lcore each (lcores=N: N) besides at least one rx lcore: --lcores 0@0,1@0,2@0,3@0 gives 3 worker lcores" \
	ck --write "codif:$T/ok,lcores=2" --write "raw:$T/ok"
run_expect_fail "--lcore-map onto a writer's lcore" 1 "--lcore-map 0.0@3: lcore 3 is not a worker lcore of this process" \
	ck --write "codif:$T/ok" --lcore-map 0.0@3
run_expect_fail "--main-lcore not an lcore" 1 "--main-lcore 7: not one of the lcores (--lcores 0@0,1@0,2@0,3@0)" \
	"$C" "${E[@]}" --main-lcore 7 -- --check-config
run_expect_fail "two core options" 1 "EAL arguments: --lcores 0@0,1@0,2@0,3@0 and -l 0-1: EAL takes one of -c, -l and --lcores" \
	"$C" "${E[@]}" -l 0-1 -- --check-config
# EAL's arguments judged by EAL itself (its parse in a child process, no
# copy of its option table): an option this DPDK lacks is refused by name,
# a bad value in EAL's words, and options the host checks do not read are
# taken as EAL takes them (abbreviated, values attached or next)
run_expect_fail "an EAL option this DPDK lacks" 1 \
	"EAL arguments: --no-such-eal-option: EAL refuses it: unrecognized option '--no-such-eal-option'" \
	"$C" "${E[@]}" --no-such-eal-option -- --check-config
run_expect_fail "an EAL value EAL cannot read" 1 \
	"EAL arguments: --iova-mode: EAL refuses it: invalid parameters for --iova-mode" \
	"$C" "${E[@]}" --iova-mode bogus --no-hpet -- --check-config
run_expect_fail "an EAL option without its value" 1 "EAL arguments: --file-prefix: no value after it" \
	"$C" "${E[@]}" --file-prefix -- --check-config
"$C" "${E[@]}" --no-pci --vdev net_null0 --force-max=64 -n4 --iova-mode va \
	--huge-worker-stack=512 -- --check-config > "$T/ealok.out" 2>&1 ||
	fail "EAL options the host checks do not read refused: $(tail -1 "$T/ealok.out")"
ok "EAL options the host checks do not read are taken as EAL takes them"
# short options clustered as getopt reads them: -vl 0 is -v -l 0
run_expect_fail "clustered short options (-vl 0)" 1 \
	"no worker lcore: the main lcore reports, rx needs at least one more (e.g. -l 0,1): -l 0 gives none" \
	"$C" -vl 0 --no-huge -m 2048 -- --check-config
"$C" -vl 0-1 --no-huge -m 2048 -- --check-config > "$T/vl.out" 2>&1 ||
	fail "-vl 0-1 refused: $(tail -1 "$T/vl.out")"
ok "-vl 0-1 read as -v -l 0-1"
# --check-config FILE before '--': the program's file, not an EAL argument
printf '[capture]\nantennas = 2\n' > "$T/two.ini"
"$C" --lcores 0@0,1@0 --no-huge -m 2048 --check-config "$T/two.ini" -- > "$T/pre.out" 2>&1 ||
	fail "--check-config FILE before '--' refused: $(tail -1 "$T/pre.out")"
grep -q '^# antennas: 2 ' "$T/pre.out" || fail "--check-config FILE before '--': $(grep '^# antennas' "$T/pre.out")"
"$C" --lcores 0@0,1@0 --no-huge -m 2048 --check-config "$T/two.ini" -- --antennas 3 > "$T/pre.out" 2>&1 ||
	fail "--check-config FILE before '--' with options refused: $(tail -1 "$T/pre.out")"
grep -q '^# antennas: 3 ' "$T/pre.out" || fail "options after '--' over the FILE: $(grep '^# antennas' "$T/pre.out")"
ok "--check-config FILE before '--' reads FILE (options after '--' over it), EAL is not given it"
cpu=127
while [ $cpu -gt 0 ] && [ -e /sys/devices/system/cpu/cpu$cpu ]; do cpu=$((cpu - 1)); done
if [ $cpu -gt 0 ]; then
	run_expect_fail "an lcore on a CPU this host lacks" 1 "-l 0,$cpu: CPU $cpu is not on this host" \
		"$C" -l "0,$cpu" --no-huge -m 2048 -- --check-config
fi

# join interfaces
run_expect_fail "--join-iface: no such interface" 1 "--join-iface 0=nosuch9: no such interface here" \
	ck --join-iface 0=nosuch9
ck --join-iface 0=nosuch9 --no-join > /dev/null || fail "--no-join: the interface still checked"
ck --join-iface 0=lo > /dev/null || fail "--join-iface 0=lo refused"
ok "join interfaces checked, unless --no-join"
# one socket per port joins its groups: the kernel caps each socket
max=$(cat /proc/sys/net/ipv4/igmp_max_memberships 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -lt 64 ]; then
	run_expect_fail "more groups on a port than one socket may join" 1 \
		"port index 0 joins $((max + 1)) groups on lo, more than the kernel lets one socket join (net.ipv4.igmp_max_memberships = $max)" \
		ck --port 0 --join-iface 0=lo --groups $((max + 1)) --no-buffers
	ck --port 0,1 --join-iface 0=lo --groups $((max + 1)) --no-buffers > /dev/null ||
		fail "$((max + 1)) groups over two ports refused"
	ok "groups spread over two ports are taken"
fi

# --skip-host-checks: the file alone, for another host
ck --write "codif:$T/none" --skip-host-checks > "$T/skip.out" || fail "--skip-host-checks still checked the host"
grep -q '^# configuration valid; this host not checked (--skip-host-checks)' "$T/skip.out" || fail "$(tail -1 "$T/skip.out")"
ok "--skip-host-checks checks the configuration alone, and says so"

# nothing left behind by any of it
expect_eq "test files left anywhere under the scratch directory" \
	"$(find "$T" -name '.write-test*' 2>/dev/null | wc -l)" 0
echo "$CHECKS checks passed"
