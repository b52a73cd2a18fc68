#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The install as docs/operations.md says it, command by command: every
# command of the guide's §2 (install and configure) and §3 (systemd) code
# blocks, taken from the document itself, run against a `meson install
# --destdir` tree R (absolute paths moved under R; systemctl and
# systemd-tmpfiles with --root=R). A command this test does not know fails
# it, so the guide and the install cannot drift apart. Then: the enabled
# units name files that exist in R, pass `systemd-analyze verify`, and the
# directories the shipped configurations write to exist when their unit
# starts (tmpfiles.d and StateDirectory= alone) and are writable under its
# hardening; every installed program answers --version; the shipped
# configurations pass --check-config and broken ones are refused by key.
. "$(dirname "$0")/../lib.sh"
set -e
need_cmd systemctl
need_cmd systemd-analyze
need_cmd systemd-tmpfiles
DOC=$SRC/docs/operations.md
R=$T/root
mkdir -p "$R"

# the code blocks (4-space indented lines) of §2 and §3, comments dropped
python3 - "$DOC" > "$T/commands" <<'PY'
import re, sys
sec = None
for line in open(sys.argv[1]):
    m = re.match(r"## (\d+)\.", line)
    if m:
        sec = int(m.group(1))
        continue
    if sec in (2, 3) and line.startswith("    ") and line.strip():
        print(re.sub(r"\s+#.*$", "", line.strip()))
PY
[ "$(wc -l < "$T/commands")" -ge 8 ] || { cat "$T/commands"; fail "$DOC: §2-3 code blocks not found"; }

opts() { # BUILDDIR: "prefix sysconfdir"
	meson introspect "$1" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["sysconfdir"])'
}
# the install directories the guide configures (its meson setup line)
doc_dirs=$(sed -n 's/^meson setup build .*--prefix=\([^ ]*\).*--sysconfdir=\([^ ]*\).*/\1 \2/p' "$T/commands")
[ -n "$doc_dirs" ] || fail "$DOC: no 'meson setup build --prefix=... --sysconfdir=...' line"
read -r PFX ETC <<< "$doc_dirs"
# absolute paths of the guide, moved under R
in_root() { sed -E "s#(^|[ =:,{])/(usr|etc|var)/#\1$R/\2/#g" <<< "$1"; }

