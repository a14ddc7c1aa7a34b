/* cudwarf/symbolizer.h - Symbolizing: a SASS location -> source lines and inline call stack.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_SYMBOLIZER_H
#define CUDWARF_SYMBOLIZER_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

/* ------------------------------------------------------------------ */
/* Symbolizing: a SASS location -> source lines and inline call stack  */
/* ------------------------------------------------------------------ */

/* What profilers, sanitizers and debuggers ask millions of times: which
 * source line, in which inlined function, called from where, is the
 * instruction at SYMBOL+OFFSET of some image?
 *
 * A symbolizer opens any input (cubin, fatbin, host ELF, archive) and
 * builds, on first use of each image and once, an index: the function
 * symbols by name and address, every line row of .debug_line and (with
 * CUDW_SYM_PTX) .nv_debug_line_sass as sorted arrays with their inline
 * call sites, and the DW_TAG_inlined_subroutine tree of .debug_info as
 * sorted address ranges.  A lookup is then a hash probe and two binary
 * searches.
 *
 * Inline frames come from two sources: NVIDIA's inlined-call contexts in
 * the line table (-lineinfo code) and the DIEs' inlined subroutines (-G
 * code, whose line tables have none).  frames[0] is where the address is;
 * frames[k] is where frames[k-1]'s function was called, in frames[k]'s
 * function (for DIE frames: the callee's DW_AT_call_file/line/column).
 *
 * Images: without a chosen SM, the first image (in cudw_input order) with
 * a row for the location answers, and other_images counts the further
 * images that define the symbol (an executable built for several SMs
 * holds one cubin each).  cudw_symbolizer_opts.sm restricts the images;
 * an SM the input does not hold is an error of cudw_symbolizer_open.
 *
 * nvlink -arch=sm_90 leaves the .debug_str base word of every linked
 * -lineinfo line table at 0, so inlined-function names of all but the
 * first input point into other strings.  The symbolizer recovers each
 * table's base when exactly one base fits every name the table uses
 * (names_recovered), and otherwise leaves those names out (names_dropped)
 * rather than print one read from the middle of another string.
 *
 * Threads: once an image's index is built, any number of threads may
 * look up locations on one symbolizer at once; building is serialized
 * inside (the first lookup on an image builds it; cudw_symbolizer_prepare
 * builds every image up front). */
typedef struct cudw_symbolizer cudw_symbolizer;

#define CUDW_SYM_DEMANGLE 1u   /* frames get function_demangled (libiberty's demangler) */
#define CUDW_SYM_PTX 2u        /* results get the PTX line and its text (.nv_debug_line_sass) */

typedef struct cudw_symbolizer_opts {
    unsigned flags;            /* CUDW_SYM_* */
    unsigned sm;               /* only sm_N images; 0: all */
    char variant;              /* with sm: 'a', 'f' or 0 (sm_90a images are not sm_90 ones) */
    const char *debug_file;    /* the debug sections come from this strip --keep-debug
                                  companion (checked against each image's functions) */
} cudw_symbolizer_opts;

/* Like cudw_open: on failure *out still holds the error (close it), except
 * for CUDW_E_NOMEM.  opts may be NULL. */
int cudw_symbolizer_open(cudw_symbolizer **out, const char *path, const cudw_symbolizer_opts *opts);
/* A symbolizer over one cubin the caller has opened (cudw_open_mem of a
 * module CUPTI hands over in memory, say) and keeps open until
 * cudw_symbolizer_close; it has one image, labelled with the file's name. */
int cudw_symbolizer_open_file(cudw_symbolizer **out, cudw_file *f, unsigned flags);
const cudw_error *cudw_symbolizer_error(const cudw_symbolizer *s);
/* The ELF images it answers from (those of the chosen SM). */
size_t cudw_symbolizer_image_count(const cudw_symbolizer *s);
const cudw_input_image *cudw_symbolizer_image(const cudw_symbolizer *s, size_t i);
/* Build every image's index now (the lookups then never wait). */
int cudw_symbolizer_prepare(cudw_symbolizer *s);
/* Let image i go: its decoded bytes and index are freed, and the next
 * lookup in it builds them again.  For a walk over every image of a big
 * library (memory then stays one image); nothing from image i (frames'
 * strings, a correlation of it) may be in use, and no other thread may be
 * looking up in it.  A symbolizer of one image keeps it. */
void cudw_symbolizer_release(cudw_symbolizer *s, size_t i);
void cudw_symbolizer_close(cudw_symbolizer *s);

/* Where a frame's function name came from. */
enum { CUDW_FROM_SYMBOL = 1, CUDW_FROM_LINE_TABLE, CUDW_FROM_DIE };

