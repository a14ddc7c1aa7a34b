/* The .debug_str base words of -lineinfo line tables, recovered where
 * nvlink left them 0 (sm_90 links: docs/formats.md 2.2).  A table gets a
 * base only when every consistent layout gives it the same one. */
#include "sym.h"

#include <stdlib.h>

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int is_start(const cudw_section *str, uint64_t at)
{
    return at < str->data_size && (at == 0 || str->data[at - 1] == 0) &&
           memchr(str->data + at, 0, (size_t)(str->data_size - at));
}

/* The end of the last string the table names from base. */
static uint64_t names_end(const cudw_section *str, const tinfo *t, uint64_t base)
{
    uint64_t end = 0;
    for (size_t i = 0; i < t->noffs; i++) {
        uint64_t at = base + t->offs[i];
        const uint8_t *z = at < str->data_size ? memchr(str->data + at, 0, (size_t)(str->data_size - at)) : NULL;
        if (z && (uint64_t)(z - str->data) + 1 > end)
            end = (uint64_t)(z - str->data) + 1;
    }
    return end;
}

/* nvlink's sm_90 links: in a linked file, every table with a base word
 * (ptxas writes none when a table names no function) stores 0, without a
 * relocation, and there are two or more of them. */
static int nvlink_zero_bases(const sym_image *img, const tinfo *ts, size_t n)
{
    if (cudw_header(img->f)->type != 2)
        return 0;
    size_t with = 0;
    for (size_t k = 0; k < n; k++) {
        if (!ts[k].t->has_str_base)
            continue;
        if (ts[k].t->str_base_raw || ts[k].t->str_base_reloc)
            return 0;
        with++;
    }
    return with >= 2;
}

/* The bases b >= lower at which every offset t names the start of a
 * string (at most max of them; *out malloc'd). */
static size_t candidates(const cudw_section *str, const tinfo *t, uint64_t lower, uint64_t **out)
{
    size_t n = 0, cap = 0;
    uint64_t work = 0;
    *out = NULL;
    for (uint64_t b = lower; b < str->data_size; b++) {
        if (b && str->data[b - 1] != 0)
            continue;
        int ok = 1;
        for (size_t i = 0; i < t->noffs && ok; i++)
            ok = is_start(str, b + t->offs[i]);
        if (ok) {
            uint64_t *q = vec_room(*out, &cap, n, sizeof *q, 16);
            if (!q)
                break;
            *out = q;
            (*out)[n++] = b;
        }
        if ((work += t->noffs + 1) > (1u << 26))
            return (size_t)-1; /* not worth more: unknown */
    }
    return n;
}

/* Every table that names functions gets the base the consistent layouts
 * give it: each table's strings after the strings of the one before
 * (nvlink concatenates in input order), every name on the start of a
 * string.  A table whose base is the same in every such layout is
 * recovered; one with several possible bases (or none) is unknown.  (The
 * first such table is not assumed to start at 0: inputs before it may
 * have strings of their own.) */
void sym_recover_bases(sym_lines *L, const sym_image *img, tinfo *ts, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        tinfo *t = &ts[k];
        t->base = t->t->str_base;
        if (t->noffs > 1) { /* sorted, once each */
            qsort(t->offs, t->noffs, sizeof *t->offs, u64_cmp);
            size_t u = 1;
            for (size_t i = 1; i < t->noffs; i++)
                if (t->offs[i] != t->offs[u - 1])
                    t->offs[u++] = t->offs[i];
            t->noffs = u;
        }
    }
    const cudw_section *str = n ? ts[0].t->str_section : NULL;
    if (!str || !str->data || !nvlink_zero_bases(img, ts, n))
        return;
    /* the tables that name functions */
    size_t m = 0;
    size_t *which = malloc(n * sizeof *which);
    uint64_t **cand = calloc(n, sizeof *cand);
    size_t *nc = calloc(n, sizeof *nc);
    uint8_t **ok = calloc(n, sizeof *ok); /* per candidate: part of a full layout */
    int unknown = !which || !cand || !nc || !ok;
    uint64_t lower = 0;
    for (size_t k = 0; k < n && !unknown; k++)
        if (ts[k].noffs) {
            which[m] = k;
            nc[m] = candidates(str, &ts[k], lower, &cand[m]);
            if (nc[m] == (size_t)-1 || !nc[m] || !(ok[m] = calloc(nc[m], 1)))
                unknown = 1;
            m++;
        }
    if (!unknown && m) {
        /* backward: a candidate has a full layout after it */
        for (size_t i = 0; i < nc[m - 1]; i++)
            ok[m - 1][i] = 1;
        for (size_t j = m - 1; j-- > 0;)
            for (size_t i = 0; i < nc[j]; i++) {
                uint64_t end = names_end(str, &ts[which[j]], cand[j][i]);
                for (size_t q = 0; q < nc[j + 1] && !ok[j][i]; q++)
                    ok[j][i] = ok[j + 1][q] && cand[j + 1][q] >= end;
            }
        /* forward: and one before it (the first table's names end at lower) */
        uint64_t reach = lower; /* the smallest end a full layout so far can have */
        for (size_t j = 0; j < m; j++) {
            uint64_t next = UINT64_MAX;
            size_t count = 0, pick = 0;
            for (size_t i = 0; i < nc[j]; i++) {
                ok[j][i] = ok[j][i] && cand[j][i] >= reach;
                if (ok[j][i]) {
                    count++;
                    pick = i;
                    uint64_t end = names_end(str, &ts[which[j]], cand[j][i]);
                    if (end < next)
                        next = end;
                }
            }
            tinfo *t = &ts[which[j]];
            if (count == 1) {
                t->base = cand[j][pick];
                t->state = t->base == t->t->str_base ? 0 : 1;
                L->recovered |= t->state == 1;
            } else {
                t->state = 2;
                L->dropped = 1;
            }
            reach = next;
        }
    } else if (m) {
        for (size_t j = 0; j < m; j++)
            ts[which[j]].state = 2;
        L->dropped = 1;
    }
    for (size_t j = 0; j < m; j++) {
        free(cand[j]);
        free(ok[j]);
    }
    free(which);
    free(cand);
    free(nc);
    free(ok);
}
