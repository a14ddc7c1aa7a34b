#!/usr/bin/env python3
"""Build test objects no toolchain we have emits.

  mkelf.py info-ptx OUT    an EM_CUDA ET_REL object whose .nv_debug_info_ptx
                           holds hand-written DWARF 2 and 3 units (every DWARF
                           2/3 form, DW_FORM_indirect, strp, 4- and 8-byte
                           addresses, vendor attributes, relocations); a
                           byte-identical copy sits in .debug_info so
                           llvm-dwarfdump can decode the same DIEs.
  mkelf.py ranges OUT      an object with .debug_aranges (two sets, 8-byte
                           addresses) and .debug_ranges (a plain list and one
                           with a base-address selection), one range begin
                           under an R_CUDA_64 (applied: reference readers need
                           the value in the bytes)
  mkelf.py macinfo OUT     an object whose .debug_macinfo has two units'
                           lists with every DWARF 2/3 entry type (CUDA 13.0
                           writes only a lone 0)
"""
import struct, sys


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def build_elf(sections, e_type=1, e_flags=0x5A04):
    """sections: list of dicts name/type/flags/data/link/info/entsize; index = position + 1."""
    shstr = bytearray(b"\0")
    names = []
    for s in sections + [{"name": ".shstrtab"}]:
        names.append(len(shstr))
        shstr += s["name"].encode() + b"\0"
    body = bytearray(b"\0" * 64)
    offs = []
    for s in sections:
        while len(body) % 8:
            body.append(0)
        offs.append(len(body))
        body += s.get("data", b"")
    shstr_off = len(body)
    body += shstr
    while len(body) % 8:
        body.append(0)
    shoff = len(body)
    shnum = len(sections) + 2
    hdrs = bytearray(64)
    for i, s in enumerate(sections):
        hdrs += struct.pack("<IIQQQQIIQQ", names[i], s.get("type", 1), s.get("flags", 0), 0, offs[i],
                            len(s.get("data", b"")), s.get("link", 0), s.get("info", 0), 1, s.get("entsize", 0))
    hdrs += struct.pack("<IIQQQQIIQQ", names[-1], 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    ident = b"\x7fELF" + bytes([2, 1, 1, 0x41, 8]) + b"\0" * 7
    ehdr = ident + struct.pack("<HHIQQQIHHHHHH", e_type, 190, 1, 0, 0, shoff, e_flags, 64, 0, 0, 64, shnum, shnum - 1)
    body[0:64] = ehdr
    return bytes(body + hdrs)


def info_ptx():
    strs = b"\0NVIDIA PTX debug info (hand-made)\0ptx_param\0"
    # abbreviations
    ab = bytearray()
    def entry(code, tag, children, specs):
        ab.extend(uleb(code) + uleb(tag) + bytes([children]))
        for at, form in specs:
            ab.extend(uleb(at) + uleb(form))
        ab.extend(b"\0\0")
    entry(1, 0x11, 1, [(0x25, 0x0E), (0x13, 0x05), (0x03, 0x16), (0x10, 0x06), (0x11, 0x01), (0x12, 0x01)])
    entry(2, 0x2E, 1, [(0x11, 0x01), (0x12, 0x01), (0x40, 0x0A), (0x2007, 0x08), (0x03, 0x08),
                       (0x3F, 0x0C), (0x49, 0x13), (0x2703, 0x06)])
    entry(3, 0x34, 0, [(0x03, 0x08), (0x02, 0x0A), (0x33, 0x0B), (0x49, 0x15), (0x3B, 0x0F), (0x1C, 0x0D)])
    entry(4, 0x24, 0, [(0x03, 0x08), (0x3E, 0x0B), (0x0B, 0x0B)])
    entry(5, 0x05, 0, [(0x03, 0x0E), (0x02, 0x09), (0x49, 0x12)])
    entry(6, 0x34, 0, [(0x03, 0x08), (0x02, 0x03), (0x49, 0x11), (0x3A00, 0x04), (0x1C, 0x07)])
    entry(7, 0x0F, 0, [(0x49, 0x14), (0x33, 0x06)])
    entry(8, 0x16, 0, [(0x03, 0x08), (0x49, 0x10)])
    entry(9, 0x0B, 1, [(0x11, 0x16), (0x12, 0x01)])
    ab.append(0)

    relocs = []  # (offset, type, sym, addend)
    def unit(version, asz, base):
        u = bytearray()
        def addr(v, sym=None, addend=0):
            if sym is not None and asz == 8:
                relocs.append((base + 11 + len(u) - 0, 2, sym, addend))
            u.extend(v.to_bytes(asz, "little"))
        # offsets inside the unit are relative to the unit start (header = 11 bytes)
        def here():
            return 11 + len(u)
        u.extend(uleb(1) + struct.pack("<I", 1) + struct.pack("<H", 4) + uleb(0x08) + b"kernel.ptx\0" +
                 struct.pack("<I", 0))
        addr(0); addr(0x100 if asz == 4 else 0xdead, 1, 0x100)
        sub = here()
        u.extend(uleb(2))
        addr(0x777, 1, 0)
        addr(0x888, 1, 0x100)
        u.extend(bytes([1, 0x9C]) + b"_Z6kernelPf\0kernel\0" + b"\x01")
        type_fix = len(u)
        u.extend(b"\0\0\0\0" + struct.pack("<I", 0x11))
        # variable: location regx "%rd1" (ASCII packed), class reg, type by ref_udata
        var = here()
        regx = bytes([0x90]) + uleb(0x25726431)
        u.extend(uleb(3) + b"rd1\0" + bytes([len(regx)]) + regx + bytes([2]))
        udata_fix = len(u)
        u.extend(b"\0\0")  # ref_udata, patched below as a padded 2-byte ULEB
        u.extend(uleb(300) + sleb(-5))
        # formal parameter: strp name, block (uleb length) with fbreg -8, ref2 type
        fb = bytes([0x91]) + sleb(-8)
        u.extend(uleb(5) + struct.pack("<I", 35) + uleb(len(fb)) + fb)
        ref2_fix = len(u)
        u.extend(b"\0\0")
        # variable in global space: block2 with constu 5; swap; xderef; PGI_lbase block4; data8
        loc = bytes([0x10, 0x05, 0x16, 0x18])
        u.extend(uleb(6) + b"g\0" + struct.pack("<H", len(loc)) + loc)
        ref1_fix = len(u)
        u.extend(b"\0")
        pgi = bytes([0x03]) + (0x40).to_bytes(asz, "little") + bytes([0x06])
        u.extend(struct.pack("<I", len(pgi)) + pgi + struct.pack("<Q", 0x1122334455667788))
        # lexical block via indirect addr
        u.extend(uleb(9) + uleb(0x01))
        addr(0x10)
        addr(0x20)
        u.extend(b"\0")  # end of lexical block children
        u.extend(b"\0")  # end of subprogram children
        base_type = here()
        u.extend(uleb(4) + b"float\0" + bytes([4, 4]))
        ptr = here()
        u.extend(uleb(7) + struct.pack("<Q", base_type) + struct.pack("<I", 5))
        u.extend(uleb(8) + b"fptr\0")
        ra = (base + ptr).to_bytes(asz if version == 2 else 4, "little")
        u.extend(ra)
        u.extend(b"\0")
        u[type_fix:type_fix + 4] = struct.pack("<I", base_type)
        u[udata_fix:udata_fix + 2] = bytes([base_type & 0x7F | 0x80, base_type >> 7])
        u[ref2_fix:ref2_fix + 2] = struct.pack("<H", ptr)
        u[ref1_fix] = base_type
        hdr = struct.pack("<IHIB", len(u) + 7, version, 0, asz)
        return hdr + bytes(u)

    u1 = unit(2, 8, 0)
    u2 = unit(3, 4, len(u1))
    info = u1 + u2
    # symbols: 0 null, 1 FUNC _Z6kernelPf in .text (section 1)
    strtab = b"\0_Z6kernelPf\0"
    sym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0, 0x200)
    def rela(target_offsets):
        return b"".join(struct.pack("<QQq", o, (s << 32) | t, a) for o, t, s, a in target_offsets)
    secs = [
        {"name": ".text._Z6kernelPf", "flags": 6, "data": bytes(0x200)},
        {"name": ".strtab", "type": 3, "data": strtab},
        {"name": ".symtab", "type": 2, "data": sym, "link": 2, "entsize": 24, "info": 1},
        {"name": ".debug_abbrev", "data": bytes(ab)},
        {"name": ".debug_str", "data": strs},
        {"name": ".debug_info", "data": info},
        {"name": ".nv_debug_info_ptx", "data": info},
        {"name": ".rela.debug_info", "type": 4, "data": rela(relocs), "link": 3, "info": 6, "entsize": 24},
        {"name": ".rela.nv_debug_info_ptx", "type": 4, "data": rela(relocs), "link": 3, "info": 7, "entsize": 24},
    ]
    return build_elf(secs)


