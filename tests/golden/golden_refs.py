"""The reference tools of the golden cases (tests/cli/test_golden.py): how to run
them on a fixture and read their output, and what the checks share (the inline
chain at an address, DWARF encodings).  tests/golden/README.md says which tool
checks which case."""
import functools
import os
import re
import shutil
import subprocess
import tempfile
from typing import NamedTuple

# as tests/common/suite_env.py has them (not imported: the regeneration script runs without pytest)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("CUDWARF_BUILD", os.path.join(ROOT, "build"))
CUDWARF = os.environ.get("CUDWARF", os.path.join(BUILD, "cudwarf"))
PREP = os.path.join(BUILD, "tests", "cubin_prep")          # ../shared/oracles' relocation copier
LIBDW_LINES = os.path.join(BUILD, "tests", "libdw_lines")  # and its libdw row dumper


class Unavailable(Exception):
    """The reference tool is not installed or cannot read the input."""


def tool(*cmd, check=False):
    if not shutil.which(cmd[0]) and not os.path.exists(cmd[0]):
        raise Unavailable(f"{cmd[0]} not found")
    p = subprocess.run(list(cmd), capture_output=True, text=True, errors="replace")
    if check and p.returncode:
        raise Unavailable(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:200]}")
    return p.stdout


TMP = None


def tmpdir():
    global TMP
    if TMP is None:
        TMP = tempfile.mkdtemp(prefix="cudwarf-golden-")
    return TMP


@functools.lru_cache(None)
def prepped(path, *flags):
    """cubin_prep's copy of path (relocations applied, -m: twins swapped in)."""
    out = os.path.join(tmpdir(), f"prep{len(os.listdir(tmpdir()))}.cubin")
    tool(PREP, *flags, path, out, check=True)
    return out


@functools.lru_cache(None)
def elf_sections(path):
    """readelf -S -W: [{idx, name, type, off, size, es, flags, link, info}]"""
    out = tool("readelf", "-S", "-W", path)
    secs = []
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]{16}\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                         r"([0-9a-f]+)\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+\d+\s*$", out, re.M):
        secs.append(dict(idx=int(m[1]), name=m[2], type=m[3], off=int(m[4], 16), size=int(m[5], 16),
                         es=int(m[6], 16), flags=m[7], link=int(m[8]), info=int(m[9])))
    if not secs:
        raise Unavailable(f"readelf lists no sections of {path}")
    return secs


def section_bytes(path, name):
    s = next((s for s in elf_sections(path) if s["name"] == name), None)
    if s is None:
        return None
    with open(path, "rb") as f:
        f.seek(s["off"])
        return f.read(s["size"])


@functools.lru_cache(None)
def elf_relocs(path):
    """readelf -r -W: {relocation section: [(offset, symbol)]} in file order."""
    out = tool("readelf", "-r", "-W", path)
    rel, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^Relocation section '([^']+)'", line)
        if m:
            cur = rel.setdefault(m[1], [])
            continue
        m = re.match(r"^([0-9a-f]{16})\s+[0-9a-f]{16}\s+.*?\s([0-9a-f]{16})\s+(\S+)(?: \+ ([0-9a-f]+))?", line)
        if m and cur is not None:
            cur.append((int(m[1], 16), m[3], int(m[4] or "0", 16)))
    return rel


def seq_symbols(path, section):
    """The symbols of a line table's sequences, in order: its relocations' (readelf -r);
    None when readelf does not show them (the Mercury twins' relocation type)."""
    r = elf_relocs(path).get(".rela" + section) or elf_relocs(path).get(".rel" + section)
    return [s for _, s, _ in sorted(r)] if r else None


@functools.lru_cache(None)
def demangle(name):
    if not shutil.which("c++filt"):
        raise Unavailable("c++filt not found")
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()


LINE_VIEWS = {".debug_line": [], ".nv_debug_line_sass": ["-s", ".nv_debug_line_sass"],
              ".nv.merc.debug_line": ["-m"], ".nv.merc.nv_debug_line_sass": ["-m", "-s", ".nv_debug_line_sass"]}


class Row(NamedTuple):
    addr: int
    seq: int
    file: object
    line: int
    col: int
    stmt: bool
    end: bool
    ctx: object
    func: object


@functools.lru_cache(None)
def libdw_tables(path, section):
    """libdw's rows of each table of a line-table view (build/tests/libdw_lines -r)."""
    out = tool(LIBDW_LINES, "-r", *LINE_VIEWS[section], path)
    tables = []
    for line in out.splitlines():
        if line.startswith("# table"):
            tables.append([])
        elif line.strip() and not line.startswith("#"):
            a, seq, f, ln, col, st, es, ctx, fn = line.split("\t")
            tables[-1].append(Row(int(a, 16), int(seq), None if f == "???" else f, int(ln), int(col), st == "1",
                                  es == "1", ctx if ctx == "?" else int(ctx), None if fn == "-" else fn))
    if not tables:
        raise Unavailable(f"libdw_lines finds no {section} in {path}")
    return tables


