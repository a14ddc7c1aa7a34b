/* The state of ptxas's stage-1 generator while it walks one line table
 * (src/ptx/ptx_lines.c), and the row and opcode primitives it writes with
 * (src/ptx/ptx_rows.c).  Internal. */
#ifndef CUDW_PTX_GEN_H
#define CUDW_PTX_GEN_H
#include "internal.h"
#include "ptx/ptx.h"

typedef struct gen {
    const cudw_ptx *p;
    int defer, merc;
    const cudw_line_params *prm; /* of the table written: the special opcodes */
    cudw_line_row *rows;
    size_t nrows, cap;
    cudw_line_row proto; /* symbol of the sequence */
    uint64_t n;          /* rows counted in context numbers */
    size_t seq_first;    /* rows[seq_first..nrows): this sequence's */
    int has_line;
    uint64_t line, file, dfile;
    int has_addr;
    uint64_t addr, pc;
    int has_pc;
    uint64_t dctx, dfn, own_ctx;
    uint64_t nz_ctx, nz_fn; /* the last inlined context a row or 0x90 went out in (0: none yet) */
    size_t lin;          /* the inlined_at of the last .loc taken, written or not */
    size_t xh;           /* 1 + the row index of a lone advance that may become a row (r1.cu) */
    int xsilent;         /* ... written after a .loc's own row: gone if a context row takes its place */
    size_t xprov;        /* 1 + the row index of such an advance made provisional */
    size_t xadv;         /* 1 + the row index of the last such advance (rule 15's second .loc: rich16.cu) */
    size_t start_lin;    /* rule 12: the context of the sequence's first .loc, while the .locs stay in it */
    uint64_t start_f;    /* ... and that .loc's name */
    int leaf_last;       /* the last row is a .loc's own, not an entry's or its contexts' */
    size_t leaf_L;       /* ... that .loc */
    uint32_t *taken_gen; /* per .loc: in effect for an instruction of this sequence */
    int name_cmp;        /* a 0x90 went out dead in the context in effect: names count too (g31.cu) */
    int owed_sel;        /* the pending 0x90 was chosen by an owed row's context (rule 10) */
    int name_turned;     /* ... and replaced by the next context's: the .loc's own row keeps that */
    int want_set, force;
    int cfirst;          /* a context row another context shares was just taken: the next 0x90 goes before its set_file */
    int flag_open;       /* Mercury: an entry row (0x92 1) at flag_addr was the last SASS row's */
    uint64_t flag_addr;
    int file_first;      /* ... and this SASS row is at another address: its row's set_file before the 0x92 0 (rule 14) */
    int soft;            /* the pending 0x90 was chosen by a .loc that wrote nothing (rule 9) */
    int sticky;          /* ... by a deferred .loc's contexts being written: it goes out even if replaced (rule 7) */
    uint64_t want_c, want_f;
    uint64_t want_file;  /* sm_75/80, Mercury: the file of the .loc that made that 0x90 sticky (0: none) */
    uint64_t enc_line, enc_file; /* of the last row written */
    int stale;           /* ptxas believes the file is `believed`, not enc_file */
    uint64_t believed;
    uint64_t ctx_believed; /* an entry on the state line: a context row of this file next gets no set_file (0: none) */
    uint64_t *reg;       /* per .loc: its context row, valid when reg_gen matches */
    uint32_t *reg_gen;
    uint32_t *logical_gen; /* per .loc: left unwritten, its row owed (rule 10) */
    uint64_t *cap_f;       /* ... and the name that row will carry */
    size_t *owed_by;       /* ... and the .loc whose step left it owed */
    size_t step;           /* the .loc being taken */
    uint32_t *nofile_gen; /* per .loc: a line-0 .loc of another file inlined at it came first (rule 8) */
    uint32_t gen;
    size_t claimed;      /* the owed start context a later row took (rule 12), while it stands */
    /* rule 7's deferral (ptx_defer.c) */
    size_t pending;      /* the deferred .loc the next .loc inlined in it takes */
    size_t held;         /* ... kept through .locs that write nothing */
    int held_strict;     /* ... all of them with their contexts written */
    size_t keep;         /* the pending .loc a revisit leaves pending */
    size_t chg;          /* the last deferred .loc that selected another context (rule 9) */
    size_t *chain;       /* ensure's work list */
    size_t capchain;
} gen;

