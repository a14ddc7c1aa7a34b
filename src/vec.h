/* The library's one growable array (and the tool's): an array that grows
 * by one element at a time asks vec_room for room first.  Header-only. */
#ifndef CUDW_VEC_H
#define CUDW_VEC_H

#include <stdint.h>
#include <stdlib.h>

/* v (*cap elements of elem bytes, n of them used) with room for one more:
 * v itself, or v grown to twice its capacity (first elements the first
 * time); NULL when out of memory, v still valid then.  *cap follows. */
static inline void *vec_room(void *v, size_t *cap, size_t n, size_t elem, size_t first)
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

#endif
