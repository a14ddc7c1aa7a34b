/* .debug_abbrev: tables of DIE shapes, one per CU (or shared).
 *
 *   entry:  ULEB code | ULEB tag | u8 children | (ULEB attr, ULEB form)* | 0 0
 *   table:  entry* | ULEB 0
 *
 * A table is parsed the first time a unit names its offset and cached on
 * the handle.  Two passes over the bytes (count, then fill) give one
 * allocation per table and no growing buffers. */
#include "../elf/cursor.h"

#include <stdlib.h>

typedef struct cudw_abbrev_table_impl {
    cudw_abbrev_table pub;
    const cudw_abbrev **by_code;  /* sorted by code when codes are not 1..N */
    int dense;                    /* entries[i].code == i + 1 for all i */
} table_impl;

/* Width of the forms whose width no unit changes; -1 for the others
 * (addr and ref_addr: info.c's addr_form_size). */
static int fixed_form_size(uint32_t form)
{
    switch (form) {
    case CUDW_DW_FORM_data1: case CUDW_DW_FORM_flag: case CUDW_DW_FORM_ref1: return 1;
    case CUDW_DW_FORM_data2: case CUDW_DW_FORM_ref2: return 2;
    case CUDW_DW_FORM_data4: case CUDW_DW_FORM_ref4: case CUDW_DW_FORM_strp: case CUDW_DW_FORM_sec_offset: return 4;
    case CUDW_DW_FORM_data8: case CUDW_DW_FORM_ref8: case CUDW_DW_FORM_ref_sig8: return 8;
    case CUDW_DW_FORM_flag_present: return 0;
    default: return -1;
    }
}

/* One pass over the table; with out == NULL it only counts and checks. */
static int scan(cudw_file *f, const cudw_section *s, uint64_t start, cudw_abbrev *out,
                cudw_abbrev_spec *specs, size_t *nentries, size_t *nspecs, uint64_t *end_off)
{
    cur_t c = cur_make(f, s, start, s->data_size, "abbreviation entry");
    size_t ne = 0, ns = 0;
    for (;;) {
        uint64_t entry_off = cur_off(&c), code, tag;
        uint8_t children = 0;
        int rc = cur_uleb(&c, "abbreviation code", &code);
        if (rc)
            return rc;
        if (code == 0)
            break;
        if ((rc = cur_uleb(&c, "tag", &tag)) || (rc = cur_u8(&c, "children flag", &children)))
            return rc;
        if (children > 1)
            return cur_fail_at(&c, cur_off(&c) - 1, CUDW_E_BAD_ABBREV, "children flag is %u (expected 0 or 1)",
                               children);
        if (tag == 0 || tag > 0xffff)
            return cur_fail_at(&c, entry_off, CUDW_E_BAD_ABBREV, "tag 0x%llx out of range", (unsigned long long)tag);
        uint32_t n = 0;
        int32_t fixed = 0;
        uint16_t naddr = 0, nref = 0;
        for (;;) {
            uint64_t at, form;
            uint64_t pair_off = cur_off(&c);
            if ((rc = cur_uleb(&c, "attribute", &at)) || (rc = cur_uleb(&c, "form", &form)))
                return rc;
            if (at == 0 && form == 0)
                break;
            if (n == CUDW_MAX_ABBREV_ATTRS)
                return cur_fail_at(&c, entry_off, CUDW_E_BAD_ABBREV, "more than %d attributes (code %llu)",
                                   CUDW_MAX_ABBREV_ATTRS, (unsigned long long)code);
            if (at == 0 || at > 0xffff || form == 0 || form > 0xff || !cudw_form_name((uint32_t)form))
                return cur_fail_at(&c, pair_off, form && cudw_form_name((uint32_t)form) ? CUDW_E_BAD_ABBREV : CUDW_E_BAD_FORM,
                                   "attribute 0x%llx with form 0x%llx", (unsigned long long)at,
                                   (unsigned long long)form);
            if (specs) {
                specs[ns + n].name = (uint32_t)at;
                specs[ns + n].form = (uint32_t)form;
            }
            n++;
            if (form == CUDW_DW_FORM_addr)
                naddr++;
            else if (form == CUDW_DW_FORM_ref_addr)
                nref++;
            else if (fixed >= 0) {
                int sz = fixed_form_size((uint32_t)form);
                fixed = sz < 0 ? -1 : fixed + sz;
            }
        }
        if (out) {
            cudw_abbrev *a = &out[ne];
            a->code = code;
            a->tag = (uint32_t)tag;
            a->has_children = children;
            a->nattrs = n;
            a->offset = entry_off;
            a->attrs = specs ? specs + ns : NULL; /* no NULL + 0 when no entry has attributes */
            a->fixed_size = fixed;
            a->n_addr = naddr;
            a->n_ref_addr = nref;
        }
        ne++;
        ns += n;
    }
    *nentries = ne;
    *nspecs = ns;
    *end_off = cur_off(&c);
    return CUDW_OK;
}

