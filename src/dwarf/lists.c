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
#include "../cursor.h"

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
    cur_t c;
    uint64_t l, u;
    if ((rc = cur_open(&c, f, s, at, s->data_size, what)) || (rc = cur_need(&c, need, "header")) ||
        (rc = cur_unit_length(&c, 0, &l, NULL)))
        return rc;
    if (l < minlen)
        return cur_fail_at(&c, at, CUDW_E_TRUNCATED, "length 0x%x is shorter than the header's %u bytes after it",
                           (unsigned)l, minlen);
    (void)cur_u16(&c, "version", version); /* need covers them */
    (void)cur_field(&c, 4, "unit offset", &u, unit_reloc);
    *len = (uint32_t)l;
    *unit = (uint32_t)u;
    return CUDW_OK;
}

int cudw_list_next(cudw_file *f, const cudw_section *s, int has_expr, uint8_t asz, uint64_t *cursor,
                   cudw_list_entry *e)
{
    uint64_t at = *cursor;
    int start = section_start(f, s, at, "list");
    if (start != CUDW_OK)
        return start;
    memset(e, 0, sizeof *e);
    e->offset = at;
    cur_t c;
    int rc = cur_open(&c, f, s, at, s->data_size, has_expr ? "location list" : "range list");
    if (rc || (rc = cur_need(&c, 2u * asz, "entry")))
        return rc;
    (void)cur_field(&c, asz, "begin", &e->begin, &e->begin_reloc);
    (void)cur_field(&c, asz, "end", &e->end, &e->end_reloc);
    uint64_t rb = e->begin, re = e->end; /* the bytes, where no relocation applies */
    uint64_t ones = asz == 4 ? 0xffffffffu : ~0ull;
    if (!e->begin_reloc && !e->end_reloc && rb == 0 && re == 0) {
        e->kind = CUDW_LOC_END;
    } else if (!e->begin_reloc && rb == ones) {
        e->kind = CUDW_LOC_BASE;
    } else {
        e->kind = CUDW_LOC_RANGE;
        if (has_expr) {
            uint16_t n = 0;
            if ((rc = cur_u16(&c, "expression length", &n)))
                return rc;
            if (n > cur_left(&c))
                return cur_fail_at(&c, cur_off(&c) - 2, CUDW_E_TRUNCATED,
                                   "expression of %u bytes runs past the end of the section", n);
            e->expr = c.p;
            e->expr_len = n;
            e->expr_offset = cur_off(&c);
            c.p += n;
        }
    }
    uint64_t p = cur_off(&c);
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
    cur_t c = cur_make(f, s, at + 10, set->end, "name index header");
    (void)cur_un(&c, 4, "unit size", &set->unit_size); /* the header's 14 bytes are there */
    set->entries_offset = at + 14;
    *cursor = set->end;
    return CUDW_OK;
}

int cudw_pub_next(cudw_file *f, const cudw_section *s, const cudw_pub_set *set, uint64_t *pos, uint64_t *die,
                  const char **name)
{
    uint64_t at = *pos, off = 0;
    if (at >= set->end)
        return CUDW_DONE;
    cur_t c = cur_make(f, s, at, set->end, "name index entry");
    int rc = cur_un(&c, 4, "DIE offset", &off);
    if (rc)
        return rc;
    if (off == 0) {
        *pos = set->end;
        return CUDW_DONE;
    }
    if ((rc = cur_str(&c, "name", name)))
        return rc;
    *die = off;
    *pos = cur_off(&c);
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
    cur_t c = cur_make(f, s, at, set->end, "aranges tuple");
    int rc = cur_need(&c, 2 * asz, "tuple");
    if (rc)
        return rc;
    (void)cur_field(&c, (unsigned)asz, "address", address, reloc);
    (void)cur_un(&c, (unsigned)asz, "length", length);
    *pos = cur_off(&c);
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
    cur_t c = cur_make(f, s, at, s->data_size, "macinfo entry");
    int rc = cur_u8(&c, "type", &e->type); /* at < size */
    switch (e->type) {
    case 0x00: /* the end of a unit's list */
    case CUDW_DW_MACINFO_end_file:
        break;
    case CUDW_DW_MACINFO_define:
    case CUDW_DW_MACINFO_undef:
    case CUDW_DW_MACINFO_vendor_ext:
        if ((rc = cur_uleb(&c, e->type == CUDW_DW_MACINFO_vendor_ext ? "constant" : "line",
                           e->type == CUDW_DW_MACINFO_vendor_ext ? &e->constant : &e->line)) ||
            (rc = cur_str(&c, "string", &e->string)))
            return rc;
        break;
    case CUDW_DW_MACINFO_start_file:
        if ((rc = cur_uleb(&c, "line", &e->line)) || (rc = cur_uleb(&c, "file", &e->file)))
            return rc;
        break;
    default:
        return cur_fail_at(&c, at, CUDW_E_BAD_EXPR, "unknown type 0x%02x", e->type);
    }
    *cursor = cur_off(&c);
    return rc;
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
