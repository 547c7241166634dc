#!/usr/bin/env python3
"""Rust functions by length, longest first: `fn` items (in impls and nested ones too), counted
from the `fn` line to the closing brace by brace matching that skips strings, raw strings,
char literals and comments. Approximate (a macro body is not parsed), dependency-free.

usage: fn_lengths.py [--min N] [FILES...]   (default: every .rs file under src/)
"""
import re, sys
def strip(src):
    out = []; i = 0; n = len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j; continue
        if src.startswith('/*', i):
            d = 0; j = i
            while j < n:
                if src.startswith('/*', j): d += 1; j += 2
                elif src.startswith('*/', j): d -= 1; j += 2
                else: j += 1
                if d == 0: break
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j; continue
        m = re.match(r'b?r(#*)"', src[i:i+10])
        if m and (i == 0 or not (src[i-1].isalnum() or src[i-1] == '_')):
            end = '"' + m.group(1)
            j = src.find(end, i + len(m.group(0))); j = n if j < 0 else j + len(end)
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j; continue
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            j += 1
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j; continue
        if c == "'":
            m = re.match(r"'(\\(x..|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", src[i:i+14], re.S)
            if m:
                out.append(' ' * len(m.group(0))); i += len(m.group(0)); continue
        out.append(c); i += 1
    return ''.join(out)
args = sys.argv[1:]; mn = 0
if args and args[0] == '--min': mn = int(args[1]); args = args[2:]
if not args:
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    args = sorted(str(p) for p in (root / 'src').rglob('*.rs'))
res = []
for f in args:
    s = strip(open(f).read())
    for m in re.finditer(r'\bfn\s+([A-Za-z_][A-Za-z0-9_]*)', s):
        # find body start: first '{' or ';' at paren/angle depth 0 after the signature
        j = m.end(); depth = 0
        while j < len(s):
            ch = s[j]
            if ch in '([': depth += 1
            elif ch in ')]': depth -= 1
            elif depth == 0 and ch == ';': j = -1; break
            elif depth == 0 and ch == '{': break
            j += 1
        if j < 0 or j >= len(s): continue
        d = 0; k = j
        while k < len(s):
            if s[k] == '{': d += 1
            elif s[k] == '}':
                d -= 1
                if d == 0: break
            k += 1
        a = s.count('\n', 0, m.start()) + 1; b = s.count('\n', 0, k) + 1
        if b - a + 1 >= mn: res.append((b - a + 1, f, a, m.group(1)))
cwd = __import__('os').getcwd() + '/'
try:
    for n, f, a, name in sorted(res, reverse=True):
        print("%5d  %s:%d %s" % (n, f[len(cwd):] if f.startswith(cwd) else f, a, name))
except BrokenPipeError:
    pass
