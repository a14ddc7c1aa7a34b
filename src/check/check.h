/* The one walk over a debug section (walk.c) and how it reports.
 *
 * Three modes of the same walk:
 *   first error   cudw_walk_section: every parser over the section; the
 *                 first failure stops the walk, its error left on the file
 *                 handle (dump walks like this before printing);
 *   deep          CUDW_WALK_DEEP adds what is derived from the records
 *                 (names, expressions, rows, row tables) -- the fuzz
 *                 targets and the mutation suite;
 *   verify        cudw_verify (verify.c): deep, every check of WALK_CHECKS,
 *                 and on past each error where the format says where the
 *                 next unit, table or entry starts; every problem is a
 *                 finding. */
#ifndef CUDW_CHECK_H
#define CUDW_CHECK_H

#include "../internal.h"

enum {
    WALK_DEEP = CUDW_WALK_DEEP,
    WALK_CHECKS = 0x100, /* the checks a parser does not need to read on */
    WALK_ON = 0x200,     /* go on past errors, each one a finding */
};

typedef struct walker {
    cudw_file *f;
    unsigned flags;
    cudw_finding_fn fn;  /* WALK_ON: where findings go */
    void *ctx;
    size_t errors;
    int stop;            /* without WALK_ON: an error ended the walk (it is on f) */
    struct row_index *rows; /* rows.c's function index, built on first use */
} walker;

/* (rows.c) The checks of decoded line rows: a sequence names a function,
 * its addresses lie on instruction boundaries inside that function's
 * section and never go back.  st starts zeroed for each table. */
typedef struct row_state {
    int started;
    uint64_t sequence, address;
    const struct fn_at *fn;
    int reported;          /* an address finding of this sequence is out */
    int line_reported;     /* a line finding of it is out */
} row_state;
void rows_check(walker *w, const cudw_section *s, row_state *st, const cudw_line_row *r);
void rows_index_free(struct row_index *x);

/* A parser failed and its error is on f: a finding (f's error cleared)
 * going on, else the end of the walk. */
void w_parse_error(walker *w);
/* A problem the walk itself finds in what it reads (a malformed DW_OP):
 * as a parser's error. */
void w_error(walker *w, int code, const cudw_section *s, uint64_t off, const char *what, const char *fmt, ...)
    CUDW_PRINTF(6, 7);
/* A check's finding: reported with WALK_CHECKS only. */
void w_finding(walker *w, int severity, int code, const cudw_section *s, uint64_t off, const char *what,
               const char *fmt, ...) CUDW_PRINTF(7, 8);

/* Every parser over section s, as w's flags say. */
void walk_one(walker *w, const cudw_section *s);

/* (findings.c) The checks' helpers: where location lists start in loc
 * (malloc'd; NULL and *n 0 when out of memory or no loc); whether a string
 * occurs twice in sec (a .debug_str concatenated without de-duplication):
 * 1, 0, or -1 out of memory. */
uint64_t *loc_starts(cudw_file *f, const cudw_section *loc, size_t *n);
int has_duplicate_strings(const cudw_section *sec);

#endif
