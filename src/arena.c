/* A bump allocator: what a handle builds (tables, relocation indexes)
 * lives until cudw_close frees it in one sweep. */
#include "internal.h"

#include <stdlib.h>

struct arena_block {
    arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define ARENA_MIN_BLOCK (64u * 1024u)

void *arena_alloc(arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_MIN_BLOCK ? size : ARENA_MIN_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        /* A large one-off block goes behind the current head, so the head's
         * free space is still used by the small allocations after it. */
        if (a->head && size > ARENA_MIN_BLOCK / 2) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

void arena_free_all(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}