/* The entries of a sequence: its start, and the functions ptxas placed
 * in its section (FUNC symbols there); each is an entry once. */
typedef struct entries {
    const func_start *v; /* ascending */
    size_t n;
    uint8_t *seen;       /* per v */
    size_t capseen;
    uint64_t start;
    int start_seen;
} entries;

static inline const cudw_ptx_loc *LOC(const gen *g, size_t i) { return &g->p->locs[i - 1]; }
static inline uint64_t fn_of(const gen *g, size_t L, uint64_t ctx) { return LOC(g, L)->label && ctx ? LOC(g, L)->function_offset : 0; }
static inline int registered(const gen *g, size_t L) { return g->reg_gen[L - 1] == g->gen; }
static inline int same_flc(const cudw_ptx_loc *a, const cudw_ptx_loc *b)
{
    return a->file == b->file && a->line == b->line && a->column == b->column;
}
/* x's context row is row n; another instance of what a later row took
 * (rule 12) being a context row undoes that (rnd56.cu) */
static inline void set_reg(gen *g, size_t x, uint64_t n)
{
    if (g->claimed && x != g->claimed && same_flc(&g->p->locs[x - 1], &g->p->locs[g->claimed - 1])) {
        g->reg_gen[g->claimed - 1] = 0;
        g->claimed = 0;
    }
    g->reg_gen[x - 1] = g->gen;
    g->reg[x - 1] = n;
}
static inline uint64_t wctx(const gen *g) { return g->want_set ? g->want_c : g->dctx; }
static inline uint64_t wfn(const gen *g) { return g->want_set ? g->want_f : g->dfn; }
/* Whether a context not written yet, at x or above, is not owed either. */
static inline int fresh_above(const gen *g, size_t x)
{
    for (; x && !registered(g, x); x = LOC(g, x)->inlined_at)
        if (g->logical_gen[x - 1] != g->gen)
            return 1;
    return 0;
}

/* Rule 15 takes a same-line .loc of another file out of rule 7 only when
 * its unwritten contexts on its line reach the top (rnd3.cu's k1) and
 * none of them was in effect for an instruction of the sequence already
 * (rnd3.cu's k0, rich10.cu, rich12.cu). */
static inline int xfile_run(const gen *g, const cudw_ptx_loc *L)
{
    size_t x = L->inlined_at;
    for (; x && !registered(g, x) && LOC(g, x)->line == L->line; x = LOC(g, x)->inlined_at)
        if (g->taken_gen[x - 1] == g->gen)
            return 0;
    return !x;
}

cudw_line_row *ptxg_push(gen *g);
void ptxg_flush(gen *g);
int ptxg_row(gen *g, uint64_t a, uint64_t file, uint64_t line, uint8_t merc_flag);
int ptxg_hidden(gen *g, uint64_t a, uint64_t file);
int ptxg_want(gen *g, uint64_t c, uint64_t f, int soft);
int ptxg_dead(gen *g);
void ptxg_merge_dead(gen *g, size_t from);
int ptxg_sequence(gen *g, const cudw_line_row *sass, size_t n, entries *E);
int ptxg_same_line(gen *g, const cudw_ptx_loc *PL, uint64_t a, uint64_t c, uint64_t name, size_t lin,
                   int after_entry);
void ptxg_leave(gen *g, size_t x);
void ptxg_claim(gen *g, size_t top, size_t L);
void ptxg_take(gen *g, size_t from, size_t stop);
int ptxg_chain(gen *g, size_t from, size_t stop, size_t *k);
int ptxg_ensure(gen *g, size_t L, uint64_t a, uint64_t *out);
int ptxg_special(const gen *g, uint64_t a0, uint64_t line0, uint64_t a, uint64_t line);
int ptxg_entry_special(const gen *g, size_t row0, uint64_t a, uint64_t F, uint64_t ffile);
int ptxg_take_deferred(gen *g, const cudw_ptx_loc *PL, uint64_t a, int revisit, int xfile);

#endif
