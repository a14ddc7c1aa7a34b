/* cudwarf/ptx.h - PTX text and ptxas's first stage: `.loc` directives to line tables.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare).
 *
 * ptxas reads the source mapping of a PTX file from its directives alone
 * (docs/ptx-lines.md):
 *
 *     .file 1 "/src/k.cu"[, MTIME, SIZE]
 *     .entry k(...)
 *     {                                  <- the function's "{" line
 *         .loc 1 17 5                    <- in effect for what follows
 *         .loc 1 3 9, function_name $L__info_string0+4, inlined_at 1 17 5
 *         mul.f32 %f3, %f2, %f1;         <- an instruction line
 *     }
 *     .section .debug_str { $L__info_string0: .b8 95,90,... }
 *
 * `inlined_at F L C` names the most recent earlier `.loc F L C` (a
 * directive instance, not a value: two calls on one line are two
 * contexts).  `function_name LABEL+IMM` is the .debug_str offset of the
 * label plus IMM.  With a cubin, cudw_ptx_predict writes the .debug_line
 * ptxas writes from those and the cubin's .nv_debug_line_sass. */
#ifndef CUDWARF_PTX_H
#define CUDWARF_PTX_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

typedef struct cudw_ptx cudw_ptx;

/* Where a PTX problem is: what ptxas rejects is the error of
 * cudw_ptx_read; what it accepts but gets wrong is a warning. */
typedef struct cudw_ptx_diag {
    int code;            /* CUDW_E_* (warnings: 0) */
    uint64_t line;       /* 1-based PTX line, 0 for the file itself */
    uint64_t column;     /* 1-based, 0 when the whole line */
    char text[200];
} cudw_ptx_diag;

typedef struct cudw_ptx_file {
    uint64_t number;     /* as written: ptxas copies .loc file numbers verbatim */
    const char *path;
    uint64_t mtime, size;
    uint8_t has_stamp;   /* the directive gave mtime and size */
    uint64_t ptx_line;
} cudw_ptx_file;

typedef struct cudw_ptx_loc {
    uint64_t ptx_line;        /* of the directive */
    uint64_t file, line, column;
    const char *label;        /* function_name LABEL, NULL without one */
    uint64_t label_imm;       /* its +IMM */
    uint64_t function_offset; /* .debug_str offset of LABEL, plus IMM (IMM alone
                                 when the label is not in the .debug_str table) */
    const char *name;         /* the string there (the inlined function's
                                 mangled name), or NULL */
    size_t inlined_at;        /* 1-based index of the .loc it was inlined at; 0: none */
    size_t function;          /* 0-based index of the PTX function it is in */
} cudw_ptx_loc;

typedef struct cudw_ptx_func {
    const char *name;
    uint8_t entry;            /* .entry (a kernel), else .func */
    uint64_t header_line, brace_line, end_line;
    size_t first_loc;         /* 1-based index of its first .loc, 0: none */
    size_t nlocs;
} cudw_ptx_func;

/* Read PTX text (data, size bytes: the caller keeps it alive until
 * cudw_ptx_close) named name in messages.  On success *out is the handle;
 * on failure the return is negative and *out (unless NULL after
 * CUDW_E_NOMEM) still holds the error: cudw_ptx_error.  Either way, close
 * it.  Memory follows what the directives hold, not the text's size. */
int cudw_ptx_read(const char *data, size_t size, const char *name, cudw_ptx **out);
/* The same from a file, mapped. */
int cudw_ptx_open(const char *path, cudw_ptx **out);
void cudw_ptx_close(cudw_ptx *p);
const cudw_ptx_diag *cudw_ptx_error(const cudw_ptx *p);
const char *cudw_ptx_name(const cudw_ptx *p);

size_t cudw_ptx_text_lines(const cudw_ptx *p);
size_t cudw_ptx_file_count(const cudw_ptx *p);
const cudw_ptx_file *cudw_ptx_file_get(const cudw_ptx *p, size_t i);     /* 0-based; NULL past the end */
size_t cudw_ptx_loc_count(const cudw_ptx *p);
const cudw_ptx_loc *cudw_ptx_loc_get(const cudw_ptx *p, size_t index);   /* 1-based; NULL outside */
size_t cudw_ptx_func_count(const cudw_ptx *p);
const cudw_ptx_func *cudw_ptx_func_get(const cudw_ptx *p, size_t i);     /* 0-based */
size_t cudw_ptx_warning_count(const cudw_ptx *p);
const cudw_ptx_diag *cudw_ptx_warning_get(const cudw_ptx *p, size_t i);
/* The file entry a .loc's number names, or NULL (undeclared). */
const cudw_ptx_file *cudw_ptx_file_find(const cudw_ptx *p, uint64_t number);

