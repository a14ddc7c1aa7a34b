/* The device ELF header: which toolkit's e_flags layout it uses, and what
 * that layout says (cudwarf.h, cudw_elf_header; docs/formats.md 7).
 *
 *   e_ident[EI_OSABI] e_ident[EI_ABIVERSION]   e_flags (e.g.)
 *   0x33              7   CUDA 6.5-12.x        0x00500550: virtual 0x50 | flags 0x05 | SM 0x50 (sm_80)
 *   0x41              8   CUDA 13              0x06005a04: ?? 0x06 | 0x00 | SM 0x5a (sm_90) | ?? 0x04
 *
 * Layout 7's flag byte is what cuobjdump prints as .headerflags
 * (EF_CUDA_TEXMODE_UNIFIED, EF_CUDA_64BIT_ADDRESS, EF_CUDA_VIRTUAL_SM(...));
 * the CUDA 6.5 ELF32 cubins of tests/fixtures/external/ have 0x01 there
 * (no 64-bit bit), every ELF64 one 0x05.  Layout 8 keeps only the SM where
 * layout 7 had its flags; its other bytes change with -G, -lineinfo and
 * nvlink (formats.md 7) and are kept as unknown. */
#include "internal.h"

#include <stdio.h>

enum {
    V7_TEX_UNIFIED = 0x01,
    V7_TEX_INDEPENDENT = 0x02,
    V7_ADDR64 = 0x04,
    V7_ACCEL = 0x08,
};

static int is_layout8(uint8_t osabi, uint8_t abiversion)
{
    if (abiversion == 7 || abiversion == 8)
        return abiversion == 8;
    return abiversion > 8 || osabi == 0x41;
}

void header_decode(cudw_elf_header *h, uint8_t elf_class)
{
    uint32_t fl = h->flags;
    h->elf_class = elf_class;
    h->virtual_sm = 0;
    h->variant = 0;
    if (is_layout8(h->osabi, h->abiversion)) {
        h->layout = 8;
        h->sm = (fl >> 8) & 0xff;
        h->address_size = elf_class == 1 ? 4 : 8;
        h->unknown_flags = fl & ~0xff00u;
        return;
    }
    unsigned bits = (fl >> 8) & 0xff;
    h->layout = 7;
    h->sm = fl & 0xff;
    h->virtual_sm = (fl >> 16) & 0xff;
    h->variant = bits & V7_ACCEL ? 'a' : 0;
    /* 4-byte addresses: an ELF32 cubin without the 64-bit flag (maxas' CUDA
     * 6.5 ones); every ELF64 cubin has 8 */
    h->address_size = elf_class == 1 && !(bits & V7_ADDR64) ? 4 : 8;
    h->unknown_flags = (fl & 0xff000000u) | ((bits & ~0x0fu) << 8);
}

int file_writable_class(cudw_file *f, const char *what)
{
    if (f->hdr.elf_class != 1)
        return CUDW_OK;
    return file_fail(f, CUDW_E_UNSUPPORTED, NULL, 4, "ELF header",
                     "an ELF32 cubin (CUDA 6.5-8, -m32): cudwarf reads it, but %s writes ELF64 only", what);
}

size_t cudw_header_flags_describe(const cudw_elf_header *h, char *buf, size_t n)
{
    char vs[32] = "";
    if (h->virtual_sm)
        snprintf(vs, sizeof vs, ", virtual sm_%u", h->virtual_sm);
    unsigned bits = (h->flags >> 8) & 0xff;
    int v7 = h->layout == 7;
    int len = snprintf(buf, n, "sm_%u%s%s, layout %u%s%s%s%s", h->sm, h->variant == 'a' ? "a" : "", vs, h->layout,
                       h->address_size == 8 ? ", 64-bit addresses" : ", 32-bit addresses",
                       v7 && (bits & V7_TEX_UNIFIED) ? ", unified textures" : "",
                       v7 && (bits & V7_TEX_INDEPENDENT) ? ", independent textures" : "",
                       h->unknown_flags ? ", other bits" : "");
    if (h->unknown_flags && len >= 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " 0x%x", h->unknown_flags);
    return len < 0 ? 0 : (size_t)len;
}
