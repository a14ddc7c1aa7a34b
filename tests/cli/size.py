"""cudwarf size: its figures against independent sums.

- Every cubin (the fixtures and build/gen's): `size --json`'s classes
  against GNU readelf's section table, classified here by name, type and
  flags (docs/json.md's rules), with what no section holds as headers; they
  add up to the file size.
- A fatbin fatbinary builds with one image twice (plain and --compress-all),
  the fixtures' fatbin and host executable, and (with --libs) NVIDIA's
  libraries: the stored total equals the containers' bytes as a scan here
  finds them (Python over the raw bytes, as tests/cli/libraries.py does),
  the unpacked total the bytes `cudwarf extract` writes, the classes of the
  unpacked ELF images readelf's sums over the extracted files; the
  repeated image and its kernel are reported as duplicates.

    python3 -m pytest -m size
    python3 -m pytest -m size --libs     also libcublasLt and libcufft (tests/run.sh: the normal build)
"""
import glob
import json
import os
import re
import struct
import subprocess

import pytest

from suite_env import CUDA_LIB64, FIX, LIBS, fixture_cubins, gen_cubins, require, run, short

pytestmark = pytest.mark.size

DEBUG_NV = re.compile(r"^(\.nv\.merc)?\.nv_debug")
DEBUG_DWARF = re.compile(r"^(\.nv\.merc)?\.debug_")
KEYS = ("code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations", "other", "headers")
TINY = os.path.join(FIX, "tiny_sm90_G.cubin")
EXE = os.path.join(FIX, "hostapp_lineinfo.exe")


def classes(path):
    """Section bytes by class from readelf -SW, and the file size."""
    out = subprocess.run(["readelf", "-SW", "--wide", path], capture_output=True, text=True).stdout
    size = os.path.getsize(path)
    c = {k: 0 for k in ("code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations", "other")}
    spans = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+(?: \S+)?)\s+([0-9a-f]{16})\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([A-Za-z]*)\s", line)
        if not m or m.group(1) == "0":
            continue
        name, typ, off, sz, flags = m.group(2), m.group(3), int(m.group(5), 16), int(m.group(6), 16), m.group(8)
        # 0x7000000a: shared memory; 0x70000007: .nv.global (uninitialized;
        # its offset is the next section's, which it would otherwise overlap)
        if typ in ("NOBITS", "LOPROC+0xa", "LOPROC+0x7") or not sz:
            continue
        if DEBUG_DWARF.match(name):
            k = "debug"
        elif DEBUG_NV.match(name):
            k = "nv_debug"
        elif typ in ("SYMTAB", "STRTAB", "DYNSYM", "LOPROC+0x85"):
            k = "symbols"
        elif typ in ("REL", "RELA", "LOPROC+0x82"):
            k = "relocations"
        elif name.startswith(".text") or name.startswith(".nv.capmerc.text") or "X" in flags:
            k = "code"
        elif re.match(r"^\.nv\.(constant|global|shared|local)", name):
            k = "data"
        elif name.startswith(".nv.") or name.startswith(".note"):
            k = "metadata"
        else:
            k = "other"
        spans.append((off, min(off + sz, size), k))
    covered = cur = 0
    for off, end, k in sorted(spans):
        start = max(off, cur)
        if end > start:
            c[k] += end - start
            covered += end - start
            cur = end
    c["headers"] = size - covered
    return c, size