typedef struct cudw_sym_frame {
    const char *function;           /* linkage (mangled) name; NULL when unknown */
    const char *function_demangled; /* CUDW_SYM_DEMANGLE: demangled, or the name itself */
    const char *file;               /* path; NULL when unknown */
    uint64_t line, column;
    int source;                     /* CUDW_FROM_*: what named the function */
} cudw_sym_frame;

typedef struct cudw_sym_result {
    int found;                  /* a line row covers the location */
    size_t image;               /* the image that answered, or (size_t)-1 */
    const char *image_label;    /* its label, or NULL */
    size_t other_images;        /* further images that define the symbol */
    const char *symbol;         /* the function symbol looked up (NULL for an address lookup) */
    uint64_t offset;            /* from the symbol's start */
    unsigned section;           /* the code section ... */
    uint64_t address;           /* ... and the address in it */
    size_t nframes;             /* frames of the stack (may exceed the caller's room); when
                                   found is 0, 1 where a function symbol covers the location
                                   (its frame has the function and no file) */
    int inline_source;          /* CUDW_FROM_LINE_TABLE or _DIE when inlined; 0 otherwise */
    int sources_disagree;       /* both sources have a chain here and they differ (the line table's is used) */
    int names_recovered;        /* an inlined name was read through a recovered .debug_str base */
    int names_dropped;          /* an inlined name is left out: its table's base cannot be recovered */
    /* CUDW_SYM_PTX */
    int has_ptx;                /* a .nv_debug_line_sass row covers it */
    const char *ptx_section;    /* the .nv_debug_ptx_txt section, or NULL */
    uint64_t ptx_line;
    const char *ptx_text;       /* the PTX line, or NULL */
} cudw_sym_result;

/* A function as people type it: its mangled name, the demangled signature
 * ("forces(float4*, int)", with or without the return type; spaces do not
 * matter), the name without parameters ("scale<double>", "ns::forces") or
 * the short name ("forces").  CUDW_OK: *mangled is the one function of the
 * selected images it names.  CUDW_E_ARG: it names several (the error lists
 * them); CUDW_E_NOT_FOUND: none (the error names the nearest).  The forms
 * are tried in that order; the first that matches decides.  cudw_symbolize
 * resolves a name no image defines this way. */
int cudw_symbolizer_resolve(cudw_symbolizer *s, const char *name, size_t len, const char **mangled);

/* Why r, what cudw_symbolize answered for symbol (len bytes; -1: NUL-
 * terminated), is not found, in words, into buf: no such function (with
 * the nearest names), several functions of that name, an offset past the
 * function's end, or no line row covering the location.  Returns the
 * CUDW_MISS_* it is (CUDW_MISS_NONE when r is found; buf is then ""). */
enum { CUDW_MISS_NONE = 0, CUDW_MISS_NO_FUNCTION, CUDW_MISS_AMBIGUOUS, CUDW_MISS_PAST_END, CUDW_MISS_NO_ROW };
int cudw_symbolize_why(cudw_symbolizer *s, const char *symbol, size_t len, const cudw_sym_result *r, char *buf,
                       size_t n);

/* "SYMBOL+0xOFF", "SYMBOL+OFF" (decimal), "SYMBOL": *symbol points into
 * text (*len bytes).  CUDW_E_ARG when text is not one of these. */
int cudw_location_parse(const char *text, const char **symbol, size_t *len, uint64_t *offset);

/* The location offset bytes into function symbol (len bytes; -1: up to
 * its NUL).  frames[0 .. min(nframes, cap)) are filled.  CUDW_OK whether
 * found or not (r->found); negative on a malformed image (the error is
 * on the symbolizer). */
int cudw_symbolize(cudw_symbolizer *s, const char *symbol, size_t len, uint64_t offset, cudw_sym_result *r,
                   cudw_sym_frame *frames, size_t cap);
/* The same for an address of code section `section` of image `image`
 * (numbered as the image numbers its sections -- the cubin as loaded,
 * stripped or not -- also when a debug companion answers). */
int cudw_symbolize_address(cudw_symbolizer *s, size_t image, unsigned section, uint64_t address,
                           cudw_sym_result *r, cudw_sym_frame *frames, size_t cap);

typedef struct cudw_sym_query {
    const char *symbol;         /* NUL-terminated */
    uint64_t offset;
} cudw_sym_query;
/* n lookups: results r[i], frames at frames + i * cap.  Stops at the first
 * error (returned); CUDW_OK otherwise. */
int cudw_symbolize_batch(cudw_symbolizer *s, const cudw_sym_query *q, size_t n, cudw_sym_result *r,
                         cudw_sym_frame *frames, size_t cap);

/* A C++ (Itanium ABI) name demangled into buf (NUL-terminated, truncated
 * to n); returns the length it needed, 0 when name is not mangled. */
size_t cudw_demangle(const char *name, char *buf, size_t n);

#endif /* CUDWARF_SYMBOLIZER_H */
