#!/usr/bin/env python3
"""Make the cubins older toolkits wrote, from a CUDA 13 cubin, for what
tests/fixtures/external/ lacks (its README has the provenance of both):

  old_toolkits.py abi7   IN OUT   the header CUDA 6.5-12 wrote: EI_OSABI 0x33,
                                  EI_ABIVERSION 7, e_flags virtual SM << 16 |
                                  0x0500 | SM (what cuobjdump calls
                                  EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS)
  old_toolkits.py shlink IN OUT   every relocation and .nv.info section's
                                  sh_link names .shstrtab, not .symtab (as
                                  some CUDA 12.1 cubins have it)
  old_toolkits.py cfa05  IN OUT   the first FDE's DW_CFA_nop padding becomes
                                  DW_CFA_expression R1 (0x05 ...), as CUDA
                                  9-10 register rules start
  old_toolkits.py elf32  IN OUT   ELFCLASS32 with layout-7 flags (no 64-bit
                                  bit): 16-byte symbols, 8-byte REL entries,
                                  4-byte DW_LNE_set_address and FDE addresses
                                  (R_CUDA_64 becomes R_CUDA_32), no program
                                  headers

Each keeps everything else byte for byte, so a reader must show the same
rows, DIEs and frames on OUT as on IN (tests/ref/check_external.py)."""
import struct
import sys

SHT_SYMTAB, SHT_REL, SHT_RELA = 2, 9, 4
SHT_NV_INFO = 0x70000000
R_CUDA_32, R_CUDA_64 = 1, 2


def sections(b):
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)
    out = []
    for i in range(shnum):
        f = list(struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i))
        out.append(f)
    names = out[shstrndx]
    for f in out:
        o = names[4] + f[0]
        f.append(b[o:b.index(b'\0', o)].decode())
    return shoff, out


def put_shdr(b, shoff, i, f):
    struct.pack_into('<IIQQQQIIQQ', b, shoff + 64 * i, *f[:10])


def abi7(b):
    sm = (struct.unpack_from('<I', b, 0x30)[0] >> 8) & 0xff
    b[7], b[8] = 0x33, 7
    struct.pack_into('<I', b, 0x30, sm << 16 | 0x0500 | sm)
    return b


def shlink(b):
    shoff, secs = sections(b)
    shstrndx, = struct.unpack_from('<H', b, 0x3e)
    for i, f in enumerate(secs):
        if f[1] in (SHT_REL, SHT_RELA) or f[1] == SHT_NV_INFO:
            f[6] = shstrndx
            put_shdr(b, shoff, i, f)
    return b


def cfa_end(prog):
    """Where the instructions of an FDE program end and its DW_CFA_nop
    padding starts (the instructions ptxas writes)."""
    q = last = 0
    while q < len(prog):
        op = prog[q]
        q += 1
        hi, lo = op & 0xc0, op & 0x3f
        if hi == 0x80:                                  # offset: ULEB
            q = uleb(prog, q)[1]
        elif hi:                                        # advance_loc, restore
            pass
        elif lo in (2, 3, 4):                           # advance_loc1/2/4
            q += 1 << (lo - 2)
        elif lo in (5, 0x0c):                           # two ULEBs
            q = uleb(prog, uleb(prog, q)[1])[1]
        elif lo in (6, 7, 8, 0x0d, 0x0e):               # one ULEB
            q = uleb(prog, q)[1]
        elif lo in (0x10, 0x16):                        # ULEB register, block
            n, q = uleb(prog, uleb(prog, q)[1])
            q += n
        elif lo not in (0, 0x0a, 0x0b):
            sys.exit('old_toolkits.py cfa05: DW_CFA 0x%02x not known here' % op)
        if op:
            last = q
    return last


