#!/usr/bin/env python3
"""`cudwarf link` against `nvlink -g`, section by section and relocation by
relocation, on real link sets.

For each set (nvlink's output and the inputs in link order), cudwarf links
the inputs with --symbols OUTPUT (nvlink lays out __shared__ memory; its
symbol values are all cudwarf takes from it).  Every debug section of
nvlink's output must be byte-identical to ours, and its relocations (offset,
type, symbol name, addend) equal to ours, except where nvlink is wrong and
we are right, each checked here independently of cudwarf:
  - FDE CIE pointers: nvlink applies ptxas's relocation, which names no CIE
    or the CIE after the FDE (docs/spec-disagreements.md 7); ours must name
    the CIE before the FDE;
  - line-table .debug_str base words that nvlink leaves at 0 (sm_90); ours
    must hold the offset of the table's input's .debug_str in the output;
  - sm_100+: the standard-named line tables and frames nvlink regenerates
    when it finalizes Mercury code (function sizes differ from the inputs',
    or, sizes equal, instructions no relocation touches do); their Mercury
    twins are compared instead.
Without --symbols, the only differences allowed are relocations kept against
__shared__ variables.  With --dedup-strings, .debug_str holds each string
once and every line row and DIE attribute decodes to the same value as
without it, and `cudwarf verify` finds no error.  For -lineinfo sets, every inlined row of ours names the
same function as the row at that symbol+offset in its input
(`cudwarf lines --json`).

usage: check_link.py CUDWARF NVLINK_OUT=IN1,IN2[,...] ...
"""
import json, os, struct, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import lines_json  # noqa: E402

cudwarf = sys.argv[1]
fail = 0
totals = {"sets": 0, "sections": 0, "identical": 0, "relocs": 0, "cie": 0, "base": 0, "regenerated": 0, "inlined": 0,
          "saved": 0}


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


def check_set(spec, tmp):
    global fail
    out_path, ins = spec.split("=")
    in_paths = ins.split(",")
    ours_path = os.path.join(tmp, "ours.cubin")
    p = subprocess.run([cudwarf, "link", "--symbols", out_path, "-o", ours_path] + in_paths,
                       capture_output=True, text=True)
    if p.returncode:
        print(f"FAIL {out_path}: cudwarf link: {p.stderr.strip()}")
        fail += 1
        return
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
    counts = dict(sections=0, identical=0, relocs=0, cie=0, base=0, regenerated=0, saved=0)
    for name in nv.names:
        if not is_debug(name):
            continue
        counts["sections"] += 1
        if name not in ours.index:
            problems.append(f"{name}: missing from ours")
            continue
        a, b = nv.sec(name), ours.sec(name)
        bare_regen = (sm >= 100 and finalized and not name.startswith(".nv.merc.") and
                      name in (".debug_line", ".nv_debug_line_sass", ".debug_frame"))
        if bare_regen and (a != b or nv.relocs(name) != ours.relocs(name)):
            counts["regenerated"] += 1
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
                if ptr != mine and (ptr not in cies or ptr > fde) and mine in cies and mine == max(c for c in cies if c < fde):
                    allowed.update(range(pos, pos + w))
                    counts["cie"] += 1
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
                    counts["base"] += 1
        bad = [i for i in diff if i not in allowed]
        if bad:
            problems.append(f"{name}+{bad[0]:#x}: byte {b[bad[0]]:#04x}, nvlink's {a[bad[0]]:#04x} "
                            f"({len(bad)} bytes differ)")
        elif not diff:
            counts["identical"] += 1
        ra, rb = nv.relocs(name), ours.relocs(name) if name in ours.index else []
        counts["relocs"] += len(ra)
        if ra != rb:
            miss = [x for x in ra if x not in rb][:2]
            extra = [x for x in rb if x not in ra][:2]
            problems.append(f"{name}: relocations differ: nvlink's {len(ra)} vs {len(rb)}; "
                            f"missing {miss}, extra {extra}")
    # without --symbols: only relocations against __shared__ variables may be added
    plain = os.path.join(tmp, "plain.cubin")
    p = subprocess.run([cudwarf, "link", "-o", plain] + in_paths, capture_output=True, text=True)
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
        problems += check_dedup(plain, in_paths, tmp, counts)
    for k in counts:
        totals[k] += counts[k]
    totals["sets"] += 1
    label = f"{out_path} ({len(inputs)} inputs, sm_{sm})"
    if problems:
        fail += 1
        print(f"FAIL {label}")
        for m in problems[:6]:
            print("     " + m)
    else:
        print(f"ok   {label}: {counts['sections']} debug sections, {counts['identical']} identical, "
              f"{counts['relocs']} relocations equal; nvlink wrong and ours right: {counts['cie']} CIE "
              f"pointers, {counts['base']} base words" +
              (f"; {counts['regenerated']} regenerated by nvlink" if counts["regenerated"] else ""))
    for n in notes[:2]:
        print("     " + n)
    check_inlined(ours_path, in_paths, label)


