/* The PTX handle (cudwarf/ptx.h), shared by the reader and its queries. */
#ifndef CUDW_PTX_HANDLE_H
#define CUDW_PTX_HANDLE_H

#include "internal.h"

/* a function_name label: where the .debug_str section defines it */
typedef struct ptx_label {
    const char *name;
    size_t len;
    uint64_t offset;
    uint8_t defined, warned;
} ptx_label;

struct cudw_ptx {
    const char *data;     /* the text (the caller's, or map) */
    size_t size;
    void *map;            /* cudw_ptx_open's mapping */
    size_t map_size;
    const char *name;
    size_t nlines;
    cudw_ptx_file *files;
    size_t nfiles, capfiles;
    cudw_ptx_loc *locs;   /* in text order */
    size_t nlocs, caplocs;
    uint32_t *loc_label;  /* while reading: each .loc's label (UINT32_MAX: none) */
    size_t caploclabel;
    cudw_ptx_func *funcs; /* in text order */
    size_t nfuncs, capfuncs;
    cudw_ptx_diag *warns;
    size_t nwarns, capwarns;
    uint8_t *str;         /* the .debug_str section's bytes */
    size_t nstr, capstr;
    ptx_label *labels;
    size_t nlabels, caplabels;
    hmap label_index;     /* labels by name (while reading) */
    hmap key_index;       /* the latest .loc of each F L C (while reading) */
    int in_comment;       /* inside a block comment */
    cudw_ptx_diag err;
    arena mem;            /* names, paths, labels */
};

/* Which table is written: three dialects of one mechanism (docs/ptx-lines.md). */
typedef enum ptx_dialect {
    PTXD_IMMEDIATE, /* sm_75/80 .debug_line: each .loc's rows at once */
    PTXD_DELAYED,   /* sm_90+ .debug_line: context rows delayed one .loc */
    PTXD_MERCURY,   /* sm_100+ .nv.merc.debug_line: at once, entries flagged 0x92 */
} ptx_dialect;

/* The rows ptxas writes in `dialect` from p and the SASS -> PTX table sass
 * (stage1/model.c); off: behaviours switched off (1 << B_*, stage1/gen.h), 0 but
 * in the unit tests that show what each one does. */
int ptx_gen_run(cudw_file *f, const cudw_ptx *p, const cudw_line_table *sass, ptx_dialect dialect,
                uint64_t off, const cudw_line_params *prm, line_wrow **rows, size_t *nrows);

/* cudw_ptx_predict with behaviours switched off (the unit tests). */
int ptx_predict_with(cudw_file *f, const cudw_ptx *p, const char *section, uint64_t off, cudw_ptx_prediction *out);

#endif