def cfa05(b):
    _, secs = sections(b)
    fr = next(f for f in secs if f[10] == '.debug_frame')
    off, size = fr[4], fr[5]
    p = 0
    while p < size:
        # DWARF64: ffffffff, 8-byte length, 8-byte CIE id/pointer
        ln, = struct.unpack_from('<Q', b, off + p + 4)
        cid, = struct.unpack_from('<Q', b, off + p + 12)
        end = p + 12 + ln
        if cid != 0xffffffffffffffff:
            body = off + p + 20 + 16          # after initial_location, address_range
            prog = b[body:off + end]
            k = cfa_end(prog)
            if len(prog) - k >= 4:
                # DW_CFA_expression R1 (ULEB 1), 1-byte block: 0x05
                b[body + k:body + k + 4] = bytes([0x10, 0x01, 0x01, 0x05])
                return b
        p = end
    sys.exit('old_toolkits.py cfa05: no FDE with 4 bytes of DW_CFA_nop padding')


def uleb(b, p):
    v = s = 0
    while True:
        c = b[p]
        p += 1
        v |= (c & 0x7f) << s
        s += 7
        if not c & 0x80:
            return v, p


class Moves:
    """Where the bytes of a rewritten section went: the 8-byte address
    operands made 4-byte (their relocations become R_CUDA_32), and every
    other byte copied (its relocation moves with it)."""

    def __init__(self):
        self.narrowed, self.runs = {}, []

    def copy(self, out, d, a, b):
        self.runs.append((a, b, len(out)))
        out += d[a:b]

    def new(self, off):
        if off in self.narrowed:
            return self.narrowed[off], True
        for a, b, at in self.runs:
            if a <= off < b:
                return at + off - a, False
        sys.exit('old_toolkits.py: a relocation at 0x%x in bytes that were not copied' % off)


def line_to32(d):
    """A .debug_line / .nv_debug_line_sass section with 4-byte
    DW_LNE_set_address operands."""
    out, moved, p = bytearray(), Moves(), 0
    while p < len(d):
        ulen, = struct.unpack_from('<I', d, p)
        hlen, = struct.unpack_from('<I', d, p + 6)
        start = len(out)
        prog = p + 10 + hlen
        opbase = d[p + 10 + 4]
        moved.copy(out, d, p, prog)
        q, end = prog, p + 4 + ulen
        while q < end:
            op = d[q]
            if op == 0:
                n, r = uleb(d, q + 1)
                if d[r] == 2 and n == 9:
                    moved.narrowed[r + 1] = len(out) + 3
                    out += bytes([0, 5, 2]) + d[r + 1:r + 5]
                    q = r + 9
                    continue
                moved.copy(out, d, q, r + n)
                q = r + n
            elif op >= opbase or op in (1, 6, 7, 8, 10, 11):
                out.append(op)
                q += 1
            elif op == 9:                       # fixed_advance_pc: u16
                out += d[q:q + 3]
                q += 3
            else:                               # one ULEB/SLEB operand
                r = q + 1
                while d[r] & 0x80:
                    r += 1
                out += d[q:r + 1]
                q = r + 1
        struct.pack_into('<I', out, start, len(out) - start - 4)
        p = end
    return out, moved


def cie_to32(d, p, end, addrs, out, moved):
    """A CIE's program with its relocated DW_OP_addr operands (at the
    offsets in addrs) made 4-byte; ptxas writes them as the first
    operation of a DW_CFA_val_expression block (one-byte length before)."""
    q = p
    for r in sorted(a for a in addrs if p <= a < end):
        if d[r - 1] != 0x03 or d[r - 2] & 0x80:
            sys.exit('old_toolkits.py: a relocated CIE field at 0x%x that is no DW_OP_addr' % r)
        moved.copy(out, d, q, r - 2)
        out += bytes([d[r - 2] - 4, 0x03])
        moved.narrowed[r] = len(out)
        out += d[r:r + 4]
        q = r + 8
    moved.copy(out, d, q, end)


def frame_to32(d, addrs):
    """DWARF64 .debug_frame with 4-byte FDE initial_location and
    address_range and 4-byte DW_OP_addr operands in CIEs."""
    out, moved, p, cies = bytearray(), Moves(), 0, {}
    while p < len(d):
        ln, = struct.unpack_from('<Q', d, p + 4)
        cid, = struct.unpack_from('<Q', d, p + 12)
        end = p + 12 + ln
        start = len(out)
        moved.copy(out, d, p, p + 20)
        if cid == 0xffffffffffffffff:
            cies[p] = start
            cie_to32(d, p + 20, end, addrs, out, moved)
        else:
            struct.pack_into('<Q', out, start + 12, cies.get(cid, cid))
            moved.narrowed[p + 20] = len(out)
            out += d[p + 20:p + 24]
            moved.narrowed[p + 28] = len(out)
            out += d[p + 28:p + 32]
            moved.copy(out, d, p + 36, end)
        struct.pack_into('<Q', out, start + 4, len(out) - start - 12)
        p = end
    return out, moved