def decoded(path):
    """line rows and DIE attribute values, without offsets that move"""
    lines, = json.loads(subprocess.run([cudwarf, "lines", "--json", path], capture_output=True, text=True).stdout)
    rows = [(s["section"], r["address"], r.get("symbol"), r["file"], r["line"], r.get("function"), r.get("context"),
             r["end_sequence"]) for s in lines["sections"] for t in s["tables"] for r in lines_json.rows(t)]
    info, = json.loads(subprocess.run([cudwarf, "dump", "--info", "--json", path], capture_output=True, text=True).stdout)
    dies = [(s["section"], d["offset"], [(a["name"], a.get("value") if a["form"] != "DW_FORM_strp" else a["value"])
                                        for a in d["attributes"]])
            for s in info["sections"] for u in s["units"] for d in u["dies"]]
    return rows, dies


def check_dedup(plain, in_paths, tmp, counts):
    dd = os.path.join(tmp, "dedup.cubin")
    p = subprocess.run([cudwarf, "link", "--dedup-strings", "--stats", "-o", dd] + in_paths, capture_output=True,
                       text=True)
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
            counts["saved"] = counts.get("saved", 0) + len(Elf(plain).sec(n)) - len(e.sec(n))
    v = subprocess.run([cudwarf, "verify", dd], capture_output=True, text=True)
    if v.returncode:
        out.append(f"--dedup-strings: verify: {v.stdout.strip()[:200]}")
    return out


def rows_by_site(path):
    p = subprocess.run([cudwarf, "lines", "--json", path], capture_output=True, text=True)
    doc, = json.loads(p.stdout)
    out = {}
    for s in doc["sections"]:
        for t in s["tables"]:
            for r in lines_json.rows(t):
                if r.get("function"):
                    out.setdefault((s["section"], r.get("symbol"), r.get("offset"), r["line"]), set()).add(r["function"])
    return out


def check_inlined(ours, ins, label):
    global fail
    mine = rows_by_site(ours)
    if not mine:
        return
    want = {}
    for x in ins:
        for k, v in rows_by_site(x).items():
            want.setdefault(k, set()).update(v)
    bad = [k for k in mine if mine[k] != want.get(k)]
    totals["inlined"] += len(mine)
    if bad or set(want) != set(mine):
        fail += 1
        print(f"FAIL {label}: inlined rows: {len(bad)} of {len(mine)} name another function than their input "
              f"({bad[:2]}), {len(set(want) ^ set(mine))} sites differ")
    else:
        print(f"ok   {label}: all {len(mine)} inlined rows name their input's function")


with tempfile.TemporaryDirectory() as tmp:
    for spec in sys.argv[2:]:
        check_set(spec, tmp)
print(f"{totals['sets']} link sets, {totals['sections']} debug sections ({totals['identical']} identical), "
      f"{totals['relocs']} relocations; CIE pointers fixed {totals['cie']}, base words fixed {totals['base']}, "
      f"regenerated by nvlink {totals['regenerated']}; {totals['inlined']} inlined rows; --dedup-strings saved "
      f"{totals['saved']} bytes of .debug_str; {fail} failed")
sys.exit(1 if fail else 0)
