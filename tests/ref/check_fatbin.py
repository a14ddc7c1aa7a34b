"""Fatbins and host ELFs, built here with fatbinary and nvcc from the
cubins tests/gen.sh compiled (build/gen; skipped, saying so, without them
or without the toolkit).

1. fatbinary containers of the test cubins (sm_75, sm_90, sm_100, -G) and
   an sm_90 PTX, in every compression mode (--compress=false, default,
   --compress-all, --compress-mode=size|speed|balance): `cudwarf extract`
   gives every cubin back byte for byte, and the PTX token for token
   (fatbinary drops comments and rewrites white space when it stores PTX, so
   no extractor can give nvcc -ptx's bytes; docs/fatbin.md).
2. nvcc -lineinfo host builds (executable, object, -rdc object; default and
   LZ4 compression): each embedded cubin equals the one nvcc kept (--keep),
   and `cudwarf addr2line -e app` answers like it does on that cubin.
3. LTO IR (nvcc -dlto, entry kind 8): listed, not an error; uncompressed
   it extracts as nvcc's .ltoir zero-padded to 8 bytes; compressed it carries flag
   0x10000 and is skipped with a note.
4. Broken containers: bad magic, an entry past the end, a compressed size
   that lies, a decompressed size that lies: one error, exit 1.

    python3 -m pytest -m gen tests/ref/check_fatbin.py
"""
import glob
import json
import os
import re
import struct
import subprocess

import pytest

from suite_env import GEN, ROOT, require, run, short

pytestmark = pytest.mark.gen

SRC = os.path.join(ROOT, "tests", "src")
CUBINS = {sm: os.path.join(GEN, f"sm_{sm}", "G", "kern.cubin") for sm in (75, 90, 100)}
PTX = os.path.join(GEN, "sm_90", "G", "kern.ptx")
MODES = {"plain": ["--compress=false"], "default": [], "all": ["--compress-all"], "size": ["--compress-mode=size"],
         "speed": ["--compress-mode=speed"], "balance": ["--compress-mode=balance"]}
HOST_FLAGS = {"default": [], "lz4": ["-Xfatbin", "--compress-mode=speed"]}


def tool(*a, **k):
    return subprocess.run(a, capture_output=True, text=True, **k)


def tokens(ptx):
    return re.sub(r"//[^\n]*", "", ptx).split()


def extract(path, out):
    os.makedirs(out, exist_ok=True)
    r = run("extract", "-o", out, path)
    return r, sorted(r.stdout.split())


# --- 1. fatbinary, every compression mode ---
@pytest.fixture(scope="module")
def fatbins(tmp_path_factory):
    """{mode: (the fatbin, fatbinary's result, extract's result, {(sm, "cubin"|"ptx"): file}, compressions)}"""
    require("fatbinary")
    missing = [p for p in [*CUBINS.values(), PTX] if not os.path.exists(p)]
    if missing:
        pytest.skip(f"{short(missing[0])} absent (tests/gen.sh compiles it when nvcc is present)")
    tmp = str(tmp_path_factory.mktemp("fatbin"))
    images = [f"--image3=kind=elf,sm={sm},file={p}" for sm, p in CUBINS.items()] + [f"--image3=kind=ptx,sm=90,file={PTX}"]
    out = {}
    for mode, flags in MODES.items():
        fb = os.path.join(tmp, f"k.{mode}.fatbin")
        made = tool("fatbinary", "-64", f"--create={fb}", *images, *flags)
        if made.returncode:
            out[mode] = (fb, made, None, {}, [])
            continue
        listing, = json.loads(run("list", "--json", fb).stdout)
        comp = sorted({i["compression"] for i in listing["images"]})
        r, files = extract(fb, os.path.join(tmp, mode))
        got = {}
        for f in files:
            m = re.search(r"\.sm_(\d+)\.(cubin|ptx)$", f)
            got[(int(m.group(1)), m.group(2))] = f
        out[mode] = (fb, made, r, got, comp)
    return out


def made(fatbins, mode):
    fb, made, r, got, comp = fatbins[mode]
    assert made.returncode == 0, f"fatbinary {mode}: {made.stderr}"
    return fb, r, got, comp


@pytest.mark.parametrize("mode", MODES)
def test_fatbin_cubins(fatbins, mode):
    """3 cubins extracted byte-identical"""
    fb, r, got, comp = made(fatbins, mode)
    print("compression:", "/".join(comp))
    assert r.returncode == 0, r.stderr
    assert all(got.get((sm, "cubin")) and open(got[(sm, "cubin")], "rb").read() == open(p, "rb").read()
               for sm, p in CUBINS.items())