def containers(path):
    """The bytes of every fatbin container in path: a fatbin file is its
    containers; in an ELF, .nv_fatbin / __nv_relfatbin hold them back to
    back and any other section may hold valid ones (found by magic)."""
    d = open(path, "rb").read()

    def valid(i, end):
        if i + 16 > end or d[i:i + 4] != b"\x50\xed\x55\xba":
            return 0
        ver, hs, ps = struct.unpack_from("<HHQ", d, i + 4)
        if ver != 1 or hs != 16 or ps < 64 or i + 16 + ps > end:
            return 0
        a, e = i + 16, i + 16 + ps
        while a < e:
            if e - a < 64:
                return 0
            k, _, h, pl = struct.unpack_from("<HHIQ", d, a)
            if h < 64 or a + h + pl > e:
                return 0
            a += h + pl
        return 16 + ps

    def walk(off, end, scan):
        total, pos = 0, off
        while pos < end:
            if scan:
                i = d.find(b"\x50\xed\x55\xba", pos, end)
                if i < 0:
                    break
            else:
                i = pos
                while i < end and d[i] == 0:
                    i += 1
                if i >= end:
                    break
            n = valid(i, end)
            if not n:
                if not scan:
                    pytest.fail(f"{path}+{i:#x}: not a container")
                pos = i + 1
                continue
            total += n
            pos = i + n
        return total

    if d[:4] != b"\x7fELF":
        return walk(0, len(d), False)
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
    secs = [struct.unpack_from("<IIQQQQ", d, shoff + i * 64) for i in range(shnum)]
    so = secs[shstrndx][4]
    total = 0
    for nm, ty, fl, ad, off, sz in secs:
        name = d[so + nm:d.index(b"\0", so + nm)].decode()
        if ty == 8 or not sz:
            continue
        total += walk(off, off + sz, name not in (".nv_fatbin", "__nv_relfatbin"))
    return total


def size_json(*a):
    r = run("size", "--json", *a)
    return (json.loads(r.stdout)[0] if r.returncode == 0 else None), r


# --- cubins: classes = readelf's sums, total = the file ---
@pytest.mark.parametrize("cubin", fixture_cubins() + gen_cubins(), ids=short)
def test_classes(cubin):
    """every class = readelf's section sizes, headers = the rest; total = the file"""
    want, fsize = classes(cubin)
    doc, r = size_json(cubin)
    assert doc, r.stderr[:200]
    got = {k: doc["unpacked"][k] for k in KEYS}
    assert got == want and doc["unpacked"]["total"] == fsize and doc["stored"]["total"] == fsize and \
        sum(got.values()) == fsize, f"{got} != {want} ({fsize})"


def test_by_kernel():
    """--by=kernel: _Z11tiny_kernelPii's 1024 code bytes (readelf: .text._Z11tiny_kernelPii size 0x400)"""
    doc, r = size_json("--by=kernel", TINY)
    assert doc and doc["rows"] == [{"name": "_Z11tiny_kernelPii", "bytes": 1024, "copies": 1}], r.stdout[:300]


def test_by_kernel_demangled():
    """-C: the text's kernel names as c++filt demangles them; JSON keeps "name"
    and adds "demangled"; by kernel the duplicates are the kernels' only"""
    fat = os.path.join(FIX, "inline_G_speed.fatbin")
    doc, r = size_json("--by=kernel", "-C", fat)
    names = [row["name"] for row in doc["rows"]]
    filt = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    assert [row.get("demangled", row["name"]) for row in doc["rows"]] == filt
    text = run("size", "--by=kernel", "-C", "-n", "0", fat).stdout
    for name, shown in zip(names, filt):
        assert re.search(r"%\s+" + re.escape(shown) + r" \(\d+\)$", text, re.M), shown
    assert "duplicate kernels:" in text and "duplicate images:" not in text


def containers_case(path, check, tmp):
    """stored total = the containers' bytes; unpacked = what extract writes; the size --json document"""
    doc, r = size_json(path)
    assert doc, r.stderr
    want = containers(path)
    check(f"stored total {doc['stored']['total']} = the containers' {want} bytes (independent scan)",
          doc["stored"]["total"] == want == doc.get("container_bytes"), json.dumps(doc["stored"]))
    e = run("extract", "-o", tmp, path)
    files = sorted(glob.glob(os.path.join(tmp, "*")))
    elfs = [f for f in files if f.endswith(".cubin")]
    sums = {k: 0 for k in KEYS}
    for f in elfs:
        for k, v in classes(f)[0].items():
            sums[k] += v
    ptx = sum(os.path.getsize(f) for f in files if f.endswith(".ptx"))
    total = sum(os.path.getsize(f) for f in files)
    got = {k: doc["unpacked"][k] for k in KEYS}
    check(f"unpacked classes = readelf's sums over the {len(elfs)} extracted cubins, PTX = the "
          f"{ptx} bytes of extracted PTX, total = the {total} bytes extract wrote",
          e.returncode == 0 and got == sums and doc["unpacked"]["ptx"] == ptx
          and doc["unpacked"]["total"] == total, f"{got} vs {sums}; ptx {doc['unpacked']['ptx']}")
    return doc


