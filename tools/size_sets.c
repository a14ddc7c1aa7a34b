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

/* A set: JSON its size, copies, bytes wasted and every copy; the text a
 * line of the bytes wasted, copies x size and the first two copies */
static void dup_set_print(emit *m, const dupsets *s, const cudw_dup_set *g)
{
    const cudw_dup *x = &s->d[g->start];
    em_obj(m, NULL);
    em_commas(m, NULL, "", 13, g->wasted);
    em_num(m, NULL, "  ", 6, (int64_t)g->count);
    em_commas(m, "bytes", " x ", -10, x[0].size);
    em_u64(m, "copies", NULL, 0, g->count);
    em_u64(m, "wasted", NULL, 0, g->wasted);
    em_arr(m, "where");
    for (size_t k = 0; k < g->count; k++)
        em_item(m, k == 0 ? "  " : k == 1 ? ", " : NULL, s->name(s->ctx, x[k].item, !m->j));
    em_end_arr(m);
    if (g->count > 2) {
        em_u64(m, NULL, ", and ", EM_DEC, g->count - 2);
        em_text(m, " more");
    }
    em_text(m, "\n");
    em_end_obj(m);
}

void dups_print(emit *m, const char *what, const char *key, const char *total_key, const dupsets *s, size_t nshow)
{
    em_str(m, NULL, "duplicate ", 0, what);
    if (!s->ng) {
        em_text(m, ": none\n");
    } else {
        em_u64(m, NULL, ": ", EM_DEC, s->ng);
        em_text(m, s->ng == 1 ? " set of identical bytes, " : " sets of identical bytes, ");
        em_commas(m, NULL, "", 0, s->wasted);
        em_text(m, " bytes in the extra copies\n");
        em_text(m, "        extra  copies x bytes      the first two\n");
    }
    em_arr(m, key);
    size_t shown = m->j || !nshow || nshow > s->ng ? s->ng : nshow; /* the text: those that waste most */
    for (size_t i = 0; i < shown; i++)
        dup_set_print(m, s, &s->g[i]);
    em_end_arr(m);
    if (s->ng > shown) {
        em_u64(m, NULL, "  ... and ", EM_DEC, s->ng - shown);
        em_text(m, " more sets (-n 0 or --json lists them all)\n");
    }
    em_u64(m, total_key, NULL, 0, s->wasted);
}

void rows_sort(rowset *rs, int by_name)
{
    sort_name = by_name;
    if (rs->n)
        qsort(rs->v, rs->n, sizeof *rs->v, by_row);
}
