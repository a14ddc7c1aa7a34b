/* Identical copies among byte strings (inputs.h: cudw_dup_hash,
 * cudw_dup_sets): NVIDIA's libraries carry the same image or kernel many
 * times over, and cudwarf size reports the bytes the extra copies take.
 *
 * Copies are found by a 128-bit hash of their bytes and their size, never
 * by comparing bytes: two lanes of a multiply-xor hash over 8-byte words,
 * each finished by a 64-bit avalanche (murmur3's fmix64).  A false match
 * needs a 128-bit collision between inputs of equal size. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

void cudw_dup_hash(const void *data, size_t n, uint64_t out[2])
{
    const uint8_t *p = data;
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
    if (n > i)
        memcpy(&w, p + i, n - i);
    out[0] = fmix(a ^ w);
    out[1] = fmix(b + w + 0x27d4eb2f165667c5ull);
}

/* by content, then by the caller's order */
static int by_content(const void *x, const void *y)
{
    const cudw_dup *a = x, *b = y;
    for (int k = 0; k < 2; k++)
        if (a->hash[k] != b->hash[k])
            return a->hash[k] < b->hash[k] ? -1 : 1;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    return a->item < b->item ? -1 : a->item > b->item;
}

static int same(const cudw_dup *a, const cudw_dup *b)
{
    return a->hash[0] == b->hash[0] && a->hash[1] == b->hash[1] && a->size == b->size;
}

/* the most wasteful first, then in the order of their first copy */
static int by_wasted(const void *x, const void *y)
{
    const cudw_dup_set *a = x, *b = y;
    if (a->wasted != b->wasted)
        return a->wasted > b->wasted ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

long cudw_dup_sets(cudw_dup *d, size_t n, cudw_dup_set **sets, uint64_t *wasted)
{
    *sets = NULL;
    *wasted = 0;
    if (n)
        qsort(d, n, sizeof *d, by_content);
    /* a set has two copies at least: n / 2 of them at most */
    cudw_dup_set *g = malloc((n / 2 + 1) * sizeof *g);
    if (!g)
        return -1;
    size_t ng = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same(&d[i], &d[j]); j++)
            ;
        if (j - i > 1) {
            g[ng] = (cudw_dup_set){i, j - i, (j - i - 1) * d[i].size};
            *wasted += g[ng++].wasted;
        }
    }
    if (ng)
        qsort(g, ng, sizeof *g, by_wasted);
    *sets = g;
    return (long)ng;
}
