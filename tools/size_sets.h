/* The sets cudwarf size adds up: rows keyed by name (a kernel, an SM, a
 * container), and duplicates (equal bytes, by a 128-bit hash) grouped. */
#ifndef CUDW_TOOLS_SIZE_SETS_H
#define CUDW_TOOLS_SIZE_SETS_H

#include "cudwarf.h"
#include "emit.h"
#include "keyidx.h"

#include <stddef.h>
#include <stdint.h>

typedef struct row {
    const char *name;         /* shown */
    char *owned;              /* when name is built */
    uint64_t bytes, stored, count;
    size_t last;              /* 1 + the image counted last (a kernel has two sections on sm_100+) */
} row;

/* rows keyed by name (found until rows_sort reorders them) */
typedef struct rowset {
    row *v;
    size_t n, cap;
    keyidx idx;               /* name -> index */
} rowset;

/* The row named name, added (zero) when new; NULL when out of memory. */
row *row_get(rowset *rs, const char *name);
/* Largest first (then by name), or by name. */
void rows_sort(rowset *rs, int by_name);
void rowset_free(rowset *rs);

/* Duplicate sets (cudw_dup_sets) and how a copy is named */
typedef struct dupsets {
    const cudw_dup *d;        /* the copies, grouped */
    const cudw_dup_set *g;    /* the sets, each a run of d */
    size_t ng;
    uint64_t wasted;          /* bytes in the extra copies */
    const char *(*name)(void *ctx, size_t item, int text); /* text: as short as the file's header allows */
    void *ctx;
} dupsets;

/* Through the emitter (emit.h): the text "duplicate WHAT: N sets ..." and
 * the nshow most wasteful (0: all); JSON every set under key, then the bytes wasted
 * under total_key. */
void dups_print(emit *m, const char *what, const char *key, const char *total_key, const dupsets *s, size_t nshow);

/* ---- the tables cudwarf size prints (size_print.c) ---- */

/* The rows of the section table: the classes, then these */
enum { ROW_PTX = CUDW_SIZE_NCLASSES, ROW_NVVM, ROW_ENTRY_OTHER, SIZE_NROWS };
/* "code (.text.*)", ...: a row's title; its JSON key */
const char *size_class_title(int c);
extern const char *const size_row_keys[SIZE_NROWS];
/* A figure of a size table: JSON v under key; text (when what is set)
 * "       1,234,567  12.3%  what", minus writing "-1,234"; whole 0 leaves
 * the percentage out */
void size_field(emit *m, const char *key, uint64_t v, uint64_t whole, const char *what, int minus);
/* The rows (--by): JSON every row; the text the first nshow (all when 0),
 * then the rest summed. */
void size_table_print(emit *m, const row *v, size_t n, const char *by, int nshow, uint64_t whole, int demangle);

#endif
