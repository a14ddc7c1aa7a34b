/* Location lists (.debug_loc) and range lists (.debug_ranges), DWARF 2/3:
 *
 *   loc entry:    addr begin | addr end | u16 length | expression
 *   ranges entry: addr begin | addr end
 *                 (0, 0 ends a list; begin = ~0 sets the base address)
 *
 * begin and end are relocated (R_CUDA_64 against the function in cubins). */
#include "rec_common.h"

int cudw_list_next(cudw_file *f, const cudw_section *s, int has_expr, uint8_t asz, uint64_t *cursor,
                   cudw_list_entry *e)
{
    uint64_t at = *cursor;
    int start = rec_section_start(f, s, at, "list");
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
