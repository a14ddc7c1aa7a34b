/* The cursor's cold paths: errors, strings, unit lengths (cursor.h says
 * what a cursor guarantees; cur_open, which loads the relocations, is
 * reloc.c's and declared in reloc.h: the cursor depends on nothing else
 * of elf/). */
#include "cursor.h"

int cur_fail_at(const cur_t *c, uint64_t at, int code, const char *fmt, ...)
{
    if (!c->f)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&c->f->err, code, c->sec->name, at, c->what, fmt, ap);
    va_end(ap);
    return code;
}

int cur_fail(const cur_t *c, int code, const char *fmt, ...)
{
    if (!c->f)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&c->f->err, code, c->sec->name, cur_off(c), c->what, fmt, ap);
    va_end(ap);
    return code;
}

static const char *field_name(const cur_t *c, const char *field)
{
    const char *n = field ? field : c->name_of ? c->name_of(c->name_arg) : NULL;
    return n ? n : "field";
}

int cur_short(const cur_t *c, const char *field, uint64_t need)
{
    field = field_name(c, field);
    return cur_fail(c, CUDW_E_TRUNCATED, "%s needs %llu bytes, the unit ends at 0x%llx", field,
                    (unsigned long long)need, (unsigned long long)cur_end(c));
}

int cur_record_fail(cudw_file *f, const cudw_section *s, uint64_t off, uint64_t n, const char *what,
                    const char *field)
{
    cur_t c = cur_make(f, s, off, s->data_size, what);
    return cur_short(&c, field, n);
}

int cur_leb_fail(const cur_t *c, const char *field, int rc)
{
    field = field_name(c, field);
    if (rc == CUDW_E_TRUNCATED)
        return cur_fail(c, rc, "%s: LEB128 runs past the end of the unit (0x%llx)", field,
                        (unsigned long long)cur_end(c));
    return cur_fail(c, rc, "%s: LEB128 value does not fit 64 bits", field);
}

int cur_str_fail(const cur_t *c, const char *field)
{
    return cur_fail(c, CUDW_E_TRUNCATED, "%s has no terminating NUL before the end of the unit (0x%llx)",
                    field_name(c, field), (unsigned long long)cur_end(c));
}

int cur_unit_length(cur_t *c, int allow64, uint64_t *len, int *is64)
{
    uint64_t left = cur_left(c);
    if (left < 4)
        return cur_fail(c, CUDW_E_TRUNCATED, "%llu bytes left, a unit length needs 4", (unsigned long long)left);
    uint32_t l32 = ld32(c->p);
    uint64_t l = l32;
    unsigned hdr = 4;
    if (is64)
        *is64 = 0;
    if (l32 == 0xffffffffu && allow64) {
        if (left < 12)
            return cur_fail(c, CUDW_E_TRUNCATED, "64-bit length: %llu bytes left, it needs 12",
                            (unsigned long long)left);
        l = ld64(c->p + 4);
        hdr = 12;
        if (is64)
            *is64 = 1;
    } else if (l32 == 0xffffffffu) {
        return cur_fail(c, CUDW_E_UNSUPPORTED, "64-bit DWARF unit (only 32-bit DWARF is supported)");
    } else if (l32 >= 0xfffffff0u) {
        return cur_fail(c, CUDW_E_UNSUPPORTED, "reserved unit length 0x%x", l32);
    }
    if (l > left - hdr)
        return cur_fail(c, CUDW_E_TRUNCATED, "unit length 0x%llx runs past the end of the section (0x%llx bytes left)",
                        (unsigned long long)l, (unsigned long long)(left - hdr));
    c->p += hdr;
    c->end = c->p + l;
    *len = l;
    return CUDW_OK;
}
