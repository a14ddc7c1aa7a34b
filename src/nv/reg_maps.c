/* .nv_debug_info_reg_sass and .nv_debug_info_reg_type: where each PTX
 * register of a function lives in SASS, and its PTX type.
 *
 *   reg_sass record (repeated to the end of the section):
 *     function name NUL | u32 count |
 *     count x (u32 index | PTX register name NUL | u32 SASS register |
 *              u32 start | u32 end)          start/end: function-relative
 *   SASS register: class << 24 | n (5 R, 2 P, 11 UR, 9 UP, ...)
 *
 *   reg_type record: function name NUL | u32 count | count x u8 type,
 *     one per reg_sass entry of the same function, in the same order.
 *     Established on the corpus (71 cubins, every entry): bits 0-1 are
 *     log2 of the size in bytes (.b16 1, .b32 2, .b64 3), bits 2-4 the
 *     kind (0 untyped .b, 1 .s, 2 .u, 3 .f, 4 .pred = 16).  An
 *     interpretation; the bytes are shown too. */
#include "../elf/cursor.h"

#include <stdio.h>

int cudw_reg_sass_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_reg_func *out)
{
    uint64_t at = *cursor;
    if (!s->data)
        return s->size ? file_fail(f, CUDW_E_BAD_OFFSET, s, 0, "register map", "section bytes lie outside the file")
                       : CUDW_DONE;
    if (at >= s->data_size)
        return CUDW_DONE;
    cur_t c = cur_make(f, s, at, s->data_size, "register map");
    uint64_t count, skip;
    const char *ptx;
    int rc;
    out->offset = at;
    if ((rc = cur_str(&c, "function name", &out->function)) || (rc = cur_un(&c, 4, "entry count", &count)))
        return rc;
    out->count = count;
    out->entries_offset = cur_off(&c);
    /* walk the entries once to find the end (and check them) */
    c.what = "register map entry";
    for (uint64_t k = 0; k < out->count; k++)
        if ((rc = cur_un(&c, 4, "index", &skip)) || (rc = cur_str(&c, "PTX register name", &ptx)) ||
            (rc = cur_skip(&c, 12, "SASS register and range")))
            return rc;
    out->end = cur_off(&c);
    *cursor = out->end;
    return CUDW_OK;
}

int cudw_reg_sass_entry(const cudw_section *s, const cudw_reg_func *fn, uint64_t *pos, cudw_reg_entry *e)
{
    uint64_t p = *pos;
    if (p >= fn->end)
        return CUDW_DONE;
    const uint8_t *d = s->data;
    e->offset = p;
    e->index = ld32(d + p);
    e->ptx = (const char *)d + p + 4;
    p += 4 + strlen(e->ptx) + 1;
    e->sass = ld32(d + p);
    e->start = ld32(d + p + 4);
    e->end = ld32(d + p + 8);
    *pos = p + 12;
    return CUDW_OK;
}

int cudw_reg_type_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_reg_func *out,
                       const uint8_t **types)
{
    uint64_t at = *cursor;
    if (!s->data)
        return s->size ? file_fail(f, CUDW_E_BAD_OFFSET, s, 0, "register types", "section bytes lie outside the file")
                       : CUDW_DONE;
    if (at >= s->data_size)
        return CUDW_DONE;
    cur_t c = cur_make(f, s, at, s->data_size, "register types");
    uint64_t count;
    int rc;
    out->offset = at;
    if ((rc = cur_str(&c, "function name", &out->function)) || (rc = cur_un(&c, 4, "entry count", &count)))
        return rc;
    out->count = count;
    out->entries_offset = cur_off(&c);
    *types = c.p;
    if ((rc = cur_skip(&c, count, "type bytes")))
        return rc;
    out->end = cur_off(&c);
    *cursor = out->end;
    return CUDW_OK;
}

const char *cudw_reg_type_name(uint8_t t, char *buf, size_t n)
{
    static const char *const kinds[] = {"b", "s", "u", "f", "pred"};
    unsigned kind = (t >> 2) & 7, size = 8u << (t & 3);
    if (t & ~0x1fu || kind > 4)
        snprintf(buf, n, "0x%02x", t);
    else if (kind == 4)
        snprintf(buf, n, "pred");
    else
        snprintf(buf, n, ".%s%u", kinds[kind], size);
    return buf;
}