/* What PTX line `line` is. */
enum { CUDW_PTX_OUTSIDE = 0, /* not in a function body */
       CUDW_PTX_BRACE = 1,   /* the function's "{" line */
       CUDW_PTX_BODY = 2 };  /* inside the body */
typedef struct cudw_ptx_where {
    int kind;
    size_t function;          /* 0-based, when kind != CUDW_PTX_OUTSIDE */
    size_t loc;               /* 1-based index of the .loc in effect: the last
                                 one before the line in its function; 0: none */
} cudw_ptx_where;
void cudw_ptx_where_is(const cudw_ptx *p, uint64_t line, cudw_ptx_where *out);

/* The instruction lines of the bodies, in order: neither blank, a
 * comment, a label, a brace, nor a directive.  The caller keeps the walk
 * (zeroed to start); CUDW_DONE after the last. */
typedef struct cudw_ptx_insn {
    uint64_t line;
    const char *text;         /* into the PTX, without leading blanks ... */
    size_t len;               /* ... up to the line's end */
    size_t function, loc;     /* as cudw_ptx_where_is */
} cudw_ptx_insn;
typedef struct cudw_ptx_walk {
    uint64_t pos, line;       /* where the next line starts, and its number - 1 */
    size_t function, loc;     /* the library's; read none of them */
} cudw_ptx_walk;
int cudw_ptx_insn_next(const cudw_ptx *p, cudw_ptx_walk *w, cudw_ptx_insn *out);

/* ------------------------------------------------------------------ */
/* Stage 1: the line section ptxas writes                              */
/* ------------------------------------------------------------------ */

/* Check that p is the PTX f was made from: its lines against the
 * .nv_debug_ptx_txt that ptx_section names (NULL: the file's only one),
 * compared as ptxas stores them (leading blanks dropped; .loc, .file,
 * comment lines and .b8/.b32/.b64 data emptied), a run of blanks as one
 * blank and without "//" comments (the PTX entries nvcc puts in fatbins
 * collapse and drop those).  CUDW_OK, or
 * CUDW_E_NOT_FOUND with *line the first line that differs (0: the
 * section is missing; the error on f says which). */
int cudw_ptx_matches(cudw_file *f, const cudw_ptx *p, const cudw_section *ptx_section, uint64_t *line);

typedef struct cudw_ptx_prediction {
    cudw_line_op *ops;        /* the opcodes ptxas writes, in its order (the
                                 input of cudw_line_encode_ops); malloc'd */
    size_t nops;
    cudw_line_row *rows;      /* the rows they make, numbered as ptxas counts
                                 (context and index); malloc'd */
    size_t nrows;
    cudw_line_out unit;       /* the encoded unit and its relocation sites */
    const cudw_line_table *table; /* f's own table of that section (its header
                                 is the prediction's), or NULL */
    const cudw_section *line_sass; /* the .nv_debug_line_sass it was made from */
} cudw_ptx_prediction;

/* The line section (".debug_line" or ".nv.merc.debug_line") ptxas writes
 * for f from p's .locs and f's .nv_debug_line_sass (or its Mercury twin):
 * rows, then the unit encoded with f's own table's header.  Errors (a
 * missing section, rows naming lines p does not have) are on f. */
int cudw_ptx_predict(cudw_file *f, const cudw_ptx *p, const char *section, cudw_ptx_prediction *out);
void cudw_ptx_prediction_free(cudw_ptx_prediction *pr);

/* How f's own section compares with a prediction (verify --ptx): the
 * first opcode and the first row where they part. */
typedef struct cudw_ptx_diff {
    int identical;            /* byte for byte (the section is what ptxas writes) */
    int has_table;            /* f has the section (else nothing below is set) */
    size_t op;                /* the first opcode that differs (its index; nops
                                 when every opcode agrees and only bytes differ) */
    int has_own_op, has_predicted_op; /* 0: that side ran out there */
    cudw_line_op own_op, predicted_op;
    size_t row;               /* the first row that differs (0-based; SIZE_MAX:
                                 the rows agree, only their opcodes do not) */
    int has_own_row, has_predicted_row;
    cudw_line_row own_row, predicted_row;
} cudw_ptx_diff;

/* Compare f's table of pr's section with pr.  CUDW_OK, or a decoding
 * error of f's table (on f). */
int cudw_ptx_compare(cudw_file *f, const cudw_ptx_prediction *pr, cudw_ptx_diff *out);

/* The line-table header ptxas builds from p's .file directives (in
 * order, unused ones kept): the path split at its last '/', mtime and
 * size from the directive, else from stat(2) of the path, else 0.  As
 * cudw_line_header_from_paths (free the same way). */
int cudw_ptx_header(const cudw_ptx *p, char ***dirs, size_t *ndirs, cudw_line_file **files, size_t *nfiles);

#endif /* CUDWARF_PTX_H */
