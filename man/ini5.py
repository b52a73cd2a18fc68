#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-ibvcap.ini(5) from its template: the KEYS section from the
capture's own option table (--dump-options: which rows are INI keys, their
kind and section; --help: value syntax, help, range and default, per
section with its heading; --check-config of an empty file: what an unset
key means), the EXAMPLE from the shipped askap.ini.

  ini5.py EXE TEMPLATE EXAMPLE VERSION OUTPUT
"""
import os
import re
import subprocess
import sys
import tempfile


def die(msg):
    sys.exit("ini5.py: error: %s" % msg)


def run(*argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, check=False)
    if r.returncode != 0:
        die("%s: exit %d: %s" % (" ".join(argv), r.returncode, r.stdout[-500:]))
    return r.stdout


def rows(exe):
    """--dump-options: name -> (kind, where, section)"""
    out = {}
    for line in run(exe, "--dump-options").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split("\t")
        if len(f) < 8:
            die("--dump-options: '%s': expected 8 tab-separated fields" % line)
        out[f[0]] = (f[2], f[3], f[4])
    return out


HEAD = re.compile(r"^(\S.*) \[([a-z0-9-]+)\]:$")
OPT = re.compile(r"^  (?:-\w, |    )?(?:--([a-z0-9-]+)|([a-z0-9-]+) =)(?: (\S+))?(?: {2,}(.*))?$")
CONT = re.compile(r"^ {20,}(\S.*)$")


def help_sections(exe):
    """--help: [(title, section, intro, [(name, metavar, text)])]"""
    secs = []
    cur = None
    opt = None
    for line in run(exe, "--help").splitlines():
        m = HEAD.match(line)
        if m:
            cur = (m.group(1), m.group(2), [], [])
            secs.append(cur)
            opt = None
            continue
        if line and not line.startswith(" "):
            cur = opt = None  # a heading without [section]: not INI keys
            continue
        if cur is None:
            continue
        m = OPT.match(line)
        if m:
            opt = [m.group(1) or m.group(2), m.group(3) or "", m.group(4) or ""]
            cur[3].append(opt)
            continue
        m = CONT.match(line)
        if m and opt is not None:
            opt[2] = (opt[2] + " " + m.group(1)).strip()
            continue
        if line.strip() and opt is None:
            cur[2].append(line.strip())
    return secs


def unset_words(exe):
    """--check-config of an empty file: key -> what its absence means"""
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        path = f.name
    try:
        out = run(exe, "--check-config", "--skip-host-checks", "--config", path)
    finally:
        os.unlink(path)
    words = {}
    for line in out.splitlines():
        m = re.match(r"^# (?:\[\w+\] )?([a-z0-9-]+): (.*)$", line)
        if m:
            words.setdefault(m.group(1), m.group(2))
    return words


def esc(text):
    """roff: backslashes, hyphens as \\- (so options paste), no leading dot"""
    t = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + t if t.startswith((".", "'")) else t


def keys(exe):
    table = rows(exe)
    unset = unset_words(exe)
    ini = {n for n, (_, where, _) in table.items() if "ini" in where.split("+")}
    out = []
    seen = set()
    for title, section, intro, opts in help_sections(exe):
        items = [o for o in opts if o[0] in ini]
        if not items:
            continue
        out.append('.SS "%s [%s]"' % (esc(title), section))
        if intro:
            out.append(esc(" ".join(intro)))
        for name, metavar, text in items:
            kind = table[name][0]
            value = "yes|no" if kind == "flag" else metavar
            if not value:
                die("--help: --%s has no value syntax" % name)
            out.append(".TP")
            out.append("\\fB%s\\fR = \\fI%s\\fR" % (esc(name), esc(value)))
            if "default" not in text and name in unset:
                text += " (unset: %s)" % unset[name]
            out.append(esc(text))
            seen.add(name)
    missing = sorted(ini - seen)
    if missing:
        die("INI keys of --dump-options not in --help under a [section] heading: %s"
            % ", ".join(missing))
    return "\n".join(out)


def main():
    if len(sys.argv) != 6:
        die("usage: ini5.py EXE TEMPLATE EXAMPLE VERSION OUTPUT")
    exe, template, example, version, output = sys.argv[1:]
    page = open(template).read()
    ex = "\n".join(esc(l) if l else "" for l in open(example).read().rstrip("\n").split("\n"))
    for tag, text in (("@VERSION@", version), ("@KEYS@", keys(exe)), ("@EXAMPLE@", ex)):
        if tag not in page:
            die("%s: no %s" % (template, tag))
        page = page.replace(tag, text)
    with open(output + ".part", "w") as f:
        f.write(page)
    os.rename(output + ".part", output)


if __name__ == "__main__":
    main()
