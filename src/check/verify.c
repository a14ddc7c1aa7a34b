/* cudw_verify: the walk (walk.c) over every debug section with every
 * check and on past errors, and the relocations aimed at each section.
 * A failing parser's error becomes a finding; the walk then goes on with
 * the next unit, table or entry where the format says where that is. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

static void report(walker *w, const cudw_finding *fd)
{
    if (fd->severity == CUDW_FINDING_ERROR)
        w->errors++;
    w->fn(fd, w->ctx);
}

void w_parse_error(walker *w)
{
    if (!(w->flags & WALK_ON)) {
        w->stop = 1; /* the error stays on the handle, for the caller */
        return;
    }
    cudw_finding fd = {CUDW_FINDING_ERROR, w->f->err};
    report(w, &fd);
    memset(&w->f->err, 0, sizeof w->f->err);
}

void w_error(walker *w, int code, const cudw_section *s, uint64_t off, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&w->f->err, code, s ? s->name : NULL, off, what, fmt, ap);
    va_end(ap);
    w_parse_error(w);
}

void w_finding(walker *w, int severity, int code, const cudw_section *s, uint64_t off, const char *what,
               const char *fmt, ...)
{
    if (!(w->flags & WALK_CHECKS))
        return;
    cudw_finding fd;
    memset(&fd, 0, sizeof fd);
    fd.severity = severity;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&fd.where, code, s ? s->name : NULL, off, what, fmt, ap);
    va_end(ap);
    report(w, &fd);
}

/* Offsets where location lists start in the file's .debug_loc. */
uint64_t *loc_starts(cudw_file *f, const cudw_section *loc, size_t *n)
{
    *n = 0;
    if (!loc)
        return NULL;
    size_t cap = 64;
    uint64_t *v = malloc(cap * sizeof *v), cur = 0;
    cudw_list_entry e;
    int start = 1;
    while (v && cudw_list_next(f, loc, 1, 8, &cur, &e) == CUDW_OK) {
        if (start) {
            uint64_t *nv = vec_room(v, &cap, *n, sizeof *v, 64);
            if (!nv) {
                free(v);
                v = NULL;
                *n = 0;
                break;
            }
            v = nv;
            v[(*n)++] = e.offset;
        }
        start = e.kind == CUDW_LOC_END;
    }
    memset(&f->err, 0, sizeof f->err);
    return v;
}

/* 1 when some string occurs twice in sec: a .debug_str concatenated
 * without de-duplication, as nvlink writes it; -1 out of memory. */
int has_duplicate_strings(const cudw_section *sec)
{
    if (!sec || !sec->data)
        return 0;
    size_t n = 0;
    for (uint64_t i = 0; i < sec->data_size; i++)
        n += sec->data[i] == 0;
    uint64_t *first = malloc((n ? n : 1) * sizeof *first); /* each content's offset */
    size_t nfirst = 0;
    hmap idx = {0};
    int dup = 0;
    if (!first || hmap_reserve(&idx, n)) {
        free(first);
        return -1;
    }
    for (uint64_t at = 0; at < sec->data_size && !dup;) {
        const uint8_t *z = memchr(sec->data + at, 0, (size_t)(sec->data_size - at));
        if (!z)
            break;
        size_t len = (size_t)(z - (sec->data + at)) + 1;
        uint64_t h = cudw_fnv(CUDW_FNV0, sec->data + at, len);
        hmap_probe p = hmap_probe_at(&idx, h);
        /* equal bytes through a NUL are equal strings */
        for (uint32_t r; !dup && (r = hmap_next(&p)) != HMAP_NONE;)
            dup = !memcmp(sec->data + first[r], sec->data + at, len);
        hmap_add(&idx, h, (uint32_t)nfirst); /* reserved: cannot fail */
        first[nfirst++] = at;
        at += len;
    }
    free(first);
    hmap_free(&idx);
    return dup;
}

static void verify_relocs(walker *w, unsigned target)
{
    const cudw_reloc *r;
    size_t n;
    const cudw_section *s = cudw_section_get(w->f, target);
    if (cudw_relocs(w->f, target, &r, &n) < 0) {
        w_parse_error(w);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].width || r[i].type == CUDW_R_CUDA_UNUSED_CLEAR64 ||
            r[i].type == CUDW_R_MERCURY_UNUSED_CLEAR64 || r[i].type == CUDW_R_CUDA_NONE)
            continue;
        const cudw_section *rs = cudw_section_get(w->f, r[i].reloc_section);
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_RELOC, rs, 0, "relocation",
                "type %u (%s) at %s+0x%llx is not one a debug section uses", r[i].type,
                cudw_reloc_type_name(r[i].type) ? cudw_reloc_type_name(r[i].type) : "unknown", s->name,
                (unsigned long long)r[i].offset);
    }
}

size_t cudw_verify(cudw_file *f, cudw_finding_fn fn, void *ctx)
{
    walker w = {f, WALK_DEEP | WALK_CHECKS | WALK_ON, fn, ctx, 0, 0};
    memset(&f->err, 0, sizeof f->err);
    for (unsigned i = 1; i < f->nsecs; i++) {
        cudw_secclass c;
        if (cudw_classify_name(f->secs[i].name, f->secs[i].flags, &c) != CUDW_OK)
            continue;
        if (f->secs[i].data)
            verify_relocs(&w, i);
        walk_one(&w, &f->secs[i]);
    }
    return w.errors;
}
