#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
from the fixture cubins: whole small cubins, and the bytes of their debug
sections in the shape each target takes.  Run from the repository root."""
import os, struct, subprocess, sys

FIX = "tests/fixtures"
OUT = "tests/fuzz/corpus"


def sections(path):
    d = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", d, 40)[0]
    n, si = struct.unpack_from("<HH", d, 60)
    h = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + 64 * i) for i in range(n)]
    so = h[si][4]
    out = {}
    for x in h:
        name = d[so + x[0]:d.index(b"\0", so + x[0])].decode()
        if x[1] != 8 and x[4] + x[5] <= len(d):
            out.setdefault(name, d[x[4]:x[4] + x[5]])
    return d, out


def put(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    open(os.path.join(OUT, target, name), "wb").write(data)


small = ["tiny_sm90_G.cubin", "tiny_sm90_G.rdc.cubin", "inline_sm90_lineinfo.rdc.cubin",
         "elfutils_nvidia_linemap_sm80.cubin"]
for f in small:
    put("cubin", f, open(os.path.join(FIX, f), "rb").read())
for f in ["tiny_sm90_G.rdc.cubin", "calls_sm80_G.rdc.cubin", "shared_sm100_G.rdc.cubin", "inline_sm100_G.cubin",
          "inline_sm90_lineinfo.rdc.cubin", "elfutils_nvidia_linemap_sm80.cubin"]:
    _, s = sections(os.path.join(FIX, f))
    stem = f.split(".")[0]
    if ".debug_abbrev" in s:
        put("abbrev", stem, s[".debug_abbrev"])
        ab, info = s[".debug_abbrev"], s.get(".debug_info", b"")
        put("info", stem, struct.pack("<H", len(ab)) + ab + info + s.get(".debug_str", b"\0") * 1)
    for sec in (".debug_line", ".nv_debug_line_sass", ".nv.merc.debug_line"):
        if sec in s:
            put("line", stem + sec.replace(".", "_"), s[sec])
subprocess.run([sys.executable, "tests/tools/mkelf.py", "info-ptx", "/tmp/seed-ptx.cubin"], check=True)
_, s = sections("/tmp/seed-ptx.cubin")
put("info", "handmade", struct.pack("<H", len(s[".debug_abbrev"])) + s[".debug_abbrev"] + s[".debug_info"] +
    s[".debug_str"])
put("cubin", "handmade_info_ptx", open("/tmp/seed-ptx.cubin", "rb").read())
for name, e in {"regx": b"\x90\xb1\xc8\xc9\xab\x02", "fbreg": b"\x91\x78", "addr": b"\x03" + bytes(8),
                "space": b"\x10\x05\x16\x18", "bregx": b"\x92\xb5\xa4\x01\x7e\x2f\xfd\xff"}.items():
    put("op", name, e)
put("fatbin", "inline_lineinfo", open("/work/shared/corpus/out/fatbin/inline.lineinfo.default.fatbin", "rb").read()
    if os.path.exists("/work/shared/corpus/out/fatbin/inline.lineinfo.default.fatbin") else b"")
for name, b in {"small": b"\x02\x7f\x80\x01", "max": b"\xff" * 9 + b"\x01", "over": b"\x80" * 10 + b"\x02",
                "neg": b"\x80\x7f\xc0\xbb\x78"}.items():
    put("leb128", name, b)

# frame, loc, reg_sass: the sections of the fixtures; link: pairs of relocatable cubins
for f in ["tiny_sm90_G.rdc.cubin", "calls_sm80_G.rdc.cubin", "shared_sm100_G.rdc.cubin",
          "inline_sm90_lineinfo.rdc.cubin"]:
    _, s = sections(os.path.join(FIX, f))
    stem = f.split(".")[0]
    if ".debug_frame" in s:
        put("frame", stem, s[".debug_frame"][:4096])
    if ".debug_loc" in s:
        put("loc", stem, s[".debug_loc"][:4096])
    if ".nv_debug_info_reg_sass" in s:
        rs, rt = s[".nv_debug_info_reg_sass"][:3000], s.get(".nv_debug_info_reg_type", b"")[:1000]
        put("reg_sass", stem, struct.pack("<H", len(rs)) + rs + rt)
for name, a, b in (("tiny_pair", "tiny_sm90_G.rdc.cubin", "tiny_sm90_G.rdc.cubin"),
                   ("link2_sm90_lineinfo", "link2/sm_90_lineinfo/l2_kernels.rdc.cubin",
                    "link2/sm_90_lineinfo/l2_math.rdc.cubin")):
    x, y = (open(os.path.join(FIX, p), "rb").read() for p in (a, b))
    put("link", name, struct.pack("<I", len(x)) + x + y)

# predict: [arch][u32 PTX length][PTX][.nv_debug_line_sass] of stage-1 fixtures
ARCH = {75: 0, 80: 0, 90: 1, 100: 2, 120: 2}
for stem, cub in (("heavy_sm90_lineinfo", "O3"), ("chainbase_sm90_lineinfo", "O0"),
                  ("walkloop_sm90_lineinfo", "O0"), ("kmdist_sm100_lineinfo", "O1"),
                  ("althdr_sm90_lineinfo", "O1"), ("warpsum_sm75_lineinfo", "O0"),
                  ("xline_sm75_lineinfo", "O2"), ("stair_sm90_lineinfo", "O0"),
                  ("backctx_sm100_lineinfo", "O0"), ("clangline_sm100_lineinfo", "O3")):
    ptx = os.path.join(FIX, "stage1", stem + ".ptx")
    c = os.path.join(FIX, "stage1", stem + ("." + cub if cub else "") + ".cubin")
    if not (os.path.exists(ptx) and os.path.exists(c)):
        continue
    text = open(ptx, "rb").read()
    _, s = sections(c)
    sm = int(stem.split("_sm")[1].split("_")[0])
    put("predict", stem, bytes([ARCH[sm]]) + struct.pack("<I", len(text)) + text + s[".nv_debug_line_sass"])

# what older toolkits wrote (tests/fixtures/external): ABI v7 headers, ELF32,
# sh_link elsewhere, a 0x05 register rule; whole, and as inputs and link pairs
EXT = os.path.join(FIX, "external")
for f in ("synth_sm75_lineinfo.elf32.cubin", "synth_sm75_lineinfo.abi7.cubin", "synth_sm75_lineinfo.shlink.cubin",
          "synth_sm75_lineinfo.cfa05.cubin", "maxas_microbench.cubin", "elfutils_nvidia_linemap.cubin"):
    put("cubin", "ext_" + f.replace(".cubin", ""), open(os.path.join(EXT, f), "rb").read())
for f in ("synth_sm75_lineinfo.elf32.cubin", "numba_test_device_functions_multi.fatbin",
          "numba_test_device_functions.a", "numba_test_device_functions.o"):
    put("input", "ext_" + f.replace(".", "_"), open(os.path.join(EXT, f), "rb").read())
for name, a, b in (("ext_numba_pair", "numba_test_device_functions.cubin", "numba_undefined_extern.cubin"),
                   ("ext_shlink_pair", "synth_sm75_lineinfo.shlink.cubin", "synth_sm75_lineinfo.shlink.cubin"),
                   ("ext_elf32_pair", "synth_sm75_lineinfo.elf32.cubin", "synth_sm75_lineinfo.elf32.cubin")):
    x, y = (open(os.path.join(EXT, p), "rb").read() for p in (a, b))
    put("link", name, struct.pack("<I", len(x)) + x + y)
