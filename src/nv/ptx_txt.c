/* .nv_debug_ptx_txt[.N]: the PTX text, one NUL-terminated string per PTX
 * line (blank strings where ptxas dropped .loc/.file directives, comments
 * and DWARF data lines), ending with a NUL.
 *
 *   "//\0\0.version 9.0\0.target sm_90\0...\0"   line 1, 2, 3, ...
 *
 * .nv_debug_line_sass rows carry these line numbers. */
#include "../internal.h"

typedef struct ptx_index {
    uint64_t count;
    uint32_t *starts;   /* offset of each line; sections over 4 GiB are refused */
} ptx_index;

static int build(cudw_file *f, const cudw_section *s, ptx_index **out)
{
    ptx_index *x = cache_get(f, CACHE_PTX, s->index, 0);
    if (x) {
        *out = x;
        return CUDW_OK;
    }
    if (!s->data)
        return file_fail(f, CUDW_E_BAD_OFFSET, s, 0, "PTX text", "the section has no bytes in the file");
    if (s->data_size > UINT32_MAX)
        return file_fail(f, CUDW_E_LIMIT, s, 0, "PTX text", "section larger than 4 GiB");
    uint64_t n = 0;
    for (const uint8_t *p = s->data, *e = p + s->data_size; p < e; p++) {
        const uint8_t *z = memchr(p, 0, (size_t)(e - p));
        if (!z)
            break; /* a last line without its NUL is not a line */
        n++;
        p = z;
    }
    x = arena_alloc(&f->arena, sizeof *x);
    uint32_t *starts = n ? arena_alloc(&f->arena, n * sizeof *starts) : NULL;
    if (!x || (n && !starts))
        return file_fail(f, CUDW_E_NOMEM, s, 0, "PTX text", "out of memory");
    uint64_t i = 0;
    for (const uint8_t *p = s->data, *e = p + s->data_size; p < e && i < n; p++) {
        starts[i++] = (uint32_t)(p - s->data);
        p = memchr(p, 0, (size_t)(e - p));
    }
    x->count = n;
    x->starts = starts;
    if (cache_put(f, CACHE_PTX, s->index, 0, x))
        return file_fail(f, CUDW_E_NOMEM, s, 0, "PTX text", "out of memory");
    *out = x;
    return CUDW_OK;
}

int cudw_ptx_line(cudw_file *f, const cudw_section *s, uint64_t line, const char **text)
{
    ptx_index *x;
    int rc = build(f, s, &x);
    if (rc)
        return rc;
    if (line == 0 || line > x->count) {
        *text = NULL;
        return CUDW_DONE;
    }
    *text = (const char *)s->data + x->starts[line - 1];
    return CUDW_OK;
}

int cudw_ptx_line_count(cudw_file *f, const cudw_section *s, uint64_t *count)
{
    ptx_index *x;
    int rc = build(f, s, &x);
    if (rc)
        return rc;
    *count = x->count;
    return CUDW_OK;
}

const cudw_section *cudw_ptx_section_for(cudw_file *f, const cudw_line_table *t, uint64_t file)
{
    const char *name = file >= 1 && file <= t->nfiles ? t->files[file - 1].name : NULL;
    if (name && strncmp(name, ".nv_debug_ptx_txt", 17) == 0) {
        const cudw_section *s = section_companion(f, t->section, name);
        if (s)
            return s;
    }
    /* whole-program cubins: no file entry, one PTX text section */
    const cudw_section *only = NULL;
    for (unsigned i = 1; i < f->nsecs; i++) {
        if (strncmp(f->secs[i].name, ".nv_debug_ptx_txt", 17) != 0)
            continue;
        if (only)
            return NULL;
        only = &f->secs[i];
    }
    return only;
}
