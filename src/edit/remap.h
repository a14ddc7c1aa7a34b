/* The shared state of cudw_remap (remap.c finds the changes, remap_out.c
 * applies them to the relocations and writes the file). */
#ifndef CUDW_ELF_REMAP_H
#define CUDW_ELF_REMAP_H

#include "../internal.h"

typedef struct edit {
    uint64_t pos, old_len;
    char *text;               /* the new bytes (a NUL-terminated string: new_len + 1) */
    uint64_t new_len;
} edit;

typedef struct patch {
    uint64_t pos;             /* old offset of a fixed-size field */
    uint64_t value;
    unsigned width;
} patch;

typedef struct sec_rw {
    edit *e;
    size_t ne, cape;
    patch *p;
    size_t np, capp;
    wbuf append;              /* bytes added at the end (.debug_str) */
    uint8_t *bytes;           /* materialized new contents */
    uint64_t size;
    uint64_t out_off;         /* where they go */
    int changed;
} sec_rw;

struct cudw_remap {
    cudw_file *f;
    const char *const *from, *const *to;
    size_t nrules;
    unsigned *owner;          /* per section: the first section sharing its bytes */
    sec_rw *rw;               /* per owner */
    uint8_t **relbytes;       /* per relocation section: rewritten entries, or NULL */
    uint64_t total;
    size_t strings;           /* strings rewritten */
};

/* New offset of old offset x of the section w rewrites. */
uint64_t remap_map_off(const sec_rw *w, uint64_t x);
/* Relocation section ri's entries, mapped (remap_out.c). */
int remap_relocs(cudw_remap *r, unsigned ri);
/* Owner section si's new bytes (remap_out.c). */
int remap_materialize(cudw_remap *r, unsigned si);
int remap_is_rel_type(uint32_t t);

#endif
