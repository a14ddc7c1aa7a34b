/* Name indexes (.debug_pubnames, .debug_pubtypes), read; pub_write.c
 * builds them.
 *
 *   set: u32 length | u16 version | u32 unit offset | u32 unit size |
 *        (u32 DIE offset, string)* | u32 0 */
#include "rec_common.h"

int cudw_pub_next_set(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_pub_set *set)
{
    uint64_t at = *cursor;
    memset(set, 0, sizeof *set);
    set->offset = at;
    uint32_t len, unit;
    int rc = rec_set_header(f, s, at, "name index header", 14, 10, &len, &set->version, &unit, &set->unit_reloc);
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
