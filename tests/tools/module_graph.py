#!/usr/bin/env python3
"""The drawn structure of src/ and tools/, from the objects themselves,
at two levels: the modules (folders) and the files.

A module is a directory (src/dwarf, src/link, ..., tools; the files at the
top of src/ are "src").  Module A depends on B when an object of A refers
to a symbol an object of B defines (nm).  Prints the edges, and fails when
the graph has a cycle (naming it) -- the layering docs/architecture.md
draws: tools on the library, the library's modules on each other without
going round.  tools/ files are modules of their own (one per file) so a
command that reaches back into the dispatcher shows as a cycle too.  The
same search runs over the files: two files of one folder that call each
other (a file split to stay short rather than along a one-way seam) fail.

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


def source(path):
    """the file level: src/elf/cursor.c, tools/jobs.c"""
    return os.path.relpath(path, build)[:-2] + ".c"


syms_of = {}
for o in objs:
    out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    d, u = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            d.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            u.add(f[1])
    syms_of[o] = (d, u)


def graph(unit):
    defined, wanted = {}, collections.defaultdict(set)
    for o, (d, u) in syms_of.items():
        for s in d:
            defined.setdefault(s, unit(o))
        wanted[unit(o)] |= u
    edges = collections.defaultdict(set)
    for m, syms in wanted.items():
        for s in syms:
            t = defined.get(s)
            if t and t != m:
                edges[m].add(t)
    return set(defined.values()) | set(wanted), edges


def find_cycle(nodes, edges):
    """a cycle, if any: depth-first search with colours"""
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

    for m in sorted(nodes):
        if not colour.get(m):
            c = dfs(m)
            if c:
                return c
    return None


sys.setrecursionlimit(10000)
modules, edges = graph(module)
for m in sorted(edges):
    print(f"{m:22} -> {', '.join(sorted(edges[m]))}")
files, fedges = graph(source)
bad = 0
for what, nodes, e in (("modules", modules, edges), ("files", files, fedges)):
    c = find_cycle(nodes, e)
    if c:
        print(f"FAIL a cycle between {what}: " + " -> ".join(c))
        bad = 1
if bad:
    sys.exit(1)
print(f"ok   {len(modules)} modules and {len(files)} files, no cycle at either level")
