"""Binaries other toolkits wrote: tests/fixtures/external/ (its README has
the provenance: CUDA 6.5 ELF32 cubins, CUDA 11.1-11.7 cubins, elfutils'
CUDA 11.2 test cubin, numba-cuda's CUDA 12.5 cubin/fatbin/object/archive/
LTO IR; sm_50 to sm_80) and the synthetic cubins tests/tools/old_toolkits.py
made for what they lack (ABI v7 sm_90, sh_link elsewhere, a 0x05 register
rule, ELF32 with line tables).

1. The SM every command reports is the header's, read here from the bytes
   by the layout EI_ABIVERSION names (7: bits 0-7, 8: bits 8-15), and a
   fatbin entry's SM equals its cubin's; --sm and link --arch select pre-13
   images.
2. Every command exits 0 or 1 (0 for the readers on every binary the
   compilers wrote), and every --json output parses; verify exits 0 (notes
   allowed) on every cubin.
3. elfutils' NVIDIA test cubin gives the 18 (address, line, context) rows
   its libdw test expects (elfutils tests/run-nvidia-extended-linemap-
   libdw.sh).
4. A synthetic cubin reads exactly like the cubin it was made from: the
   sh_link-elsewhere and ABI v7 copies in every view, the ELF32 copy in its
   rows, frames and symbols; the 0x05 register rule is a note, not an error.
5. addr2line -f names the innermost function symbol covering a PC (a local
   FUNC nested in its kernel's range, from the symbol table read here).
6. pubnames --check --json is JSON when the check fails.
(The rows, DIEs and frames of these files against libdw and llvm-dwarfdump:
the lines/dies/frames suites' compare_*.py.)

    python3 -m pytest -m external tests/ref/check_external.py
    python3 -m pytest -m external -k elf32 tests/ref/check_external.py
"""
import glob
import json
import os
import re
import struct

import pytest

from cubin_bytes import func_symbols, sections
from suite_env import FIX, run

pytestmark = pytest.mark.external

EXT = os.path.join(FIX, "external")


def ext(name):
    return os.path.join(EXT, name)


def header(path):
    """(class, abiversion, sm) from the file's own bytes."""
    b = open(path, "rb").read(64)
    cls, abiv = b[4], b[8]
    flags, = struct.unpack_from("<I", b, 36 if cls == 1 else 48)
    return cls, abiv, flags & 0xff if abiv == 7 else (flags >> 8) & 0xff


def jsonof(*a):
    r = run(*a)
    try:
        return r, json.loads(r.stdout)
    except ValueError as e:
        return r, e


OUTSIDE = sorted(p for p in glob.glob(os.path.join(EXT, "*")) if not p.endswith(".md"))
CUBINS = [p for p in OUTSIDE if p.endswith(".cubin")]
READABLE = [p for p in OUTSIDE if not p.endswith(".ltoir")]
name = os.path.basename


# 1. the SM, as the header says
@pytest.mark.parametrize("p", CUBINS, ids=name)
def test_sm_is_the_headers(p, check):
    cls, abiv, sm = header(p)
    r, j = jsonof("list", "--json", p)
    got = [im["sm"] for f in j for im in f["images"]] if isinstance(j, list) else j
    check(f"list --json sm_{sm} (ELF{32 if cls == 1 else 64}, ABI v{abiv})", got == [sm], f"{got}")
    r, j = jsonof("sections", "--json", p)
    got = j[0]["elf"] if isinstance(j, list) else {}
    check("sections --json sm and class", got.get("sm") == sm and got.get("elf_class") == (32 if cls == 1 else 64),
          f"{got}")
    r = run("lines", f"--sm={sm}", p)
    check(f"lines --sm={sm} selects it", r.returncode == 0, r.stderr.strip())


@pytest.mark.parametrize("p", [q for q in OUTSIDE if q.endswith((".fatbin", ".o", ".a")) and "ltoir" not in q],
                         ids=name)
def test_extracted_sm_is_the_labels(p, tmp_path):
    """each extracted cubin's header SM is its label's"""
    d = tmp_path / "x"
    run("extract", "--elf", "-o", d, p)
    files = sorted(glob.glob(os.path.join(d, "*.cubin")))
    want = [int(re.search(r"\.sm_(\d+)", f).group(1)) for f in files]
    assert files, "extract --elf wrote no cubin"
    assert [header(f)[2] for f in files] == want


def test_link_arch_sm70(tmp_path):
    """link --arch sm_70 finds the CUDA 12.5 fatbin's sm_70 entry"""
    out = str(tmp_path / "l.cubin")
    r = run("link", "-o", out, "--arch", "sm_70", ext("numba_test_device_functions.fatbin"))
    assert r.returncode == 0, r.stderr.strip()
    assert header(out)[2] == 70