def ranges():
    ar = bytearray()
    for unit_off, tuples in ((0, [(0x100, 0x40), (0x200, 0x10)]), (0x40, [(0x1000, 0x8)])):
        body = struct.pack("<HIBB", 2, unit_off, 8, 0) + bytes(4)  # pad the 12-byte header to 16
        body += b"".join(struct.pack("<QQ", a, l) for a, l in tuples) + bytes(16)
        ar += struct.pack("<I", len(body)) + body
    rg = bytearray()
    rg += struct.pack("<QQ", 0x10, 0x20) + struct.pack("<QQ", 0x30, 0x48) + bytes(16)
    list2 = len(rg)
    rg += struct.pack("<QQ", 0xFFFFFFFFFFFFFFFF, 0x1000) + struct.pack("<QQ", 0x0, 0x8) + bytes(16)
    # the first range's begin carries R_CUDA_64 (type 2) against _Z6kernelPf + 0x10;
    # the symbol's value is 0, so the bytes already hold the relocated value
    strtab = b"\0_Z6kernelPf\0"
    sym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0, 0x200)
    rela = struct.pack("<QQq", 0, (1 << 32) | 2, 0x10)
    return build_elf([
        {"name": ".text._Z6kernelPf", "flags": 6, "data": bytes(0x200)},
        {"name": ".strtab", "type": 3, "data": strtab},
        {"name": ".symtab", "type": 2, "data": sym, "link": 2, "entsize": 24, "info": 1},
        {"name": ".debug_aranges", "data": bytes(ar)},
        {"name": ".debug_ranges", "data": bytes(rg)},
        {"name": ".rela.debug_ranges", "type": 4, "data": rela, "link": 3, "info": 5, "entsize": 24},
    ])


def macinfo():
    def s(t):
        return t.encode() + b"\0"
    m = bytearray()
    m += b"\x03" + uleb(0) + uleb(1)                       # start_file line 0 file 1
    m += b"\x01" + uleb(1) + s("WIDTH 32")                 # define
    m += b"\x03" + uleb(7) + uleb(2)                       # nested start_file at line 7
    m += b"\x01" + uleb(300) + s("SQUARE(x) ((x)*(x))")
    m += b"\x02" + uleb(301) + s("WIDTH")                  # undef
    m += b"\x04"                                           # end_file
    m += b"\xff" + uleb(200) + s("vendor data")            # vendor_ext
    m += b"\x04" + b"\x00"                                  # end_file, end of list
    m += b"\x01" + uleb(5) + s("SECOND 2") + b"\x00"        # a second unit's list
    return build_elf([{"name": ".debug_macinfo", "data": bytes(m)}])


if __name__ == "__main__":
    makers = {"info-ptx": info_ptx, "macinfo": macinfo, "ranges": ranges}
    if len(sys.argv) != 3 or sys.argv[1] not in makers:
        sys.exit(__doc__)
    with open(sys.argv[2], "wb") as f:
        f.write(makers[sys.argv[1]]())
