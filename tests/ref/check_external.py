#!/usr/bin/env python3
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
the lines/dies/frames suites' compare_*.py, run over them by tests/run.sh.)

usage: check_external.py CUDWARF
"""
import glob, json, os, re, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import tally  # noqa: E402

CUDWARF = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXT = os.path.join(ROOT, "tests", "fixtures", "external")
T = tally.Tally("external")
check = T.check


def run(*a):
    return subprocess.run([CUDWARF, *a], capture_output=True, text=True)


def ext(name):
    return os.path.join(EXT, name)


def header(path):
    """(class, abiversion, sm) from the file's own bytes."""
    b = open(path, "rb").read(64)
    cls, abiv = b[4], b[8]
    flags, = struct.unpack_from("<I", b, 36 if cls == 1 else 48)
    return cls, abiv, flags & 0xff if abiv == 7 else (flags >> 8) & 0xff


def symbols(path):
    """FUNC symbols (name, shndx, value, size) from the file's own bytes."""
    b = open(path, "rb").read()
    is32 = b[4] == 1
    if is32:
        shoff, = struct.unpack_from("<I", b, 32)
        shent, shnum = 40, struct.unpack_from("<H", b, 48)[0]
        hdr = lambda i: struct.unpack_from("<IIIIIIIIII", b, shoff + shent * i)
    else:
        shoff, = struct.unpack_from("<Q", b, 40)
        shent, shnum = 64, struct.unpack_from("<H", b, 60)[0]
        hdr = lambda i: struct.unpack_from("<IIQQQQIIQQ", b, shoff + shent * i)
    out = []
    for i in range(shnum):
        h = hdr(i)
        if h[1] != 2:
            continue
        stroff = hdr(h[6])[4]
        for k in range(h[4], h[4] + h[5], 16 if is32 else 24):
            if is32:
                name, value, size, info, _, shndx = struct.unpack_from("<IIIBBH", b, k)
            else:
                name, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", b, k)
            if info & 0xf == 2:
                nm = b[stroff + name:b.index(b"\0", stroff + name)].decode()
                out.append((nm, shndx, value, size))
    return out


def jsonof(*a):
    r = run(*a)
    try:
        return r, json.loads(r.stdout)
    except ValueError as e:
        return r, e


outside = sorted(p for p in glob.glob(os.path.join(EXT, "*")) if not p.endswith(".md"))
cubins = [p for p in outside if p.endswith(".cubin")]
readable = [p for p in outside if not p.endswith(".ltoir")]

# 1. the SM, as the header says
for p in cubins:
    cls, abiv, sm = header(p)
    n = os.path.basename(p)
    r, j = jsonof("list", "--json", p)
    got = [im["sm"] for f in j for im in f["images"]] if isinstance(j, list) else j
    check(f"{n}: list --json sm_{sm} (ELF{32 if cls == 1 else 64}, ABI v{abiv})", got == [sm], f"{got}")
    r, j = jsonof("sections", "--json", p)
    got = j[0]["elf"] if isinstance(j, list) else {}
    check(f"{n}: sections --json sm and class", got.get("sm") == sm and got.get("elf_class") == (32 if cls == 1 else 64),
          f"{got}")
    r = run("lines", f"--sm={sm}", p)
    check(f"{n}: lines --sm={sm} selects it", r.returncode == 0, r.stderr.strip())

tmp = tempfile.mkdtemp()
for p in [q for q in outside if q.endswith((".fatbin", ".o", ".a")) and "ltoir" not in q]:
    n = os.path.basename(p)
    d = os.path.join(tmp, n + ".x")
    r = run("extract", "--elf", "-o", d, p)
    files = sorted(glob.glob(os.path.join(d, "*.cubin")))
    want = [int(re.search(r"\.sm_(\d+)", f).group(1)) for f in files]
    got = [header(f)[2] for f in files]
    check(f"{n}: each extracted cubin's header SM is its label's", files and want == got, f"{want} vs {got}")
r = run("link", "-o", os.path.join(tmp, "l.cubin"), "--arch", "sm_70", ext("numba_test_device_functions.fatbin"))
check("link --arch sm_70 finds the CUDA 12.5 fatbin's sm_70 entry", r.returncode == 0 and
      header(os.path.join(tmp, "l.cubin"))[2] == 70, r.stderr.strip())
