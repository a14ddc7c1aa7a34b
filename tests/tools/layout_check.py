#!/usr/bin/env python3
"""The layout rules of the sources: docs/architecture.md names every file of
src/, tools/ and include/ (by path or name; a header also through the .c
file it declares, "cursor.h, .c" pairs, the chapters' list), no C file
or header runs over 1,000 lines, no function of stage 1 (src/ptx) over
120 (src/ptx, src/stage1: the unit a reader holds in mind: files split along seams, not to fit
a cap), and the CLI includes only its own headers and the public ones (a
library user has the same API as the tool).

usage: layout_check.py   (from the repository's root)
"""
import os, re, sys



def long_functions(path, most):
    """Functions of path longer than `most` lines (a definition: a line
    at column 0 ending in ")" followed by "{" alone, up to "}" alone)."""
    lines, out, i = open(path).read().split("\n"), [], 0
    while i + 1 < len(lines):
        if re.match(r"^[A-Za-z].*\)\s*$", lines[i]) and lines[i + 1] == "{":
            j = i + 2
            while j < len(lines) and lines[j] != "}":
                j += 1
            if j - i + 1 > most:
                out.append(f"{path}:{i + 1}: a function of {j - i + 1} lines (more than {most})")
            i = j
        i += 1
    return out


doc = open("docs/architecture.md").read()
words = set(re.findall(r"[\w./*-]+", doc))
limit = 1000
fn_limit = {"src/ptx": 120, "src/stage1": 120}
bad, n = [], 0
for top in ("src", "tools", "include"):
    for root, _, files in os.walk(top):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".map")):
                continue
            path = os.path.join(root, f)
            n += 1
            stem, ext = os.path.splitext(f)
            named = (path in words or f in words or
                     (ext == ".h" and (stem + ".c") in words) or
                     # "cursor.h, .c": a pair on one line
                     re.search(r"\b%s\.[ch], \.[ch]\b" % re.escape(stem), doc) or
                     # the chapters: "info.h (DIEs...), lines.h," after include/cudwarf/*.h
                     (root == "include/cudwarf" and re.search(r"\b%s\b" % re.escape(f), doc)))
            if not named:
                bad.append(f"{path}: not named in docs/architecture.md")
            lines = sum(1 for _ in open(path, errors="replace"))
            if ext in (".c", ".h") and lines > limit:
                bad.append(f"{path}: {lines} lines (more than {limit})")
            if ext == ".c" and root in fn_limit:
                bad += long_functions(path, fn_limit[root])
tool_headers = {f for f in os.listdir("tools") if f.endswith(".h")}
public = {"cudwarf.h"} | {"cudwarf/" + f for f in os.listdir("include/cudwarf")}
for f in sorted(os.listdir("tools")):
    if f.endswith((".c", ".h")):
        for no, line in enumerate(open(os.path.join("tools", f)), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and m.group(1) not in tool_headers and m.group(1) not in public:
                bad.append(f"tools/{f}:{no}: includes \"{m.group(1)}\", neither a tool header nor a public one")
for b in bad:
    print("FAIL", b)
print(f"{'ok  ' if not bad else 'FAIL'} {n} files named in docs/architecture.md, none over {limit} lines,"
      f" no stage-1 function over {fn_limit['src/stage1']}")
sys.exit(1 if bad else 0)
