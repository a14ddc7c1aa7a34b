/* The sets cudwarf size adds up: rows keyed by name (a kernel, an SM, a
 * container), and duplicates (equal bytes, by a 128-bit hash) grouped. */
#ifndef CUDW_TOOLS_SIZE_SETS_H
#define CUDW_TOOLS_SIZE_SETS_H

#include "cudwarf.h"
#include "json.h"
#include "keyidx.h"
#include "out.h"

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

/* "duplicate WHAT: N sets ..." and the ten most wasteful; name(ctx, item)
 * names a copy.  JSON: every set. */
void dups_text(obuf *o, const char *what, const cudw_dup *d, const cudw_dup_set *g, size_t ng, uint64_t wasted,
               const char *(*name)(void *, size_t), void *ctx);
void dups_json(json *j, const char *key, const cudw_dup *d, const cudw_dup_set *g, size_t ng,
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