def test_size_by_sm_two_sms():
    """size --by=sm: two SMs, not four"""
    r = run("size", "--by=sm", "--json", ext("numba_test_device_functions_multi.fatbin"))
    assert r.returncode == 0, r.stderr
    assert sorted(set(re.findall(r'"sm_(\d+)', r.stdout))) == ["70", "80"], r.stdout[:300]


# 2. exit statuses and JSON
COMMANDS = [["list"], ["list", "--json"], ["sections"], ["sections", "--json"], ["dump", "--all"],
            ["dump", "--all", "--json"], ["verify", "--notes"], ["verify", "--json"], ["lines"], ["lines", "--json"],
            ["size"], ["size", "--json"], ["pubnames", "--check"], ["pubnames", "--check", "--json"]]
# every other command: an answer or one error, never a status above 1
OTHERS = [["resources"], ["resources", "--json"], ["correlate"], ["correlate", "--json"], ["lines", "--long"],
          ["lines", "--json", "--compact"], ["ptx-lines"], ["dump", "--frames"], ["size", "--by=kernel"]]


@pytest.mark.parametrize("p", OUTSIDE, ids=name)
def test_readers_exit(p, check):
    """the readers exit 0 on what the compilers wrote (1 with one line on LTO IR); --json parses"""
    want_ok = p in READABLE
    for c in COMMANDS:
        r = run(*c, p)
        ok = r.returncode == 0 if want_ok else r.returncode == 1 and r.stderr.count("\n") == 1
        if ok and "--json" in c and want_ok:
            try:
                json.loads(r.stdout)
            except ValueError:
                ok = False
        check(f"{' '.join(c)} exits {0 if want_ok else 1}", ok, f"exit {r.returncode}: {r.stderr.strip()[:200]}")


@pytest.mark.parametrize("p", OUTSIDE, ids=name)
def test_other_commands_exit(p, check, tmp_path):
    for c in OTHERS:
        r = run(*c, p)
        check(f"{' '.join(c)} exits 0 or 1", r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr[:200]}")
    r = run("extract", "-o", tmp_path / "all", p)
    check("extract exits 0 or 1", r.returncode in (0, 1), r.stderr[:200])
    r = run("addr2line", "-f", "-e", p, "nosuch+0x10")
    check("addr2line of an unknown name exits 1 with one reason", r.returncode == 1 and r.stderr.strip(),
          r.stderr[:200])


def test_ltoir_named():
    r = run("list", ext("numba_test_device_functions.ltoir"))
    assert "LTO IR" in r.stderr, r.stderr.strip()


# 3. elfutils' expected rows (tests/run-nvidia-extended-linemap-libdw.sh)
ELFUTILS = [(0x0, 25, 0), (0x10, 26, 0), (0x40, 27, 0), (0x90, 25, 0), (0xa0, 28, 0), (0x100, 28, 0), (0x100, 8, 6),
            (0x150, 9, 6), (0x1e0, 31, 0), (0x1e0, 6, 9), (0x1e0, 8, 10), (0x220, 9, 10), (0x2b0, 7, 9),
            (0x2f0, 8, 9), (0x2f0, 18, 14), (0x330, 19, 14), (0x3c0, 33, 0), (0x480, 33, 0)]


def test_elfutils_rows():
    """elfutils' NVIDIA test cubin: the 18 rows its libdw test expects"""
    r, j = jsonof("lines", "--json", "--section", ".debug_line", ext("elfutils_nvidia_linemap.cubin"))
    assert isinstance(j, list), f"{j}: {r.stderr}"
    rows = [(x["address"], x["line"], x["context"])
            for sec in j[0]["sections"] for t in sec["tables"] for x in t["rows"]]
    assert rows == ELFUTILS


# 4. the synthetic cubins read like their sources
BASE = ext("synth_sm75_lineinfo.cubin")
E32 = ext("synth_sm75_lineinfo.elf32.cubin")
SYNTH = [(BASE, "shlink"), (BASE, "abi7"), (ext("synth_sm90_lineinfo.cubin"), "abi7")]
LOCS = ("_Z4kernPfi+0x40", "_Z4kernPfi+0x100")


@pytest.mark.parametrize("src,kind", SYNTH, ids=lambda x: name(x).replace(".cubin", "") if "/" in x else x)
def test_synthetic_like_source(src, kind, check):
    p = src.replace(".cubin", f".{kind}.cubin")
    for c in (["lines"], ["dump", "--all"], ["dump", "--all", "--json"]):
        ra, rb = run(*c, src), run(*c, p)
        check(f"{' '.join(c)} as on its source", ra.returncode == rb.returncode == 0 and
              ra.stdout.replace(src, "X") == rb.stdout.replace(p, "X"), rb.stderr[:200])
    ra, rb = run("addr2line", "-f", "-i", "-e", src, *LOCS), run("addr2line", "-f", "-i", "-e", p, *LOCS)
    check("addr2line -f -i as on its source", ra.returncode == rb.returncode == 0 and ra.stdout == rb.stdout,
          rb.stdout + rb.stderr)


