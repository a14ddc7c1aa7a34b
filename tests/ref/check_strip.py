"""`cudwarf strip -o OUT --keep-debug=DBG IN` on real cubins (the fixtures,
tests/fixtures/link2's, and build/gen's link.g.cubin and kern.cubin; the
sanitizer build, --build other than build: every third of build/gen's):
  - OUT has no debug section and no relocation section aimed at one, the
    same number of section headers, every other section byte-identical to
    IN's (by name), the same symbols (those of removed sections null), and
    every segment's bytes and addresses unchanged; cuobjdump -sass (when
    installed) prints the same code for both;
  - OUT + DBG give the same `cudwarf lines`, `dump --info --frames --loc`
    and addr2line answers (a sample of row addresses) as IN;
  - DBG given beside another cubin is refused; a malformed IN writes
    neither file.
Everything is read here with a small ELF parser, independently of cudwarf.

    python3 -m pytest -m strip
    python3 -m pytest -m strip -k tiny_sm90
"""
import glob
import json
import os
import shutil
import struct
import subprocess

import pytest

import lines_json
from suite_env import FIX, GEN, SANITIZED, fixture_cubins, run, short

pytestmark = pytest.mark.strip
DEBUG = (".debug_", ".nv_debug", ".nv.merc.debug_", ".nv.merc.nv_debug")


def inputs():
    some = sorted(p for p in glob.glob(os.path.join(GEN, "**", "*.cubin"), recursive=True)
                  if os.path.basename(p) in ("link.g.cubin", "kern.cubin"))
    if SANITIZED:
        some = some[::3]  # the sanitizer build: the same code, a third of the time
    return fixture_cubins() + sorted(glob.glob(os.path.join(FIX, "link2", "*", "*.cubin"))) + some


FILES = inputs()


class Elf:
    def __init__(self, path):
        self.data = d = open(path, "rb").read()
        shoff, = struct.unpack_from("<Q", d, 0x28)
        self.phoff, = struct.unpack_from("<Q", d, 0x20)
        self.phnum, = struct.unpack_from("<H", d, 0x38)
        shnum, shstrndx = struct.unpack_from("<HH", d, 0x3C)
        self.hdrs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * 64) for i in range(shnum)]
        st = self.hdrs[shstrndx]
        self.names = [d[st[4] + h[0]:d.index(b"\0", st[4] + h[0])].decode() for h in self.hdrs]

    def data_of(self, i):
        h = self.hdrs[i]
        return b"" if h[1] in (0, 8) else self.data[h[4]:h[4] + h[5]]

    def segments(self):
        """every program header but its offset, and the segment's bytes (for those
        holding the program header table, whose offsets move: its entries less p_offset)"""
        out = []
        for k in range(self.phnum):
            t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", self.data, self.phoff + k * 56)
            if off <= self.phoff < off + fs:
                body = b"".join(self.data[self.phoff + j * 56:self.phoff + j * 56 + 8] +
                                self.data[self.phoff + j * 56 + 16:self.phoff + j * 56 + 56] for j in range(self.phnum))
            else:
                body = self.data[off:off + fs]
            out.append(((t, fl, va, pa, fs, ms, al), body))
        return out


def body(text):
    return text.split("\n", 2)[2] if text.count("\n") > 1 else text


def is_elf(path):
    return open(path, "rb").read(4) == b"\x7fELF"


def section_problems(a, b):
    """what strip changed that it should not have, or did not remove"""
    problems = []
    if len(a.hdrs) != len(b.hdrs):
        problems.append(f"{len(b.hdrs)} section headers, the input has {len(a.hdrs)}")
    removed = {i for i, n in enumerate(a.names) if n.startswith(DEBUG)}
    removed |= {i for i, h in enumerate(a.hdrs) if h[1] in (4, 9, 0x70000082) and h[7] in removed}
    for i in range(1, min(len(a.hdrs), len(b.hdrs))):
        if i in removed:
            if b.hdrs[i][1] != 0:
                problems.append(f"section {i} ({a.names[i]}) still there")
            continue
        if a.names[i] != b.names[i] or a.hdrs[i][1:4] != b.hdrs[i][1:4] or a.hdrs[i][5:] != b.hdrs[i][5:]:
            problems.append(f"section {i} ({a.names[i]}): header changed")
        elif a.hdrs[i][1] in (2, 0x70000085):
            sa, sb = a.data_of(i), b.data_of(i)
            for k in range(0, len(sa), 24):
                shndx, = struct.unpack_from("<H", sa, k + 6)
                want = bytes(24) if shndx in removed else sa[k:k + 24]
                if sb[k:k + 24] != want:
                    problems.append(f"{a.names[i]}: symbol {k // 24} changed")
                    break
        elif a.data_of(i) != b.data_of(i):
            problems.append(f"section {i} ({a.names[i]}): bytes changed")
    if a.segments() != b.segments():
        problems.append("segments changed")
    return problems


