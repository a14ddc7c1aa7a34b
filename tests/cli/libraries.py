#!/usr/bin/env python3
"""NVIDIA's own libraries: `cudwarf list` finds exactly the fatbin
containers and images an independent scan finds, `list --headers` lists
the same entries without decoding them, and -j 2 prints what -j 1 prints.

The scan here is written apart from the library (Python, over the raw
bytes): in .nv_fatbin and __nv_relfatbin every container back to back; in
every other section with file bytes, every occurrence of the magic whose
whole container is valid (version 1, header size 16, entries of 64+ byte
headers and payloads exactly filling it).  Counts of ELF, PTX and LTO IR
entries must equal list's, library by library.

usage: libraries.py CUDWARF [--quick] [DIR]   (DIR: /usr/local/cuda/lib64)
Skips, saying so, when the libraries are not installed.
"""
import json, mmap, os, struct, subprocess, sys

CUDWARF = sys.argv[1]
QUICK = "--quick" in sys.argv
args = [a for a in sys.argv[2:] if a != "--quick"]
DIR = args[0] if args else "/usr/local/cuda/lib64"
LIBS = ["libcusparse.so.12", "libcurand.so.10"] if QUICK else ["libcufft.so.12", "libcusparse.so.12", "libcurand.so.10", "libcublasLt.so.13",
                                             "libcudnn_engines_precompiled.so.9", "libnccl.so.2"]
passed = failed = skipped = 0


def check(name, cond, detail=""):
    global passed, failed
    passed += bool(cond)
    failed += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name}" + ("" if cond else f" {detail}"))


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
                        raise SystemExit(f"{path}: {name}+{i - off:#x}: not a container")
                    pos = i + 1
                    continue
                ncon += 1
                for k in kinds:
                    counts[k] = counts.get(k, 0) + 1
                pos = i + size
    return ncon, counts


for lib in LIBS:
    path = os.path.join(DIR, lib)
    if not os.path.exists(path):
        print(f"skip {lib}: not installed in {DIR}")
        skipped += 1
        continue
    ncon, want = scan(path)
    r = subprocess.run([CUDWARF, "list", "--json", "--decode", path], capture_output=True, text=True)
    doc = json.loads(r.stdout)[0] if r.returncode == 0 else {"images": [], "containers": []}
    got = {}
    for im in doc["images"]:
        got[im["kind_code"]] = got.get(im["kind_code"], 0) + 1
    check(f"{lib}: list finds the {ncon} containers and {want.get(2, 0)} ELF, {want.get(1, 0)} PTX, "
          f"{want.get(8, 0)} LTO IR images the independent scan finds",
          r.returncode == 0 and got == want and len(doc["containers"]) == ncon, f"{got} vs {want} {r.stderr[:200]}")
    labels = [im["label"] for im in doc["images"]]
    check(f"{lib}: every label is unique", len(set(labels)) == len(labels))
    # --headers: the same containers and entries, only what decoding adds left out
    h = subprocess.run([CUDWARF, "list", "--json", "--headers", path], capture_output=True, text=True)
    hd = json.loads(h.stdout)[0] if h.returncode == 0 else {}
    decoded = ("image_size", "debug_sections", "has_code")  # what decoding adds
    strip = lambda ims: [{k: v for k, v in im.items() if k not in decoded} for im in ims]
    check(f"{lib}: list --headers lists the same {len(doc['images'])} entries, without image_size, "
          f"debug_sections and has_code", h.returncode == 0 and hd.get("containers") == doc["containers"] and
          hd.get("images") == strip(doc["images"]) and
          not any(k in im for im in hd.get("images", []) for k in decoded),
          h.stderr[:200])
    # the default: decoded whole under 256 MiB unpacked, else the compressed
    # entries as --headers lists them and everything else as --decode does
    d = subprocess.run([CUDWARF, "list", "--json", path], capture_output=True, text=True)
    dd = json.loads(d.stdout)[0] if d.returncode == 0 else {}
    packed = [im.get("compression") in ("zstd", "lz4") and not (im.get("flags", 0) & 0x10000 and im["kind_code"] != 2)
              for im in doc["images"]]
    unpacked = sum(im.get("decompressed_size", 0) for im, p in zip(doc["images"], packed) if p)
    over = unpacked > 256 << 20
    want_imgs = [{k: v for k, v in im.items() if not (over and p) or k not in decoded}
                 for im, p in zip(doc["images"], packed)]
    check(f"{lib}: list without --decode ({unpacked >> 20} MiB compressed: "
          f"{'over' if over else 'under'} the budget) lists {sum(packed) if over else 0} entries undecoded, "
          f"the rest as --decode", d.returncode == 0 and dd.get("images") == want_imgs and
          dd.get("not_decoded", 0) == (sum(packed) if over else 0) and
          (("note: %d compressed images" % sum(packed)) in d.stderr) == over, d.stderr[:200])
    if lib == "libcusparse.so.12":
        a = subprocess.run([CUDWARF, "verify", "-j", "1", path], capture_output=True, text=True)
        b = subprocess.run([CUDWARF, "verify", "-j", "2", path], capture_output=True, text=True)
        check(f"{lib}: verify -j 2 prints byte for byte what -j 1 prints ({len(a.stdout.splitlines())} lines)",
              a.stdout == b.stdout and a.stderr == b.stderr and a.returncode == b.returncode and a.stdout)
print(f"libraries: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
