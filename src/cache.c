/* The handle's cache of parsed structures, keyed by (kind, section,
 * offset).  Values live in the arena; the table itself is malloc'd. */
#include "internal.h"

#include <stdlib.h>

static size_t slot(unsigned kind, unsigned sec, uint64_t off)
{
    uint64_t h = (off ^ ((uint64_t)sec << 40) ^ ((uint64_t)kind << 58)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20);
}

void *cache_get(cudw_file *f, unsigned kind, unsigned sec, uint64_t off)
{
    if (!f->cache_cap)
        return NULL;
    size_t mask = f->cache_cap - 1;
    for (size_t i = slot(kind, sec, off) & mask;; i = (i + 1) & mask) {
        cache_entry *e = &f->cache[i];
        if (!e->value)
            return NULL;
        if (e->kind == kind && e->section == sec && e->offset == off)
            return e->value;
    }
}

static void insert(cache_entry *tab, size_t cap, cache_entry e)
{
    size_t j = slot(e.kind, e.section, e.offset) & (cap - 1);
    while (tab[j].value)
        j = (j + 1) & (cap - 1);
    tab[j] = e;
}

int cache_put(cudw_file *f, unsigned kind, unsigned sec, uint64_t off, void *value)
{
    if ((f->cache_used + 1) * 2 > f->cache_cap) {
        size_t cap = f->cache_cap ? f->cache_cap * 2 : 16;
        cache_entry *n = calloc(cap, sizeof *n);
        if (!n)
            return CUDW_E_NOMEM;
        for (size_t i = 0; i < f->cache_cap; i++)
            if (f->cache[i].value)
                insert(n, cap, f->cache[i]);
        free(f->cache);
        f->cache = n;
        f->cache_cap = cap;
    }
    insert(f->cache, f->cache_cap, (cache_entry){kind, sec, off, value});
    f->cache_used++;
    return CUDW_OK;
}
