/* cudwarf lines' printers (lines_print.c): the options, the inlined
 * functions a table names, where a row's file and PTX line are. */
#ifndef CUDW_TOOLS_LINES_OUT_H
#define CUDW_TOOLS_LINES_OUT_H

#include "cli.h"
#include "emit.h"
#include "keyidx.h"

typedef struct lopts {
    int json, compact, ptx, long_form, demangle;
    const char *section;
} lopts;

/* The inlined functions a table's rows name, numbered in the order they
 * are first used (the rows refer to them by number after the first). */
typedef struct tfunc {
    uint64_t off;
    const char *name;
    char *shown;              /* -C: the name demangled (malloc'd), once asked (lines_print.c) */
} tfunc;

typedef struct tinfo {
    tfunc *v;                 /* by number - 1 */
    size_t n, cap;
    keyidx idx;               /* offset -> index */
} tinfo;

void tinfo_free(tinfo *ti);
/* The number (1-based) of function offset off, or 0. */
size_t fn_number(const tinfo *ti, uint64_t off);
/* off numbered next (its name kept) unless it has a number: 0, -1 out of memory */
int fn_add(tinfo *ti, uint64_t off, const char *name);
/* the PTX line a .nv_debug_line_sass row points at, or NULL */
const char *ptx_text(cudw_file *f, const cudw_line_table *t, const cudw_line_row *r);
/* The path a row's file number names; for whole-program .nv_debug_line_sass
 * tables, which name no PTX file, the one PTX text section (addr2line
 * --ptx names it the same way). */
const char *row_path(cudw_file *f, const cudw_line_table *t, int sass, uint64_t file);

/* What every JSON form of a row writes only when it is there: the inlined
 * function's offset and Mercury's flag (lines' two forms, ptx-lines
 * --predict).  How the table was written is the opcodes' business (dump
 * --line --json). */
static inline void row_marks(emit *e, const cudw_line_row *r)
{
    if (r->context || r->function_offset)
        em_u64(e, "function_offset", NULL, 0, r->function_offset);
    if (r->merc_flag)
        em_u64(e, "merc_flag", NULL, 0, r->merc_flag);
}

/* What a table's rows are printed with (t NULL: rows of no table, as
 * ptx-lines --predict's may be) */
typedef struct ltab {
    cudw_file *f;
    const cudw_line_table *t;
    const lopts *o;
    int sass;                     /* a .nv_debug_line_sass table: rows point at PTX lines */
    const char *ptx_only;         /* its one PTX text when it names no file (file 0) */
    tinfo fn;                     /* the inlined functions, numbered by first use */
    json_memo sym, path, func;    /* JSON strings escaped once, copied row after row */
    const cudw_line_iter *it;     /* the text's: its rows kept, for the call sites (NULL: none) */
} ltab;

/* A row in the full form: --long's line, --json's object (ptx-lines
 * --predict's rows too) */
void row_full(emit *e, ltab *x, const cudw_line_row *r);
void ltab_free(ltab *x);

/* One table in the form o asks for: text (short, or --long), JSON (full,
 * or --compact); the style is e's.  0, -1 when a row did not decode, -2
 * out of memory. */
int lines_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, emit *e);

#endif