static int cmp_code(const void *a, const void *b)
{
    const cudw_abbrev *x = *(const cudw_abbrev *const *)a, *y = *(const cudw_abbrev *const *)b;
    if (x->code != y->code)
        return x->code < y->code ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset; /* first definition first */
}

static int parse(cudw_file *f, const cudw_section *s, uint64_t offset, table_impl **out)
{
    size_t ne, ns;
    uint64_t end;
    int rc = scan(f, s, offset, NULL, NULL, &ne, &ns, &end);
    if (rc)
        return rc;
    table_impl *t = arena_alloc(&f->arena, sizeof *t);
    cudw_abbrev *entries = ne ? arena_alloc(&f->arena, ne * sizeof *entries) : NULL;
    cudw_abbrev_spec *specs = ns ? arena_alloc(&f->arena, ns * sizeof *specs) : NULL;
    if (!t || (ne && !entries) || (ns && !specs))
        return file_fail(f, CUDW_E_NOMEM, s, offset, "abbreviation table", "out of memory");
    scan(f, s, offset, entries, specs, &ne, &ns, &end);
    t->pub.section = s;
    t->pub.offset = offset;
    t->pub.end = end;
    t->pub.count = ne;
    t->pub.entries = entries;
    t->dense = 1;
    for (size_t i = 0; i < ne && t->dense; i++)
        t->dense = entries[i].code == i + 1;
    if (!t->dense) {
        t->by_code = arena_alloc(&f->arena, ne * sizeof *t->by_code);
        if (!t->by_code)
            return file_fail(f, CUDW_E_NOMEM, s, offset, "abbreviation table", "out of memory");
        for (size_t i = 0; i < ne; i++)
            t->by_code[i] = &entries[i];
        qsort(t->by_code, ne, sizeof *t->by_code, cmp_code);
    }
    *out = t;
    return CUDW_OK;
}

int cudw_abbrev_table_get(cudw_file *f, const cudw_section *s, uint64_t offset,
                          const cudw_abbrev_table **out)
{
    if (!s)
        return file_fail(f, CUDW_E_NO_ABBREV, NULL, 0, "abbreviation table", "no .debug_abbrev section");
    if (!s->data)
        return file_fail(f, CUDW_E_BAD_OFFSET, s, 0, "abbreviation table",
                         "section has no bytes in the file");
    if (offset >= s->data_size)
        return file_fail(f, CUDW_E_BAD_OFFSET, s, offset, "abbreviation table",
                         "offset 0x%llx is past the end of %s (size 0x%llx)", (unsigned long long)offset,
                         s->name, (unsigned long long)s->data_size);
    table_impl *t = cache_get(f, CACHE_ABBREV, s->index, offset);
    if (!t) {
        int rc = parse(f, s, offset, &t);
        if (rc)
            return rc;
        if (cache_put(f, CACHE_ABBREV, s->index, offset, t))
            return file_fail(f, CUDW_E_NOMEM, s, offset, "abbreviation table", "out of memory");
    }
    *out = &t->pub;
    return CUDW_OK;
}

const cudw_abbrev *cudw_abbrev_find(const cudw_abbrev_table *pub, uint64_t code)
{
    const table_impl *t = (const table_impl *)pub;
    if (t->dense)
        return code - 1 < pub->count ? &pub->entries[code - 1] : NULL;
    size_t lo = 0, hi = pub->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->by_code[mid]->code < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pub->count && t->by_code[lo]->code == code ? t->by_code[lo] : NULL;
}
