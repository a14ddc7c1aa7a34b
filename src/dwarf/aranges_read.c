/* Address ranges (.debug_aranges):
 *
 *   set: u32 length | u16 version | u32 unit offset | u8 addr size |
 *        u8 segment size | pad to 2*addr size | (addr, length)* | 0 0 */
#include "rec_common.h"

int cudw_aranges_next_set(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_aranges_set *set)
{
    uint64_t at = *cursor;
    memset(set, 0, sizeof *set);
    set->offset = at;
    uint32_t len, unit;
    int rc = rec_set_header(f, s, at, "aranges header", 12, 8, &len, &set->version, &unit, NULL);
    if (rc != CUDW_OK)
        return rc;
    set->unit_offset = unit;
    set->length = len;
    set->end = at + 4 + len;
    set->addr_size = s->data[at + 10];
    set->seg_size = s->data[at + 11];
    if (set->addr_size != 4 && set->addr_size != 8)
        return file_fail(f, CUDW_E_UNSUPPORTED, s, at + 10, "aranges header", "address size %u", set->addr_size);
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
