/* The sets cudwarf size adds up: rows keyed by name (a kernel, an SM, a
 * container), and duplicates (equal bytes, by a 128-bit hash) grouped. */
#ifndef CUDW_TOOLS_SIZE_SETS_H
#define CUDW_TOOLS_SIZE_SETS_H

#include "cudwarf.h"
#include "hmap.h"
#include "json.h"
#include "out.h"
#include "vec.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hash128 {
    uint64_t a, b;
} hash128;

hash128 hash_bytes(const uint8_t *p, size_t n);

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
    hmap idx;                 /* name -> index */
} rowset;

/* The row named name, added (zero) when new; NULL when out of memory. */
row *row_get(rowset *rs, const char *name);
/* Largest first (then by name), or by name. */
void rows_sort(rowset *rs, int by_name);
void rowset_free(rowset *rs);

/* One copy of something: its content's hash and size, and which it is. */
typedef struct dup {
    hash128 h;
    uint64_t size;
    size_t item;
} dup;

/* A set of identical copies: d[start .. start + count). */
typedef struct group {
    size_t start, count;
    uint64_t wasted;          /* the bytes beyond the first copy */
} group;

int dup_same(const dup *x, const dup *y);
/* Sort d by content and collect the sets of more than one copy, the most
 * wasteful first (*out malloc'd); -1 when out of memory. */
long groups_of(dup *d, size_t n, group **out, uint64_t *wasted);
/* "duplicate WHAT: N sets ..." and the ten most wasteful; name(ctx, item)
 * names a copy.  JSON: every set. */
void dups_text(obuf *o, const char *what, const dup *d, const group *g, size_t ng, uint64_t wasted,
               const char *(*name)(void *, size_t), void *ctx);
void dups_json(json *j, const char *key, const dup *d, const group *g, size_t ng,
               const char *(*name)(void *, size_t), void *ctx);

/* ---- the tables cudwarf size prints (size_print.c) ---- */

/* The rows of the section table: the classes, then these */
enum { ROW_PTX = CUDW_SIZE_NCLASSES, ROW_NVVM, ROW_ENTRY_OTHER, SIZE_NROWS };
/* "code (.text.*)", ...: a row's title; its JSON key */
const char *size_class_title(int c);
extern const char *const size_row_keys[SIZE_NROWS];
/* " 12.3%" (blanks when whole is 0) */
void ob_pct(obuf *o, uint64_t part, uint64_t whole);
/* "       1,234,567  12.3%  what": minus writes "-1,234"; whole 0 leaves
 * the percentage out */
void size_line(obuf *o, uint64_t v, uint64_t whole, const char *what, int minus);
/* The --by table: the first nshow rows (all when 0), then the rest summed. */
void size_table_text(obuf *o, const row *v, size_t n, const char *by, int nshow, uint64_t whole);

#endif