r = run("size", "--by=sm", "--json", ext("numba_test_device_functions_multi.fatbin"))
check("size --by=sm: two SMs, not four", r.returncode == 0 and
      sorted(set(re.findall(r'"sm_(\d+)', r.stdout))) == ["70", "80"], r.stdout[:300])

# 2. exit statuses and JSON
commands = [["list"], ["list", "--json"], ["sections"], ["sections", "--json"], ["dump", "--all"],
            ["dump", "--all", "--json"], ["verify", "--notes"], ["verify", "--json"], ["lines"], ["lines", "--json"],
            ["size"], ["size", "--json"], ["pubnames", "--check"], ["pubnames", "--check", "--json"]]
for p in outside:
    n = os.path.basename(p)
    for c in commands:
        r = run(*c, p)
        want_ok = p in readable
        ok = r.returncode == 0 if want_ok else r.returncode == 1 and r.stderr.count("\n") == 1
        if ok and "--json" in c and want_ok:
            try:
                json.loads(r.stdout)
            except ValueError as e:
                ok = False
        check(f"{n}: {' '.join(c)} exits {0 if want_ok else 1}", ok, f"exit {r.returncode}: {r.stderr.strip()[:200]}")
# every other command: an answer or one error, never a status above 1
others = [["resources"], ["resources", "--json"], ["correlate"], ["correlate", "--json"], ["lines", "--long"],
          ["lines", "--json", "--compact"], ["ptx-lines"], ["dump", "--frames"], ["size", "--by=kernel"]]
for p in outside:
    n = os.path.basename(p)
    for c in others:
        r = run(*c, p)
        check(f"{n}: {' '.join(c)} exits 0 or 1", r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr[:200]}")
    r = run("extract", "-o", os.path.join(tmp, n + ".all"), p)
    check(f"{n}: extract exits 0 or 1", r.returncode in (0, 1), r.stderr[:200])
    r = run("addr2line", "-f", "-e", p, "nosuch+0x10")
    check(f"{n}: addr2line of an unknown name exits 1 with one reason", r.returncode == 1 and r.stderr.strip(),
          r.stderr[:200])
r = run("list", ext("numba_test_device_functions.ltoir"))
check("a bare .ltoir is named LTO IR", "LTO IR" in r.stderr, r.stderr.strip())

# 3. elfutils' expected rows (tests/run-nvidia-extended-linemap-libdw.sh)
ELFUTILS = [(0x0, 25, 0), (0x10, 26, 0), (0x40, 27, 0), (0x90, 25, 0), (0xa0, 28, 0), (0x100, 28, 0), (0x100, 8, 6),
            (0x150, 9, 6), (0x1e0, 31, 0), (0x1e0, 6, 9), (0x1e0, 8, 10), (0x220, 9, 10), (0x2b0, 7, 9),
            (0x2f0, 8, 9), (0x2f0, 18, 14), (0x330, 19, 14), (0x3c0, 33, 0), (0x480, 33, 0)]
r, j = jsonof("lines", "--json", "--section", ".debug_line", ext("elfutils_nvidia_linemap.cubin"))
rows = []
if isinstance(j, list):
    for sec in j[0]["sections"]:
        for t in sec["tables"]:
            rows += [(x["address"], x["line"], x["context"]) for x in t["rows"]]
check("elfutils' NVIDIA test cubin: the 18 rows its libdw test expects", rows == ELFUTILS, f"{rows}")

# 4. the synthetic cubins read like their sources
base = ext("synth_sm75_lineinfo.cubin")


def same(a, b, *cmd):
    ra, rb = run(*cmd, a), run(*cmd, b)
    return ra.returncode == rb.returncode == 0 and ra.stdout.replace(a, "X") == rb.stdout.replace(b, "X")


for kind, src in (("shlink", base), ("abi7", base), ("abi7", ext("synth_sm90_lineinfo.cubin"))):
    p = src.replace(".cubin", f".{kind}.cubin")
    n = os.path.basename(p)
    for c in (["lines"], ["dump", "--all"], ["dump", "--all", "--json"], ["addr2line", "-f", "-i", "-e", "{}",
              "_Z4kernPfi+0x40", "_Z4kernPfi+0x100"]):
        if "{}" in c:
            ra = run(*[src if x == "{}" else x for x in c])
            rb = run(*[p if x == "{}" else x for x in c])
            ok = ra.returncode == rb.returncode == 0 and ra.stdout == rb.stdout
        else:
            ok = same(src, p, *c)
        check(f"{n}: {c[0]} {c[1] if len(c) > 1 else ''} as on its source", ok)
