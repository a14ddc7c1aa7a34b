/* cudwarf/correlate.h - Source <-> PTX <-> SASS: one image, instruction by instruction.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare).
 *
 * A correlation walks every SASS instruction of one device image and puts
 * side by side what the image and its PTX say about it:
 *
 *     SASS  .text.k+0x1a0 ──.nv_debug_line_sass──> PTX line 412
 *                         ──.debug_line─────────> clampv:3 <- smooth:7 <- k:14
 *     PTX   line 412 ──its .loc (and inlined_at)─> clampv:3 <- smooth:7 <- k:14
 *
 * The frames are the symbolizer's (what debuggers and profilers see); the
 * .loc chain comes from the PTX when its text still has the directives
 * (a PTX file, or the fatbin's PTX entry); where the two differ the
 * instruction says why (CUDW_CORR_*: the cases where ptxas's table drops
 * what the PTX says, docs/ptx-lines.md).  Then every instruction is
 * charged to a source line (the innermost frame: exclusive; every frame of
 * its chain: inclusive), a function and a file, so that the SASS bytes of
 * the source lines add up to the image's SASS bytes ("no line" takes the
 * instructions no row covers).
 *
 * PTX text, per .nv_debug_ptx_txt section of the image, in this order: the
 * caller's PTX (opts->ptx) when its lines are that section's; a PTX entry
 * of the image's fatbin for the same SM whose lines are (whitespace
 * collapsed, as nvcc stores it); the section itself (no directives:
 * frames only, no .loc chains). */
#ifndef CUDWARF_CORRELATE_H
#define CUDWARF_CORRELATE_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

typedef struct cudw_correlation cudw_correlation;

enum { CUDW_PTX_FROM_FILE = 1,     /* the caller's PTX (cudwarf correlate --ptx) */
       CUDW_PTX_FROM_FATBIN = 2,   /* a PTX entry of the container the image is in */
       CUDW_PTX_FROM_SECTION = 3 };/* .nv_debug_ptx_txt: directives emptied */

typedef struct cudw_corr_ptx {
    int from;                      /* CUDW_PTX_FROM_* */
    const char *name;              /* the PTX's name, the entry's label, or the section's name */
    const cudw_section *section;   /* the .nv_debug_ptx_txt it stands for */
    const cudw_ptx *ptx;           /* FILE and FATBIN: the PTX read; SECTION: NULL */
    uint64_t lines;
} cudw_corr_ptx;

/* Why an instruction's .loc chain is not its .debug_line frames. */
enum {
    CUDW_CORR_AGREE = 0,       /* they agree, or there is no .loc to compare */
    CUDW_CORR_LINE_ZERO,       /* a line-0 .loc: ptxas writes nothing for it */
    CUDW_CORR_BRACE,           /* the PTX line is the function's "{" (its entry row) */
    CUDW_CORR_NAME,            /* same lines, another inlined function name (a sticky 0x90 name) */
    CUDW_CORR_CONTEXT,         /* same line, other inline context: no row without a line change */
    CUDW_CORR_FILE,            /* same line number, other file: no row either */
    CUDW_CORR_NO_ROW,          /* the .loc says a line; no .debug_line row covers the address */
    CUDW_CORR_OTHER
};
/* "line-0 .loc", "function brace line", "sticky name", "context change
 * without a line change", "file change on the same line", "no row",
 * "other"; NULL for CUDW_CORR_AGREE and beyond. */
const char *cudw_corr_reason_name(int reason);
/* The same in a plain sentence, for people ("the PTX's .loc gives line 0
 * (no source line); ptxas writes no row for it, ..."). */
const char *cudw_corr_reason_text(int reason);

typedef struct cudw_corr_insn {
    unsigned section;          /* code section ... */
    const char *section_name;  /* ... and its name */
    uint64_t pc;               /* address in it */
    const char *symbol;        /* the code section's own function symbol (what a
                                  line row's DW_LNE_set_address names), else the
                                  FUNC symbol holding it, else NULL */
    uint64_t offset;           /* from that symbol's start */
    const char *func;          /* the FUNC symbol holding it: symbol, or a callee
                                  ptxas placed in the section ("$kernel$callee") */
    uint64_t func_offset;
    uint32_t size;             /* bytes: 16 (8 before sm_70) */
    const uint8_t *bytes;      /* the instruction word, in the image; NULL when not stored */
    uint64_t ptx_line;         /* .nv_debug_line_sass; 0 when no row covers it */
    size_t ptx;                /* which cudw_corr_ptx (with ptx_line), or
                                  CUDW_CORR_NO_TEXT: the image lacks the PTX section */
    size_t line;               /* its cudw_corr_line (exclusive): the innermost frame's */
    size_t loc;                /* the .loc in effect at ptx_line (1-based, cudw_ptx_loc_get
                                  of its PTX); 0: none known */
    int reason;                /* CUDW_CORR_*: where that .loc's chain is not the frames */
} cudw_corr_insn;

