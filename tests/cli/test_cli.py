#!/usr/bin/env python3
"""Command-line behaviour of cudwarf: exit codes, one clear error per
malformed input (file, section, offset), no partial output, and the dump
formats on real cubins.  Malformed inputs are made by corrupting real
cubins at places found by parsing their ELF headers here, independently of
cudwarf.

usage: test_cli.py CUDWARF FIXTURES_DIR   (prints one line per check and a
closing "N passed, N failed" line)
"""
import json, os, re, struct, subprocess, sys, tempfile

CUDWARF, FIX = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp()
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def run(*args):
    return subprocess.run([CUDWARF, *args], capture_output=True, text=True, timeout=60)


def sections(data):
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shnum, shstrndx = struct.unpack_from("<HH", data, 60)
    hdrs = []
    for i in range(shnum):
        h = struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i)
        hdrs.append(h)
    stroff = hdrs[shstrndx][4]
    out = {}
    for i, h in enumerate(hdrs):
        end = data.index(b"\0", stroff + h[0])
        name = data[stroff + h[0]:end].decode()
        out.setdefault(name, (i, h, shoff + 64 * i))
    return out


def write(name, data):
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def expect_error(name, path, args, section, pattern):
    r = run(*args, path)
    first = r.stderr.strip().splitlines()[0] if r.stderr.strip() else ""
    want = re.compile(r"^cudwarf: " + re.escape(path) + r": " + (re.escape(section) + r"\+0x[0-9a-f]+: " if section else "") + pattern)
    check(name, r.returncode == 1 and want.search(first) is not None and r.stdout == "" and
          len(r.stderr.strip().splitlines()) == 1, f"rc={r.returncode} stderr={r.stderr.strip()[:300]!r} stdout={len(r.stdout)}B")
    return first


base_path = os.path.join(FIX, "tiny_sm90_G.rdc.cubin")
base = open(base_path, "rb").read()
secs = sections(base)
info_i, info_h, info_hdr = secs[".debug_info"]
info_off = info_h[4]

# --- usage ---
r = run()
check("no arguments: usage, exit 2", r.returncode == 2 and "usage:" in r.stderr)
r = run("--help")
check("--help: exit 0", r.returncode == 0 and "commands:" in r.stdout)
r = run("dump", "--help")
check("dump --help: exit 0", r.returncode == 0 and "--debug-dump" in r.stdout)
r = run("frobnicate")
check("unknown command: exit 2", r.returncode == 2)
r = run("dump", "--bogus", base_path)
check("unknown option: exit 2", r.returncode == 2 and "--bogus" in r.stderr)
r = run("dump", "--debug-dump=macro", base_path)
check("unsupported --debug-dump list: exit 2", r.returncode == 2)
r = run("dump")
check("dump without file: exit 2", r.returncode == 2)
r = run("--version")
check("--version", r.returncode == 0 and r.stdout.startswith("cudwarf "))

# --- unreadable files ---
expect_error("missing file", os.path.join(TMP, "nope.cubin"), ["dump"], "", r"open: No such file")
expect_error("empty file", write("empty.cubin", b""), ["dump"], "", r"offset 0x0: ELF header: empty file")
expect_error("not ELF", write("text.cubin", b"hello, world\n" * 10), ["dump"], "",
             r"offset 0x0: ELF header: neither an ELF file nor a fatbin")
elf32 = bytearray(base)
elf32[4] = 1
expect_error("an ELF64 file marked ELF32", write("elf32.cubin", bytes(elf32)), ["sections"], "",
             r"offset 0x20: section header table: e_shnum \d+ but e_shoff 0")
elfbig = bytearray(base)
elfbig[5] = 2
expect_error("big-endian", write("msb.cubin", bytes(elfbig)), ["sections"], "", r"offset 0x4: ELF header: class 2 data 2")
expect_error("truncated in the ELF header", write("t40.cubin", base[:40]), ["dump"], "", r"offset 0x0: ELF header: file has 40 bytes")
expect_error("truncated before the section headers", write("t100.cubin", base[:100]), ["sections"], "",
             r"offset 0x[0-9a-f]+: section header")