@pytest.mark.parametrize("mode", MODES)
def test_fatbin_ptx(fatbins, mode):
    """PTX extracted, same tokens as nvcc -ptx"""
    fb, r, got, comp = made(fatbins, mode)
    p = got.get((90, "ptx"))
    assert p is not None and tokens(open(p).read()) == tokens(open(PTX).read())


@pytest.mark.parametrize("mode", MODES)
def test_fatbin_lines(fatbins, mode):
    """every command reads the fatbin: rows of the embedded sm_90 cubin equal the bare cubin's"""
    fb, r, got, comp = made(fatbins, mode)
    a = json.loads(run("lines", "--json", fb).stdout)
    b, = json.loads(run("lines", "--json", CUBINS[90]).stdout)
    rows = [d for d in a if "sm_90" in d["file"]]
    assert len(rows) == 1 and rows[0]["sections"] == b["sections"]


# --- 2. host builds ---
def nvcc(*args):
    require("nvcc")
    return tool("nvcc", *args)


@pytest.fixture(scope="module", params=list(HOST_FLAGS))
def host(request, tmp_path_factory):
    """(compression, the executable, the sm_90 cubins nvcc kept)"""
    comp = request.param
    d = str(tmp_path_factory.mktemp(f"host-{comp}"))
    exe = os.path.join(d, "app")
    r = nvcc("-lineinfo", "-arch=sm_90", "--keep", "--keep-dir", d, *HOST_FLAGS[comp], "-o", exe,
             os.path.join(SRC, "app.cu"))
    assert r.returncode == 0, f"nvcc host build ({comp}): {r.stderr[-300:]}"
    kept = [k for k in glob.glob(os.path.join(d, "*.sm_90.cubin")) if "dlink" not in os.path.basename(k)]
    return comp, exe, kept


def test_executable_cubin(host, tmp_path):
    """the embedded sm_90 cubin equals nvcc's kept cubin"""
    comp, exe, kept = host
    r, files = extract(exe, str(tmp_path / "x"))
    ours = [f for f in files if f.endswith(".sm_90.cubin") and open(f, "rb").read() == open(kept[0], "rb").read()] \
        if kept else []
    assert len(ours) == 1, f"{files} {kept}"


def test_executable_addr2line(host):
    """addr2line -e app = addr2line on the bare cubin"""
    comp, exe, kept = host
    sym = "_Z10saxpy_likefPKfPfi"
    a = run("addr2line", "-e", exe, "-fip", f"{sym}+0x80", f"{sym}+0x10")
    b = run("addr2line", "-e", kept[0] if kept else exe, "-fip", f"{sym}+0x80", f"{sym}+0x10")
    assert a.returncode == 0 and a.stdout == b.stdout and "app.cu:" in a.stdout, a.stdout + a.stderr


@pytest.mark.parametrize("comp", HOST_FLAGS)
def test_host_object(comp, tmp_path):
    """host object: .nv_fatbin listed"""
    obj = str(tmp_path / "app.o")
    nvcc("-lineinfo", "-arch=sm_90", *HOST_FLAGS[comp], "-c", "-o", obj, os.path.join(SRC, "app.cu"))
    r = run("list", "--json", obj)
    assert r.returncode == 0 and any(i["kind"] == "elf" for i in json.loads(r.stdout)[0]["images"]), r.stderr


@pytest.mark.parametrize("comp", HOST_FLAGS)
def test_rdc_object(comp, tmp_path):
    """-rdc object: __nv_relfatbin read, rows shown"""
    robj = str(tmp_path / "app.rdc.o")
    nvcc("-lineinfo", "-arch=sm_90", "-rdc=true", *HOST_FLAGS[comp], "-c", "-o", robj, os.path.join(SRC, "app.cu"))
    r = run("lines", robj)
    assert r.returncode == 0 and re.search(r"^  file \d+: \S*app\.cu$", r.stdout, re.M) and \
        re.search(r"^  0x[0-9a-f]+  \d+:\d+", r.stdout, re.M), r.stderr


# --- 3. LTO IR (nvcc -dlto): entry kind 8, fatbinary's kind=nvvm ---
@pytest.fixture(scope="module")
def lto(tmp_path_factory):
    """(the directory, the -dlto host object, nvcc's kept .ltoir)"""
    d = str(tmp_path_factory.mktemp("lto"))
    lobj = os.path.join(d, "app.lto.o")
    r = nvcc("-arch=sm_90", "-dlto", "-dc", "-c", "--keep", "--keep-dir", d, "-o", lobj, os.path.join(SRC, "app.cu"))
    ltoir = glob.glob(os.path.join(d, "*.ltoir"))
    assert r.returncode == 0 and ltoir, f"nvcc -dlto build: {r.stderr[-300:]}"
    return d, lobj, ltoir[0]


