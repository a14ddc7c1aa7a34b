/* Location lists (.debug_loc), range lists (.debug_ranges), name indexes
 * (.debug_pubnames, .debug_pubtypes) and address ranges (.debug_aranges):
 * the DWARF 2/3 sections made of simple records.
 *
 *   loc entry:    addr begin | addr end | u16 length | expression
 *   ranges entry: addr begin | addr end
 *                 (0, 0 ends a list; begin = ~0 sets the base address)
 *   pub set:      u32 length | u16 version | u32 unit offset | u32 unit size |
 *                 (u32 DIE offset, string)* | u32 0
 *   aranges set:  u32 length | u16 version | u32 unit offset | u8 addr size |
 *                 u8 segment size | pad to 2*addr size | (addr, length)* | 0 0 */
#include "../internal.h"

/* CUDW_OK when there is a record at `at`; CUDW_DONE past the end; an
 * error when the section's bytes lie outside the file. */
static int section_start(cudw_file *f, const cudw_section *s, uint64_t at, const char *what)
{
    if (!s->data)
        return s->size ? cudw_fail(f, CUDW_E_BAD_OFFSET, s, 0, what, "section bytes lie outside the file")
                       : CUDW_DONE;
    return at >= s->data_size ? CUDW_DONE : CUDW_OK;
}

/* The header both name-index and aranges sets start with:
 *   u32 length | u16 version | u32 unit offset (relocated) ...
 * checked against the section (need: header bytes, minlen: smallest length). */
static int set_header(cudw_file *f, const cudw_section *s, uint64_t at, const char *what, uint64_t need,
                      uint32_t minlen, uint32_t *len, uint16_t *version, uint32_t *unit, const cudw_reloc **unit_reloc)
{
    int rc = section_start(f, s, at, what);
    if (rc != CUDW_OK)
        return rc;
    const cudw_reloc *rels;
    size_t nrel;
    if ((rc = cudw_relocs(f, s->index, &rels, &nrel))) /* a bad relocation section: its error, here */
        return rc;
    uint64_t left = s->data_size - at;
    if (left < need)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, at, what, "%llu bytes left, a header needs %llu",
                         (unsigned long long)left, (unsigned long long)need);
    *len = ld32(s->data + at);
    if (*len >= 0xfffffff0u)
        return cudw_fail(f, CUDW_E_UNSUPPORTED, s, at, what, "64-bit DWARF or reserved length");
    if (*len > left - 4 || *len < minlen)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, at, what, "length 0x%x does not fit (0x%llx bytes left)", *len,
                         (unsigned long long)(left - 4));
    *version = ld16(s->data + at + 4);
    *unit = ld32(s->data + at + 6);
    const cudw_reloc *r = cudw_reloc_at(f, s->index, at + 6);
    if (r && r->width)
        *unit = (uint32_t)r->value;
    else
        r = NULL;
    if (unit_reloc)
        *unit_reloc = r;
    return CUDW_OK;
}

static uint64_t addr_field(cudw_file *f, const cudw_section *s, uint64_t at, uint8_t asz, const cudw_reloc **r,
                           uint64_t *raw)
{
    const uint8_t *p = s->data + at;
    uint64_t v = asz == 4 ? ld32(p) : ld64(p);
    *raw = v;
    *r = cudw_reloc_at(f, s->index, at);
    if (*r && (*r)->width)
        return asz == 4 ? (uint32_t)(*r)->value : (*r)->value;
    *r = NULL;
    return v;
}

int cudw_list_next(cudw_file *f, const cudw_section *s, int has_expr, uint8_t asz, uint64_t *cursor,
                   cudw_list_entry *e)
{
    uint64_t at = *cursor;
    int start = section_start(f, s, at, "list");
    if (start != CUDW_OK)
        return start;
    const cudw_reloc *rels;
    size_t nrel;
    int rc = cudw_relocs(f, s->index, &rels, &nrel);
    if (rc)
        return rc;
    memset(e, 0, sizeof *e);
    e->offset = at;
    if (s->data_size - at < 2u * asz)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, at, has_expr ? "location list" : "range list",
                         "entry needs %u bytes, %llu left", 2u * asz, (unsigned long long)(s->data_size - at));
    uint64_t rb, re;
    e->begin = addr_field(f, s, at, asz, &e->begin_reloc, &rb);
    e->end = addr_field(f, s, at + asz, asz, &e->end_reloc, &re);
    uint64_t p = at + 2u * asz;
    uint64_t ones = asz == 4 ? 0xffffffffu : ~0ull;
    if (!e->begin_reloc && !e->end_reloc && rb == 0 && re == 0) {
        e->kind = CUDW_LOC_END;
    } else if (!e->begin_reloc && rb == ones) {
        e->kind = CUDW_LOC_BASE;
    } else {
        e->kind = CUDW_LOC_RANGE;
        if (has_expr) {
            if (s->data_size - p < 2)
                return cudw_fail(f, CUDW_E_TRUNCATED, s, p, "location list", "expression length runs past the end");
            uint16_t n = ld16(s->data + p);
            p += 2;
            if (n > s->data_size - p)
                return cudw_fail(f, CUDW_E_TRUNCATED, s, p - 2, "location list",
                                 "expression of %u bytes runs past the end of the section", n);
            e->expr = s->data + p;
            e->expr_len = n;
            e->expr_offset = p;
            p += n;
        }
    }
    *cursor = p;
    return CUDW_OK;
}

int cudw_pub_next_set(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_pub_set *set)
{
    uint64_t at = *cursor;
    memset(set, 0, sizeof *set);
    set->offset = at;
    uint32_t len, unit;
    int rc = set_header(f, s, at, "name index header", 14, 10, &len, &set->version, &unit, &set->unit_reloc);
    if (rc != CUDW_OK)
        return rc;
    set->unit_offset = unit;
    set->length = len;
    set->end = at + 4 + len;
    set->unit_size = ld32(s->data + at + 10);
    set->entries_offset = at + 14;
    *cursor = set->end;
    return CUDW_OK;
}