@pytest.mark.parametrize("path", [os.path.join(FIX, "inline_G_speed.fatbin"), EXE], ids=short)
def test_containers(path, check, tmp_path):
    """the fixtures' fatbin (lz4) and host executable"""
    containers_case(path, check, str(tmp_path))


def test_by_container():
    """--by=container: every container's stored bytes = its size in list --json"""
    doc, r = size_json("--by=container", EXE)
    lst = json.loads(run("list", "--json", EXE).stdout)[0]["containers"]
    want = sorted((f"{EXE}[{c['section']}#{c['ordinal']}]", c["size"]) for c in lst)
    assert doc and sorted((x["name"], x["stored"]) for x in doc["rows"]) == want, f"{doc and doc['rows']} vs {want}"


# --- a fatbin with one image twice: the duplicates ---
@pytest.mark.parametrize("mode", ["plain", "compressed"])
def test_duplicates(mode, check, tmp_path):
    """fatbinary, one image twice: the repeated image and its kernel are duplicates"""
    require("fatbinary")
    fb = str(tmp_path / f"dup_{mode}.fatbin")
    subprocess.run(["fatbinary", "-64", f"--create={fb}", *(["--compress-all"] if mode == "compressed" else []),
                    f"--image3=kind=elf,sm=90,file={TINY}",
                    f"--image3=kind=elf,sm=75,file={os.path.join(FIX, 'calls_sm75_G.cubin')}",
                    f"--image3=kind=elf,sm=90,file={TINY}"], check=True, capture_output=True)
    os.mkdir(tmp_path / "x")
    doc = containers_case(fb, check, str(tmp_path / "x"))
    di, dk = doc["duplicate_images"], doc["duplicate_kernels"]
    stored = [g["bytes"] for g in di]
    check("the repeated image is one duplicate set of 2 (images 0.0 and 0.2), its stored bytes wasted once",
          len(di) == 1 and di[0]["copies"] == 2 and di[0]["where"][0].endswith("[0.0: ELF sm_90]")
          and di[0]["where"][1].endswith("[0.2: ELF sm_90]")
          and doc["duplicate_image_bytes"] == stored[0]
          and (mode == "compressed" or stored[0] == os.path.getsize(TINY)), json.dumps(di)[:300])
    check("_Z11tiny_kernelPii's 1024 code bytes, twice, are a duplicate kernel set",
          any(g["copies"] == 2 and g["bytes"] == 1024 and all("_Z11tiny_kernelPii in " in w for w in g["where"])
              for g in dk), json.dumps(dk)[:300])


# --- NVIDIA's libraries ---
@pytest.mark.parametrize("lib", ["libcublasLt.so.13", "libcufft.so.12"])
def test_library(lib):
    """stored total = the container bytes an independent scan finds"""
    path = os.path.join(CUDA_LIB64, lib)
    if not LIBS:
        pytest.skip("NVIDIA's libraries: not asked for (--libs)")
    if not os.path.exists(path):
        pytest.skip(f"{lib}: not installed in {CUDA_LIB64}")
    doc, r = size_json(path)
    assert doc, r.stderr[:300]
    want = containers(path)
    assert doc["stored"]["total"] == want == doc["container_bytes"], f"{doc['stored']} vs {want}"


# --- the command line ---
def test_by_nothing():
    """--by=nothing: usage error (exit 2)"""
    r = run("size", "--by=nothing", TINY)
    assert r.returncode == 2 and "--by" in r.stderr and not r.stdout, r.stderr


def test_missing_file():
    """a missing file: exit 1, nothing on stdout"""
    r = run("size", "--json", os.path.join(FIX, "nonexistent.cubin"))
    assert r.returncode == 1 and not r.stdout, r.stderr