@functools.lru_cache(None)
def libdw_headers(path, section):
    """libdw_lines' "# table offset=.. files=N" of each table."""
    out = tool(LIBDW_LINES, "-r", *LINE_VIEWS[section], path)
    return [dict(offset=int(m[1], 16), files=int(m[2]))
            for m in re.finditer(r"^# table offset=0x([0-9a-f]+) .*?files=(\d+)", out, re.M)]


@functools.lru_cache(None)
def elf_symbols(path):
    """readelf -s -W: [(name, value, type)]."""
    out = tool("readelf", "-s", "-W", path)
    return [(m[3], int(m[1], 16), m[2]) for m in re.finditer(
        r"^\s*\d+:\s+([0-9a-f]+)\s+\d+\s+(\w+)\s+\S+\s+\S+\s+(?:\[[^\]]*\]\s+)?\S+\s+(\S+)\s*$", out, re.M)]


def sym_values(path):
    return {n: v for n, v, t in elf_symbols(path) if t == "FUNC"}


@functools.lru_cache(None)
def llvm_line_files(path):
    """File names of the first line table, by index (llvm-dwarfdump --debug-line)."""
    out = tool("llvm-dwarfdump", "--debug-line", path)
    return {int(m[1]): m[2] for m in re.finditer(r'^file_names\[\s*(\d+)\]:\s*\n\s+name: "(.*)"', out, re.M)}


@functools.lru_cache(None)
def llvm_dies(path):
    """llvm-dwarfdump -v --debug-info: units [{offset, length, version, abbr, addr_size}] and
    DIEs [{offset, depth, tag, code, attrs: [(name, value)], forms}] (NULL entries left out)."""
    out = tool("llvm-dwarfdump", "-v", "--debug-info", path)
    units, dies, cur, pending = [], [], None, None
    for line in out.splitlines():
        if pending is not None:  # a value on several lines: its first line
            if line.rstrip().endswith(")"):
                pending = None
            continue
        m = re.match(r"^0x([0-9a-f]+): Compile Unit: length = 0x([0-9a-f]+).*version = 0x([0-9a-f]+)"
                     r".*abbr_offset = 0x([0-9a-f]+), addr_size = 0x([0-9a-f]+)", line)
        if m:
            units.append(dict(offset=int(m[1], 16), length=int(m[2], 16), version=int(m[3], 16),
                              abbr=int(m[4], 16), addr_size=int(m[5], 16)))
            continue
        m = re.match(r"^0x([0-9a-f]+):( +)(DW_TAG_\w+|NULL)(?: \[(\d+)\])?", line)
        if m:
            cur = None
            if m[3] != "NULL":
                cur = dict(offset=int(m[1], 16), depth=(len(m[2]) - 1) // 2, tag=m[3], code=int(m[4]), attrs=[],
                           forms=[])
                dies.append(cur)
            continue
        m = re.match(r"^\s+(DW_AT_\w+) \[(DW_FORM_\w+)\]\s+\((.*)$", line)
        if m and cur is not None:
            cur["forms"].append(m[2])
            # a reference: "cu + 0x00d5 => {0x000000d5} ..." is 0x000000d5 ...
            v = re.sub(r"^cu \+ 0x[0-9a-f]+ => \{(0x[0-9a-f]+)\}", r"\1", m[3].rstrip())
            if v.endswith(")"):
                cur["attrs"].append((m[1], v[:-1]))
            else:
                cur["attrs"].append((m[1], v))
                pending = m[1]
    return units, dies


def num(text):
    m = re.match(r"^\s*<?(-?0x[0-9a-fA-F]+|-?\d+)", text)
    return int(m[1], 0) if m else None


def dw_names(text):
    return re.findall(r"\bDW_[A-Z]+_\w+", text)


class Report:
    """Comparisons made at regeneration: n agree, the rest are problems."""

    def __init__(self):
        self.n, self.problems, self.notes = 0, [], []

    def note(self, msg):
        self.notes.append(msg)

    def eq(self, what, ours, ref):
        self.n += 1
        if ours != ref:
            self.problems.append(f"{what}: golden {ours!r}, reference {ref!r}")

    def fail(self, msg):
        self.problems.append(msg)


def resolve_symbol(path, name):
    """A function symbol named as people type it: mangled, demangled, without
    parameters, or short (readelf -s, c++filt); None unless exactly one."""
    syms = sorted(sym_values(path))
    if name in syms:
        return name
    hits = []
    for s in syms:
        d = demangle(s)
        bare = d.split("(")[0]
        if name in (d, bare, bare.split("::")[-1]):
            hits.append(s)
    return hits[0] if len(hits) == 1 else None