int cudw_pub_next(cudw_file *f, const cudw_section *s, const cudw_pub_set *set, uint64_t *pos, uint64_t *die,
                  const char **name)
{
    uint64_t at = *pos;
    if (at + 4 > set->end)
        return at >= set->end ? CUDW_DONE
                              : cudw_fail(f, CUDW_E_TRUNCATED, s, at, "name index entry", "DIE offset runs past the set");
    uint32_t off = ld32(s->data + at);
    if (off == 0) {
        *pos = set->end;
        return CUDW_DONE;
    }
    const uint8_t *z = memchr(s->data + at + 4, 0, set->end - at - 4);
    if (!z)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, at + 4, "name index entry", "name runs past the end of the set");
    *die = off;
    *name = (const char *)s->data + at + 4;
    *pos = (uint64_t)(z - s->data) + 1;
    return CUDW_OK;
}

int cudw_aranges_next_set(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_aranges_set *set)
{
    uint64_t at = *cursor;
    memset(set, 0, sizeof *set);
    set->offset = at;
    uint32_t len, unit;
    int rc = set_header(f, s, at, "aranges header", 12, 8, &len, &set->version, &unit, NULL);
    if (rc != CUDW_OK)
        return rc;
    set->unit_offset = unit;
    set->length = len;
    set->end = at + 4 + len;
    set->addr_size = s->data[at + 10];
    set->seg_size = s->data[at + 11];
    if (set->addr_size != 4 && set->addr_size != 8)
        return cudw_fail(f, CUDW_E_UNSUPPORTED, s, at + 10, "aranges header", "address size %u", set->addr_size);
    uint64_t tup = 2u * set->addr_size, p = at + 12;
    p = (p - at + tup - 1) / tup * tup + at; /* tuples are aligned to their size from the set start */
    set->tuples_offset = p;
    *cursor = set->end;
    return CUDW_OK;
}

int cudw_aranges_next(cudw_file *f, const cudw_section *s, const cudw_aranges_set *set, uint64_t *pos,
                      uint64_t *address, uint64_t *length, const cudw_reloc **reloc)
{
    uint64_t at = *pos, asz = set->addr_size;
    if (at >= set->end)
        return CUDW_DONE;
    if (set->end - at < 2 * asz)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, at, "aranges tuple", "tuple runs past the end of the set");
    uint64_t raw;
    *address = addr_field(f, s, at, (uint8_t)asz, reloc, &raw);
    *length = asz == 4 ? ld32(s->data + at + asz) : ld64(s->data + at + asz);
    *pos = at + 2 * asz;
    if (*address == 0 && *length == 0 && !*reloc) {
        *pos = set->end;
        return CUDW_DONE;
    }
    return CUDW_OK;
}

/* .debug_macinfo (DWARF 2/3): a list per unit of
 *   01 ULEB line, string      define
 *   02 ULEB line, string      undef
 *   03 ULEB line, ULEB file   start_file
 *   04                        end_file
 *   ff ULEB constant, string  vendor_ext
 *   00                        end of the unit's list
 * CUDA 13.0 writes a lone 00 (formats.md 6). */
int cudw_macinfo_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_macinfo_entry *e)
{
    uint64_t at = *cursor;
    int start = section_start(f, s, at, "macinfo");
    if (start != CUDW_OK)
        return start;
    memset(e, 0, sizeof *e);
    e->offset = at;
    const uint8_t *p = s->data + at + 1, *end = s->data + s->data_size;
    e->type = s->data[at];
    int rc = CUDW_OK;
    switch (e->type) {
    case 0x00: case CUDW_DW_MACINFO_end_file:
        break;
    case CUDW_DW_MACINFO_define:
    case CUDW_DW_MACINFO_undef:
    case CUDW_DW_MACINFO_start_file:
    case CUDW_DW_MACINFO_vendor_ext:
        rc = cudw_uleb128_read(&p, end, e->type == CUDW_DW_MACINFO_vendor_ext ? &e->constant : &e->line);
        if (rc)
            break;
        if (e->type == CUDW_DW_MACINFO_start_file) {
            rc = cudw_uleb128_read(&p, end, &e->file);
            break;
        }
        {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                return cudw_fail(f, CUDW_E_TRUNCATED, s, (uint64_t)(p - s->data), "macinfo entry",
                                 "string runs past the end of the section");
            e->string = (const char *)p;
            p = z + 1;
        }
        break;
    default:
        return cudw_fail(f, CUDW_E_BAD_EXPR, s, at, "macinfo entry", "unknown type 0x%02x", e->type);
    }
    if (rc)
        return cudw_fail(f, rc, s, (uint64_t)(p - s->data), "macinfo entry",
                         rc == CUDW_E_LEB_OVERFLOW ? "LEB128 value does not fit 64 bits" : "operand runs past the end");
    *cursor = (uint64_t)(p - s->data);
    return CUDW_OK;
}

const char *cudw_macinfo_name(uint8_t type)
{
    switch (type) {
    case 0x00: return "end of list";
    case CUDW_DW_MACINFO_define: return "DW_MACINFO_define";
    case CUDW_DW_MACINFO_undef: return "DW_MACINFO_undef";
    case CUDW_DW_MACINFO_start_file: return "DW_MACINFO_start_file";
    case CUDW_DW_MACINFO_end_file: return "DW_MACINFO_end_file";
    case CUDW_DW_MACINFO_vendor_ext: return "DW_MACINFO_vendor_ext";
    default: return NULL;
    }
}
