/* The debug linker's model, shared by its files (never installed).
 *
 * An output section is a list of fragments, one per input contribution,
 * pointing into the inputs' mappings; a fragment is copied only when a
 * patch lands in it.  Relocations kept for the output refer to symbols
 * interned in one of two tables: .symtab (0) and .nv.merc.symtab (1). */
#ifndef CUDW_LINK_H
#define CUDW_LINK_H

#include "../internal.h"

typedef struct frag {
    const uint8_t *p;     /* input bytes */
    uint8_t *cow;         /* the patched copy, or NULL */
    uint64_t at;          /* offset in the output section */
    size_t n;
    unsigned input, isec; /* where it came from */
    int owned;            /* p is ours to free (a rebuilt fragment) */
} frag;

typedef struct orel {
    uint64_t offset;
    uint32_t type;
    uint32_t sym;         /* intern index in the section's table */
    int64_t addend;
    int target;           /* osec the addend is an offset into (section symbols), or -1 */
} orel;

/* A section offset written in place of a relocation: kept so that
 * --dedup-strings can rewrite it when its target section is rebuilt. */
typedef struct patchrec {
    int osec;
    uint64_t off;
    unsigned width;
    int target;
    uint64_t value;
} patchrec;

enum { REL_REL = 0, REL_RELA = 1, REL_MERC = 2 };

typedef struct osec {
    char *name;
    uint32_t type;        /* SHT_PROGBITS, SHT_NOBITS */
    uint64_t flags, align;
    uint64_t size;
    int kind;             /* CUDW_SEC_*; 0 for a placeholder */
    int mercury;
    int placeholder;      /* the section of a symbol: SHT_NOBITS, no contents */
    frag *frags;
    size_t nfrags, cfrags;
    orel *rel[3];
    size_t nrel[3], crel[3];
    int alias;            /* output bytes shared with this osec, or -1 */
} osec;

typedef struct osym {
    const char *name;
    uint8_t info, other;
    int sec;              /* osec index; -1 undefined; -2 absolute */
    uint64_t value, size;
    int input;            /* LOCAL: the input it came from; -1 otherwise */
} osym;

typedef struct symtab {
    osym *v;
    size_t n, cap;
    hmap idx;             /* (name, input) -> index */
} symtab;

/* name -> value of a symbol table (the --symbols file) */
typedef struct code_sym {
    const char *name;
    uint64_t value;
    uint8_t dup;          /* 1: the name is defined more than once, apart */
} code_sym;

typedef struct namemap {
    code_sym *v;
    size_t n, cap;
    hmap idx;             /* name -> index */
} namemap;

struct cudw_link {
    cudw_file *const *in;
    size_t nin;
    cudw_link_opts opts;
    unsigned sm;
    int gate;             /* Mercury sections accepted */
    osec *secs;
    size_t nsecs, csecs;
    hmap sec_idx;         /* name -> osec index */
    uint32_t ***symcache[2]; /* [table][input][symtab section] -> per symbol: intern index + 1 */
    symtab tab[2];
    int **osec_of;        /* [input][section index] -> osec or -1 */
    uint64_t **base_of;   /* [input][section index] -> offset of its bytes in the osec */
    namemap code;         /* symbols of opts.symbols */
    int debug_shared_vars; /* opts.symbols has a variable in .nv_debug.shared */
    cudw_link_stats st;
    patchrec *patches;
    size_t npatches, cpatches;
    char **notes;
    size_t nnotes, cnotes;
    cudw_error err;
    int err_input;
    /* emission */
    ew_file ew;
    ew_frag *efrags;
    wbuf strtab, symbytes[2], *relbytes;
    size_t nrelbytes;
    uint32_t *remap[2];   /* intern index -> final symbol index */
};

int link_fail(cudw_link *L, int input, int code, const cudw_section *sec, uint64_t off, const char *what,
              const char *fmt, ...) CUDW_PRINTF(7, 8);
/* Copy the input handle's error into L. */
int link_fail_from(cudw_link *L, int input, int rc);
int link_note(cudw_link *L, const char *fmt, ...) CUDW_PRINTF(2, 3);
/* Free what the model holds (sections, fragments, patches, notes); L itself stays. */
void link_free_model(cudw_link *L);

int link_osec_find(cudw_link *L, const char *name);
int link_osec_add(cudw_link *L, const char *name, uint32_t type, uint64_t flags, uint64_t align);
void link_patch(cudw_link *L, int osec_i, uint64_t off, uint64_t v, unsigned width);
uint64_t link_read(const cudw_link *L, int osec_i, uint64_t off, unsigned width);
int link_keep(cudw_link *L, int osec_i, int kind, uint64_t off, uint32_t type, uint32_t sym, int64_t addend,
              int target);
/* Append n bytes of input section isec of input input to s; -1 on OOM. */
int link_add_frag(osec *s, const uint8_t *p, size_t n, unsigned input, unsigned isec);
frag *link_frag_at(const osec *s, uint64_t off);

/* link_syms.c */
int link_intern_reloc_sym(cudw_link *L, int table, size_t input, const cudw_reloc *r, uint32_t *out);
int link_intern_section_sym(cudw_link *L, int table, int osec_i, uint32_t *out);
int link_add_symbols(cudw_link *L);
int link_code_symbols(cudw_link *L);
int link_code_lookup(const cudw_link *L, const char *name, uint64_t *value);
void link_syms_free(cudw_link *L);

/* link_emit.c */
int link_build_elf(cudw_link *L);
void link_emit_free(cudw_link *L);

/* link_strings.c */
int link_dedup_strings(cudw_link *L);

#endif