def test_lto_listed(lto):
    """-dlto host object: listed (exit 0), kind 8 named nvvm, zstd + flag 0x10000 not decoded"""
    r = run("list", "--json", lto[1])
    nv = [i for i in json.loads(r.stdout)[0]["images"] if i["kind"] == "nvvm"] if r.returncode == 0 else []
    assert len(nv) == 1 and nv[0]["kind_code"] == 8 and nv[0]["flags"] & 0x18000 == 0x18000 and \
        nv[0]["image_size"] is None, r.stdout + r.stderr


def test_lto_lines(lto):
    """-dlto host object: lines exits 0 with one note (no device ELF)"""
    s = run("lines", lto[1])
    assert s.returncode == 0 and s.stdout == "" and "no device ELF image (1 PTX, 1 LTO IR" in s.stderr, s.stderr


# fatbinary pads a payload with zeros to 8 bytes and records no exact size for an uncompressed
# entry (a 2,708- and a 2,712-byte .ltoir give equal headers), so the extracted image is the
# input plus 0-7 zero bytes (docs/fatbin.md).  A copy cut to 8k+5 bytes makes sure the padded
# case is always tested, whatever size nvcc's .ltoir has (it embeds the source path).
@pytest.mark.parametrize("what", ["nvcc's kept .ltoir", "a .ltoir cut to 8k+5 bytes"])
def test_lto_uncompressed(lto, what, tmp_path):
    """LTO IR fatbin, uncompressed: extracted = the .ltoir zero-padded to 8 bytes"""
    src = lto[2]
    if "cut" in what:
        src = str(tmp_path / "odd.ltoir")
        data = open(lto[2], "rb").read()
        open(src, "wb").write(data[:len(data) - (len(data) - 5) % 8])
    fb = str(tmp_path / "lto.plain.fatbin")
    tool("fatbinary", "-64", f"--create={fb}", f"--image3=kind=nvvm,sm=90,file={src}", "--compress=false")
    x = run("extract", "-o", tmp_path / "plain", fb)
    out = x.stdout.split()
    want = open(src, "rb").read()
    want += b"\0" * (-len(want) % 8)
    got = open(out[0], "rb").read() if x.returncode == 0 and len(out) == 1 else b""
    assert len(out) == 1 and out[0].endswith(".ltoir") and got == want, \
        x.stdout + x.stderr + f"extracted {len(got)} bytes, input {os.path.getsize(src)}"


@pytest.mark.parametrize("mode,flags", [("zstd", []), ("lz4", ["--compress-mode=speed"])], ids=["zstd", "lz4"])
def test_lto_compressed(lto, mode, flags, tmp_path):
    """LTO IR fatbin, compressed: flag 0x10000 set, skipped with a note, exit 0"""
    fb = str(tmp_path / f"lto.{mode}.fatbin")
    tool("fatbinary", "-64", f"--create={fb}", f"--image3=kind=nvvm,sm=90,file={lto[2]}", *flags)
    x = run("extract", "-o", tmp_path / mode, fb)
    # the stored bytes are neither a zstd frame nor an LZ4 block of the .ltoir (docs/fatbin.md)
    assert x.returncode == 0 and not x.stdout.split() and "flag 0x10000" in x.stderr, x.stdout + x.stderr


# --- 4. broken containers ---
BROKEN = {
    "bad magic": (lambda b: b"\x51" + b[1:], r"neither an ELF file nor a fatbin"),
    "bad magic of a second container": (lambda b: b + b"\x51" + b[1:], r"magic 0x"),
    "entry past the end": (lambda b: b[:len(b) // 2], r"announced|runs past"),
    "compressed size that lies": (lambda b: b[:16 + 16] + struct.pack("<I", 40) + b[16 + 20:], r"zstd|decompress"),
    "decompressed size that lies": (lambda b: b[:16 + 56] + struct.pack("<Q", 1000) + b[16 + 64:],
                                    r"decompressed size"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_broken(fatbins, name, tmp_path):
    """broken fatbin: clear error, exit 1"""
    mut, pat = BROKEN[name]
    p = tmp_path / "bad.fatbin"
    p.write_bytes(mut(open(made(fatbins, "size")[0], "rb").read()))
    r = run("extract", "-o", tmp_path, p)
    r2 = run("lines", p)
    assert r.returncode == 1 and re.search(pat, r.stderr) and r2.returncode == 1 and \
        len(r2.stderr.splitlines()) == 1, r.stderr + r2.stderr