r = run("verify", "--notes", ext("synth_sm75_lineinfo.shlink.cubin"))
check("shlink: verify notes each sh_link, exit 0", r.returncode == 0 and r.stdout.count("not a symbol table") == 5,
      r.stdout)
r = run("verify", "--notes", ext("synth_sm75_lineinfo.cfa05.cubin"))
check("cfa05: verify exits 0 with a note naming 0x05", r.returncode == 0 and "operation 0x05" in r.stdout
      and "0 errors, 1 note" in r.stdout, r.stdout)
r = run("dump", "--frames", ext("synth_sm75_lineinfo.cfa05.cubin"))
check("cfa05: dump --frames shows the bytes", "<unknown operation: 05>" in r.stdout, r.stdout[-300:])

e32 = ext("synth_sm75_lineinfo.elf32.cubin")


def rows_of(p):
    r, j = jsonof("lines", "--json", p)
    if not isinstance(j, list):
        return None
    return [(sec["section"], [(x["address"], x["line"], x["path"], x["context"], x["symbol"]) for t in sec["tables"]
                              for x in t["rows"]]) for sec in j[0]["sections"]]


check("elf32: line rows equal the ELF64 source's", rows_of(e32) == rows_of(base) and rows_of(base))
fa, fb = run("dump", "--frames", base).stdout, run("dump", "--frames", e32).stdout
pcs = lambda t: re.findall(r"pc=\S+ \(.*?\)|initial rule.*|0x[0-9a-f]+: CFA=.*", t)
check("elf32: frame rows and FDE ranges equal the source's", pcs(fa) == pcs(fb) and pcs(fa), f"{pcs(fb)}")
for loc in ("_Z4kernPfi+0x40", "_Z4kernPfi+0x100"):
    ra, rb = run("addr2line", "-f", "-i", "-e", base, loc), run("addr2line", "-f", "-i", "-e", e32, loc)
    check(f"elf32: addr2line {loc} as on the source", ra.stdout == rb.stdout and "old.cu" in ra.stdout, rb.stdout)
r = run("verify", e32)
check("elf32: verify exits 0", r.returncode == 0, r.stdout + r.stderr)
r = run("strip", "-o", os.path.join(tmp, "s.cubin"), e32)
check("elf32: strip refuses (writes ELF64 only), exit 1", r.returncode == 1 and "ELF32" in r.stderr, r.stderr)
for p in (ext("maxas_sgemm.cubin"), ext("maxas_microbench.cubin")):
    r, j = jsonof("sections", "--json", p)
    nsec = len(j[0]["sections"]) if isinstance(j, list) else -1
    shnum, = struct.unpack_from("<H", open(p, "rb").read(52), 48)
    check(f"{os.path.basename(p)}: ELF32 sections listed ({shnum - 1})", nsec == shnum - 1, f"{nsec}")

# 5. addr2line -f: the innermost function symbol
for p in cubins:
    syms = symbols(p)
    for nm, shndx, value, size in syms:
        outer = [s for s in syms if s[1] == shndx and s[2] < value and value + size <= s[2] + s[3] and s[0] != nm]
        if not outer or size == 0:
            continue
        k = outer[0]
        r = run("addr2line", "-f", "-e", p, f"{k[0]}+0x{value - k[2]:x}")
        want = nm.split("$")[-1] if nm.startswith("$") else nm
        check(f"{os.path.basename(p)}: addr2line -f {k[0]}+0x{value - k[2]:x} names {want}",
              r.stdout.split("\n")[0] == want, r.stdout)

# 6. pubnames --check --json when the check fails: a .debug_pubnames byte changed
src = os.path.join(ROOT, "tests", "fixtures", "shared_sm100_G.rdc.cubin")
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 40)
shnum, shstr = struct.unpack_from("<HH", b, 60)
secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i) for i in range(shnum)]
for s in secs:
    o = secs[shstr][4] + s[0]
    if b[o:b.index(b"\0", o)] == b".debug_pubnames":
        b[s[4] + 20] ^= 0xff
bad = os.path.join(tmp, "pub.cubin")
open(bad, "wb").write(bytes(b))
r, j = jsonof("pubnames", "--check", "--json", bad)
check("pubnames --check --json on a failing check: JSON, identical false, exit 1",
      isinstance(j, list) and r.returncode == 1 and any(x.get("identical") is False for x in j), r.stdout[:300])

T.done()
