#!/usr/bin/env python3
"""The drawn structure of src/ and tools/, from the objects themselves.

A module is a directory (src/dwarf, src/link, ..., tools; the files at the
top of src/ are "src").  Module A depends on B when an object of A refers
to a symbol an object of B defines (nm).  Prints the edges, and fails when
the graph has a cycle (naming it) -- the layering docs/architecture.md
draws: tools on the library, the library's modules on each other without
going round.  tools/ files are modules of their own (one per file) so a
command that reaches back into the dispatcher shows as a cycle too.

usage: module_graph.py BUILD_DIR
"""
import collections, os, subprocess, sys

build = sys.argv[1]
objs = []
for root, _, files in os.walk(build):
    rel = os.path.relpath(root, build)
    if rel.split(os.sep)[0] not in ("src", "tools"):
        continue
    # objects whose source is gone (a file moved or split) are not the program
    objs += [os.path.join(root, f) for f in files
             if f.endswith(".o") and os.path.exists(os.path.join(rel, f[:-2] + ".c"))]


def module(path):
    rel = os.path.relpath(path, build)
    parts = rel.split(os.sep)
    if parts[0] == "tools":
        return "tools/" + parts[1][:-2]
    return "src" if len(parts) == 2 else "src/" + parts[1]


defined, wanted = {}, collections.defaultdict(set)
for o in objs:
    m = module(o)
    out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            defined.setdefault(f[2], m)
        elif len(f) == 2 and f[0] == "U":
            wanted[m].add(f[1])
edges = collections.defaultdict(set)
for m, syms in wanted.items():
    for s in syms:
        d = defined.get(s)
        if d and d != m:
            edges[m].add(d)
for m in sorted(edges):
    print(f"{m:22} -> {', '.join(sorted(edges[m]))}")

# a cycle, if any: depth-first search with colours
colour, stack = {}, []


def dfs(m):
    colour[m] = 1
    stack.append(m)
    for d in sorted(edges[m]):
        if colour.get(d) == 1:
            return stack[stack.index(d):] + [d]
        if not colour.get(d):
            c = dfs(d)
            if c:
                return c
    colour[m] = 2
    stack.pop()
    return None


for m in sorted(set(edges) | set(defined.values())):
    if not colour.get(m):
        c = dfs(m)
        if c:
            print("FAIL a cycle: " + " -> ".join(c))
            sys.exit(1)
print(f"ok   {len(set(defined.values()))} modules, no cycle")
