/* Rows and duplicate sets for cudwarf size (size_sets.h). */
#include "size_sets.h"

#include <stdlib.h>
#include <string.h>

/* ---- hashing: two 64-bit lanes, 8 bytes at a time ---- */

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

hash128 hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t a = 0x9e3779b97f4a7c15ull ^ n, b = 0xc2b2ae3d27d4eb4full + n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        a = (a ^ w) * 0x100000001b3ull;
        a ^= a >> 29;
        b = (b + w) * 0x9fb21c651e98df25ull;
        b ^= b >> 31;
    }
    uint64_t w = 0;
    memcpy(&w, p + i, n - i);
    return (hash128){mix(a ^ w), mix(b + w + 0x27d4eb2f165667c5ull)};
}

static int sort_name; /* rows_sort's key: name when set */

static int by_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (!sort_name && x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

row *row_get(rowset *rs, const char *name)
{
    uint64_t h = str_hash(name);
    hmap_probe p = hmap_probe_at(&rs->idx, h);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (!strcmp(rs->v[r].name, name))
            return &rs->v[r];
    row *v = vec_room(rs->v, &rs->cap, rs->n, sizeof *v, 64);
    if (!v)
        return NULL;
    rs->v = v;
    char *own = strdup(name);
    if (!own || hmap_add(&rs->idx, h, (uint32_t)rs->n)) {
        free(own);
        return NULL;
    }
    rs->v[rs->n] = (row){own, own, 0, 0, 0, 0};
    return &rs->v[rs->n++];
}

void rowset_free(rowset *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        free(rs->v[i].owned);
    free(rs->v);
    hmap_free(&rs->idx);
}

/* ---- duplicates: groups of equal hashes ---- */

static int by_hash(const void *a, const void *b)
{
    const dup *x = a, *y = b;
    if (x->h.a != y->h.a)
        return x->h.a < y->h.a ? -1 : 1;
    if (x->h.b != y->h.b)
        return x->h.b < y->h.b ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

int dup_same(const dup *x, const dup *y) { return x->h.a == y->h.a && x->h.b == y->h.b && x->size == y->size; }

static int by_wasted(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->wasted != y->wasted)
        return x->wasted > y->wasted ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort d by content and collect the sets of more than one copy, the most
 * wasteful first (*out malloc'd; -1 when out of memory). */
long groups_of(dup *d, size_t n, group **out, uint64_t *wasted)
{
    size_t ng = 0;
    *wasted = 0;
    *out = NULL;
    if (n)
        qsort(d, n, sizeof *d, by_hash);
    group *g = malloc((n / 2 + 1) * sizeof *g);
    if (!g)
        return -1;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && dup_same(&d[i], &d[j]))
            j++;
        if (j - i > 1) {
            g[ng] = (group){i, j - i, (j - i - 1) * d[i].size};
            *wasted += g[ng++].wasted;
        }
        i = j;
    }
    qsort(g, ng, sizeof *g, by_wasted);
    *out = g;
    return (long)ng;
}

void dups_text(obuf *o, const char *what, const dup *d, const group *g, size_t ng, uint64_t wasted,
                      const char *(*name)(void *, size_t), void *ctx)
{
    if (!ng) {
        ob_printf(o, "duplicate %s: none\n", what);
        return;
    }
    ob_printf(o, "duplicate %s: %zu set%s of identical bytes, ", what, ng, ng == 1 ? "" : "s");
    ob_commas(o, wasted, 0);
    ob_puts(o, " bytes in the extra copies\n");
    for (size_t i = 0; i < ng && i < 10; i++) {
        const dup *x = &d[g[i].start];
        ob_printf(o, "  %zu x ", g[i].count);
        ob_commas(o, x[0].size, 0);
        ob_puts(o, " bytes: ");
        ob_puts(o, name(ctx, x[0].item));
        ob_puts(o, ", ");
        ob_puts(o, name(ctx, x[1].item));
        if (g[i].count > 2)
            ob_printf(o, ", and %zu more", g[i].count - 2);
        ob_putc(o, '\n');
    }
    if (ng > 10)
        ob_printf(o, "  ... and %zu more sets (--json lists them all)\n", ng - 10);
}

void dups_json(json *j, const char *key, const dup *d, const group *g, size_t ng,
                      const char *(*name)(void *, size_t), void *ctx)
{
    json_arr(j, key);
    for (size_t i = 0; i < ng; i++) {
        const dup *x = &d[g[i].start];
        json_obj(j, NULL);
        json_u64(j, "bytes", x[0].size);
        json_u64(j, "copies", g[i].count);
        json_u64(j, "wasted", g[i].wasted);
        json_arr(j, "where");
        for (size_t m = 0; m < g[i].count; m++)
            json_str(j, NULL, name(ctx, x[m].item));
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
}

void rows_sort(rowset *rs, int by_name)
{
    sort_name = by_name;
    if (rs->n)
        qsort(rs->v, rs->n, sizeof *rs->v, by_row);
}
