/* The symbolizer's index of one image (index.c builds the line part,
 * inline.c the DIE part; symbolizer.c looks locations up in it).
 *
 * Addresses are section-relative, as everywhere in a cubin (each function
 * has its code section at 0); a location is (code section, address).
 * Line rows and inline ranges are translated to that from whatever symbol
 * their relocation names (a function, a Mercury twin's symbol, a section
 * symbol). */
#ifndef CUDW_SYM_H
#define CUDW_SYM_H

#include "../internal.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct sym_func {        /* a FUNC symbol: a function's code */
    const char *name;
    const char *demangled;       /* CUDW_SYM_DEMANGLE */
    uint64_t value, size;
    uint32_t shndx;
} sym_func;

typedef struct sym_row {         /* one line row, 32 bytes */
    uint64_t addr;
    uint32_t line, column;
    uint32_t file;
    uint32_t site;               /* 1 + index of its call-site row, 0 when not inlined */
    uint32_t fn;                 /* 1 + index in names of the inlined function, 0 none */
    uint32_t seq;
} sym_row;

typedef struct sym_seq {         /* one sequence of a line table */
    const cudw_line_table *table;
    uint32_t shndx;
    uint64_t lo, hi;             /* [first row, end_sequence) */
    uint32_t first, count;       /* its rows */
    uint32_t *order;             /* rows by address when they do not ascend, else NULL */
    uint32_t index;              /* in emission order, to prefer the first of overlapping ones */
    uint32_t tindex;             /* its table's number in the section */
} sym_seq;

typedef struct sym_name {
    const char *name, *demangled;
} sym_name;

typedef struct sym_lines {       /* the index of one line section */
    const cudw_section *sec;
    sym_row *rows;
    size_t nrows;
    sym_seq *seqs;               /* sorted by (shndx, lo) */
    size_t nseqs;
    sym_name *names;             /* inlined functions */
    size_t nnames;
    int recovered, dropped;      /* a .debug_str base was recovered / could not be */
} sym_lines;

typedef struct sym_inl {         /* an inlined-subroutine DIE */
    const char *name, *demangled;
    const char *call_file;
    uint64_t call_line, call_column;
    int32_t parent;              /* enclosing inlined subroutine, -1: the function */
} sym_inl;

typedef struct sym_seg {         /* [lo, hi) of section shndx is innermost in node */
    uint32_t shndx;
    uint32_t node;
    uint64_t lo, hi;
} sym_seg;

typedef struct sym_image {
    size_t input;                /* index in the cudw_input */
    const cudw_input_image *info;
    cudw_image *img;
    cudw_file *f;                /* the image, or the debug companion */
    unsigned *sec_map;           /* with a companion: the image's section index -> f's (same name;
                                    UINT_MAX: none), nsec_map of them; NULL: f is the image */
    unsigned nsec_map;
    atomic_int state;            /* 0 not built, 1 built, -1 failed */
    cudw_error err;
    sym_func *funcs;             /* sorted by (shndx, value) */
    size_t nfuncs;
    struct sym_key {             /* function names, and the callee part of
                                    "$kernel$callee" where no symbol has it */
        const char *key;
        uint32_t len, func;      /* func: funcs index */
    } *names;
    size_t nnames;
    hmap by_name;                /* sym_hash of a key -> names index */
    uint32_t *sec_seqs;          /* lines[0].seqs of section s: [sec_seqs[s], sec_seqs[s + 1]) */
    unsigned nsec;
    sym_lines lines[2];          /* .debug_line, .nv_debug_line_sass */
    sym_inl *inl;
    size_t ninl;
    sym_seg *segs;               /* sorted by (shndx, lo), disjoint */
    size_t nsegs;
    arena mem;
} sym_image;

/* img's functions and their index by name (the first part of
 * sym_index_build). */
int sym_funcs_load(sym_image *img, unsigned flags);
/* Build img's index (the caller holds the symbolizer's lock); errors in
 * img->err. */
