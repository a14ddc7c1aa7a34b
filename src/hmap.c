/* The open-addressing index (hmap.h): growing and adding. */
#include "hmap.h"

#include <stdlib.h>

static void put(hmap_slot *s, size_t mask, hmap_slot x)
{
    size_t i = x.tag & mask;
    while (s[i].ref1)
        i = (i + 1) & mask;
    s[i] = x;
}

int hmap_reserve(hmap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 16;
    while (cap / 2 < n) {
        if (cap > SIZE_MAX / 2 / sizeof(hmap_slot))
            return -1;
        cap *= 2;
    }
    if (cap == m->cap)
        return 0;
    hmap_slot *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->s[i].ref1)
            put(s, cap - 1, m->s[i]);
    free(m->s);
    m->s = s;
    m->cap = cap;
    return 0;
}

int hmap_add(hmap *m, uint64_t h, uint32_t ref)
{
    if (ref == HMAP_NONE || hmap_reserve(m, m->n + 1))
        return -1;
    put(m->s, m->cap - 1, (hmap_slot){hmap_tag(h), ref + 1});
    m->n++;
    return 0;
}

void hmap_free(hmap *m)
{
    free(m->s);
    *m = (hmap){0};
}
