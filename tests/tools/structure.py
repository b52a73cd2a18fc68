#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The house's structure, checked (issue 22's acceptance points).

structure.py [--max-func N] [--max-file N] [--no-links] SRC BUILD

Fails (exit 1), naming each place, when
  - a product function (C in app/ and lib/, Python in app/**/*.py) is
    longer than --max-func lines (100), counted from the line of its name
    to the line of its closing brace (C) or its last line (Python);
  - a product file (.c, .h, .py under app/ and lib/) is longer than
    --max-file lines (1000) and is not in BIG_FILES below;
  - two product object files linked into one binary or static library
    depend on each other both ways: each leaves undefined a symbol the
    other defines (nm over BUILD's objects, grouped by link target; a
    binary's group holds the product static libraries it links too).
Exit 2 when it cannot read what it needs (no nm, no build.ninja).
"""

import argparse
import ast
import json
import os
import re
import subprocess
import sys

# Files allowed past --max-file lines: each holds a single concern, named
# here. A file leaves this list when it shrinks below the limit (the test
# prints a note for a stale entry).
BIG_FILES = {
    'app/dpdk-ibvcap/ledger.c':
        'the scan ledger: per scan and writer, frames expected, recorded and missing by cause',
    'lib/writer/writer.c':
        'one writer: rows of an antenna buffer handed to a format sink, its files opened, rotated and named',
    'lib/fio/fio.c':
        'aligned whole-record file output: O_DIRECT, io_uring, .part and rename, cuts at the last whole record',
}

PRODUCT_DIRS = ('app', 'lib')
C_SUFFIXES = ('.c', '.h')


def product_files(src):
    out = []
    for top in PRODUCT_DIRS:
        for root, dirs, files in os.walk(os.path.join(src, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(C_SUFFIXES) or f.endswith('.py'):
                    out.append(os.path.relpath(os.path.join(root, f), src))
    return out


def blank_comment(text, i, out):
    """Blank the /* comment */ at i into out; the position after it."""
    j = text.find('*/', i + 2)
    j = len(text) if j < 0 else j + 2
    out.append(re.sub(r'[^\n]', ' ', text[i:j]))
    return j


def c_blank(text):
    """The C text with comments, string and character literals and
    preprocessor lines replaced by spaces (newlines kept, so line numbers
    stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in ' \t':
            out.append(c)
            i += 1
            continue
        if line_start and c == '#':
            # a preprocessor line, with its continuations (comments inside
            # are blanked with it)
            while i < n and text[i] != '\n':
                if text[i] == '\\' and i + 1 < n and text[i + 1] == '\n':
                    out.append(' \n')
                    i += 2
                    continue
                if text.startswith('/*', i):
                    i = blank_comment(text, i, out)
                    continue
                out.append(' ')
                i += 1
            continue
        line_start = False
        if text.startswith('/*', i):
            i = blank_comment(text, i, out)
            continue
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
            continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + c)
            i = j
            continue
        if c == '\n':
            line_start = True
        out.append(c)
        i += 1
    return ''.join(out)


IDENT = re.compile(r'[A-Za-z_]\w*$')


def c_functions(text):
    """(name, first line, last line) of each function definition: a brace
    at file scope whose declarator ends in a parameter list."""
    b = c_blank(text)
    funcs = []
    depth = 0
    head_start = 0  # where the text before the next file-scope brace begins
    i, n = 0, len(b)
    while i < n:
        c = b[i]
        if depth == 0 and c in ';}':
            head_start = i + 1
        elif c == '{':
            if depth == 0:
                f = c_function_head(b, head_start, i)
                if f is not None:
                    close = c_match(b, i)
                    name, name_pos = f
                    funcs.append((name, b.count('\n', 0, name_pos) + 1,
                                  b.count('\n', 0, close) + 1))
                    i = close
                    head_start = close + 1
                    continue
            depth += 1
        elif c == '}':
            depth = max(depth - 1, 0)
            if depth == 0:
                head_start = i + 1
        i += 1
    return funcs


def c_match(b, open_pos):
    depth = 0
    for j in range(open_pos, len(b)):
        if b[j] == '{':
            depth += 1
        elif b[j] == '}':
            depth -= 1
            if depth == 0:
                return j
    return len(b) - 1


def c_function_head(b, start, brace):
    """(name, position of the name) when b[start:brace] is a function's
    declarator, else None (a struct, an initialiser, an extern "C")."""
    head = b[start:brace].rstrip()
    if not head.endswith(')'):
        return None
    # the parameter list: the parenthesis that closes the head
    depth = 0
    j = len(head) - 1
    while j >= 0:
        if head[j] == ')':
            depth += 1
        elif head[j] == '(':
            depth -= 1
            if depth == 0:
                break
        j -= 1
    if j < 0:
        return None
    before = head[:j].rstrip()
    m = IDENT.search(before)
    if not m or m.group(0) in ('if', 'while', 'for', 'switch', 'return',
                               '__attribute__', 'sizeof'):
        return None
    # an initialiser or a declaration list is no definition
    outer = re.sub(r'\([^()]*\)', '', before)
    if '=' in outer:
        return None
    return m.group(0), start + m.start()


def py_functions(text, path):
    tree = ast.parse(text, path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.name, node.lineno, node.end_lineno))
    return out


