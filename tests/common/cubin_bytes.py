"""What a cubin's bytes say, read here without cudwarf: its sections, its
FUNC symbols and the PTX text it carries (.nv_debug_ptx_txt, NUL-separated
lines, FINDINGS 4.5), for the tests that check cudwarf against them."""
import re
import struct


def sections(data):
    """[(name, header)] in section order, ELF32 or ELF64; header: (sh_name,
    sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info,
    sh_addralign, sh_entsize)."""
    if data[4] == 1:
        shoff, = struct.unpack_from("<I", data, 32)
        shent, shnum, shstrndx = struct.unpack_from("<HHH", data, 46)
        fmt = "<IIIIIIIIII"
    else:
        shoff, = struct.unpack_from("<Q", data, 40)
        shent, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
        fmt = "<IIQQQQIIQQ"
    hdrs = [struct.unpack_from(fmt, data, shoff + shent * i) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    return [(data[stroff + h[0]:data.index(b"\0", stroff + h[0])].decode(), h) for h in hdrs]


def section_sizes(path):
    """{name: size} of path's sections; empty when it is no ELF file (this
    runs while pytest collects, which must not fail)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        return {n: h[5] for n, h in sections(data)} if data[:4] == b"\x7fELF" else {}
    except (OSError, ValueError, IndexError, struct.error, UnicodeDecodeError):
        return {}


def section_names(path):
    return set(section_sizes(path))


def uleb(b, i):
    """(value, next index) of the ULEB128 at b[i]"""
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return v, i


def abbrev_tags(path):
    """The DW_TAG values .debug_abbrev declares (LLVM, which writes -G
    cubins' DWARF, declares only the abbreviations its DIEs use); empty
    when unreadable (read while pytest collects)."""
    try:
        data = open(path, "rb").read()
        h = dict(sections(data)).get(".debug_abbrev")
        b, i, tags = data[h[4]:h[4] + h[5]] if h else b"", 0, set()
        while i < len(b):
            code, i = uleb(b, i)
            if code == 0:
                continue  # a unit's abbreviations end
            tag, i = uleb(b, i)
            tags.add(tag)
            i += 1  # DW_CHILDREN
            while True:
                at, i = uleb(b, i)
                form, i = uleb(b, i)
                if form == 0x21:  # DW_FORM_implicit_const: its value follows
                    _, i = uleb(b, i)
                if at == form == 0:
                    break
        return tags
    except (OSError, ValueError, IndexError, struct.error, UnicodeDecodeError):
        return set()


def func_symbols(data, secs, symtab_type=2):
    """[(name, shndx, value, size)] of the FUNC symbols in the symbol tables
    of that type: .symtab (2) or the Mercury .nv.merc.symtab (0x70000085)."""
    is32 = data[4] == 1
    out = []
    for _, h in secs:
        if h[1] != symtab_type:
            continue
        stroff = secs[h[6]][1][4]
        for k in range(h[4], h[4] + h[5], 16 if is32 else 24):
            if is32:
                name, value, size, info, _, shndx = struct.unpack_from("<IIIBBH", data, k)
            else:
                name, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", data, k)
            if info & 0xF == 2:
                out.append((data[stroff + name:data.index(b"\0", stroff + name)].decode(), shndx, value, size))
    return out


def ptx_texts(data, secs):
    """{.nv_debug_ptx_txt section name: [its lines]}"""
    return {n: [l.decode("utf-8", "replace") for l in data[h[4]:h[4] + h[5]].split(b"\0")[:-1]]
            for n, h in secs if n.startswith(".nv_debug_ptx_txt")}


FUNC_RE = re.compile(r"^(?:\.visible\s+|\.extern\s+|\.weak\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$.]+)")


def ptx_bodies(lines):
    """function name -> (first line, last line) of its { ... } body, 1-based"""
    bodies, name, depth, start = {}, None, 0, 0
    for i, raw in enumerate(lines, 1):
        text = raw.split("//")[0].strip()  # "{ // callseq 7, 0" keeps its comment
        m = FUNC_RE.match(text)
        if m and depth == 0:
            name = m.group(1)
        if depth == 0 and text.endswith(";"):
            name = None  # a prototype (or a data initializer "= {...};"), not a body
            continue
        opens, closes = text.count("{"), text.count("}")
        if opens and depth == 0 and name:
            start = i
        depth += opens
        if closes and depth:
            depth -= closes
            if depth == 0 and name:
                bodies[name] = (start, i)
                name = None
    return bodies
