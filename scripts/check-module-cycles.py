#!/usr/bin/env python3
"""Fail on a dependency cycle between the top-level modules of a crate.

For each source directory given (default: every crate's `src/` of this workspace), a module is a
top-level `foo.rs` or `foo/` below it; module A depends on B when A's files name `crate::B` (in a
path or a `use crate::{..., B::...}` group; comments ignored). A cycle (A reaches B and B reaches
A) is printed with both modules' dependencies. Shared types belong in a leaf module instead.

Exit status: 0 without cycles, 1 with one or more.
"""
import os, re, sys

def modules_of(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'): continue
            rel = os.path.relpath(os.path.join(root, f), src)
            top = rel.split(os.sep)[0]
            top = top[:-3] if top.endswith('.rs') else top
            if top in ('lib', 'main'): continue
            mods.setdefault(top, []).append(os.path.join(root, f))
    return mods

def strip_comments(text):
    return re.sub(r'//[^\n]*', '', text)

def edges(src):
    mods = modules_of(src)
    names = set(mods)
    g = {m: set() for m in mods}
    for m, files in mods.items():
        for f in files:
            text = strip_comments(open(f, encoding='utf-8').read())
            # `crate::x`, and `use crate::{a, b::..}` groups
            for x in re.findall(r'\bcrate::([a-z_][a-z0-9_]*)', text):
                if x in names and x != m: g[m].add(x)
            for grp in re.findall(r'\bcrate::\{([^;]*)\}', text):
                for x in re.findall(r'(?:^|[{,\s])([a-z_][a-z0-9_]*)\s*(?:::|,|\}|$)', grp):
                    if x in names and x != m: g[m].add(x)
    return g

def cycles(g):
    found = set()
    for a in g:
        for b in g[a]:
            if a in reach(g, b): found.add(tuple(sorted((a, b))))
    return sorted(found)

def reach(g, start):
    seen, stack = set(), [start]
    while stack:
        n = stack.pop()
        for m in g.get(n, ()):
            if m not in seen:
                seen.add(m); stack.append(m)
    return seen

def workspace_sources():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = []
    for here, dirs, _ in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("target", ".git", "node_modules")]
        if os.path.isfile(os.path.join(here, "Cargo.toml")) and os.path.isdir(os.path.join(here, "src")):
            found.append(os.path.join(here, "src"))
    return sorted(found)


bad = 0
sources = sys.argv[1:] or workspace_sources()
for src in sources:
    g = edges(src)
    for a, b in cycles(g):
        print(f"{src}: {a} <-> {b} (through {sorted(g[a])} / {sorted(g[b])})")
        bad += 1
if not bad:
    print(f"check-module-cycles: no cycle in {len(sources)} crate(s)")
sys.exit(1 if bad else 0)
