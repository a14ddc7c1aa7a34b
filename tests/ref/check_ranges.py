"""`cudwarf dump --aranges --ranges --json` against the reference readers:
.debug_aranges against llvm-dwarfdump --debug-aranges (every set header and
range), .debug_ranges against eu-readelf --debug-dump=ranges (every list,
range and base-address selection).  CUDA 13.0 writes neither section; the
test object comes from tests/tools/mkelf.py ranges.

    python3 -m pytest -m aranges tests/ref/check_ranges.py
"""
import json
import re
import subprocess
import sys

import pytest

from suite_env import ROOT, require, run

pytestmark = pytest.mark.aranges


@pytest.fixture(scope="module")
def handmade(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ranges") / "rg.o")
    subprocess.run([sys.executable, f"{ROOT}/tests/tools/mkelf.py", "ranges", path], check=True)
    return path


def ours(path, section):
    p = run("dump", "--aranges", "--ranges", "--json", path)
    assert p.returncode == 0, p.stderr
    doc, = json.loads(p.stdout)
    secs = {s["section"]: s for s in doc["sections"]}
    assert section in secs, f"no {section} in cudwarf's output"
    return secs[section]


def test_aranges(handmade):
    require("llvm-dwarfdump")
    out = subprocess.run(["llvm-dwarfdump", "--debug-aranges", handmade], capture_output=True, text=True).stdout
    ref = []
    for line in out.splitlines():
        m = re.match(r"Address Range Header: length = 0x([0-9a-f]+).*cu_offset = 0x([0-9a-f]+), addr_size = 0x([0-9a-f]+)", line)
        if m:
            ref.append([int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16), []])
        m = re.match(r"^\[0x([0-9a-f]+), 0x([0-9a-f]+)\)", line)
        if m:
            ref[-1][3].append((int(m.group(1), 16), int(m.group(2), 16)))
    mine = [[s["length"], s["unit_offset"], s["address_size"],
             [(r["address"], r["address"] + r["length"]) for r in s["ranges"]]]
            for s in ours(handmade, ".debug_aranges")["sets"]]
    assert ref, "llvm-dwarfdump shows no set"
    assert mine == ref


def test_ranges(handmade):
    require("eu-readelf")
    out = subprocess.run(["eu-readelf", "--debug-dump=ranges", handmade], capture_output=True, text=True).stdout
    ref, base_next = [], False
    for line in out.splitlines():
        m = re.match(r"^ \[\s*([0-9a-f]+)\] (.*)$", line)
        body = m.group(2) if m else line.strip()
        if m:
            ref.append((int(m.group(1), 16), []))
        if base_next:
            ref[-1][1].append(("base", int(body, 16)))
            base_next = False
        elif body == "base address":
            base_next = True
        else:
            r = re.match(r"^range ([0-9a-f]+), ([0-9a-f]+)$", body)
            if r:
                ref[-1][1].append(("range", int(r.group(1), 16), int(r.group(2), 16)))
    mine = []
    for l in ours(handmade, ".debug_ranges")["lists"]:
        ents = []
        for e in l["entries"]:
            if e["kind"] == "base":
                ents.append(("base", e["end"]))
            elif e["kind"] == "range":
                ents.append(("range", e["begin"], e["end"]))
        mine.append((l["offset"], ents))
    assert ref, "eu-readelf shows no list"
    assert mine == ref
