#!/usr/bin/env python3
"""Hostile inputs: peak memory and time of cudwarf on inputs built to
stress its bounds.  Each case is generated here (tests/tools/mkelf.py's ELF
writer), run with /usr/bin/time, and reported with the input size, cudwarf's
exit status and first error line.

usage: bench/hostile.py [CUDWARF]
"""
import os, struct, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from mkelf import build_elf, uleb  # noqa: E402

if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    sys.exit(print(__doc__.strip()))
CUDWARF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cudwarf")
tmp = tempfile.mkdtemp()


def unit(body, version=2, asz=8):
    return struct.pack("<IHIB", len(body) + 7, version, 0, asz) + body


def case_max_attrs():
    # 4,000 abbreviations of 256 data1 attributes, and one DIE of each
    ab = bytearray()
    for code in range(1, 4001):
        ab += uleb(code) + uleb(0x34) + b"\0" + (uleb(0x3b) + uleb(0x0b)) * 256 + b"\0\0"
    ab += b"\0"
    body = bytearray(uleb(1)[:0])
    for code in range(1, 4001):
        body += uleb(code) + bytes(256)
    return [{"name": ".debug_abbrev", "data": bytes(ab)}, {"name": ".debug_info", "data": unit(bytes(body))}]


def case_long_leb():
    # one attribute whose ULEB128 is 8 MB of padding bytes
    ab = uleb(1) + uleb(0x34) + b"\0" + uleb(0x3b) + uleb(0x0f) + b"\0\0\0"
    body = uleb(1) + b"\x80" * (8 << 20) + b"\x00"
    return [{"name": ".debug_abbrev", "data": ab}, {"name": ".debug_info", "data": unit(body)}]


def case_deep():
    # DIEs nested to the limit and past it
    ab = uleb(1) + uleb(0x0b) + b"\1" + b"\0\0\0"
    return [{"name": ".debug_abbrev", "data": ab}, {"name": ".debug_info", "data": unit(b"\x01" * 100000)}]


def line_unit(program):
    hdr = bytes([1, 1, 0xFB, 14, 10]) + bytes([0, 1, 1, 1, 1, 0, 0, 0, 1]) + b"\0" + b"a.cu\0\0\0\0\0"
    body = struct.pack("<H", 2) + struct.pack("<I", len(hdr)) + hdr + program
    return struct.pack("<I", len(body)) + body


def case_many_rows():
    # one sequence of 16 million rows (special opcodes), each inlined at the row before
    prog = b"\0\x09\x02" + bytes(8) + b"\0\x03\x90\x01\x00" + b"\xf0" * (16 << 20) + b"\0\x01\x01"
    return [{"name": ".debug_line", "data": line_unit(prog)}, {"name": ".debug_str", "data": b"\0f\0"}]


def case_deep_inline():
    # 1 M rows, each inlined at the row before it: an inline chain 1 M deep
    rows = bytearray()
    for k in range(1, 1 << 20):
        ops = uleb(k - 1) + uleb(1)
        rows += b"\0" + uleb(1 + len(ops)) + b"\x90" + ops + b"\xf0"
    prog = b"\0\x09\x02" + bytes(8) + bytes(rows) + b"\0\x01\x01"
    sym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0, 16 << 20)
    rela = struct.pack("<QQq", 10 + 5 + 9 + 3 + 11 - 1, (1 << 32) | 2, 0)
    unit_ = line_unit(prog)
    # the set_address operand sits right after the header
    hdr_end = 4 + 2 + 4 + struct.unpack_from("<I", unit_, 6)[0]
    rela = struct.pack("<QQq", hdr_end + 3, (1 << 32) | 2, 0)
    return [{"name": ".text.k", "flags": 6, "data": bytes(16)},
            {"name": ".debug_line", "data": unit_}, {"name": ".debug_str", "data": b"\0f\0"},
            {"name": ".strtab", "type": 3, "data": b"\0k\0"},
            {"name": ".symtab", "type": 2, "data": sym, "link": 4, "entsize": 24},
            {"name": ".rela.debug_line", "type": 4, "data": rela, "link": 5, "info": 2, "entsize": 24}]


def case_many_relocs():
    # 1 million relocations on .debug_info, against a symbol table of 1 symbol
    ab = uleb(1) + uleb(0x11) + b"\0" + uleb(0x11) + uleb(0x01) + b"\0\0\0"
    info = unit(uleb(1) + bytes(8))
    sym = bytes(24) + struct.pack("<IBBHQQ", 0, 3, 0, 1, 0, 0)
    rela = struct.pack("<QQq", 12, (1 << 32) | 2, 0x40) * (1 << 20)
    return [{"name": ".debug_abbrev", "data": ab}, {"name": ".debug_info", "data": info},
            {"name": ".strtab", "type": 3, "data": b"\0"},
            {"name": ".symtab", "type": 2, "data": sym, "link": 3, "entsize": 24},
            {"name": ".rela.debug_info", "type": 4, "data": rela, "link": 4, "info": 2, "entsize": 24}]


