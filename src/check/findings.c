/* How the walk reports (check.h): a parser's error, a problem the walk
 * finds, a check's finding -- and what the checks share (where location
 * lists start, strings stored twice).  walk.c and verify.c both use it;
 * it uses neither. */
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
        uint64_t h = fnv1a(CUDW_FNV0, sec->data + at, len);
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