@pytest.mark.parametrize("path", FILES, ids=short)
def test_strip(path, tmp_path, check):
    if not is_elf(path):
        pytest.skip("not an ELF file")
    out, dbg = str(tmp_path / "s.cubin"), str(tmp_path / "s.dbg")
    p = run("strip", "-o", out, "--keep-debug=" + dbg, path)
    assert p.returncode == 0, p.stderr
    a, b = Elf(path), Elf(out)
    problems = section_problems(a, b)
    check("debug sections removed, every other section, symbol and segment unchanged", not problems,
          "; ".join(problems[:3]))
    cuobjdump = shutil.which("cuobjdump")
    if cuobjdump:
        sa = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True).stdout
        sb = subprocess.run([cuobjdump, "-sass", out], capture_output=True, text=True).stdout
        check("cuobjdump -sass the same", sa == sb)
    lines_a = run("lines", path).stdout
    lines_b = run("lines", "--debug-file", dbg, out).stdout
    check("cudwarf lines the same with --debug-file", body(lines_a) == body(lines_b))
    dump_a = run("dump", "--info", "--frames", "--loc", path).stdout
    dump_b = run("dump", "--info", "--frames", "--loc", "--debug-file", dbg, out).stdout
    check("cudwarf dump the same with --debug-file", body(dump_a) == body(dump_b))
    locs = []
    doc, = json.loads(run("lines", "--json", path).stdout)
    for s in doc["sections"]:
        for t in s["tables"]:
            locs += [f"{r['symbol']}+{r['offset']:#x}" for r in list(lines_json.rows(t))[::7] if r.get("symbol")]
    locs = sorted(set(locs))[:40]
    if locs:
        a2a = run("addr2line", "-e", path, "-fip", *locs).stdout
        a2b = run("addr2line", "--debug-file", dbg, "-e", out, "-fip", *locs).stdout
        check(f"addr2line the same with --debug-file ({len(locs)} answers)", a2a == a2b)
    ca, cb = run("correlate", "--json", path), run("correlate", "--json", "--debug-file", dbg, out)
    if ca.returncode == 0:  # the same correlation but the image's name (it found no rows before)
        strip_name = lambda doc: [{k: v for k, v in img.items() if k != "image"} for img in doc]
        check("correlate the same with --debug-file", cb.returncode == 0 and
              strip_name(json.loads(ca.stdout)) == strip_name(json.loads(cb.stdout)), cb.stderr[:200])
    for cmd in (["resources"], ["sections"], ["list"], ["size"], ["extract", "-o", str(tmp_path / "x")]):
        r = run(*cmd, "--debug-file", dbg, out)  # they read no debug section: refused, not misread
        check(f"{cmd[0]} refuses --debug-file", r.returncode == 2 and "does not apply" in r.stderr, r.stderr)


@pytest.fixture
def two():
    """the first two ELF inputs (fixtures: always there)"""
    files = [p for p in FILES if is_elf(p)][:2]
    if len(files) < 2:
        pytest.skip("fewer than two cubins")
    return files


def test_companion_of_another_refused(two, tmp_path):
    out, dbg = str(tmp_path / "s.cubin"), str(tmp_path / "s.dbg")
    run("strip", "-o", out, "--keep-debug=" + dbg, two[0])
    p = run("lines", "--debug-file", dbg, two[1])
    assert p.returncode == 1 and "does not belong" in p.stderr, p.stderr


def test_truncated_writes_nothing(two, tmp_path):
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(open(two[0], "rb").read()[:200])
    p = run("strip", "-o", tmp_path / "o2.cubin", "--keep-debug=" + str(tmp_path / "d2.dbg"), bad)
    left = [x.name for x in tmp_path.iterdir() if x.name.startswith(("o2", "d2"))]
    assert p.returncode == 1 and not left, f"exit {p.returncode}, left {left}"


def test_companion_never_replaces_code(tmp_path):
    """--keep-debug naming the input or OUT (another spelling of it too) is
    refused before anything is written: it would replace the code; -o IN
    strips in place, as binutils' strip does"""
    src = str(tmp_path / "k.cubin")
    shutil.copy(FILES[0], src)
    before = open(src, "rb").read()
    for dbg in (src, str(tmp_path / "." / "k.cubin")):
        p = run("strip", "-o", str(tmp_path / "s.cubin"), "--keep-debug=" + dbg, src)
        assert p.returncode == 2 and "file of its own" in p.stderr, p.stderr
        assert open(src, "rb").read() == before
    p = run("strip", "-o", src, src)
    assert p.returncode == 0 and len(open(src, "rb").read()) < len(before)
    assert run("lines", src).stdout.endswith("(built without -lineinfo or -G)\n")

