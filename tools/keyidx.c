/* A 64-bit key -> positions index (keyidx.h). */
#include "keyidx.h"

#include <stdlib.h>

/* the home slot: the key's high bits after a multiply by 2^64 / phi,
 * which spreads small integers and FNV hashes alike */
static size_t home(uint64_t key, size_t cap) { return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1); }

uint32_t keyidx_find(const keyidx *m, uint64_t key, size_t *at)
{
    if (!m->cap)
        return KEYIDX_NONE;
    /* *at counts the slots already walked from the home slot */
    for (size_t i = (home(key, m->cap) + *at) & (m->cap - 1); m->pos1[i]; i = (i + 1) & (m->cap - 1)) {
        ++*at;
        if (m->key[i] == key)
            return m->pos1[i] - 1;
    }
    return KEYIDX_NONE;
}

static void put(uint64_t *key, uint32_t *pos1, size_t cap, uint64_t k, uint32_t p1)
{
    size_t i = home(k, cap);
    while (pos1[i])
        i = (i + 1) & (cap - 1);
    key[i] = k;
    pos1[i] = p1;
}

int keyidx_add(keyidx *m, uint64_t key, uint32_t pos)
{
    if (pos >= KEYIDX_NONE)
        return -1;
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        uint64_t *k = malloc(cap * sizeof *k);
        uint32_t *p = calloc(cap, sizeof *p);
        if (!k || !p) {
            free(k);
            free(p);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->pos1[i])
                put(k, p, cap, m->key[i], m->pos1[i]);
        free(m->key);
        free(m->pos1);
        m->key = k;
        m->pos1 = p;
        m->cap = cap;
    }
    put(m->key, m->pos1, m->cap, key, pos + 1);
    m->n++;
    return 0;
}

void keyidx_free(keyidx *m)
{
    free(m->key);
    free(m->pos1);
    *m = (keyidx){0};
}

uint64_t keyidx_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

void *keyidx_room(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? *cap * 2 : first;
    if (c < *cap || c > SIZE_MAX / elem)
        return NULL;
    void *nv = realloc(v, c * elem);
    if (nv)
        *cap = c;
    return nv;
}