int sym_index_build(sym_image *img, unsigned flags);
/* Then the inline trees over it (inline.c, which reads the index: the
 * index needs nothing of it). */
int sym_inline_build(sym_image *img, unsigned flags);
void sym_index_free(sym_image *img);

/* The function named name (len bytes), or NULL. */
const sym_func *sym_func_named(const sym_image *img, const char *name, size_t len);
/* The FUNC symbol of section shndx holding addr, or NULL. */
const sym_func *sym_func_at(const sym_image *img, uint32_t shndx, uint64_t addr);
/* The index in img->f of the image's section `section` (the caller's
 * numbering: the cubin as loaded, stripped or not) */
unsigned sym_section_of(const sym_image *img, unsigned section);
/* The other way: the image's index of img->f's section shndx */
unsigned sym_section_back(const sym_image *img, unsigned shndx);
/* A demangled copy of name in img's memory, or name itself. */
const char *sym_demangled(sym_image *img, const char *name);

/* *p with room for element n (vec_room): 0, or -1 out of memory */
static inline int sym_grow(void **p, size_t *cap, size_t n, size_t size)
{
    void *q = vec_room(*p, cap, n, size, 64);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* Names are long (C++ templates: hundreds of bytes), so the hash takes
 * them 8 bytes at a time. */
static inline uint64_t sym_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

int sym_fail(sym_image *img, int code, const cudw_section *sec, uint64_t off, const char *what, const char *fmt, ...) CUDW_PRINTF(6, 7);

/* One line table while the index is built: its .debug_str base. */
typedef struct tinfo {
    const cudw_line_table *t;
    uint64_t base;
    int state;                /* 0: as stored, 1: recovered, 2: unknown */
    uint64_t *offs;           /* name offsets the table uses */
    size_t noffs, cap;
} tinfo;
/* Recover the base words nvlink left 0 (str_bases.c); states in ts. */
void sym_recover_bases(sym_lines *L, const sym_image *img, tinfo *ts, size_t n);

/* ---- the symbolizer handle (symbolizer.c builds, lookup.c answers) ---- */

typedef struct gname {         /* a FUNC name and an image that defines it */
    const char *name;
    uint32_t image;
    uint32_t next;             /* 1 + the next entry of the same name */
} gname;

struct cudw_symbolizer {
    cudw_input *in;            /* NULL for cudw_symbolizer_open_file */
    cudw_file *given;          /* ... whose file this is */
    cudw_input_image given_info;
    cudw_file *companion;
    unsigned flags;
    sym_image *images;         /* the selected ELF images */
    size_t nimages;
    pthread_mutex_t mu;
    atomic_int names_ready;    /* gnames built (inputs with several images) */
    gname *gnames;
    size_t ngnames;
    hmap gtab;                 /* name -> gnames index of its first entry */
    atomic_int aliases_ready;  /* names as people type them (names.c) */
    const char **anames;       /* each function name once */
    size_t nanames;
    struct alias *aliases;     /* demangled keys of anames */
    size_t naliases;
    hmap atab;                 /* key hash + tier -> aliases index */
    arena mem;
    cudw_error err;
};

int symbolizer_fail(cudw_symbolizer *s, int code, const char *what, const char *fmt, ...) CUDW_PRINTF(4, 5);
/* Index image x once (thread-safe); its error goes to s. */
int sym_ensure_image(cudw_symbolizer *s, sym_image *x);
/* Build, once, the table of which images define each FUNC name. */
int sym_ensure_names(cudw_symbolizer *s);
/* cudw_symbolizer_resolve without its message (no nearest names to look
 * for): CUDW_OK with *mangled, CUDW_E_ARG (several), CUDW_E_NOT_FOUND. */
int sym_resolve_quiet(cudw_symbolizer *s, const char *name, size_t len, const char **mangled);
/* The first entry for name (len bytes) in that table, or NULL. */
const gname *sym_gfind(const cudw_symbolizer *s, const char *name, size_t len);

#endif