def case_cfa_states():
    # a CIE with 400 register rules and an FDE of 1 M remember/restore pairs
    init = b"\x0c\x01\x00" + b"".join(b"\x08" + uleb(0x05000000 + r) for r in range(400))
    cie_body = struct.pack("<Q", 0xFFFFFFFFFFFFFFFF) + b"\x03\x00" + uleb(4) + b"\x7c" + uleb(20) + init
    cie = b"\xff\xff\xff\xff" + struct.pack("<Q", len(cie_body)) + cie_body
    prog = (b"\x0a\x0b") * (1 << 20) + b"\x41"
    fde_body = struct.pack("<QQQ", 0, 0, 0x100) + prog
    fde = b"\xff\xff\xff\xff" + struct.pack("<Q", len(fde_body)) + fde_body
    return [{"name": ".debug_frame", "data": cie + fde}]


def case_link_relocs():
    # 1 M relocations against one function in .debug_info: `link` of two copies
    ab = uleb(1) + uleb(0x11) + b"\0" + uleb(0x11) + uleb(0x01) + b"\0\0\0"
    body = uleb(1) + bytes(8 * (1 << 20))
    info = unit(body)
    sym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0, 0x100)
    rela = b"".join(struct.pack("<QQq", 12 + 8 * i, (1 << 32) | 2, i) for i in range(1 << 20))
    return [{"name": ".text.k", "flags": 6, "data": bytes(0x100)},
            {"name": ".debug_abbrev", "data": ab}, {"name": ".debug_info", "data": info},
            {"name": ".strtab", "type": 3, "data": b"\0k\0"},
            {"name": ".symtab", "type": 2, "data": sym, "link": 4, "entsize": 24, "info": 1},
            {"name": ".rela.debug_info", "type": 4, "data": rela, "link": 5, "info": 3, "entsize": 24}]


def case_many_sections():
    # 60,000 empty debug sections and their names: strip
    return [{"name": ".debug_str" if i % 2 else ".nv_debug_ptx_txt.%d" % i, "data": b"x\0"} for i in range(60000)]


def fatbin_bomb():
    # a zstd entry claiming 64 GiB, and one whose frame says less than its header
    import zlib  # noqa: F401  (no zstd module needed: the header lies before decoding)
    entry = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x101, 64, 16, 8, 0, 8, 1, 90, 0, 0, 0x8011, 0, 64 << 30)
    body = entry + b"\x28\xb5\x2f\xfd" + bytes(12)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


cases = [
    ("abbrev: 4,000 entries x 256 attributes", case_max_attrs, ["dump", "--all"]),
    ("one 8 MB LEB128", case_long_leb, ["dump", "--info"]),
    ("100,000 nested DIEs (limit 4096)", case_deep, ["dump", "--info"]),
    ("16 M rows, one sequence: lines", case_many_rows, ["lines"]),
    ("1 M rows each inlined at the last: addr2line", case_deep_inline, ["addr2line", "-fi", "-e"]),
    ("1 M relocations on one field", case_many_relocs, ["dump", "--info"]),
    ("CFA: 1 M remember/restore of 400 rules", case_cfa_states, ["dump", "--frames"]),
    ("link: 2 x 1 M relocations against a function", case_link_relocs, ["link", "-o", "/dev/null"]),
    ("strip: 60,000 debug sections", case_many_sections, ["strip", "-o", "/dev/null"]),
]
print(f"{'case':44} {'input':>10} {'time':>9} {'peak RSS':>10}  exit  first error")
for name, make, args in cases:
    path = os.path.join(tmp, "h.cubin")
    open(path, "wb").write(build_elf(make()))
    cmd = [CUDWARF, *args, path] + (["+0x100"] if args[0] == "addr2line" else [])
    if args[0] == "link":
        cmd.append(path)
    if args[0] == "addr2line":
        cmd = [CUDWARF, "addr2line", "-fi", "-e", path, "k+0x%x" % (16 * ((1 << 20) - 2))]
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    lines = p.stderr.strip().splitlines()
    rss = int(lines[-1]) / 1024
    err = lines[0][len("cudwarf: ") + len(path) + 2:][:60] if len(lines) > 1 else ""
    rc = p.returncode
    print(f"{name:44} {os.path.getsize(path) / 1e6:8.1f}MB {dt * 1000:7.0f}ms {rss:8.1f}MB  {rc:4}  {err}")
path = os.path.join(tmp, "bomb.fatbin")
open(path, "wb").write(fatbin_bomb())
p = subprocess.run(["/usr/bin/time", "-f", "%M", CUDWARF, "extract", "-o", tmp, path], capture_output=True, text=True)
lines = p.stderr.strip().splitlines()
print(f"{'fatbin entry claiming 64 GiB decompressed':44} {os.path.getsize(path) / 1e6:8.4f}MB {'':9} "
      f"{int(lines[-1]) / 1024:8.1f}MB  {p.returncode:4}  {lines[0].split(': ', 2)[-1][:60]}")
