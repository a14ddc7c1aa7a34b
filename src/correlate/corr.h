/* The correlation of one image (correlate.c walks the instructions,
 * corr_cost.c charges them to lines, functions and files). */
#ifndef CUDW_CORRELATE_INTERNAL_H
#define CUDW_CORRELATE_INTERNAL_H

#include "../sym/sym.h"

typedef struct corr_costs {      /* one rollup: entries and their index */
    cudw_corr_cost *v;
    size_t n, cap;
    hmap idx;                    /* hash of (name, line) -> v index */
} corr_costs;

typedef struct corr_text {       /* what a cudw_corr_ptx needs besides itself */
    cudw_ptx *own;               /* read here (fatbin entry) */
    cudw_image *img;             /* the entry's bytes */
    uint64_t *starts;            /* PTX text: where each line starts, built on first use */
    uint64_t nstarts;
} corr_text;

struct cudw_correlation {
    cudw_symbolizer *s;
    sym_image *x;
    const sym_func *only;        /* opts->function's symbol, or NULL */
    cudw_corr_summary sum;
    cudw_corr_ptx *ptx;
    corr_text *text;
    size_t nptx, ptx_cap, text_cap;
    cudw_corr_insn *insns;
    size_t ninsns, insn_cap;
    struct corr_span { uint32_t first, n; } *span;  /* each instruction's frames */
    size_t span_cap;
    cudw_sym_frame *frames;
    size_t nframes, frame_cap;
    corr_costs lines, funcs, files;
    cudw_corr_line_fn *linefns;  /* (line, function) pairs, by line then bytes */
    size_t nlinefns;
    size_t *linefn_first;        /* line i's pairs: [first[i], first[i + 1]) */
    cudw_corr_caller *callers;   /* (line, call site) pairs, by line then bytes */
    size_t *caller_first;        /* line i's: [first[i], first[i + 1]) */
};

int corr_fail(cudw_correlation *c, int code, const char *what, const char *fmt, ...) CUDW_PRINTF(4, 5);
/* Charge instruction i (its frames are in place) to its line, function
 * and file; sets its line index.  0, or CUDW_E_NOMEM. */
int corr_charge(cudw_correlation *c, size_t i);
/* PTX instructions per line (from the .locs, or SASS's PTX lines), then
 * the rollups sorted and the instructions' line indexes renumbered. */
int corr_finish(cudw_correlation *c);
void corr_costs_free(corr_costs *k);

#endif
