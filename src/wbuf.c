/* The growable byte buffer every writer (line programs, name indexes, the
 * linker) builds its output in.  Allocation failure is sticky: the writer
 * keeps going and checks oom once at the end. */
#include "internal.h"

#include <stdlib.h>

void wb_put(wbuf *b, const void *src, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = 1;
                return;
            }
            cap *= 2;
        }
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

void wb_uleb(wbuf *b, uint64_t v)
{
    uint8_t t[10];
    wb_put(b, t, cudw_uleb128_write(v, t, sizeof t));
}

void wb_sleb(wbuf *b, int64_t v)
{
    uint8_t t[10];
    wb_put(b, t, cudw_sleb128_write(v, t, sizeof t));
}

void wb_le(wbuf *b, uint64_t v, unsigned n)
{
    uint8_t t[8];
    for (unsigned i = 0; i < n && i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    wb_put(b, t, n < 8 ? n : 8);
}

void wb_patch_le(wbuf *b, size_t at, uint64_t v, unsigned n)
{
    if (b->oom || at > b->n || b->n - at < n)
        return;
    for (unsigned i = 0; i < n; i++)
        b->p[at + i] = (uint8_t)(v >> (8 * i));
}

void wb_free(wbuf *b)
{
    free(b->p);
    *b = (wbuf){0};
}

void wb_reserve(wbuf *b, size_t n)
{
    if (b->oom || b->cap - b->n >= n)
        return;
    uint8_t *q = realloc(b->p, b->n + n);
    if (!q) {
        b->oom = 1;
        return;
    }
    b->p = q;
    b->cap = b->n + n;
}
