/* The CLI's own index from 64-bit keys to positions in an array the
 * caller keeps (rows of cudwarf size by name, the inlined functions a line
 * table names by offset).  Keys are stored whole, so integer keys need no
 * further test; a string is keyed by its hash and the caller compares the
 * names of the positions found.  Linear probing, at most half full. */
#ifndef CUDW_TOOLS_KEYIDX_H
#define CUDW_TOOLS_KEYIDX_H

#include <stddef.h>
#include <stdint.h>

#define KEYIDX_NONE UINT32_MAX

typedef struct keyidx {
    uint64_t *key;
    uint32_t *pos1;           /* position + 1; 0: empty */
    size_t cap, n;            /* slots (0 or a power of two), used */
} keyidx;

/* The positions added under key, one per call: *at starts at 0;
 * KEYIDX_NONE after the last. */
uint32_t keyidx_find(const keyidx *m, uint64_t key, size_t *at);
/* pos (< KEYIDX_NONE) under key: 0, or -1 out of memory (m unchanged) */
int keyidx_add(keyidx *m, uint64_t key, uint32_t pos);
void keyidx_free(keyidx *m);
/* FNV-1a of a NUL-terminated string: a string's key */
uint64_t keyidx_str(const char *s);

/* The array v (n of *cap elements of elem bytes used) with room for one
 * more: v, or v doubled (first elements the first time) when full; NULL
 * out of memory (v still valid, *cap unchanged). */
void *keyidx_room(void *v, size_t *cap, size_t n, size_t elem, size_t first);

#endif
