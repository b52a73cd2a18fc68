# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# The golden rows' runner, sourced by screens.sh, text.sh and capture.sh after
# tests/lib.sh. A row of tests/golden/TESTLIST is
#     NAME TOOL COLUMNS INPUT ARGUMENTS...
# and its text is what `golden_run` makes of it: the tool's standard
# output, then, where there was any, a line "[stderr]" and its standard
# error, then, where the tool did not exit 0, a line "[exit N]". The rows
# of the capture (TOOL capture) pass through tests/golden/mask.sed first,
# which masks what differs from run to run (times, rates, the pid) and
# nothing else; then -v's lines (the rx lcore's, in the order of the
# packets) are moved after the main thread's, under a line "[-v: the rx
# lcore's lines]", and the clock warnings after them: where the threads'
# lines fall among each other is the moment's. golden_check compares the text with out/NAME.out byte for
# byte, or rewrites that file under UPDATE=1 (tests/golden/update.sh).

G=$SRC/tests/golden
GOLDEN_PY=/usr/bin/python3
[ -x "$GOLDEN_PY" ] || GOLDEN_PY=python3
GOLDEN_ROWS=0

# golden_tool TOOL: the command that runs TOOL of the build
golden_tool() {
	case $1 in
	codifcheck) echo "$BUILD/app/codifcheck/codifcheck" ;;
	codifgen | dpdk-ibvcap | dpdk-ibvcap-dump) echo "$BUILD/app/$1" ;;
	dpdk-ibvcap-diagnostics) echo "bash $BUILD/dpdk-ibvcap-diagnostics" ;;
	dpdk-ibvcap-stat | dpdk-ibvcap-fleet | dpdk-ibvcap-ctl | dpdk-ibvcap-agent | dpdk-ibvcap-array)
		# Debian's Python, as installed: argparse's --help layout differs
		# between Python versions (another python3 may come first on PATH)
		echo "$GOLDEN_PY $BUILD/app/$1" ;;
	*) fail "$G/TESTLIST: unknown tool '$1'" ;;
	esac
}

# golden_input INPUT: the file a row reads; a path under SRC, or gen:ARGS
# (codifgen's arguments, commas for spaces), the pcap codifgen makes of
# them in $T with its truth beside it (NAME.pcap, NAME.truth.json)
golden_input() {
	local name=$1 input=$2
	case $input in
	-) ;;
	gen:*)
		# shellcheck disable=SC2046 # the arguments, split at commas
		"$GEN" $(echo "${input#gen:}" | tr , ' ') --pcap "$T/$name.pcap" \
			--truth "$T/$name.truth.json" --quiet || fail "$name: codifgen ${input#gen:}"
		echo "$T/$name.pcap" ;;
	*)
		[ -e "$SRC/$input" ] || fail "$name: no input $SRC/$input"
		echo "$SRC/$input" ;;
	esac
}

# golden_run NAME TOOL COLUMNS INPUT ARGUMENTS...: the row's text in
# $T/NAME.out (the capture's summary JSON in $T/NAME.sum.json)
golden_run() {
	local name=$1 tool=$2 cols=$3 input rc=0 cmd
	input=$(golden_input "$1" "$4") || exit 1
	shift 4
	case $tool in
	capture)
		# one queue, one rx lcore: the order of -v's lines is the file's
		# COLUMNS 0: unset, as a log's (the summary's rows on one line)
		local colenv=COLUMNS=$cols
		[ "$cols" = 0 ] && colenv=
		# shellcheck disable=SC2086
		env -u COLUMNS $colenv "$CAP" -l 0,1 $EAL_COMMON --no-huge -m 1024 --no-telemetry \
			--vdev "net_pcap0,rx_pcap=$input" -- --steer software --stats-period 0 \
			--summary-json "$T/$name.sum.json" "$@" < /dev/null > "$T/$name.stdout" 2> "$T/$name.stderr" || rc=$?
		;;
	*)
		# run in screens/, where the screens' inputs are: the text names
		# the files as given
		cmd=$(golden_tool "$tool")
		# shellcheck disable=SC2086
		(cd "$G/screens" && COLUMNS=$cols LINES=50 $cmd "$@" ${input:+"$input"} < /dev/null) \
			> "$T/$name.stdout" 2> "$T/$name.stderr" || rc=$?
		;;
	esac
	{
		cat "$T/$name.stdout"
		if [ -s "$T/$name.stderr" ]; then
			echo "[stderr]"
			cat "$T/$name.stderr"
		fi
		[ "$rc" = 0 ] || echo "[exit $rc]"
	} > "$T/$name.raw"
	# the input's path is the test's scratch directory or the source tree's
	sed -e "s|$T/|\$T/|g" -e "s|$SRC/|\$SRC/|g" -e "s|$BUILD/|\$BUILD/|g" "$T/$name.raw" > "$T/$name.out"
	if [ "$tool" = capture ]; then
		sed -E -f "$G/mask.sed" "$T/$name.out" |
			awk '/^lcore [0-9]+ port [0-9]+ queue [0-9]+ len / { v = v $0 "\n"; next }
			     /its data time is X s/ { late = late $0 "\n"; next }
			     { print }
			     END { if (v != "") printf "[-v: the rx lcore'"'"'s lines]\n%s", v; printf "%s", late }' \
			> "$T/$name.masked"
		mv "$T/$name.masked" "$T/$name.out"
	fi
}

# golden_check NAME DIR: $T/NAME.out equal to DIR/NAME.out byte for byte
# (UPDATE=1: DIR/NAME.out rewritten)
golden_check() {
	local name=$1 out=$2/$1.out
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$T/$name.out" "$out"
		echo "updated $out"
	else
		[ -f "$out" ] || fail "$name: no $out (tests/golden/update.sh writes it)"
		diff -u "$out" "$T/$name.out" > "$T/$name.diff" ||
			{ cat "$T/$name.diff"; fail "$name: the text differs from $out (tests/golden/update.sh rewrites it: review the diff)"; }
	fi
	GOLDEN_ROWS=$((GOLDEN_ROWS + 1))
}

# golden_rows screens|capture|text: TESTLIST's rows of one test, one a
# line (NAME TOOL COLUMNS INPUT ARGUMENTS...): the screens (rows named
# stat-* or fleet-*: golden-screens), the capture's (TOOL capture:
# golden-capture), or the others (golden-text)
golden_rows() {
	local name tool rest kind
	while read -r name tool rest; do
		case $name in '#'* | '') continue ;; esac
		case $name/$tool in
		stat-*/* | fleet-*/*) kind=screens ;;
		*/capture) kind=capture ;;
		*) kind=text ;;
		esac
		[ "$kind" != "$1" ] || echo "$name $tool $rest"
	done < "$G/TESTLIST"
	return 0
}
