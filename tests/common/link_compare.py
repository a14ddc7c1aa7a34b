"""`cudwarf link` against `nvlink -g` on one link set: the comparisons
tests/ref/check_link.py documents (the link suite), also used by
tests/cli/link_archive.py for nvlink's links of archives.

set_problems(NVLINK_OUT, INPUTS, TMP) is every way ours differs, [] when it
does not; link_problems and inlined_problems are its two halves."""
import json
import os
import struct
import subprocess

import lines_json
from suite_env import CUDWARF


class Elf:
    def __init__(self, path):
        self.path = path
        self.data = d = open(path, "rb").read()
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
        self.flags, = struct.unpack_from("<I", d, 0x30)
        self.hdrs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * 64) for i in range(shnum)]
        st = self.hdrs[shstrndx]
        self.names = [self.cstr(st[4] + h[0]) for h in self.hdrs]
        self.index = {}
        for i, n in enumerate(self.names):
            self.index.setdefault(n, i)

    def cstr(self, at):
        return self.data[at:self.data.index(b"\0", at)].decode()

    def sec(self, name):
        h = self.hdrs[self.index[name]]
        return b"" if h[1] == 8 else self.data[h[4]:h[4] + h[5]]

    def symbols(self, tab):
        h = self.hdrs[tab]
        out = []
        for k in range(h[5] // 24):
            nm, info, other, shndx, val, size = struct.unpack_from("<IBBHQQ", self.data, h[4] + k * 24)
            if info & 0xF == 3 and shndx < len(self.names):
                name = self.names[shndx]  # a section symbol stands for its section
            else:
                name = self.cstr(self.hdrs[h[6]][4] + nm)
            out.append((name, info, shndx, val, size))
        return out

    def relocs(self, name):
        """(offset, type, symbol, addend) of every relocation aimed at name; REL addends from the bytes."""
        t = self.index[name]
        body = self.sec(name)
        out = []
        for i, h in enumerate(self.hdrs):
            if h[1] in (4, 9, 0x70000082) and h[7] == t:
                syms = self.symbols(h[6])
                esz = 16 if h[1] == 9 else 24
                for k in range(h[5] // esz):
                    off, info = struct.unpack_from("<QQ", self.data, h[4] + k * esz)
                    typ = info & 0xFFFFFFFF
                    if esz == 24:
                        add, = struct.unpack_from("<q", self.data, h[4] + k * esz + 16)
                    else:
                        w = 4 if typ == 1 else 8
                        add = int.from_bytes(body[off:off + w], "little", signed=True)
                    out.append((off, typ, syms[info >> 32][0], add))
        return sorted(out)

    def func_sizes(self):
        out = {}
        for i, h in enumerate(self.hdrs):
            if h[1] == 2:
                for name, info, shndx, val, size in self.symbols(i):
                    if info & 0xF == 2:
                        out[name] = size
        return out

    def func_code(self):
        """{function: its .text.<function> bytes, each 16-byte instruction a relocation patches
        zeroed}: what nvlink leaves alone unless it finalizes the code"""
        out = {}
        for name in self.func_sizes():
            sec = ".text." + name
            if sec not in self.index:
                continue
            code = bytearray(self.sec(sec))
            for off, _, _, _ in self.relocs(sec):
                at = off & ~15
                code[at:at + 16] = bytes(len(code[at:at + 16]))
            out[name] = bytes(code)
        return out


def frames(data):
    """{pointer field offset: (FDE offset, pointer value)} and the set of CIE offsets."""
    at, cies, fdes = 0, set(), {}
    while at + 4 <= len(data):
        length, = struct.unpack_from("<I", data, at)
        if length == 0xFFFFFFFF:
            length, = struct.unpack_from("<Q", data, at + 4)
            head, w = 12, 8
        else:
            head, w = 4, 4
        if length == 0:
            at += head
            continue
        ptr = int.from_bytes(data[at + head:at + head + w], "little")
        if ptr == (1 << (8 * w)) - 1:
            cies.add(at)
        else:
            fdes[at + head] = (at, ptr, w)
        at += head + length
    return fdes, cies


def base_words(data):
    """offsets of the .debug_str base words of the line tables in data"""
    at, out = 0, []
    while at + 10 <= len(data):
        length, = struct.unpack_from("<I", data, at)
        hlen, = struct.unpack_from("<I", data, at + 6)
        prog = at + 10 + hlen
        p = at + 10 + 5  # min_inst, default_is_stmt, line_base, line_range, opcode_base
        p += data[at + 14] - 1  # standard opcode lengths
        while data[p]:  # include directories
            p = data.index(b"\0", p) + 1
        p += 1
        while data[p]:  # files: name, ULEB dir, mtime, size
            p = data.index(b"\0", p) + 1
            for _ in range(3):
                while data[p] & 0x80:
                    p += 1
                p += 1
        p += 1
        if p + 4 == prog:
            out.append(p)
        at += 4 + length
    return out


def is_debug(name):
    return name.startswith((".debug", ".nv_debug", ".nv.merc.debug", ".nv.merc.nv_debug")) and name != ".nv_debug.shared"


def contributions(inputs, name):
    """offset of each input's bytes of section name in the concatenation"""
    out, at = [], 0
    for e in inputs:
        out.append(at)
        if name in e.index:
            at += len(e.sec(name))
    return out + [at]


def link(out, ins, *opts):
    return subprocess.run([CUDWARF, "link", *opts, "-o", out, *ins], capture_output=True, text=True)


def link_problems(out_path, in_paths, tmp):
    """(problems, notes): ours (--symbols OUT_PATH) against nvlink's, section by
    section, the link without --symbols and the one with --dedup-strings"""
    ours_path = os.path.join(tmp, "ours.cubin")
    p = link(ours_path, in_paths, "--symbols", out_path)
    if p.returncode:
        return [f"cudwarf link: {p.stderr.strip()}"], []
    nv, ours, inputs = Elf(out_path), Elf(ours_path), [Elf(x) for x in in_paths]
    sm = (nv.flags >> 8) & 0xFF
    in_sizes = {}
    for e in inputs:
        in_sizes.update(e.func_sizes())
    nv_sizes = nv.func_sizes()
    finalized = sorted(f for f, s in nv_sizes.items() if f in in_sizes and in_sizes[f] != s)
    if sm >= 100 and not finalized:
        # same sizes, but nvlink may still have rewritten the instructions (it does for
        # Mercury code even when the size stays); relocated instructions do not count
        in_code = {}
        for e in inputs:
            in_code.update(e.func_code())
        finalized = sorted(f for f, c in nv.func_code().items() if f in in_code and in_code[f] != c)
    problems, notes = [], []
    for name in nv.names:
        if not is_debug(name):
            continue
        if name not in ours.index:
            problems.append(f"{name}: missing from ours")
            continue
        a, b = nv.sec(name), ours.sec(name)
        bare_regen = (sm >= 100 and finalized and not name.startswith(".nv.merc.") and
                      name in (".debug_line", ".nv_debug_line_sass", ".debug_frame"))
        if bare_regen and (a != b or nv.relocs(name) != ours.relocs(name)):
            f0 = finalized[0]
            how = (f"{in_sizes[f0]:#x} -> {nv_sizes[f0]:#x}" if in_sizes[f0] != nv_sizes[f0]
                   else f"{nv_sizes[f0]:#x} bytes, instructions rewritten")
            notes.append(f"{name} regenerated by nvlink (code finalized: {f0} {how}); twin compared")
            if ".nv.merc" + name not in nv.index:
                problems.append(f"{name}: regenerated, and no Mercury twin to compare")
            continue
        if len(a) != len(b):
            problems.append(f"{name}: {len(b)} bytes, nvlink's {len(a)}")
            continue
        if name.endswith("debug_frame"):
            # ptxas writes a CIE before each FDE; every FDE of ours names that one
            fo, co = frames(b)
            for pos, (fde, mine, w) in sorted(fo.items()):
                before = [c for c in co if c < fde]
                if not before or mine != max(before):
                    problems.append(f"{name}: FDE 0x{fde:x} of ours names 0x{mine:x}, not the CIE before it")
                    break
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        allowed = set()
        if diff and name.endswith("debug_frame"):
            fa, cies = frames(a)
            fb, _ = frames(b)
            for pos, (fde, ptr, w) in fa.items():
                mine = fb[pos][1]
                if ptr != mine and (ptr not in cies or ptr > fde) and mine in cies and \
                        mine == max(c for c in cies if c < fde):
                    allowed.update(range(pos, pos + w))
        if diff and name.endswith(("debug_line", "nv_debug_line_sass")):
            strname = ".nv.merc.debug_str" if name.startswith(".nv.merc.") else ".debug_str"
            cl = contributions(inputs, name)
            cs = contributions(inputs, strname)
            for pos in base_words(a):
                k = max(i for i in range(len(inputs)) if cl[i] <= pos)
                old = int.from_bytes(a[pos:pos + 4], "little")
                new = int.from_bytes(b[pos:pos + 4], "little")
                if old != new and old == 0 and new == cs[k]:
                    allowed.update(range(pos, pos + 4))
        bad = [i for i in diff if i not in allowed]
        if bad:
            problems.append(f"{name}+{bad[0]:#x}: byte {b[bad[0]]:#04x}, nvlink's {a[bad[0]]:#04x} "
                            f"({len(bad)} bytes differ)")
        ra, rb = nv.relocs(name), ours.relocs(name) if name in ours.index else []
        if ra != rb:
            miss = [x for x in ra if x not in rb][:2]
            extra = [x for x in rb if x not in ra][:2]
            problems.append(f"{name}: relocations differ: nvlink's {len(ra)} vs {len(rb)}; "
                            f"missing {miss}, extra {extra}")
    # without --symbols: only relocations against __shared__ variables may be added
    plain = os.path.join(tmp, "plain.cubin")
    p = link(plain, in_paths)
    if p.returncode:
        problems.append(f"link without --symbols: {p.stderr.strip()}")
    else:
        pe = Elf(plain)
        shared = set()  # __shared__ variables: st_other 0x40, or in a shared section
        for e in inputs:
            for i, h in enumerate(e.hdrs):
                if h[1] not in (2, 0x70000085):
                    continue
                for k in range(h[5] // 24):
                    nm, info, other, shndx = struct.unpack_from("<IBBH", e.data, h[4] + k * 24)
                    sec = e.names[shndx] if shndx < len(e.names) else ""
                    if other & 0x40 or sec.startswith(".nv.shared.") or sec == ".nv_debug.shared":
                        shared.add(e.cstr(e.hdrs[h[6]][4] + nm))
        for name in ours.names:
            if is_debug(name):
                extra = [x for x in pe.relocs(name) if x not in ours.relocs(name)]
                if any(x[2] not in shared for x in extra):
                    problems.append(f"{name}: without --symbols, extra relocations not against __shared__ "
                                    f"variables: {[x for x in extra if x[2] not in shared][:2]}")
        problems += dedup_problems(plain, in_paths, tmp)
    return problems, notes


def decoded(path):
    """line rows and DIE attribute values, without offsets that move"""
    lines, = json.loads(subprocess.run([CUDWARF, "lines", "--json", path], capture_output=True, text=True).stdout)
    rows = [(s["section"], r["address"], r.get("symbol"), r["file"], r["line"], r.get("function"), r.get("context"),
             r["end_sequence"]) for s in lines["sections"] for t in s["tables"] for r in lines_json.rows(t)]
    info, = json.loads(subprocess.run([CUDWARF, "dump", "--info", "--json", path], capture_output=True, text=True).stdout)
    dies = [(s["section"], d["offset"], [(a["name"], a.get("value") if a["form"] != "DW_FORM_strp" else a["value"])
                                        for a in d["attributes"]])
            for s in info["sections"] for u in s["units"] for d in u["dies"]]
    return rows, dies


def dedup_problems(plain, in_paths, tmp):
    dd = os.path.join(tmp, "dedup.cubin")
    p = link(dd, in_paths, "--dedup-strings", "--stats")
    if p.returncode:
        return [f"--dedup-strings: {p.stderr.strip()}"]
    out = []
    if decoded(dd) != decoded(plain):
        out.append("--dedup-strings: decoded rows or DIEs differ from the plain link")
    e = Elf(dd)
    for n in (".debug_str", ".nv.merc.debug_str"):
        if n in e.index:
            strs = e.sec(n).split(b"\0")[:-1]
            if len(strs) != len(set(strs)):
                out.append(f"--dedup-strings: {n} still holds a string twice")
    v = subprocess.run([CUDWARF, "verify", dd], capture_output=True, text=True)
    if v.returncode:
        out.append(f"--dedup-strings: verify: {v.stdout.strip()[:200]}")
    return out


def rows_by_site(path):
    p = subprocess.run([CUDWARF, "lines", "--json", path], capture_output=True, text=True)
    doc, = json.loads(p.stdout)
    out = {}
    for s in doc["sections"]:
        for t in s["tables"]:
            for r in lines_json.rows(t):
                if r.get("function"):
                    out.setdefault((s["section"], r.get("symbol"), r.get("offset"), r["line"]), set()).add(r["function"])
    return out


def inlined_problems(ours, ins):
    """(number of inlined rows of ours, problems): every inlined row of ours names
    the function the row at that symbol+offset of its input names"""
    mine = rows_by_site(ours)
    want = {}
    for x in ins:
        for k, v in rows_by_site(x).items():
            want.setdefault(k, set()).update(v)
    bad = [k for k in mine if mine[k] != want.get(k)]
    if mine and (bad or set(want) != set(mine)):
        return len(mine), [f"inlined rows: {len(bad)} of {len(mine)} name another function than their input "
                           f"({bad[:2]}), {len(set(want) ^ set(mine))} sites differ"]
    return len(mine), []


def set_problems(out_path, in_paths, tmp):
    """both halves, as check_link.py's two tests of a set see them"""
    problems, _ = link_problems(out_path, in_paths, tmp)
    if problems and problems[0].startswith("cudwarf link:"):
        return problems
    return problems + inlined_problems(os.path.join(tmp, "ours.cubin"), in_paths)[1]
