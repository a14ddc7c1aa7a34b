/* cudw_line_table_check: one pass over a line program that only judges
 * it, stepping over what cannot fail (the fast path of cudw_line_next,
 * line_read.c) and handing the rest to the general decoder. */
#include "line.h"

int cudw_line_table_check(const cudw_line_table *t)
{
    const line_impl *ti = (const line_impl *)t;
    const uint8_t *d = t->section->data, *p = d + t->program_offset, *end = d + t->end;
    const unsigned obase = t->opcode_base;
    while (p < end) {
        unsigned op = *p;
        /* what cannot fail is stepped over (the same cases as the fast
         * path of cudw_line_next); the rest is the general decoder's to
         * judge */
        if (op >= obase || op == 1 || op == 6 || op == 7 || op == 8) {
            p++;
            continue;
        }
        if (end - p >= 3) {
            if (op == 3 || (op <= 5 && (ti->short_std & (1u << op)))) { /* 2, 3, 4, 5: one LEB */
                if (!(p[1] & 0x80)) {
                    p += 2;
                    continue;
                }
                if (!(p[2] & 0x80)) {
                    p += 3;
                    continue;
                }
            }
            if (op == 9) {
                p += 3;
                continue;
            }
            if (op == 0 && p[2] == CUDW_LNE_INLINED_CALL && p[1] >= 3 && p[1] < 0x80 &&
                end - p >= 2 + (ptrdiff_t)p[1]) {
                const uint8_t *q = p + 3, *qend = p + 2 + p[1];
                uint64_t v;
                if (uleb_in(&q, qend, &v) == CUDW_OK && uleb_in(&q, qend, &v) == CUDW_OK) {
                    p = qend;
                    continue;
                }
            }
        }
        uint64_t pos = (uint64_t)(p - d);
        cudw_line_op o;
        int rc = cudw_line_op_next(t, &pos, &o);
        if (rc != CUDW_OK)
            return rc;
        p = d + pos;
    }
    return CUDW_OK;
}
