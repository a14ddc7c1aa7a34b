"""`cudwarf dump --json` for .debug_loc, .debug_str and
.debug_pubnames/.debug_pubtypes (and their Mercury twins) against
llvm-dwarfdump on a relocated copy (tests/oracles/cubin_prep -r -e -x; -m
for the Mercury twins): every list and its ranges (relocated) and
expressions, every string with its offset, every name with its DIE offset.
Inputs: the fixtures and the outside cubins.

    python3 -m pytest -m misc tests/ref/compare_misc.py
    python3 -m pytest -m misc -k debug_str tests/ref/compare_misc.py
"""
import json
import re
import subprocess

import pytest

from suite_env import external_oracle, fixture_cubins, relocated, require, run, views

INT = re.compile(r"^[+-]?(0x[0-9a-fA-F]+|\d+)$")
BASES = ("debug_loc", "debug_str", "debug_pubnames", "debug_pubtypes")
SECTIONS = [prefix + b for prefix in (".", ".nv.merc.") for b in BASES]
OPTION = {"debug_loc": "--loc", "debug_str": "--str", "debug_pubnames": "--pubnames", "debug_pubtypes": "--pubtypes"}


def llvm(path, what):
    return subprocess.run(["llvm-dwarfdump", f"--debug-{what}", path], capture_output=True, text=True).stdout


def ref_loc(text):
    lists, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^0x([0-9a-f]+): ?$", line)
        if m:
            cur = {"offset": int(m.group(1), 16), "entries": []}
            lists.append(cur)
            continue
        m = re.match(r"^\s+\((0x[0-9a-f]+), (0x[0-9a-f]+)\): (.*)$", line)
        if m and cur is not None:
            ops = []
            for part in m.group(3).split(","):
                toks = part.split()
                if toks and toks[0].startswith("DW_OP"):
                    ops.append((toks[0], [int(t, 0) & 0xFFFFFFFFFFFFFFFF for t in toks[1:] if INT.match(t)]))
            cur["entries"].append((int(m.group(1), 16), int(m.group(2), 16), ops))
    return [l for l in lists if l["entries"]]


def ours_loc(doc):
    out = []
    for l in doc["lists"]:
        entries = [(e["begin"], e["end"], [(x["op"], [a & 0xFFFFFFFFFFFFFFFF for a in x["args"]])
                                           for x in e.get("expression", [])]) for e in l["entries"] if e["kind"] == "range"]
        if entries:
            out.append({"offset": l["offset"], "entries": entries})
    return out


def ref_str(text):
    return [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r'^0x([0-9a-f]+): "(.*)"$', text, re.M)]


def ref_pub(text, section):
    m = re.search(rf"^{re.escape(section)} contents:\n(.*?)(?=^\.debug_|\Z)", text, re.M | re.S)
    if not m:
        return []
    return [(int(a, 16), b) for a, b in re.findall(r'^(0x[0-9a-f]+) "(.*)"$', m.group(1), re.M)]


@pytest.mark.misc
@pytest.mark.parametrize("path,section", views(fixture_cubins() + external_oracle(), SECTIONS))
def test_section(path, section, tmp_path):
    require("llvm-dwarfdump")
    merc = section.startswith(".nv.merc.")
    base = section.split(".")[-1]
    rel = relocated(path, tmp_path / "r.cubin", *(["-m"] if merc else []))
    p = run("dump", OPTION[base], "--json", "--section", section, path)
    assert p.returncode == 0, p.stderr.strip()
    doc = json.loads(p.stdout)[0]["sections"][0]
    if base == "debug_loc":
        ref, mine = ref_loc(llvm(rel, "loc")), ours_loc(doc)
        n = sum(len(l["entries"]) for l in ref)
    elif base == "debug_str":
        ref = ref_str(llvm(rel, "str"))
        mine = [(s["offset"], s["string"]) for s in doc["strings"]]
        n = len(ref)
    else:
        ref = ref_pub(llvm(rel, base[6:]), "." + base)
        mine = [(x["die"], x["name"]) for st in doc["sets"] for x in st["names"]]
        n = len(ref)
    assert n > 0, "llvm-dwarfdump shows nothing"
    first = next((f"llvm {a} vs ours {b}" for a, b in zip(ref, mine) if a != b), "")
    assert ref == mine, f"{len(ref)} in llvm's, {len(mine)} in ours; first difference: {first}"
