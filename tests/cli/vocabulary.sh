#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One vocabulary (docs/vocabulary.md): the table is read from the doc
# itself. Every form in a tool's column is run through that tool, parse
# only, and must be accepted (dpdk-ibvcap's --NAME VALUE forms as INI keys
# too); every old form must be refused with a message naming the new form,
# or taken with a one-line note naming it (the seed tool's two names). The
# checker is run once on a doctored table too, to show that it fails.
. "$(dirname "$0")/../lib.sh"
set -e
DOC=$SRC/docs/vocabulary.md
[ -f "$DOC" ] || fail "no $DOC"

check() {
	(cd "$T" && python3 - "$1" "$BUILD" "$T" "$PREFIX") <<'PY'
import os, re, shlex, subprocess, sys

doc, build, tmp, prefix = sys.argv[1:5]
exe = {
    "dpdk-ibvcap": [build + "/app/dpdk-ibvcap"],
    "dpdk-ibvcap-dump": [build + "/app/dpdk-ibvcap-dump"],
    "codifgen": [build + "/app/codifgen"],
    "codifcheck": [build + "/app/codifcheck/codifcheck"],
    "dpdk-ibvcap-stat": [build + "/app/dpdk-ibvcap-stat"],
}

def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]

lines = [l for l in open(doc) if l.startswith("|")]
head = cells(lines[0])
rows = [cells(l) for l in lines[2:]]
tools = [h for h in head if h in exe]
if len(tools) != 5 or head[-1] != "Old forms" or len(rows) < 10:
    sys.exit("the table: expected the five tools' columns, 'Old forms' and 10+ rows: %r" % head)

def argv(tool, form):
    """The command that checks FORM on TOOL, parse only."""
    a = shlex.split(form)
    if tool == "dpdk-ibvcap":
        extra = ["--check-config", "--skip-host-checks"]
    elif tool == "dpdk-ibvcap-dump":
        extra = ["--check-config"] + ([] if "--write" in a else ["--write", "codif:" + tmp])
    elif tool == "codifgen":
        out = {"--pcap", "--socket", "--tx-port"} & set(a)
        extra = ["--check-config"] + ([] if out else ["--pcap", tmp + "/g.pcap"])
    elif tool == "codifcheck":
        extra = ["--check-config"]
    else:  # no parse-only mode: an instance that does not run
        extra = ["--once"] + ([] if "--file-prefix" in a else ["--file-prefix", prefix + "none"])
    if "--" in a:  # EAL arguments first: the tool's options after them
        i = a.index("--") + 1
        return exe[tool] + a[:i] + extra + a[i:]
    if tool == "codifcheck":
        return exe[tool] + a[:1] + extra + a[1:]
    return exe[tool] + extra + a

def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr

def accepted(tool, rc, out):
    if tool == "dpdk-ibvcap-stat":  # refused by argparse: 2 and "error: argument"
        return rc != 2 and "error:" not in out.split(": no dpdk-ibvcap telemetry")[0]
    return rc == 0

def ini_form(form):
    """dpdk-ibvcap --NAME VALUE as an INI file, or None."""
    a = shlex.split(form)
    if len(a) != 2 or not a[0].startswith("--") or a[0] in ("--config",):
        return None
    path = os.path.join(tmp, "form.ini")
    with open(path, "w") as f:
        f.write("[vocabulary]\n%s = %s\n" % (a[0][2:], a[1]))
    return path

bad, nform, nold, nini = [], 0, 0, 0
for r in rows:
    if len(r) != len(head):
        bad.append("row %r: expected %d cells" % (r[0][:40], len(head)))
        continue
    for tool in tools:
        for form in re.findall(r"`([^`]+)`", r[head.index(tool)]):
            rc, out = run(argv(tool, form))
            nform += 1
            if not accepted(tool, rc, out):
                bad.append("%s %s: refused (exit %d): %s" % (tool, form, rc, out.strip()[-300:]))
            ini = ini_form(form) if tool == "dpdk-ibvcap" else None
            if ini and form.split()[0] not in ("--port",):
                rc, out = run(exe[tool] + ["--check-config", "--skip-host-checks", "--config", ini])
                nini += 1
                if rc != 0:
                    bad.append("%s INI %s: refused: %s" % (tool, form, out.strip()[-300:]))
    old = r[-1]
    if old in ("—", "-", ""):
        continue
    for item in old.split(";"):
        spans = re.findall(r"`([^`]+)`", item)
        if len(spans) != 2:
            bad.append("old form %r: expected `OLD FORM` -> `NEW`" % item)
            continue
        tool, form = spans[0].split(" ", 1)
        new, taken = spans[1], "taken" in item
        rc, out = run(argv(tool, form))
        nold += 1
        if taken:
            notes = [l for l in out.splitlines() if "old name" in l]
            if rc != 0 or len(notes) != 1 or new not in notes[0]:
                bad.append("%s %s: expected taken with one note naming %s (exit %d): %s"
                           % (tool, form, new, rc, out.strip()[-300:]))
        elif rc == 0 or new not in out:
            bad.append("%s %s: expected refused naming %s (exit %d): %s"
                       % (tool, form, new, rc, out.strip()[-300:]))
        ini = ini_form(form) if tool == "dpdk-ibvcap" and not taken else None
        if ini:
            rc, out = run(exe[tool] + ["--check-config", "--skip-host-checks", "--config", ini])
            nini += 1
            if rc == 0 or new not in out:
                bad.append("%s INI %s: expected refused naming %s: %s"
                           % (tool, form, new, out.strip()[-300:]))
for b in bad:
    print(b)
print("forms %d, old forms %d, INI %d" % (nform, nold, nini))
sys.exit(1 if bad or nform < 60 or nold < 10 else 0)
PY
}

check "$DOC" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "docs/vocabulary.md and the tools disagree"; }
ok "every form of docs/vocabulary.md accepted by its tool, every old form refused naming the new one (or taken with a note): $(tail -1 "$T/check.out")"

# the checker itself: a form no tool takes, and an old form that is taken,
# are each found
sed 's/`--count 200` frames per stream/`--frames 200` frames per stream/; s/`codifgen --select 1` → `--antenna`/`codifgen --antenna 1` → `--antenna`/' \
	"$DOC" > "$T/doctored.md"
cmp -s "$DOC" "$T/doctored.md" && fail "the doctoring changed nothing"
if check "$T/doctored.md" > "$T/doctored.out" 2>&1; then
	fail "a doctored table passed"
fi
grep -q "^codifgen --frames 200: refused" "$T/doctored.out" || fail "checker: $(cat "$T/doctored.out")"
grep -q "^codifgen --antenna 1: expected refused naming --antenna" "$T/doctored.out" ||
	fail "checker: $(cat "$T/doctored.out")"
ok "the checker finds a form the tool refuses and an old form it takes"
echo "$CHECKS checks passed"