def check_sizes(src, files, max_func, max_file, big_files=None):
    big_files = BIG_FILES if big_files is None else big_files
    bad = []
    for rel in files:
        path = os.path.join(src, rel)
        with open(path, encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        lines = text.count('\n') + (0 if text.endswith('\n') or not text else 1)
        if lines > max_file and rel not in big_files:
            bad.append(f'{rel}: {lines} lines, over {max_file}, and not in '
                       f'structure.py\'s BIG_FILES (one concern, named)')
        funcs = py_functions(text, path) if rel.endswith('.py') else c_functions(text)
        for name, first, last in funcs:
            if last - first + 1 > max_func:
                bad.append(f'{rel}:{first}: {name}: {last - first + 1} lines, '
                           f'over {max_func}')
    for rel in sorted(big_files):
        path = os.path.join(src, rel)
        lines = -1
        if os.path.exists(path):
            with open(path, encoding='utf-8', errors='replace') as fh:
                lines = sum(1 for _ in fh)
        if lines <= max_file:
            print(f'note: {rel} is in BIG_FILES but ' +
                  (f'{lines} lines, not over {max_file}' if lines >= 0 else 'not there') +
                  ': take it off the list')
    return bad


def link_groups(build):
    """{target: [objects]} for each product binary and static library: its
    own objects built from app/ or lib/ sources, and for a binary those of
    the product static libraries it links."""
    with open(os.path.join(build, 'compile_commands.json')) as fh:
        cc = json.load(fh)
    product = set()
    for e in cc:
        srcpath = os.path.normpath(os.path.join(e['directory'], e['file']))
        rel = os.path.relpath(srcpath, SRC)
        if rel.split(os.sep)[0] in PRODUCT_DIRS:
            product.add(e['output'])
    edges = {}
    with open(os.path.join(build, 'build.ninja')) as fh:
        for line in fh:
            m = re.match(r'build (\S+): (c_LINKER|STATIC_LINKER)\s+(.*)', line)
            if not m:
                continue
            target, rest = m.group(1), m.group(3)
            explicit, _, implicit = rest.partition(' | ')
            implicit = implicit.partition(' || ')[0]
            objs = [o for o in explicit.split() if o in product]
            libs = [x for x in (explicit + ' ' + implicit).split()
                    if x.endswith('.a') and x.split('/')[0] in PRODUCT_DIRS]
            edges[target] = (objs, libs)
    groups = {}
    for target, (objs, libs) in edges.items():
        if target.split('/')[0] not in PRODUCT_DIRS or not objs:
            continue
        allobjs = list(objs)
        for lib in libs:
            allobjs += edges.get(lib, ([], []))[0]
        groups[target] = sorted(set(allobjs))
    return groups


def nm_symbols(build, objs):
    """{object: (defined, undefined)} from one nm over all the objects."""
    out = {o: (set(), set()) for o in objs}
    if not objs:
        return out
    r = subprocess.run(['nm', '-P', '-A'] + objs, cwd=build,
                       capture_output=True, text=True, check=True)
    for line in r.stdout.splitlines():
        obj, _, rest = line.partition(': ')
        f = rest.split()
        if obj not in out or len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == 'U':
            out[obj][1].add(name)
        elif kind.isupper() or kind in 'vw':
            out[obj][0].add(name)
    return out


def check_links(build):
    bad = []
    seen = set()
    groups = link_groups(build)
    if not groups:
        return ['no product link targets found in build.ninja'], 0, 0
    cache = nm_symbols(build, sorted({o for g in groups.values() for o in g}))
    # the smallest group first: a pair is reported under its own library
    for target, objs in sorted(groups.items(), key=lambda g: (len(g[1]), g[0])):
        owner = {}
        for o in objs:
            for s in cache[o][0]:
                owner.setdefault(s, o)
        uses = {}
        for o in objs:
            for s in cache[o][1]:
                d = owner.get(s)
                if d is not None and d != o:
                    uses.setdefault((o, d), []).append(s)
        for (a, b), syms in sorted(uses.items()):
            if a < b and (b, a) in uses and (a, b) not in seen:
                seen.add((a, b))
                bad.append(f'{target}: {obj_name(a)} and {obj_name(b)} call each '
                           f'other both ways: {obj_name(a)} uses '
                           f'{", ".join(sorted(syms))}; {obj_name(b)} uses '
                           f'{", ".join(sorted(uses[(b, a)]))}')
    return bad, len(groups), len(cache)


def obj_name(o):
    return OBJ_SRC.get(o, o)


def self_test():
    """The checks on a made-up tree that breaks each rule once (and keeps
    to it beside): every break found, nothing else."""
    import tempfile
    global SRC
    with tempfile.TemporaryDirectory(prefix='structure.') as tmp:
        src = os.path.join(tmp, 'src')
        build = os.path.join(src, 'build')
        os.makedirs(os.path.join(src, 'app', 'x'))
        os.makedirs(os.path.join(build, 'app', 'x.p'))
        body = lambda n: ''.join('\tx += %d;\n' % k for k in range(n - 4))
        # 101 lines, with braces in strings, a character and comments;
        # then one of exactly 100 lines
        long_c = ('int\nlong_one(int x)\n{\n\tconst char *s = "{{{"; /* { */\n'
                  + body(100) + '\treturn x + s[0] + \'{\';\n}\n'
                  '#define M(a) { a }\n'
                  'static struct { int a; } tab = { 1 };\n'
                  'int\nhundred(int x)\n{\n' + body(100)
                  + '\treturn x + tab.a; // }\n}\n')
        files = {
            'app/x/a.c': long_c + 'int b_fn(void);\nint a_fn(void) { return b_fn(); }\n',
            'app/x/b.c': 'int a_fn(void);\nint b_fn(void) { return 1; }\n'
                         'int b_other(void) { return a_fn(); }\n',
            'app/x/big.h': '/* big */\n' * 1001,
            'app/x/p.py': 'def long_py(x):\n' + '    x += 1\n' * 100 + '\n\n'
                          'def short_py(x):\n' + '    x += 1\n' * 98 + '    return x\n',
        }
        for rel, text in files.items():
            with open(os.path.join(src, rel), 'w') as fh:
                fh.write(text)
        cc = []
        for f in ('a', 'b'):
            obj = f'app/x.p/x_{f}.c.o'
            subprocess.run(['cc', '-c', '-o', os.path.join(build, obj),
                            os.path.join(src, 'app', 'x', f + '.c')], check=True)
            cc.append({'directory': build, 'file': f'../app/x/{f}.c', 'output': obj})
        with open(os.path.join(build, 'compile_commands.json'), 'w') as fh:
            json.dump(cc, fh)
        with open(os.path.join(build, 'build.ninja'), 'w') as fh:
            fh.write('build app/x: c_LINKER app/x.p/x_a.c.o app/x.p/x_b.c.o | /usr/lib/libm.so\n')
        SRC = src
        for e in cc:
            OBJ_SRC[e['output']] = os.path.relpath(
                os.path.normpath(os.path.join(build, e['file'])), src)
        bad = check_sizes(src, product_files(src), 100, 1000, {})
        bad += check_links(build)[0]
        with open(os.path.join(src, 'app/x/a.c')) as fh:
            found = [(f[0], f[2] - f[1] + 1) for f in c_functions(fh.read())]
    want = [
        'app/x/a.c:2: long_one: 101 lines',
        'app/x/big.h: 1001 lines',
        'app/x/p.py:1: long_py: 101 lines',
        'app/x: app/x/a.c and app/x/b.c call each other both ways: '
        'app/x/a.c uses b_fn; app/x/b.c uses a_fn',
    ]
    ok = len(bad) == len(want) and all(any(b.startswith(w) for b in bad) for w in want)
    if found != [('long_one', 101), ('hundred', 100), ('a_fn', 1)]:
        print(f'self-test: C functions read as {found}')
        ok = False
    for b in bad:
        print('self-test found: ' + b)
    print('self-test: ' + ('each broken rule found, nothing else' if ok else
                           f'FAILED: wanted {want}'))
    return ok


SRC = '.'
OBJ_SRC = {}


def main():
    global SRC
    ap = argparse.ArgumentParser()
    ap.add_argument('--max-func', type=int, default=100)
    ap.add_argument('--max-file', type=int, default=1000)
    ap.add_argument('--no-links', action='store_true',
                    help='skip the nm check (no build tree)')
    ap.add_argument('--self-test', action='store_true',
                    help='first check the checks on a made-up tree')
    ap.add_argument('src')
    ap.add_argument('build', nargs='?')
    a = ap.parse_args()
    if a.self_test and not self_test():
        return 1
    OBJ_SRC.clear()
    SRC = os.path.abspath(a.src)
    files = product_files(SRC)
    bad = check_sizes(SRC, files, a.max_func, a.max_file)
    print(f'{len(files)} product files read: functions up to {a.max_func} lines, '
          f'files up to {a.max_file} ({len(BIG_FILES)} named exceptions)')
    if not a.no_links:
        if not a.build:
            print('structure.py: BUILD needed for the link check', file=sys.stderr)
            return 2
        build = os.path.abspath(a.build)
        try:
            with open(os.path.join(build, 'compile_commands.json')) as fh:
                for e in json.load(fh):
                    p = os.path.normpath(os.path.join(e['directory'], e['file']))
                    OBJ_SRC[e['output']] = os.path.relpath(p, SRC)
            links, ngroups, nobjs = check_links(build)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f'structure.py: cannot read the build\'s objects: {e}', file=sys.stderr)
            return 2
        print(f'{ngroups} product link targets, {nobjs} objects: no two '
              f'depending on each other both ways' if not links else
              f'{ngroups} product link targets, {nobjs} objects')
        bad += links
    for b in bad:
        print('FAIL ' + b)
    if bad:
        print(f'{len(bad)} structure failure(s)')
        return 1
    print('structure ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