def test_shlink_verify_notes():
    """verify notes each sh_link, exit 0"""
    r = run("verify", "--notes", ext("synth_sm75_lineinfo.shlink.cubin"))
    assert r.returncode == 0 and r.stdout.count("not a symbol table") == 5, r.stdout


def test_cfa05_verify_note():
    """verify exits 0 with a note naming 0x05"""
    r = run("verify", "--notes", ext("synth_sm75_lineinfo.cfa05.cubin"))
    assert r.returncode == 0 and "operation 0x05" in r.stdout and "0 errors, 1 note" in r.stdout, r.stdout


def test_cfa05_frames_show_bytes():
    r = run("dump", "--frames", ext("synth_sm75_lineinfo.cfa05.cubin"))
    assert "<unknown operation: 05>" in r.stdout, r.stdout[-300:]


def rows_of(p):
    r, j = jsonof("lines", "--json", p)
    if not isinstance(j, list):
        return None
    return [(sec["section"], [(x["address"], x["line"], x["path"], x["context"], x["symbol"]) for t in sec["tables"]
                              for x in t["rows"]]) for sec in j[0]["sections"]]


def test_elf32_rows():
    """line rows equal the ELF64 source's"""
    want = rows_of(BASE)
    assert want, "no rows from the ELF64 source"
    assert rows_of(E32) == want


def test_elf32_frames():
    """frame rows and FDE ranges equal the source's"""
    fa, fb = run("dump", "--frames", BASE).stdout, run("dump", "--frames", E32).stdout
    pcs = lambda t: re.findall(r"pc=\S+ \(.*?\)|initial rule.*|0x[0-9a-f]+: CFA=.*", t)  # noqa: E731
    assert pcs(fa), "no frames in the ELF64 source"
    assert pcs(fb) == pcs(fa)


@pytest.mark.parametrize("loc", LOCS)
def test_elf32_addr2line(loc):
    ra, rb = run("addr2line", "-f", "-i", "-e", BASE, loc), run("addr2line", "-f", "-i", "-e", E32, loc)
    assert "old.cu" in ra.stdout, ra.stdout + ra.stderr
    assert rb.stdout == ra.stdout


def test_elf32_verify():
    r = run("verify", E32)
    assert r.returncode == 0, r.stdout + r.stderr


def test_elf32_strip_refuses(tmp_path):
    """strip writes ELF64 only: exit 1 naming ELF32"""
    r = run("strip", "-o", tmp_path / "s.cubin", E32)
    assert r.returncode == 1 and "ELF32" in r.stderr, r.stderr


@pytest.mark.parametrize("p", [ext("maxas_sgemm.cubin"), ext("maxas_microbench.cubin")], ids=name)
def test_elf32_sections_listed(p):
    r, j = jsonof("sections", "--json", p)
    shnum, = struct.unpack_from("<H", open(p, "rb").read(52), 48)
    assert isinstance(j, list), f"{j}: {r.stderr}"
    assert len(j[0]["sections"]) == shnum - 1


# 5. addr2line -f: the innermost function symbol
def nested(p):
    """[(location in the outer function, the nested FUNC symbol's name)] from the symbol table"""
    try:
        data = open(p, "rb").read()
        syms = func_symbols(data, sections(data))
    except (OSError, ValueError, IndexError, struct.error, UnicodeDecodeError):
        return []  # read at collection, which must not fail: the test of a file that fails is still the others'
    out = []
    for nm, shndx, value, size in syms:
        outer = [s for s in syms if s[1] == shndx and s[2] < value and value + size <= s[2] + s[3] and s[0] != nm]
        if outer and size:
            k = outer[0]
            out.append((f"{k[0]}+0x{value - k[2]:x}", nm.split("$")[-1] if nm.startswith("$") else nm))
    return out


@pytest.mark.parametrize("p", [c for c in CUBINS if nested(c)], ids=name)
def test_addr2line_innermost_function(p, check):
    for loc, want in nested(p):
        r = run("addr2line", "-f", "-e", p, loc)
        check(f"addr2line -f {loc} names {want}", r.stdout.split("\n")[0] == want, r.stdout)


# 6. pubnames --check --json when the check fails: a .debug_pubnames byte changed
def test_pubnames_check_json_on_failure(tmp_path):
    """pubnames --check --json on a failing check: JSON, identical false, exit 1"""
    b = bytearray(open(os.path.join(FIX, "shared_sm100_G.rdc.cubin"), "rb").read())
    h = dict(sections(bytes(b)))[".debug_pubnames"]
    b[h[4] + 20] ^= 0xff
    bad = tmp_path / "pub.cubin"
    bad.write_bytes(bytes(b))
    r, j = jsonof("pubnames", "--check", "--json", bad)
    assert isinstance(j, list) and r.returncode == 1 and any(x.get("identical") is False for x in j), r.stdout[:300]
