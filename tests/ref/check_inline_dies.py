"""-G inline stacks: what `cudwarf addr2line -i --json` answers equals what
the DIEs say, read by llvm-dwarfdump from a relocated copy.

-G line tables carry no inlined-call contexts; the inline structure is in
.debug_info (DW_TAG_inlined_subroutine with its ranges, DW_AT_abstract_origin,
DW_AT_call_file/line/column).  From llvm-dwarfdump's tree this builds, for
sampled addresses of every function (the first and middle instruction of
every inlined range, and the instruction before each range ends), the
expected stack: the innermost inlined subroutine covering the address, then
each enclosing one, then the function; frame k >= 1 sits at the call_file
and call_line of frame k-1's subroutine.  addr2line must give the same
function names (linkage names) and the same caller files and lines, with
inline_source "die".

Inputs: the -G fixtures (*_G*) and build/gen's -G and cub_block cubins
(every fourth under the sanitizer build) whose .debug_abbrev declares
DW_TAG_inlined_subroutine (NVVM, which is LLVM, declares only the
abbreviations its DIEs use).

    python3 -m pytest -m inline_dies tests/ref/check_inline_dies.py
"""
import glob
import json
import os
import re
import subprocess

import pytest

from cubin_bytes import abbrev_tags
from suite_env import FIX, gen_sample, relocated, require, run, short

pytestmark = pytest.mark.inline_dies
DW_TAG_inlined_subroutine = 0x1d


def dies(path, tmp_path):
    """llvm-dwarfdump's DIEs: [(depth, offset, tag, {attr: text})]."""
    rel = relocated(path, tmp_path / "rel.cubin")
    out = subprocess.run(["llvm-dwarfdump", "--debug-info", rel], capture_output=True, text=True).stdout
    res, cur = [], None
    for line in out.splitlines():
        m = re.match(r"^0x([0-9a-f]+):( +)(DW_TAG_\w+|NULL)", line)
        if m:
            cur = None
            if m.group(3) != "NULL":
                cur = (len(m.group(2)), int(m.group(1), 16), m.group(3), {})
                res.append(cur)
            continue
        m = re.match(r"^\s+(DW_AT_\w+)\s+\((.*)\)$", line)
        if m and cur:
            cur[3][m.group(1)] = m.group(2)
        elif cur and re.match(r"^\s+\[0x[0-9a-f]+, 0x[0-9a-f]+\)", line):
            cur[3].setdefault("ranges", []).append(line.strip())
    return res


def ranges(attrs):
    if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
        lo = int(attrs["DW_AT_low_pc"], 16)
        hi = attrs["DW_AT_high_pc"]
        hi = int(hi, 16) if hi.startswith("0x") else lo + int(hi)
        return [(lo, hi)]
    out = []
    for r in attrs.get("ranges", []) + re.findall(r"\[0x[0-9a-f]+, 0x[0-9a-f]+\)", attrs.get("DW_AT_ranges", "")):
        m = re.search(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)", r)
        out.append((int(m.group(1), 16), int(m.group(2), 16)))
    return out


def quoted(v):
    m = re.search(r'"(.*)"', v or "")
    return m.group(1) if m else None


def expected(tree):
    """[(name+offset, (function names innermost first, caller sites))] for
    sampled addresses of every function with inlined subroutines."""
    funcs = []  # (linkage, lo, hi, [inline nodes: (ranges, name, call_file, call_line, parent)])
    stack = []  # (depth, kind, index)
    for depth, off, tag, attrs in tree:
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if tag == "DW_TAG_subprogram" and "DW_AT_low_pc" in attrs:
            name = quoted(attrs.get("DW_AT_linkage_name") or attrs.get("DW_AT_MIPS_linkage_name")) or \
                quoted(attrs.get("DW_AT_name"))
            (lo, hi), = ranges(attrs)
            funcs.append((name, lo, hi, []))
            stack.append((depth, "f", len(funcs) - 1))
        elif tag == "DW_TAG_inlined_subroutine" and funcs and any(k == "f" for _, k, _ in stack):
            parent = next((i for _, k, i in reversed(stack) if k == "i"), -1)
            nodes = funcs[-1][3]
            nodes.append((ranges(attrs), quoted(attrs.get("DW_AT_abstract_origin")),
                          quoted(attrs.get("DW_AT_call_file")), int(attrs.get("DW_AT_call_line", "0"), 0), parent))
            stack.append((depth, "i", len(nodes) - 1))
        else:
            stack.append((depth, "o", -1))
    out = []
    for name, lo, hi, nodes in funcs:
        if not nodes:
            continue
        samples = set()
        for rs, *_ in nodes:
            for a, b in rs:
                samples |= {a, a + ((b - a) // 2) // 16 * 16, max(a, b - 16)}
        for addr in sorted(samples):
            if not lo <= addr < hi:
                continue
            inner, best = -1, -1
            for k, (rs, *_rest) in enumerate(nodes):  # the deepest covering node
                if any(a <= addr < b for a, b in rs):
                    d, p = 0, k
                    while nodes[p][4] >= 0:
                        p, d = nodes[p][4], d + 1
                    if d >= best:
                        inner, best = k, d
            chain, k = [], inner
            while k >= 0:
                chain.append(nodes[k])
                k = nodes[k][4]
            # frames: names innermost first, then the function; callers at the call sites
            out.append((f"{name}+0x{addr - lo:x}", ([n[1] for n in chain] + [name], [(n[2], n[3]) for n in chain])))
    return out


def inputs():
    files = sorted(glob.glob(os.path.join(FIX, "*_G*.cubin"))) + \
        [f for f in gen_sample() if re.search(r"/G/|cub_block", f)]
    return [f for f in files if DW_TAG_inlined_subroutine in abbrev_tags(f)]


@pytest.mark.parametrize("path", inputs(), ids=short)
def test_stacks(path, tmp_path, check):
    require("llvm-dwarfdump")
    want = expected(dies(path, tmp_path))
    assert want, "its abbreviations declare DW_TAG_inlined_subroutine, but llvm-dwarfdump shows none to sample"
    r = run("addr2line", "-i", "--json", "-e", path, input="\n".join(loc for loc, _ in want) + "\n")
    assert r.returncode == 0, r.stderr.strip()[:300]
    got = json.loads(r.stdout)
    check("one answer per address", len(got) == len(want), f"{len(got)} answers, {len(want)} addresses")
    for (loc, (names, sites)), g in zip(want, got):
        fr = g["frames"]
        gnames = [f["function"] for f in fr]
        gsites = [(f["path"], f["line"]) for f in fr[1:]]
        check(f"{loc}: addr2line's functions, callers and inline_source = the DIEs'",
              gnames == names and gsites == sites and g["inline_source"] == ("die" if len(names) > 1 else None),
              f"addr2line {gnames} {gsites} ({g['inline_source']}) vs DIEs {names} {sites}")