UNITS=()
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	case $cmd in
	./scripts/setup.sh*)
		# not run here (root: packages, hugepages); it configures build/,
		# so the build under test is configured as the guide says (in CI it
		# is setup.sh's build/)
		have=$(opts "$BUILD")
		[ "$have" = "$PFX $ETC" ] || fail "$BUILD is configured with prefix and sysconfdir '$have';" \
			"docs/operations.md installs with '$PFX $ETC' (scripts/setup.sh configures build/ so;" \
			"another build directory: meson configure DIR --prefix=$PFX --sysconfdir=$ETC)"
		ok "$cmd: the build under test is configured as it configures build/ ($have)" ;;
	"meson setup build "*|"meson configure build "*)
		# on a scratch build directory: setup a new one; configure one
		# configured before with meson's defaults (/usr/local)
		args=${cmd#meson * build }
		if [ "${cmd#meson setup}" != "$cmd" ]; then
			rm -rf "$T/b"
			# shellcheck disable=SC2086
			meson setup "$T/b" "$SRC" $args > "$T/setup.log" 2>&1 ||
				{ tail -20 "$T/setup.log"; fail "$cmd: failed"; }
		else
			[ -d "$T/b" ] || meson setup "$T/b" "$SRC" > "$T/setup.log" 2>&1 || fail "scratch meson setup failed"
			meson configure "$T/b" --prefix=/usr/local --sysconfdir=etc > /dev/null
			[ "$(opts "$T/b")" = "/usr/local etc" ] || fail "scratch build not reset to /usr/local"
			# shellcheck disable=SC2086
			meson configure "$T/b" $args > "$T/configure.log" 2>&1 ||
				{ cat "$T/configure.log"; fail "$cmd: failed on a configured build directory"; }
		fi
		expect_eq "$cmd: prefix and sysconfdir" "$(opts "$T/b")" "$PFX $ETC" ;;
	"ninja -C build install")
		# what it runs once built (the build is the one under test)
		DESTDIR=$R meson install -C "$BUILD" --no-rebuild --quiet > "$T/install.log" 2>&1 ||
			{ cat "$T/install.log"; fail "$cmd (meson install --destdir) failed"; }
		ok "$cmd: installed into DESTDIR" ;;
	"systemd-tmpfiles "*)
		c=${cmd#systemd-tmpfiles }
		# shellcheck disable=SC2086
		systemd-tmpfiles --root="$R" $c > "$T/tmpfiles.log" 2>&1 ||
			{ cat "$T/tmpfiles.log"; fail "$cmd (--root) failed"; }
		[ -d "$R/var/lib/dpdk-ibvcap" ] || fail "$cmd: /var/lib/dpdk-ibvcap not made"
		ok "$cmd: /var/lib/dpdk-ibvcap made" ;;
	"cp "*|"mkdir "*)
		eval "$(in_root "$cmd")" 2> "$T/cmd.err" || fail "$cmd: $(cat "$T/cmd.err")"
		ok "$cmd" ;;
	"dpdk-ibvcap "*)
		# the installed program; the shipped file is for another host
		# (its lcores, devices): the file checked, not this host
		c=$(in_root "$cmd")
		# shellcheck disable=SC2086
		"$R$PFX/bin/dpdk-ibvcap" ${c#dpdk-ibvcap } --skip-host-checks > "$T/check$n.out" 2>&1 ||
			{ cat "$T/check$n.out"; fail "$cmd: refused"; }
		cp "$T/check$n.out" "$T/check.out"
		ok "$cmd (--skip-host-checks): accepted" ;;
	"systemctl enable "*)
		c=${cmd#systemctl enable }
		c=${c#--now } # nothing starts in a DESTDIR
		# shellcheck disable=SC2086
		systemctl --root="$R" enable $c > "$T/enable.log" 2>&1 ||
			{ cat "$T/enable.log"; fail "$cmd (--root) failed"; }
		for u in $c; do
			s=$(systemctl --root="$R" is-enabled "$u" 2>&1) || true
			[ "$s" = enabled ] || fail "$cmd: $u is '$s' after enable"
			UNITS+=("$u")
		done
		ok "$cmd (--root): enabled" ;;
	"journalctl -u "*)
		u=${cmd#journalctl -u }
		u=${u%% *}
		found=0
		for x in "${UNITS[@]}"; do [ "$x" = "$u" ] || [ "$x" = "$u.service" ] && found=1; done
		[ $found = 1 ] || fail "$cmd: $u is not a unit the guide enabled (${UNITS[*]})"
		ok "$cmd: a unit the guide enabled" ;;
	*)
		fail "docs/operations.md §2-3: '$cmd' is a command this test does not know (teach tests/cli/install_walkthrough.sh)" ;;
	esac
done < "$T/commands"
[ ${#UNITS[@]} -ge 4 ] || fail "the guide enables ${#UNITS[*]} units (${UNITS[*]})"

UNITDIR=$R$PFX/lib/systemd/system
# a timer's service is checked with it
for u in "${UNITS[@]}"; do
	case $u in *.timer) UNITS+=("${u%.timer}.service") ;; esac
done
mkdir -p "$T/units"
for u in "${UNITS[@]}"; do
	inst=
	tmpl=$u
	case $u in *@*.*) inst=${u#*@}; inst=${inst%.*}; tmpl=${u%%@*}@.${u##*.} ;; esac
	f=$UNITDIR/$tmpl
	[ -f "$f" ] || fail "$u: no unit file $PFX/lib/systemd/system/$tmpl"
	if grep -q '@[A-Z]*@' "$f"; then fail "$tmpl: unsubstituted @VARIABLE@"; fi
	sed "s/%i/$inst/g" "$f" > "$T/units/$u.expanded"
	: > "$T/units/$u.dirs"
	while IFS='=' read -r key val; do
		case $key in
		ConditionPathExists)
			[ -e "$R$val" ] || fail "$u: ConditionPathExists=$val: not in the tree (the guide's steps leave the unit skipped)" ;;
		ConditionPathIsDirectory)
			case $val in
			/var/lib/prometheus/*) mkdir -p "$R$val" ;; # Debian's prometheus-node-exporter makes it
			*) [ -d "$R$val" ] || fail "$u: ConditionPathIsDirectory=$val: no such directory" ;;
			esac ;;
		EnvironmentFile)
			case $val in -*) ;; *) [ -f "$R$val" ] || fail "$u: EnvironmentFile=$val: no such file" ;; esac ;;
		ExecStart)
			exe=${val%% *}
			exe=${exe#[-@+!:]}
			# ours in the tree; the system's (/bin/sh) on this host
			[ -x "$R$exe" ] || { case $exe in /bin/*) [ -x "$exe" ] ;; *) false ;; esac; } ||
				fail "$u: ExecStart's $exe is not installed" ;;
		Documentation)
			[ -f "$R${val#file://}" ] || fail "$u: Documentation=$val: not installed" ;;
		StateDirectory)
			for d in $val; do echo "state /var/lib/$d" >> "$T/units/$u.dirs"; done ;;
		ReadWritePaths)
			for d in $val; do echo "rw ${d#-}" >> "$T/units/$u.dirs"; done ;;
		esac
	done < <(grep -E '^[A-Za-z]+=' "$T/units/$u.expanded")
	# for systemd-analyze: the installed programs where the unit runs them
	sed "s#$PFX/bin/#$R$PFX/bin/#g" "$T/units/$u.expanded" > "$T/units/$u"
done
ok "${#UNITS[@]} units: their configuration files, programs and docs are in the tree"
(cd "$T/units" && systemd-analyze verify --man=no "${UNITS[@]/#/./}") > "$T/verify.log" 2>&1 ||
	{ cat "$T/verify.log"; fail "systemd-analyze verify failed"; }
[ ! -s "$T/verify.log" ] || { cat "$T/verify.log"; fail "systemd-analyze verify warned"; }
ok "systemd-analyze verify: ${UNITS[*]} clean"
# and it does catch a broken unit
cap=$(cd "$T/units" && grep -l '^KillSignal=SIGINT' "${UNITS[@]}" | head -1) || true
[ -n "$cap" ] || fail "no enabled unit with KillSignal=SIGINT to break"
sed 's/^KillSignal=SIGINT/KillSignal=SIGBOGUS/' "$T/units/$cap" > "$T/units/broken@x.service"
(cd "$T/units" && systemd-analyze verify --man=no ./broken@x.service) > "$T/broken.log" 2>&1 || true
[ -s "$T/broken.log" ] || fail "systemd-analyze verify did not notice a broken unit"
ok "a broken unit is noticed ($(head -1 "$T/broken.log" | cut -c1-60)...)"

# the directories each instance's configuration writes to: there when its
# unit starts on a fresh host (tmpfiles.d at boot, then StateDirectory=),
# with no step of the guide's, and writable under the unit's hardening
F=$T/fresh
mkdir -p "$F$PFX/lib"
cp -r "$R$PFX/lib/tmpfiles.d" "$F$PFX/lib/"
systemd-tmpfiles --root="$F" --create > /dev/null 2>&1 || fail "systemd-tmpfiles --create on a fresh root failed"
ndirs=0
for u in "${UNITS[@]}"; do
	inst=${u#*@}
	inst=${inst%.*}
	dirs=()
	case $u in
	dpdk-ibvcap@*.service)
		args=$(sed -n 's/^IBVCAP_ARGS=//p' "$R$ETC/dpdk-ibvcap/$inst.env" 2>/dev/null || true)
		# shellcheck disable=SC2086
		"$R$PFX/bin/dpdk-ibvcap" --check-config --skip-host-checks \
			--config "$R$ETC/dpdk-ibvcap/$inst.ini" $args > "$T/$inst.check" 2>&1 ||
			{ cat "$T/$inst.check"; fail "$inst.ini with $inst.env's IBVCAP_ARGS ($args) refused"; }
		mapfile -t dirs < <(sed -n -e 's/^write = [a-z]*:\([^,]*\).*/\1/p' \
			-e 's/^summary-json = \(.*\)/\1/p' "$T/$inst.check" | while read -r p; do
				case $p in *.json) dirname "$p" ;; *) echo "$p" ;; esac; done) ;;
	dpdk-ibvcap-dump@*.service)
		mapfile -t dirs < <(sed -n 's/^DUMP_ARGS=//p' "$R$ETC/dpdk-ibvcap/$inst.dump.env" |
			grep -oE -- '--write +[a-z]+:[^, ]+' | sed -E 's/--write +[a-z]+://') ;;
	*) continue ;;
	esac
	[ ${#dirs[@]} -gt 0 ] || fail "$u: its configuration names no directory (the parse above is wrong)"
	while read -r kind d; do
		[ "$kind" = state ] && mkdir -p "$F$d"
	done < "$T/units/$u.dirs"
	for d in "${dirs[@]}"; do
		[ -d "$F$d" ] || fail "$u: $d (its configuration's) does not exist when the unit starts" \
			"(not made by tmpfiles.d nor StateDirectory=)"
		w=0
		while read -r kind p; do
			case $d/ in "$p"/*) w=1 ;; esac
		done < "$T/units/$u.dirs"
		[ $w = 1 ] || fail "$u: $d is not writable under ProtectSystem=strict (no ReadWritePaths=/StateDirectory=)"
		ndirs=$((ndirs + 1))
	done
done
[ $ndirs -ge 2 ] || fail "only $ndirs configured directories checked"
ok "$ndirs directories the configurations write to exist at unit start and are writable"

# every installed program runs and says its version
for b in dpdk-ibvcap dpdk-ibvcap-dump dpdk-ibvcap-stat dpdk-ibvcap-diagnostics dpdk-ibvcap-fleet \
	dpdk-ibvcap-ctl dpdk-ibvcap-agent dpdk-ibvcap-array codifgen codifcheck; do
	[ -x "$R$PFX/bin/$b" ] || fail "not installed: $PFX/bin/$b"
	v=$("$R$PFX/bin/$b" --version 2>&1) || fail "installed $b --version: $v"
	case $v in "$b (dpdk-ibvcap) "[0-9]*) ;; *) fail "installed $b --version: '$v'" ;; esac
done
ok "ten programs in $PFX/bin, each answering --version"
# the Python tools' private module and the counter tables they read,
# where Debian puts a package's private modules (the tools found them:
# --version above imports the module)
for f in ibvcap_tools.py ibvcap_prom.py counters.json; do
	[ -s "$R$PFX/share/dpdk-ibvcap/python/$f" ] || fail "not installed: $PFX/share/dpdk-ibvcap/python/$f"
done
cmp -s "$R$PFX/share/dpdk-ibvcap/python/counters.json" "$BUILD/app/counters.json" ||
	fail "the installed counters.json is not the built one"
ok "the tools' modules and counters.json in $PFX/share/dpdk-ibvcap/python"
# the installed README's links, and every doc it or the docs name
# (docs/NAME.md, docs/perf/FILE, [text](PATH)), are there beside it; and
# every doc of the source tree is installed
python3 - "$R$PFX/share/doc/dpdk-ibvcap" "$SRC" > "$T/docs.out" <<'PY' || { cat "$T/docs.out"; fail "installed docs"; }
import os, re, sys
D, S = sys.argv[1:]
readme = os.path.join(D, "README.md")
assert os.path.getsize(readme) > 0, readme
names, where = set(), {}
docs = os.path.join(D, "docs")
for f in [readme] + [os.path.join(docs, x) for x in sorted(os.listdir(docs) if os.path.isdir(docs) else [])
                     if x.endswith(".md")]:
    text = open(f).read()
    base = os.path.dirname(f)
    for m in re.findall(r"\]\(([^)#\s]+)", text):  # markdown links, relative to the file
        if "://" not in m:
            p = os.path.normpath(os.path.join(base, m))
            names.add(p)
            where.setdefault(p, "%s: link (%s)" % (os.path.relpath(f, D), m))
    for m in re.findall(r"\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9]", text):  # docs/... named in text
        if os.path.exists(os.path.join(S, m)):  # a source tree path: installed at D/docs/...
            p = os.path.join(D, m)
            names.add(p)
            where.setdefault(p, "%s: names %s" % (os.path.relpath(f, D), m))
missing = sorted(p for p in names if not os.path.exists(p))
for p in missing:
    print("not installed: %s (%s)" % (os.path.relpath(p, D), where[p]))
src = sorted(os.path.relpath(os.path.join(r, x), S) for r, _, fs in os.walk(os.path.join(S, "docs"))
             for x in fs)
absent = [x for x in src if not os.path.isfile(os.path.join(D, x))]
for x in absent:
    print("not installed: %s (in the source tree)" % x)
assert not missing and not absent
links = sorted(os.path.relpath(p, D) for p in names if p.endswith(".md"))
assert "docs/counters.md" in links and "docs/vocabulary.md" in links, links
print("%d docs and files named (%s and %d others), all installed; the %d of the source tree's "
      "docs/ too" % (len(names), " ".join(links), len(names) - len(links), len(src)))
PY
ok "docs in $PFX/share/doc/dpdk-ibvcap: $(tail -1 "$T/docs.out") (README.md links docs/*.md, counters.md and vocabulary.md among them)"
if command -v help2man > /dev/null; then
	for p in man1/dpdk-ibvcap.1 man1/dpdk-ibvcap-dump.1 man1/dpdk-ibvcap-stat.1 man1/codifgen.1 \
		man1/codifcheck.1 man1/dpdk-ibvcap-diagnostics.1 man1/dpdk-ibvcap-fleet.1 \
		man1/dpdk-ibvcap-ctl.1 man1/dpdk-ibvcap-agent.1 man1/dpdk-ibvcap-array.1 \
		man5/dpdk-ibvcap.ini.5; do
		[ -s "$R$PFX/share/man/$p" ] || fail "man page not installed: $PFX/share/man/$p"
	done
	ok "man pages in $PFX/share/man (man1: ten tools, man5: dpdk-ibvcap.ini)"
fi

C=$BUILD/app/dpdk-ibvcap
# the shipped files are for capture hosts (their lcores, directories):
# checked as files here (tests/cli/ibvcap_check_config.sh checks hosts)
for f in askap.ini lab.ini; do
	"$C" --check-config --config "$SRC/config/$f" --skip-host-checks > "$T/$f.out" 2>&1 ||
		{ cat "$T/$f.out"; fail "$f refused"; }
done
grep -q '^antenna-ip = 10.10.0.216=ak06' "$T/askap.ini.out" || fail "askap.ini: antennas not read"
grep -q '^group = 239.17.0.4:36004@1' "$T/askap.ini.out" || fail "askap.ini: groups not read"
grep -q '^write = codif:/var/lib/dpdk-ibvcap/askap,rotate-time=10m' "$T/askap.ini.out" || fail "askap.ini: writer"
grep -q '^isolate = yes' "$T/askap.ini.out" || fail "askap.ini: isolate"
ok "--check-config accepts the shipped askap.ini and lab.ini"
# docs/operations.md §10 says what the shipped askap.ini holds (`key = value`
# in its opening paragraph): each such line is in the file, and the
# capture reads it so (its effective configuration)
python3 - "$DOC" "$SRC/config/askap.ini" "$T/askap.ini.out" > "$T/day.out" <<'PY' || { cat "$T/day.out"; fail "askap.ini is not what docs/operations.md §10 says"; }
import re, sys
doc, ini, eff = (open(p).read() for p in sys.argv[1:])
intro = re.search(r"^## 10\..*?\n(.*?)\n1\. ", doc, re.S | re.M).group(1)
assert "askap.ini" in intro, intro
said = re.findall(r"`([a-z-]+) = ([^`]+)`", intro)
assert len(said) >= 3, intro
lines = {tuple(x.strip() for x in l.split("=", 1)) for l in ini.splitlines()
         if "=" in l and not l.lstrip().startswith((";", "#"))}
bad = ["%s = %s" % kv for kv in said if kv not in lines]
for b in bad:
    print("docs/operations.md §10 says askap.ini holds '%s'; it does not" % b)
for k, v in said:  # as the capture reads it (a duration printed as 10.000s)
    m = re.search(r"^%s = (\S+)" % re.escape(k), eff, re.M)
    if not m or not (m.group(1) == v or re.fullmatch(r"[0-9.]+s", v) and
                     float(m.group(1).rstrip("s")) == float(v.rstrip("s"))):
        print("askap.ini's %s: the capture reads %s, §10 says %s" % (k, m.group(1) if m else "nothing", v))
        bad.append(k)
assert not bad
print("; ".join("%s = %s" % kv for kv in said))
PY
ok "askap.ini holds what docs/operations.md §10 says: $(cat "$T/day.out")"
sed 's/^isolate = yes/isolate = perhaps/' "$SRC/config/askap.ini" > "$T/bad1.ini"
run_expect_fail "broken config: bad flag" 1 "bad1.ini: [steering] --isolate: 'perhaps': expected yes or no" \
	"$C" --check-config --config "$T/bad1.ini"
sed 's/^retain = 10s/retains = 10s/' "$SRC/config/askap.ini" > "$T/bad2.ini"
run_expect_fail "broken config: unknown key" 1 "bad2.ini: [buffers] retains = 10s: unknown key" \
	"$C" --check-config --config "$T/bad2.ini"
sed 's/10.10.0.216=ak06/10.10.0.215=ak06/' "$SRC/config/askap.ini" > "$T/bad3.ini"
run_expect_fail "broken config: duplicate antenna" 1 "antenna 4 and antenna 5 have the same source address 10.10.0.215" \
	"$C" --check-config --config "$T/bad3.ini"
sed 's/^write = codif:/write = tape:/' "$SRC/config/askap.ini" > "$T/bad4.ini"
run_expect_fail "broken config: writer format" 1 "format 'tape', expected raw, codif, pcap or pcapng" \
	"$C" --check-config --config "$T/bad4.ini"
echo "$CHECKS checks passed"
