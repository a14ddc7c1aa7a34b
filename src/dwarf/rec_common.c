/* The pieces the record-style readers share (rec_common.h). */
#include "rec_common.h"

/* CUDW_OK when there is a record at `at`; CUDW_DONE past the end; an
 * error when the section's bytes lie outside the file. */
int rec_section_start(cudw_file *f, const cudw_section *s, uint64_t at, const char *what)
{
    if (!s->data)
        return s->size ? file_fail(f, CUDW_E_BAD_OFFSET, s, 0, what, "section bytes lie outside the file")
                       : CUDW_DONE;
    return at >= s->data_size ? CUDW_DONE : CUDW_OK;
}

int rec_set_header(cudw_file *f, const cudw_section *s, uint64_t at, const char *what, uint64_t need,
                      uint32_t minlen, uint32_t *len, uint16_t *version, uint32_t *unit, const cudw_reloc **unit_reloc)
{
    int rc = rec_section_start(f, s, at, what);
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
