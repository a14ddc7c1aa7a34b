"""The name indexes cudwarf builds (`cudwarf pubnames`) against the ones
NVVM/ptxas wrote into the objects: for every file with a .debug_pubnames or
.debug_pubtypes (and their Mercury twins), `--check` must find them
byte-identical, relocations applied; `-o` must write the raw bytes of a
relocatable object's section exactly (unit offset 0, relocated later).  The
index built (pubnames --json) and the one ptxas wrote (dump --pubnames
--json) agree set for set.  A copy with one name byte changed must be caught.

Inputs: the fixtures and build/gen's cubins (every fourth under the
sanitizer build) with a name index.

    python3 -m pytest -m pubnames tests/ref/check_pubnames.py
"""
import json

import pytest

from cubin_bytes import sections
from suite_env import fixture_cubins, gen_sample, or_skip, run, section_names, short

pytestmark = pytest.mark.pubnames


def kinds(kind):
    return {f".debug_{kind}", f".nv.merc.debug_{kind}"}


FILES = [f for f in fixture_cubins() + gen_sample() if kinds("pubnames") & section_names(f)]


def relocatable(path):
    with open(path, "rb") as f:
        return int.from_bytes(f.read(18)[16:18], "little") == 1


@pytest.mark.parametrize("path,kind", [pytest.param(f, k, id=f"{short(f)}:{k}") for f in FILES
                                       for k in ("pubnames", "pubtypes") if kinds(k) & section_names(f)])
def test_check(path, kind):
    """--check [--types]: every section of the kind identical to the index built"""
    p = run("pubnames", "--check", *(["--types"] if kind == "pubtypes" else []), path)
    same = [l for l in p.stdout.splitlines() if " identical to the index built from " in l]
    want = len(kinds(kind) & section_names(path))
    assert p.returncode == 0, (p.stdout + p.stderr).strip()[:300]
    assert len(same) == want, f"{len(same)}/{want} sections identical"


@pytest.mark.parametrize("path", [f for f in FILES if ".debug_pubnames" in section_names(f) and relocatable(f)],
                         ids=short)
def test_raw_bytes(path, tmp_path):
    """pubnames -o writes the section's bytes as ptxas did"""
    data = open(path, "rb").read()
    h = dict(sections(data))[".debug_pubnames"]
    out = tmp_path / "pn.bin"
    p = run("pubnames", "-o", out, path)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == data[h[4]:h[4] + h[5]]


# what pubnames prints is what the reader reads back (the same printer):
# names and unit offsets resolved, set for set
@pytest.mark.parametrize("path", FILES[:6], ids=short)
def test_json_sets(path):
    built = run("pubnames", "--json", path)
    have = run("dump", "--json", "--pubnames", path)
    b = [o["sets"] for o in json.loads(built.stdout) if o["section"] == ".debug_pubnames"]
    h = [sec["sets"] for im in json.loads(have.stdout) for sec in im["sections"] if sec["section"] == ".debug_pubnames"]
    assert h, "dump --pubnames shows no .debug_pubnames"
    assert b == h


@pytest.mark.parametrize("path", or_skip(FILES[:1], "no file with a .debug_pubnames"), ids=short)
def test_wrong_byte_caught(path, tmp_path):
    """one character of the first name changed: --check names the byte, exit 1"""
    data = bytearray(open(path, "rb").read())
    h = dict(sections(bytes(data)))[".debug_pubnames"]
    data[h[4] + 18] ^= 0x20  # first name's first character (set header 14 + DIE offset 4)
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(data)
    p = run("pubnames", "--check", bad)
    assert p.returncode == 1 and ".debug_pubnames+0x12: byte" in p.stdout, p.stdout.strip()[:300]
