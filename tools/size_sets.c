/* Rows and duplicate sets for cudwarf size (size_sets.h). */
#include "size_sets.h"

#include <stdlib.h>
#include <string.h>

static int sort_name; /* rows_sort's key: name when set */

static int by_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (!sort_name && x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

row *row_get(rowset *rs, const char *name)
{
    uint64_t h = keyidx_str(name);
    size_t at = 0;
    for (uint32_t r; (r = keyidx_find(&rs->idx, h, &at)) != KEYIDX_NONE;)
        if (!strcmp(rs->v[r].name, name))
            return &rs->v[r];
    row *v = keyidx_room(rs->v, &rs->cap, rs->n, sizeof *v, 64);
    if (!v)
        return NULL;
    rs->v = v;
    char *own = strdup(name);
    if (!own || keyidx_add(&rs->idx, h, (uint32_t)rs->n)) {
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
    keyidx_free(&rs->idx);
}

/* ---- duplicate sets, printed ---- */

void dups_text(obuf *o, const char *what, const cudw_dup *d, const cudw_dup_set *g, size_t ng, uint64_t wasted,
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
        const cudw_dup *x = &d[g[i].start];
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

void dups_json(json *j, const char *key, const cudw_dup *d, const cudw_dup_set *g, size_t ng,
                      const char *(*name)(void *, size_t), void *ctx)
{
    json_arr(j, key);
    for (size_t i = 0; i < ng; i++) {
        const cudw_dup *x = &d[g[i].start];
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