def die_chain(path, symbol, off):
    """[(function, call_file, call_line)] of the inlined-subroutine DIEs (llvm-dwarfdump on
    the relocated copy) around symbol+off, outermost first."""
    if not any(s["name"] == ".debug_info" for s in elf_sections(path)):
        return []
    _, dies = llvm_dies(prepped(path, "-r", "-e", "-x"))
    for k, d in enumerate(dies):
        a = dict(d["attrs"])
        if d["tag"] == "DW_TAG_subprogram" and "DW_AT_low_pc" in a and \
                a.get("DW_AT_MIPS_linkage_name", a.get("DW_AT_linkage_name")) == f'"{symbol}"':
            break
    else:
        return []
    chain = []
    for d in dies[k + 1:]:
        if d["depth"] <= dies[k]["depth"]:
            break
        a = dict(d["attrs"])
        if d["tag"] == "DW_TAG_inlined_subroutine" and "DW_AT_low_pc" in a and \
                num(a["DW_AT_low_pc"]) <= off < num(a["DW_AT_high_pc"]):
            chain.append((re.search(r'"(.*)"', a["DW_AT_abstract_origin"])[1],
                          a["DW_AT_call_file"].strip('"'), num(a["DW_AT_call_line"])))
    return chain


def frames_at(path, sym, off):
    """[(function, file, line)] at sym+off, innermost first: the last of libdw's rows at or before
    off in sym's sequence, then the rows its inline contexts name; for code whose line table has
    no contexts (-G), the inlined-subroutine DIEs around off (llvm-dwarfdump), each naming the
    call's file and line.  [] where no row covers off."""
    syms = seq_symbols(path, ".debug_line") or []
    s = syms.index(sym) if sym in syms else None
    rows = [r for r in libdw_tables(path, ".debug_line")[0] if r.seq == s]
    at = [r for r in rows if r.addr <= off and not r.end]
    if not at:
        return []
    r = at[-1]
    want = [(r.func or sym, r.file, r.line)]
    while r.ctx and r.ctx != "?":
        r = rows[r.ctx - 1]
        want.append((r.func or sym, r.file, r.line))
    if len(want) == 1:
        chain = die_chain(path, sym, off)
        if chain:
            want = [(chain[-1][0], r.file, r.line)]
            for k in range(len(chain) - 1, -1, -1):
                want.append((chain[k - 1][0] if k else sym, chain[k][1], chain[k][2]))
    return want


@functools.lru_cache(None)
def dwarf_h():
    """{DW_*: value} of elfutils' dwarf.h (the codes behind the names), {} without it."""
    try:
        with open("/usr/include/dwarf.h") as f:
            return {m[1]: int(m[2], 0) for m in re.finditer(r"^\s+(DW_\w+) = (0x[0-9a-fA-F]+|\d+),", f.read(), re.M)}
    except OSError:
        return {}


def code_of(R, what, name, code):
    """The code printed beside a DW_* name against dwarf.h's."""
    if name in dwarf_h():
        R.eq(f"{what} {name}'s code", code, dwarf_h()[name])


def uleb(data, pos):
    """(value, size) of the ULEB128 at pos."""
    v = shift = 0
    for k in range(pos, len(data)):
        v |= (data[k] & 0x7F) << shift
        shift += 7
        if not data[k] & 0x80:
            return v, k + 1 - pos
    raise ValueError(f"ULEB128 at 0x{pos:x} runs off the section")


FIXED_FORMS = {"DW_FORM_data1": 1, "DW_FORM_ref1": 1, "DW_FORM_flag": 1, "DW_FORM_data2": 2, "DW_FORM_ref2": 2,
               "DW_FORM_data4": 4, "DW_FORM_ref4": 4, "DW_FORM_strp": 4, "DW_FORM_sec_offset": 4,
               "DW_FORM_data8": 8, "DW_FORM_ref8": 8, "DW_FORM_ref_sig8": 8, "DW_FORM_flag_present": 0}


def form_span(form, data, pos, addr_size):
    """(size of the attribute's encoding at pos, the block's bytes or None) from the section bytes."""
    if form == "DW_FORM_addr":
        return addr_size, None
    if form in FIXED_FORMS:
        return FIXED_FORMS[form], None
    if form == "DW_FORM_string":
        return data.index(b"\0", pos) + 1 - pos, None
    if form in ("DW_FORM_udata", "DW_FORM_sdata", "DW_FORM_ref_udata"):
        return uleb(data, pos)[1], None
    hdr = {"DW_FORM_block1": 1, "DW_FORM_block2": 2, "DW_FORM_block4": 4}.get(form)
    if hdr:
        n = int.from_bytes(data[pos:pos + hdr], "little")
    elif form in ("DW_FORM_block", "DW_FORM_exprloc"):
        n, hdr = uleb(data, pos)
    else:
        raise ValueError(f"form {form} not known here")
    return hdr + n, data[pos + hdr:pos + hdr + n]


def image_key(filename):
    """An extracted image's entry from its name: "x.fatbin.0.1.sm_90.cubin" 0.1, "app.nv_fatbin-1.0..." nv_fatbin-1.0."""
    m = re.search(r"\.((?:[\w]+-)?\d+\.\d+)\.sm_\w+\.(?:cubin|ptx)$", filename)
    return m[1] if m else ""


def label_key(label):
    """The entry of an image label "file[0.1: ELF sm_90]" / "app[.nv_fatbin#1.0: ...]" in image_key's terms."""
    m = re.search(r"\[([^:\]]+)", label)
    return m[1].lstrip(".").replace("#", "-") if m else ""
