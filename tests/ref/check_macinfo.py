"""`cudwarf dump --macinfo --json` against GNU readelf --debug-dump=macro:
the hand-made object of tests/tools/mkelf.py (every DWARF 2/3 entry type,
two lists) and every fixture with a .debug_macinfo (CUDA 13.0: a lone 0).
Compared entry by entry: type, line, file or constant, string.

    python3 -m pytest -m macinfo
"""
import json
import re
import subprocess
import sys

import pytest

from suite_env import ROOT, fixture_cubins, run, short

pytestmark = pytest.mark.macinfo


def readelf_entries(path):
    r = subprocess.run(["readelf", "--debug-dump=macro", path], capture_output=True, text=True)
    if ".debug_macinfo" not in r.stdout:
        return None
    ref = []
    for line in r.stdout.splitlines():
        m = re.match(r"^ (DW_MACINFO_\w+)(?: - (\w+) ?: (\d+) (\w+) ?: (.*))?$", line)
        if not m:
            continue
        t, _, a, _, b = m.groups()
        if t == "DW_MACINFO_start_file":
            ref.append((t, int(a), int(b)))
        elif t == "DW_MACINFO_end_file":
            ref.append((t,))
        else:
            ref.append((t, int(a), b))
    return ref


def our_entries(path):
    p = run("dump", "--macinfo", "--json", path)
    assert p.returncode == 0, p.stderr
    mine = []
    for e in json.loads(p.stdout)[0]["sections"][0]["entries"]:
        t = e["type"]
        if t == "DW_MACINFO_start_file":
            mine.append((t, e["line"], e["file"]))
        elif t == "DW_MACINFO_end_file":
            mine.append((t,))
        elif t == "DW_MACINFO_vendor_ext":
            mine.append((t, e["constant"], e["string"]))
        elif t != "end":
            mine.append((t, e["line"], e["string"]))
    return mine


@pytest.fixture(scope="module")
def handmade(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("macinfo") / "mac.o")
    subprocess.run([sys.executable, f"{ROOT}/tests/tools/mkelf.py", "macinfo", path], check=True)
    return path


def test_every_entry_type(handmade):
    ref = readelf_entries(handmade)
    assert ref, "readelf finds no .debug_macinfo in mkelf.py's object"
    assert our_entries(handmade) == ref


def with_macinfo():
    return [f for f in fixture_cubins() if b".debug_macinfo" in open(f, "rb").read()]


@pytest.mark.parametrize("path", with_macinfo(), ids=short)
def test_fixture(path):
    ref = readelf_entries(path)
    assert ref is not None, "readelf finds no .debug_macinfo"
    assert our_entries(path) == ref