# --- malformed DWARF ---
d = bytearray(base)
struct.pack_into("<I", d, info_off, 0x7FFFFFF0)
expect_error("CU length past the section", write("len.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"CU header: unit length 0x7ffffff0 runs past the end of the section")
d = bytearray(base)
d[info_off + 11] = 0x7D  # the first DIE's abbreviation code
expect_error("unknown abbreviation code", write("code.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"DIE: abbreviation code 125 is not in the table")
first = run("dump", "--info", write("code2.cubin", bytes(d))).stderr
check("error names the DIE offset (0xb)", ".debug_info+0xb:" in first, first)
d = bytearray(base)
struct.pack_into("<H", d, info_off + 4, 4)
expect_error("DWARF 4 unit: unsupported", write("v4.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"CU header: DWARF version 4 \(only 2 and 3 are supported\)")
d = bytearray(base)
struct.pack_into("<I", d, info_off, 0xFFFFFFFF)
expect_error("64-bit DWARF unit: unsupported", write("dw64.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"CU header: 64-bit DWARF unit")
d = bytearray(base)
struct.pack_into("<Q", d, info_hdr + 24, len(base) + 0x1000)  # sh_offset past the end of the file
expect_error("section offset past the end of the file", write("shoff.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"section: sh_offset 0x[0-9a-f]+ \+ sh_size 0x[0-9a-f]+ lies outside the file")
d = bytearray(base)
ab = secs[".debug_abbrev"][1]
name_at = secs[".shstrtab"][1][4] + ab[0]
d[name_at:name_at + 13] = b".debug_abbrXX"
expect_error("missing .debug_abbrev", write("noabbrev.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"CU header: skipping .debug_info section due to missing .debug_abbrev section")
d = bytearray(base)
d = d[:info_off + 60]  # file ends inside .debug_info: its bytes are not in the file
expect_error("truncated inside .debug_info", write("tinfo.cubin", bytes(d)), ["dump", "--info"], "", r"offset 0x[0-9a-f]+: section header")
d = bytearray(base)
struct.pack_into("<I", d, info_off + 6, 0x10000)  # abbrev offset (relocated: addend patched)
rel_i, rel_h, _ = secs[".rela.debug_info"]
for k in range(rel_h[5] // 24):
    off, info, add = struct.unpack_from("<QQq", d, rel_h[4] + 24 * k)
    if off == 6:
        struct.pack_into("<q", d, rel_h[4] + 24 * k + 16, 0x10000)
expect_error("abbrev offset past .debug_abbrev", write("aboff.cubin", bytes(d)), ["dump", "--info"], ".debug_info",
             r"CU header: abbrev offset 0x10000 is past the end of .debug_abbrev")
d = bytearray(base)
struct.pack_into("<Q", d, rel_h[4] + 8, (9999 << 32) | 2)  # relocation with a bad symbol
expect_error("relocation symbol out of range", write("relsym.cubin", bytes(d)), ["dump", "--info"], ".rela.debug_info",
             r"relocation: symbol 9999")
r = run("dump", "--info", "--json", os.path.join(TMP, "code.cubin"))
check("JSON mode: no partial document on error", r.returncode == 1 and r.stdout == "")

# several files: the good one is dumped, the exit status says one failed
r = run("dump", "--info", base_path, os.path.join(TMP, "code.cubin"))
check("bad file among good ones: exit 1, good one dumped", r.returncode == 1 and "Compilation Unit @ offset 0x0:" in r.stdout)

# --- real output ---
r = run("dump", "--info", base_path)
check("dump --info: exit 0", r.returncode == 0)
check("spec dump formats", "Contents of the .debug_info section:" in r.stdout and
      "Compilation Unit @ offset 0x0:" in r.stdout and
      " <0><b>: Abbrev Number: 1 (0x11 DW_TAG_compile_unit)" in r.stdout)
check("relocated high_pc = function size (0x400), not the stale 0x330",
      re.search(r"DW_AT_high_pc\s+: 0x400 \(_Z11tiny_kernelPii\+0x400\)", r.stdout) is not None)
check("ASCII-packed PTX register named", "DW_OP_regx: %r6" in r.stdout)
check("address class shown as PTX state space", "0x7 (param)" in r.stdout)
r2 = run("dump", "--debug-dump=info", base_path)
check("--debug-dump=info equals --info", r2.stdout == r.stdout)
r = run("dump", "--abbrev", base_path)
check("dump --abbrev", r.returncode == 0 and "Contents of the .debug_abbrev section:" in r.stdout and
      "   1      0x11 DW_TAG_compile_unit    [has children]" in r.stdout)
r = run("dump", "--json", base_path)
try:
    doc, = json.loads(r.stdout)  # one image: an array of one
    kinds = [s["section"] for s in doc["sections"]]
    check("dump --json parses; every decoded section of the file",
          kinds == [".debug_abbrev", ".debug_info", ".debug_line", ".nv_debug_line_sass", ".debug_frame", ".debug_macinfo",
                    ".nv_debug_ptx_txt.1865645009", ".nv_debug_info_reg_sass", ".nv_debug_info_reg_type"], kinds)
except ValueError as e:
    check("dump --json parses", False, str(e))

# --- sections: classes, twins, aliasing, files with no bytes ---
merc = os.path.join(FIX, "shared_sm100_G.rdc.cubin")
r = run("sections", "--json", merc)
doc, = json.loads(r.stdout)
by = {s["name"]: s for s in doc["sections"]}
raw = sections(open(merc, "rb").read())
check("sections --json: every section listed", len(doc["sections"]) == len(raw) - 1)
check("offsets/sizes match the ELF headers",
      all(by[n]["offset"] == raw[n][1][4] and by[n]["size"] == raw[n][1][5] for n in by))
check(".nv.merc.debug_abbrev aliases .debug_abbrev",
      by[".nv.merc.debug_abbrev"]["aliased"] and by[".nv.merc.debug_abbrev"]["twin"] == by[".debug_abbrev"]["index"])
check(".nv.merc.debug_info is a separate copy", by[".nv.merc.debug_info"]["aliased"] is False)
check("Mercury twin classified with its bare kind",
      by[".nv.merc.debug_line"]["class"]["mercury"] and by[".nv.merc.debug_line"]["class"]["kind"] == "debug_line")
check("type ids 1-6", [by[n]["class"]["type_id"] for n in (".debug_info", ".debug_loc", ".debug_abbrev",
                                                            ".debug_line")] == [1, 2, 3, 5])
check(".nv_debug_ptx_txt.N is prefix-matched, passed through",
      any(n.startswith(".nv_debug_ptx_txt.") and s["class"]["nvlink"] == "pass through" for n, s in by.items()))
check("relocation counts", by[".debug_info"]["relocations"] == raw[".rela.debug_info"][1][5] // 24)
# .nv_debug.shared without file data (0x7000000a, sh_offset past the end: FINDINGS 6.3)
d = bytearray(base)
i, h, hdr = secs[".debug_frame"]
struct.pack_into("<I", d, hdr + 4, 0x7000000A)
struct.pack_into("<Q", d, hdr + 24, len(base) + 64)
name_at = secs[".shstrtab"][1][4] + h[0]
d[name_at:name_at + 17] = b".nv_debug.shared\0"
p = write("shared.cubin", bytes(d))
r = run("sections", "--json", p)
s = [x for x in json.loads(r.stdout)[0]["sections"] if x["name"] == ".nv_debug.shared"] if r.returncode == 0 else []
check(".nv_debug.shared past the end of file: listed, dropped by nvlink, no data",
      r.returncode == 0 and s and s[0]["class"]["nvlink"] == "drop" and s[0]["has_file_data"] is False, r.stderr)
r = run("dump", p)
check("... and dump still works", r.returncode == 0, r.stderr)

# --- lines and addr2line ---
peer = os.path.join(FIX, "elfutils_nvidia_linemap_sm80.cubin")
# elfutils' own test of this cubin: at 0x1e0 foo is inlined at bar.h:6, bar at main.cu:31
r = run("addr2line", "-e", peer, "-f", "-i", "-p", "kernel+0x1e0")
want = ("foo at /home/johnmc/hpctoolkit-gpu-samples/nvidia_extended_linemap4/main.cu:8\n"
        " (inlined by) bar at /home/johnmc/hpctoolkit-gpu-samples/nvidia_extended_linemap4/bar.h:6\n"
        " (inlined by) kernel at /home/johnmc/hpctoolkit-gpu-samples/nvidia_extended_linemap4/main.cu:31\n")
check("addr2line -fip: the peer cubin's inline stack at 0x1e0", r.returncode == 0 and r.stdout == want, r.stdout)
r2 = run("addr2line", "--exe", peer, "--functions", "--inlines", "--pretty-print", "kernel+0x1e0")
check("addr2line with binutils' long names answers as -fip", r2.returncode == 0 and r2.stdout == want, r2.stdout)
r = run("addr2line", "-e", peer, "-f", "-i", "kernel+0x1e0")
check("addr2line -fi: binutils' two-line frames", r.stdout.splitlines()[::2] == ["foo", "bar", "kernel"])
r = run("addr2line", "-e", peer, "kernel+0x100")
check("addr2line: the last row at an address wins (main.cu:8 in foo)", r.stdout.endswith("main.cu:8\n"), r.stdout)
r = run("addr2line", "-e", peer, "-f", "kernel+0x5000", "nosuch+0x0")
check("addr2line: unknown locations print ?? and ??:0, say why, exit 1",
      r.returncode == 1 and r.stdout == "??\n??:0\n??\n??:0\n" and "past the end of kernel" in r.stderr
      and "no function named nosuch" in r.stderr and r.stderr.count("\n") == 2, r.stdout + r.stderr)
r = run("addr2line", "-e", peer, "junk+")
check("addr2line: unparsable location: exit 1", r.returncode == 1 and "cannot parse" in r.stderr)
r = subprocess.run([CUDWARF, "addr2line", "-e", peer, "--json", "--ptx"], input="kernel+0x1e0\n",
                   capture_output=True, text=True)
try:
    doc = json.loads(r.stdout)
    check("addr2line from stdin, --json --ptx", doc[0]["found"] and [x["function"] for x in doc[0]["frames"]] ==
          ["foo", "bar", "kernel"] and doc[0]["ptx"]["text"].startswith("ld.global"), r.stdout)
except (ValueError, KeyError, IndexError) as e:
    check("addr2line from stdin, --json --ptx", False, f"{e}: {r.stdout!r}")
inl = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
r = run("addr2line", "-e", inl, "-fipC", "_Z11blur_kernelPKfPfi+0x180")
check("addr2line -C demangles", r.stdout.startswith("inl_clampf(float, float, float) at ") and
      "(inlined by) blur_kernel(float const*, float*, int) at " in r.stdout, r.stdout)
r = run("addr2line", "-e", inl, "--function", "_Z11blur_kernelPKfPfi", "0x180")
r2 = run("addr2line", "-e", inl, "_Z11blur_kernelPKfPfi+0x180")
check("addr2line --function with a bare offset", r.returncode == 0 and r.stdout == r2.stdout and r.stdout.strip())
r = run("addr2line", "0x10")
check("addr2line without -e: exit 2", r.returncode == 2)
r = run("lines", "--ptx", "--section", ".nv_debug_line_sass", inl)
check("lines --ptx shows PTX text", r.returncode == 0 and "| mov.u32 \t%r4, %ctaid.x;" in r.stdout)
r = run("lines", "--json", inl)
doc, = json.loads(r.stdout)
check("lines --json: .debug_line then .nv_debug_line_sass",
      [x["section"] for x in doc["sections"]] == [".debug_line", ".nv_debug_line_sass"])
# the default form has every row whole (scripts and the reference comparisons
# read it); --compact says the same rows in fewer bytes
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import lines_json  # noqa: E402
KEYS = ("address", "symbol", "offset", "file", "path", "line", "column", "is_stmt", "end_sequence", "context",
        "function", "sequence", "row")
whole = [[tuple(r[k] for k in KEYS) for r in t["rows"]] for x in doc["sections"] for t in x["tables"]]
c = run("lines", "--json", "--compact", inl)
cdoc, = json.loads(c.stdout) if c.returncode == 0 else (None,)
compact = [[tuple(r[k] for k in KEYS) for r in lines_json.rows(t)] for x in cdoc["sections"] for t in x["tables"]] \
    if cdoc else None
check("lines --json rows are whole; --compact gives the same rows",
      all(len(t) for t in whole) and whole == compact and len(c.stdout) < len(r.stdout),
      f"{len(whole)} tables vs {compact and len(compact)}")
check("lines --compact without --json: usage error (exit 2)", run("lines", "--compact", inl).returncode == 2)
d = bytearray(open(inl, "rb").read())
lsec = sections(bytes(d))[".debug_line"][1]
struct.pack_into("<I", d, lsec[4], 0x7FFFFFF0)
expect_error("line table length past the section", write("lt.cubin", bytes(d)), ["lines"], ".debug_line",
             r"line table header: unit length 0x7ffffff0 runs past the end of the section")
d = bytearray(open(inl, "rb").read())
struct.pack_into("<I", d, lsec[4] + 6, 0x7FFF)
expect_error("line header_length past the unit", write("lh.cubin", bytes(d)), ["lines"], ".debug_line",
             r"line table header: header_length 0x7fff does not fit the unit")

# --- line-encode: lines --json --hidden | line-encode reproduces ptxas's bytes ---
def section_bytes(path, name):
    data = open(path, "rb").read()
    h = sections(data)[name][1]
    return data[h[4]:h[4] + h[5]]


for fx, sec in (("inline_sm90_lineinfo.rdc.cubin", ".debug_line"), ("inline_sm100_G.cubin", ".nv.merc.debug_line"),
                ("shared_sm100_G.rdc.cubin", ".nv.merc.nv_debug_line_sass"),
                ("stage1/line0ctx_sm90_lineinfo.O0.cubin", ".debug_line"),
                ("stage1/line0ctx_sm100_lineinfo.O3.cubin", ".nv.merc.debug_line"),
                ("stage1/templ_sm90_lineinfo.O0.cubin", ".debug_line"),
                ("stage1/warpsum_sm75_lineinfo.O0.cubin", ".debug_line"),
                ("stage1/warpsum_sm100_lineinfo.O2.cubin", ".nv.merc.debug_line"),
                ("stage1/clangline_sm100_lineinfo.O3.cubin", ".nv.merc.debug_line")):
    fpath = os.path.join(FIX, fx)
    rows = run("lines", "--json", "--hidden", "--section", sec, fpath).stdout
    if fx.startswith("stage1/line0ctx_sm90"):  # ptxas's set_file that changes nothing (docs/ptx-lines.md rule 8)
        check("lines --json marks the row after ptxas's redundant set_file (file_again), and only it",
              rows.count('"file_again":true') == 1, rows[:200])
    if fx.startswith("stage1/warpsum"):  # 0x90 before set_file (docs/ptx-lines.md rule 3)
        check(f"lines --json marks the rows whose 0x90 ptxas wrote before their set_file (ctx_first): {fx}",
              rows.count('"ctx_first":true') == 4, rows.count('"ctx_first":true'))
    if fx.startswith("stage1/clangline"):  # set_file before the 0x92 0 (docs/ptx-lines.md rule 14)
        check("lines --json marks the row whose set_file ptxas wrote before the 0x92 0 closing the entry (file_first)",
              rows.count('"file_first":true') == 1, rows.count('"file_first":true'))
    if fx.startswith("stage1/templ"):  # two 0x90s with no row between (docs/ptx-lines.md rule 7)
        check("lines --json --hidden reports ptxas's 0x90 that the next replaces before any row (hidden 2)",
              rows.count('"hidden":2') == 1, rows[:200])
    outp = os.path.join(TMP, "unit.bin")
    r = subprocess.run([CUDWARF, "line-encode", "--json", "--section", sec, "-o", outp, "-"], input=rows,
                       capture_output=True, text=True)
    ok = r.returncode == 0 and open(outp, "rb").read() == section_bytes(fpath, sec)
    sites = json.loads(r.stdout)[0]["relocations"] if r.returncode == 0 else []
    check(f"line-encode round trip: {fx} {sec} byte-identical, {len(sites)} relocation sites", ok and sites, r.stderr)
bad_json = write("bad.json", b'{"rows": [ {"address": 1.5} ]}')
r = run("line-encode", "-o", os.path.join(TMP, "never.bin"), bad_json)
check("line-encode: non-integer number is an error, no output file",
      r.returncode == 1 and "only integers" in r.stderr and not os.path.exists(os.path.join(TMP, "never.bin")))
desc = write("desc.json", json.dumps({"rows": [{"address": 32, "line": 1}, {"address": 16, "line": 2}]}).encode())
r = run("line-encode", "-o", os.path.join(TMP, "never.bin"), desc)
check("line-encode: descending addresses are an error naming the row, no output file",
      r.returncode == 1 and "row 1" in r.stderr and not os.path.exists(os.path.join(TMP, "never.bin")), r.stderr)
paths = write("paths.json", json.dumps({"paths": ["/a/x.cu", "/b/y.h", "/a/z.cuh"], "rows": [
    {"address": 0, "line": 3, "file": 1}, {"address": 16, "line": 4, "file": 3}, {"address": 48, "end_sequence": True}]}).encode())
outp = os.path.join(TMP, "p.bin")
r = run("line-encode", "-o", outp, paths)
unit = open(outp, "rb").read() if r.returncode == 0 else b""
check("line-encode from paths: directories de-duplicated", r.returncode == 0 and b"/a\0/b\0\0x.cu\0\x01" in unit, unit[:80])

# --- fatbins and host executables (fixtures from the corpus) ---
fb = os.path.join(FIX, "inline_G_speed.fatbin")
r = run("list", "--json", fb)
doc, = json.loads(r.stdout)
check("list: the LZ4 fatbin's 4 entries", [(i["kind"], i["sm"], i["compression"]) for i in doc["images"]] ==
      [("elf", 75, "lz4"), ("elf", 90, "lz4"), ("elf", 100, "lz4"), ("ptx", 90, "lz4")])
exdir = os.path.join(TMP, "ex")
os.makedirs(exdir)
r = run("extract", "-o", exdir, fb)
sm100 = os.path.join(exdir, "inline_G_speed.fatbin.0.2.sm_100.cubin")
check("extract: LZ4 entry decompressed to the cubin byte for byte",
      r.returncode == 0 and open(sm100, "rb").read() == open(os.path.join(FIX, "inline_sm100_G.cubin"), "rb").read())
r = run("dump", "--info", "--json", fb)
check("dump reads every ELF image of a fatbin (an array of 3)", r.returncode == 0 and len(json.loads(r.stdout)) == 3)
exe = os.path.join(FIX, "hostapp_lineinfo.exe")
r = run("list", exe)
check("list: host executable, two containers (cudart's and the application's), each found twice",
      "[.nv_fatbin#0.0] ELF sm_75" in r.stdout and "[.nv_fatbin#1.2] PTX sm_90" in r.stdout and
      "name 'src/hostapp/app.cu'" in r.stdout and r.stdout.count("found by section walk, wrapper") == 2)
r = run("addr2line", "-e", exe, "--sm=90", "-fipC", "_Z12saxpy_kernelfPKfPfi+0x80")
check("addr2line -e app.exe finds the kernel in the embedded cubin",
      r.returncode == 0 and r.stdout.startswith("saxpy_kernel(float, float const*, float*, int) at /proc/self/cwd/src/hostapp/app.cu:"),
      r.stdout + r.stderr)
r = run("extract", os.path.join(FIX, "tiny_sm90_G.cubin"))
check("extract on a bare cubin: exit 1, says why", r.returncode == 1 and "nothing to extract" in r.stderr)
r = run("lines", "/bin/sh")
check("a host ELF without device code: exit 1", r.returncode == 1 and "no CUDA device code" in r.stderr, r.stderr)

# --- JSON strings: every byte escaped right (the escaper skips clean 8-byte words) ---
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from mkelf import build_elf  # noqa: E402
strs = [bytes(range(1, 256)), b"plain/path/with/no/escapes/at/all/abcdefgh", b'a"b\\c\x7fd\x80e\x1ff',
        b'12345678"', b"\\2345678abcdefgh", b"abcdefg\n"]
sp = os.path.join(TMP, "strs.cubin")
open(sp, "wb").write(build_elf([{"name": ".debug_str", "data": b"\0".join(strs) + b"\0"}]))
r = run("dump", "--str", "--json", sp)
found = []


def strings(o):
    if isinstance(o, dict):
        for v in o.values():
            strings(v)
    elif isinstance(o, list):
        for v in o:
            strings(v)
    elif isinstance(o, str):
        found.append(o)


try:
    strings(json.loads(r.stdout))
except ValueError:
    pass
check("JSON: strings with every byte 1..255, quotes, backslashes come back exactly (bytes >= 0x7f as \\u00XX)",
      r.returncode == 0 and all(x.decode("latin-1") in found for x in strs), r.stderr)

# --- where outputs go: a FIFO (as /dev/null, a device) is written in place,
# never renamed over; a symbolic link keeps pointing at the replaced file ---
import stat as _stat, threading
src = os.path.join(FIX, "tiny_sm90_G.cubin")
plain = os.path.join(TMP, "plain.stripped")
r = run("strip", "-o", plain, src)
want = open(plain, "rb").read() if r.returncode == 0 else None
fifo = os.path.join(TMP, "out.fifo")
os.mkfifo(fifo)
got = []
reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
reader.start()
r = run("strip", "-o", fifo, src)
reader.join(10)
check("strip -o FIFO: written in place (the FIFO stays a FIFO), same bytes as to a file",
      r.returncode == 0 and got and got[0] == want and _stat.S_ISFIFO(os.lstat(fifo).st_mode), r.stderr)
target = os.path.join(TMP, "target.cubin")
open(target, "wb").write(b"old")
os.chmod(target, 0o600)
link = os.path.join(TMP, "out.link")
os.symlink(target, link)
r = run("strip", "-o", link, src)
check("strip -o SYMLINK: the file it names is replaced (mode kept), the link stays",
      r.returncode == 0 and os.path.islink(link) and open(target, "rb").read() == want and
      _stat.S_IMODE(os.stat(target).st_mode) == 0o600, r.stderr)
r = run("strip", "-o", TMP, src)
check("strip -o DIRECTORY: exit 1, says so, leaves nothing beside it",
      r.returncode == 1 and "is a directory" in r.stderr and
      not [n for n in os.listdir(os.path.dirname(TMP)) if n.startswith(os.path.basename(TMP) + ".tmp")], r.stderr)

print(f"cli: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
