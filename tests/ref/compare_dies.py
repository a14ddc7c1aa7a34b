"""The DIE trees of `cudwarf dump --info --json` against llvm-dwarfdump's.

llvm-dwarfdump applies no EM_CUDA relocation, so it reads a relocated copy
made by tests/oracles/cubin_prep (-r -e -x; with -m for the Mercury twin).
Every DIE is compared: offset, tag, attribute names in order, and values:
strings, numbers (addresses, constants, references), enumerations, and
DW_OP expressions operation by operation.  decl_file/call_file are not
compared (llvm prints the path from the line table).

Inputs: .debug_info and .nv.merc.debug_info of the fixtures and the outside
cubins (suite dies), of build/gen's cubins (suite gen; every fourth under
the sanitizer build), and the hand-made .nv_debug_info_ptx object of
tests/tools/mkelf.py, read as .nv_debug_info_ptx and as .debug_info
(suite ptx-info).

    python3 -m pytest -m dies tests/ref/compare_dies.py
    python3 -m pytest -m gen -k merc tests/ref/compare_dies.py
"""
import json
import re
import subprocess
import sys

import pytest

from suite_env import ROOT, ref_views, relocated, require, run

INT = re.compile(r"^[+-]?(0x[0-9a-fA-F]+|\d+)")
VIEWS = {".debug_info": [], ".nv.merc.debug_info": ["-m"]}  # section -> cubin_prep's option for it


def llvm_dies(path):
    p = subprocess.run(["llvm-dwarfdump", "--debug-info", path], capture_output=True, text=True)
    dies, cur, pending = [], None, None
    for line in p.stdout.splitlines():
        if pending is not None:
            # multi-line value (location lists): keep the first line only
            pending[1] += "\n" + line
            if line.rstrip().endswith(")"):
                cur["attrs"].append((pending[0], pending[1]))
                pending = None
            continue
        m = re.match(r"^0x([0-9a-f]+):\s+(DW_TAG_\w+|NULL)", line)
        if m:
            cur = None if m.group(2) == "NULL" else {"offset": int(m.group(1), 16), "tag": m.group(2), "attrs": []}
            if cur:
                dies.append(cur)
            continue
        m = re.match(r"^\s+(DW_AT_\w+)\s+\((.*)$", line)
        if m and cur is not None:
            val = m.group(2)
            if val.rstrip().endswith(")"):
                cur["attrs"].append((m.group(1), val.rstrip()[:-1]))
            else:
                pending = [m.group(1), val]
    return dies


def our_dies(path, section):
    p = run("dump", "--info", "--json", "--section", section, path)
    assert p.returncode == 0, f"cudwarf exited {p.returncode}: {p.stderr.strip()}"
    doc, = json.loads(p.stdout)  # a cubin: an array of one image
    out = []
    for sec in doc["sections"]:
        for u in sec["units"]:
            out.extend(u["dies"])
    return out


def parse_ops(text):
    """'DW_OP_regx 0x257236, DW_OP_deref' -> [('DW_OP_regx', [0x257236]), ...]"""
    ops = []
    for part in text.split(","):
        toks = part.split()
        if not toks or not toks[0].startswith("DW_OP"):
            continue
        args = []
        for t in toks[1:]:
            m = INT.match(t)
            if m:
                args.append(int(m.group(0), 0))
        ops.append((toks[0], args))
    return ops


def same_value(name, ref, ours):
    v = ours.get("value")
    if name in ("DW_AT_decl_file", "DW_AT_call_file"):
        return None  # llvm prints the path from the line table
    if ref.startswith("<0x"):  # llvm's raw block: "<0x0000000a> 03 40 00 ..."
        return ours.get("value") == "".join(ref.split()[1:])
    if "expression" in ours:
        mine = [(o["op"], [a & 0xFFFFFFFFFFFFFFFF for a in o["args"]]) for o in ours["expression"]]
        theirs = [(n, [a & 0xFFFFFFFFFFFFFFFF for a in args]) for n, args in parse_ops(ref)]
        return mine == theirs
    if ref.startswith('"'):
        return isinstance(v, str) and ref == '"' + v + '"'
    if ref.startswith("DW_"):
        return ours.get("text") == ref.split()[0]
    if ref in ("true", "false"):
        return bool(v) == (ref == "true")
    m = INT.match(ref)
    if not m:
        return None
    n = int(m.group(0), 0) & 0xFFFFFFFFFFFFFFFF
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return (v & 0xFFFFFFFFFFFFFFFF) == n
    return False


def compare(ref_path, orig_path, section):
    ref = llvm_dies(ref_path)
    ours = our_dies(orig_path, section)
    bad, values, skipped, msgs = 0, 0, 0, []
    if len(ref) != len(ours):
        msgs.append(f"{len(ours)} DIEs vs llvm's {len(ref)}")
    for r, o in zip(ref, ours):
        if r["offset"] != o["offset"] or r["tag"] != o["tag"]:
            bad += 1
            msgs.append(f"DIE 0x{r['offset']:x} {r['tag']} vs ours 0x{o['offset']:x} {o['tag']}")
            continue
        names = [a["name"] for a in o["attributes"]]
        # llvm names attributes it does not know DW_AT_unknown_XXXX
        theirs = [n for n, _ in r["attrs"]]
        names = [t if t.startswith("DW_AT_unknown_") and int(t[14:], 16) == a["at"] else a["name"]
                 for t, a in zip(theirs, o["attributes"])] + names[len(theirs):]
        if names != theirs:
            bad += 1
            msgs.append(f"DIE 0x{r['offset']:x}: attributes {names} vs {[n for n, _ in r['attrs']]}")
            continue
        for (n, rv), oa in zip(r["attrs"], o["attributes"]):
            s = same_value(n, rv.split("\n")[0].strip(), oa)
            if s is None:
                skipped += 1
            elif s:
                values += 1
            else:
                bad += 1
                msgs.append(f"DIE 0x{r['offset']:x} {n}: llvm {rv!r} vs ours {oa.get('value')!r}")
    if len(ref) != len(ours):
        bad += abs(len(ref) - len(ours))
    return len(ref), values, skipped, bad, msgs


def check_view(path, section, tmp_path, ours=None):
    """llvm's .debug_info of path's relocated copy (of the view section)
    against our reading of section (or of ours)."""
    require("llvm-dwarfdump")
    rel = relocated(path, tmp_path / "r.cubin", *VIEWS[section])
    n, values, skipped, bad, msgs = compare(rel, path, ours or section)
    assert n > 0 and bad == 0, f"{n} DIEs, {values} values equal, {bad} differ:\n" + "\n".join(msgs[:10])


@pytest.mark.parametrize("path,section", ref_views(VIEWS, pytest.mark.dies))
def test_view(path, section, tmp_path):
    check_view(path, section, tmp_path)


@pytest.fixture(scope="module")
def info_ptx(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ptx") / "ptx.cubin")
    subprocess.run([sys.executable, f"{ROOT}/tests/tools/mkelf.py", "info-ptx", path], check=True)
    return path


@pytest.mark.ptx_info
@pytest.mark.parametrize("ours", [".nv_debug_info_ptx", ".debug_info"])
def test_ptx_info(info_ptx, ours, tmp_path):
    """the hand-made object's .nv_debug_info_ptx and its .debug_info copy,
    each against llvm's .debug_info"""
    check_view(info_ptx, ".debug_info", tmp_path, ours)