def reloc_offsets(b, secs, target):
    """The r_offsets of the R_CUDA_64 relocations aimed at section target."""
    offs = set()
    for f in secs:
        if f[1] in (SHT_REL, SHT_RELA) and f[7] == target:
            esz = 16 if f[1] == SHT_REL else 24
            for k in range(f[4], f[4] + f[5], esz):
                off, info = struct.unpack_from('<QQ', b, k)
                if info & 0xffffffff == R_CUDA_64:
                    offs.add(off)
    return offs


def elf32(b):
    _, secs = sections(b)
    data, moved = {}, {}
    for i, f in enumerate(secs):
        raw = bytes(b[f[4]:f[4] + f[5]]) if f[1] != 8 else b''
        if f[10] in ('.debug_line', '.nv_debug_line_sass'):
            raw, moved[i] = line_to32(raw)
        elif f[10] == '.debug_frame':
            raw, moved[i] = frame_to32(raw, reloc_offsets(b, secs, i))
        elif f[1] == SHT_SYMTAB:
            syms = bytearray()
            for k in range(0, len(raw), 24):
                name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', raw, k)
                syms += struct.pack('<IIIBBH', name, value, size, info, other, shndx)
            raw = bytes(syms)
        data[i] = raw
    for i, f in enumerate(secs):                # relocations after their targets moved
        if f[1] not in (SHT_REL, SHT_RELA):
            continue
        m, raw, rel = moved.get(f[7]), data[i], bytearray()
        esz = 16 if f[1] == SHT_REL else 24
        for k in range(0, len(raw), esz):
            off, info = struct.unpack_from('<QQ', raw, k)
            typ, sym = info & 0xffffffff, info >> 32
            if m:
                off, narrowed = m.new(off)
                typ = R_CUDA_32 if narrowed and typ == R_CUDA_64 else typ
            rel += struct.pack('<II', off, sym << 8 | typ)
            if esz == 24:
                rel += struct.pack('<i', struct.unpack_from('<q', raw, k + 16)[0])
        data[i] = bytes(rel)
    sm = (struct.unpack_from('<I', b, 0x30)[0] >> 8) & 0xff
    out = bytearray(52)
    hdrs = []
    for i, f in enumerate(secs):
        al = max(f[8], 1)
        if f[1] != 8:
            out += b'\0' * (-len(out) % al)
        off = len(out) if i else 0
        size = len(data[i]) if f[1] != 8 else f[5]
        if f[1] != 8:
            out += data[i]
        entsize = {SHT_SYMTAB: 16, SHT_REL: 8, SHT_RELA: 12}.get(f[1], f[9])
        hdrs.append(struct.pack('<IIIIIIIIII', f[0], f[1], f[2], f[3], off, size, f[6], f[7], min(al, 2**31),
                                entsize))
    out += b'\0' * (-len(out) % 4)
    shoff = len(out)
    for h in hdrs:
        out += h
    out[0:16] = b'\x7fELF' + bytes([1, 1, 1, 0x33, 7]) + bytes(7)
    etype, mach, ver = struct.unpack_from('<HHI', b, 16)
    shstrndx, = struct.unpack_from('<H', b, 0x3e)
    struct.pack_into('<HHIIIIIHHHHHH', out, 16, etype, mach, ver, 0, 0, shoff,
                     sm << 16 | 0x0100 | sm, 52, 32, 0, 40, len(secs), shstrndx)
    return out


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ('abi7', 'shlink', 'cfa05', 'elf32'):
        sys.exit(__doc__)
    b = bytearray(open(sys.argv[2], 'rb').read())
    out = globals()[sys.argv[1]](b)
    open(sys.argv[3], 'wb').write(out)


if __name__ == '__main__':
    main()
