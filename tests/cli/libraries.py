"""NVIDIA's own libraries (/usr/local/cuda/lib64): `cudwarf list` finds
exactly the fatbin containers and images an independent scan finds,
`list --headers` lists the same entries without decoding them, and -j 2
prints what -j 1 prints.

The scan here is written apart from the library (Python, over the raw
bytes): in .nv_fatbin and __nv_relfatbin every container back to back; in
every other section with file bytes, every occurrence of the magic whose
whole container is valid (version 1, header size 16, entries of 64+ byte
headers and payloads exactly filling it).  Counts of ELF, PTX and LTO IR
entries must equal list's, library by library.  A library not installed is
skipped, saying so.

    python3 -m pytest -m libraries              six libraries (minutes)
    python3 -m pytest -m libraries --quick      two (tests/run.sh: the sanitizer build)
"""
import functools
import json
import mmap
import os
import struct

import pytest

from suite_env import CUDA_LIB64, QUICK, run

pytestmark = pytest.mark.libraries

LIBS = ["libcusparse.so.12", "libcurand.so.10"] if QUICK else [
    "libcufft.so.12", "libcusparse.so.12", "libcurand.so.10", "libcublasLt.so.13",
    "libcudnn_engines_precompiled.so.9", "libnccl.so.2"]
DECODED = ("image_size", "debug_sections", "has_code")  # what decoding adds to list's entries


def sections(m):
    shoff = struct.unpack_from("<Q", m, 0x28)[0]
    shnum, shstrndx = struct.unpack_from("<HH", m, 0x3c)
    out = []
    for i in range(shnum):
        nm, ty, fl, ad, off, sz = struct.unpack_from("<IIQQQQ", m, shoff + i * 64)
        out.append([nm, ty, off, sz])
    so = out[shstrndx][2]
    for s in out:
        s[0] = m[so + s[0]:m.find(b"\0", so + s[0])].decode()
    return out


def container(m, i, end):
    """The kinds of the entries of a fully valid container at i, or None."""
    if i + 16 > end or m[i:i + 4] != b"\x50\xed\x55\xba":
        return None, 0
    ver, hs, ps = struct.unpack_from("<HHQ", m, i + 4)
    if ver != 1 or hs != 16 or ps < 64 or i + 16 + ps > end:
        return None, 0
    a, e, kinds = i + 16, i + 16 + ps, []
    while a < e:
        if e - a < 64:
            return None, 0
        k, _, h, pl = struct.unpack_from("<HHIQ", m, a)
        noff, nlen = struct.unpack_from("<II", m, a + 32)
        if h < 64 or a + h + pl > e or ((noff or nlen) and (noff > h or nlen > h - noff)):
            return None, 0
        kinds.append(k)
        a += h + pl
    return kinds, 16 + ps


def scan(path):
    """(containers, {entry kind: count}) the independent scan finds"""
    counts, ncon = {}, 0
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        for name, ty, off, sz in sections(m):
            if ty == 8 or not sz:
                continue
            end, pos = off + sz, off
            while True:
                if name in (".nv_fatbin", "__nv_relfatbin"):
                    while pos < end and m[pos] == 0:
                        pos += 1
                    if pos >= end:
                        break
                    i = pos
                else:
                    i = m.find(b"\x50\xed\x55\xba", pos, end)
                    if i < 0:
                        break
                kinds, size = container(m, i, end)
                if kinds is None:
                    if name in (".nv_fatbin", "__nv_relfatbin"):
                        pytest.fail(f"{path}: {name}+{i - off:#x}: not a container")
                    pos = i + 1
                    continue
                ncon += 1
                for k in kinds:
                    counts[k] = counts.get(k, 0) + 1
                pos = i + size
    return ncon, counts


def installed(lib):
    path = os.path.join(CUDA_LIB64, lib)
    if not os.path.exists(path):
        pytest.skip(f"{lib}: not installed in {CUDA_LIB64}")
    return path


@functools.lru_cache(maxsize=None)
def decoded(path):
    """list --json --decode's document (several tests compare with it: decoding a library takes seconds)"""
    r = run("list", "--json", "--decode", path)
    assert r.returncode == 0, r.stderr[:200]
    return json.loads(r.stdout)[0]


@pytest.mark.parametrize("lib", LIBS)
def test_list_equals_scan(lib):
    """list finds the containers and ELF, PTX, LTO IR images the independent scan finds"""
    path = installed(lib)
    ncon, want = scan(path)
    doc = decoded(path)
    got = {}
    for im in doc["images"]:
        got[im["kind_code"]] = got.get(im["kind_code"], 0) + 1
    assert got == want and len(doc["containers"]) == ncon, \
        f"list: {got} in {len(doc['containers'])} containers; the scan: {want} in {ncon}"


@pytest.mark.parametrize("lib", LIBS)
def test_labels_unique(lib):
    labels = [im["label"] for im in decoded(installed(lib))["images"]]
    assert len(set(labels)) == len(labels)


@pytest.mark.parametrize("lib", LIBS)
def test_headers(lib):
    """list --headers: the same containers and entries, only what decoding adds left out"""
    path = installed(lib)
    doc = decoded(path)
    h = run("list", "--json", "--headers", path)
    assert h.returncode == 0, h.stderr[:200]
    hd = json.loads(h.stdout)[0]
    assert hd.get("containers") == doc["containers"]
    assert hd.get("images") == [{k: v for k, v in im.items() if k not in DECODED} for im in doc["images"]]
    assert not any(k in im for im in hd.get("images", []) for k in DECODED)


@pytest.mark.parametrize("lib", LIBS)
def test_default_budget(lib):
    """the default: decoded whole under 256 MiB unpacked, else the compressed
    entries as --headers lists them and everything else as --decode does"""
    path = installed(lib)
    doc = decoded(path)
    d = run("list", "--json", path)
    assert d.returncode == 0, d.stderr[:200]
    dd = json.loads(d.stdout)[0]
    packed = [im.get("compression") in ("zstd", "lz4") and not (im.get("flags", 0) & 0x10000 and im["kind_code"] != 2)
              for im in doc["images"]]
    unpacked = sum(im.get("decompressed_size", 0) for im, p in zip(doc["images"], packed) if p)
    over = unpacked > 256 << 20
    want_imgs = [{k: v for k, v in im.items() if not (over and p) or k not in DECODED}
                 for im, p in zip(doc["images"], packed)]
    print(f"{unpacked >> 20} MiB compressed: {'over' if over else 'under'} the budget")
    assert dd.get("images") == want_imgs
    assert dd.get("not_decoded", 0) == (sum(packed) if over else 0)
    assert (("note: %d compressed images" % sum(packed)) in d.stderr) == over, d.stderr[:200]


def test_verify_jobs():
    """verify -j 2 prints byte for byte what -j 1 prints"""
    path = installed("libcusparse.so.12")
    a, b = run("verify", "-j", "1", path), run("verify", "-j", "2", path)
    assert a.stdout, a.stderr[:200]
    assert a.stdout == b.stdout and a.stderr == b.stderr and a.returncode == b.returncode
