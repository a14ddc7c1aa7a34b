/* The handle's cache of parsed structures, keyed by (kind, section,
 * offset).  Values live in the arena; the entries and their index are
 * malloc'd. */
#include "internal.h"

static uint64_t key_hash(unsigned kind, unsigned sec, uint64_t off)
{
    return off ^ ((uint64_t)sec << 40) ^ ((uint64_t)kind << 58);
}

void *cache_get(cudw_file *f, unsigned kind, unsigned sec, uint64_t off)
{
    hmap_probe p = hmap_probe_at(&f->cache_idx, key_hash(kind, sec, off));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
        const cache_entry *e = &f->cache[r];
        if (e->kind == kind && e->section == sec && e->offset == off)
            return e->value;
    }
    return NULL;
}

int cache_put(cudw_file *f, unsigned kind, unsigned sec, uint64_t off, void *value)
{
    cache_entry *v = vec_room(f->cache, &f->cache_cap, f->cache_n, sizeof *v, 16);
    if (!v)
        return CUDW_E_NOMEM;
    f->cache = v;
    if (hmap_add(&f->cache_idx, key_hash(kind, sec, off), (uint32_t)f->cache_n))
        return CUDW_E_NOMEM;
    v[f->cache_n++] = (cache_entry){kind, sec, off, value};
    return CUDW_OK;
}