#define CUDW_CORR_NO_TEXT ((size_t)-1)

/* What a source line, a function or a file costs.  Exclusive: the
 * instructions whose innermost frame it is; inclusive: those with it
 * anywhere in their chain (once per instruction). */
typedef struct cudw_corr_cost {
    const char *name;          /* path (lines, files) or function; NULL: "no line" */
    uint64_t line;             /* lines only; 0 with name NULL */
    uint64_t sass_bytes, sass_bytes_inclusive;
    uint64_t sass_instructions, sass_instructions_inclusive;
    uint64_t ptx_instructions; /* PTX instructions whose .loc is this line, or (PTX
                                  without directives) distinct PTX lines of its SASS */
} cudw_corr_cost;

typedef struct cudw_corr_summary {
    const char *image;         /* the image's label */
    unsigned sm;
    uint64_t code_bytes;       /* what `cudwarf size` counts as code ... */
    uint64_t sass_bytes;       /* ... SASS in .text.* (what the lines add up to;
                                  with opts->function, that function's bytes) ... */
    uint64_t capsule_bytes;    /* ... and sm_100+ Mercury capsules, which are not SASS */
    uint64_t instructions, with_ptx, with_line, disagree;
    int ptx_by_loc;            /* ptx_instructions count .locs (else SASS's PTX lines) */
} cudw_corr_summary;

typedef struct cudw_correlate_opts {
    const cudw_ptx *ptx;       /* the caller's PTX, or NULL (kept open until the free) */
    const char *function;      /* only this function symbol (linkage or demangled name); NULL: all */
    unsigned flags;            /* CUDW_CORR_NO_FATBIN_PTX */
} cudw_correlate_opts;
#define CUDW_CORR_NO_FATBIN_PTX 1u /* do not look for the fatbin's PTX entry */

/* Correlate image `image` of s, which must be open with CUDW_SYM_PTX.
 * Errors (a malformed image, the caller's PTX matching none of the
 * image's PTX sections, an unknown function) are on s; *out is NULL then. */
int cudw_correlate(cudw_symbolizer *s, size_t image, const cudw_correlate_opts *opts, cudw_correlation **out);
void cudw_correlation_close(cudw_correlation *c);
void cudw_correlation_free(cudw_correlation *c); /* its name in 0.1 */

const cudw_corr_summary *cudw_corr_summary_get(const cudw_correlation *c);
size_t cudw_corr_ptx_count(const cudw_correlation *c);
const cudw_corr_ptx *cudw_corr_ptx_get(const cudw_correlation *c, size_t i);
/* PTX line `line` (1-based) of text i: *text, *len (no NUL guaranteed).
 * CUDW_DONE past the end. */
int cudw_corr_ptx_line(cudw_correlation *c, size_t i, uint64_t line, const char **text, size_t *len);

/* The instructions, in (section, address) order. */
size_t cudw_corr_insn_count(const cudw_correlation *c);
const cudw_corr_insn *cudw_corr_insn_get(const cudw_correlation *c, size_t i);
/* Instruction i's frames, innermost first (cudw_symbolize_address's), *n of them. */
const cudw_sym_frame *cudw_corr_frames(const cudw_correlation *c, size_t i, size_t *n);

/* Source lines sorted by (path, line), "no line" (name NULL) last;
 * functions and files by name, "no line" last. */
size_t cudw_corr_line_count(const cudw_correlation *c);
const cudw_corr_cost *cudw_corr_line_get(const cudw_correlation *c, size_t i);
size_t cudw_corr_function_count(const cudw_correlation *c);
const cudw_corr_cost *cudw_corr_function_get(const cudw_correlation *c, size_t i);
size_t cudw_corr_file_count(const cudw_correlation *c);
const cudw_corr_cost *cudw_corr_file_get(const cudw_correlation *c, size_t i);

/* The functions with code on source line i (cudw_corr_line_get's index):
 * each with the exclusive SASS of that line in it, most bytes first.  A
 * line of a template two instantiations share lists both.  *out points
 * into the correlation; returns how many. */
typedef struct cudw_corr_line_fn {
    const char *function;      /* the innermost frame's function (linkage name) */
    uint64_t sass_bytes, sass_instructions;
} cudw_corr_line_fn;
size_t cudw_corr_line_functions(const cudw_correlation *c, size_t i, const cudw_corr_line_fn **out);

/* Where line i's code was inlined from: each direct call site (the
 * caller's file, line and function: two instantiations of a template
 * calling it from one line are two sites) with the exclusive SASS of line
 * i inlined there, most bytes first.  Built once with the correlation,
 * linear in its instructions. */
typedef struct cudw_corr_caller {
    const char *file;          /* the call's path */
    uint64_t line;
    const char *function;      /* the calling function (linkage name), or NULL */
    uint64_t sass_bytes, sass_instructions;
} cudw_corr_caller;
size_t cudw_corr_line_callers(const cudw_correlation *c, size_t i, const cudw_corr_caller **out);

#endif /* CUDWARF_CORRELATE_H */
