/* The state of ptxas's stage-1 generator while it walks one line table
 * (model.c), and the row and opcode primitives it writes with (writer.c).
 * Internal. */
#ifndef CUDW_STAGE1_GEN_H
#define CUDW_STAGE1_GEN_H
#include "internal.h"
#include "ptx/ptx_handle.h"

/* The behaviours of the model, by name (docs/ptx-lines.md has each with
 * its mechanism and a minimal example; tests/unit/test_stage1.c switches
 * each off through gen.off and shows a fixture ptxas wrote that then
 * differs).  Grouped by the mechanism they come from. */
enum behaviour {
    /* which rows an instruction needs (every dialect) */
    B_STAND_IN,          /* an entry on `{` or a line-0 .loc stands for its function's first .loc */
    B_ENTRY_REPEAT,      /* the entry's SASS row twice: its row again, not counted */
    B_ENTRY_ADVANCE,     /* ... an entry that wrote no row: a lone advance in the callee's file first */
    B_ENTRY_STATE_LINE,  /* sm_75/80, Mercury: after an entry the state line is the first .loc's */
    B_SAME_LINE_ADVANCE, /* a same-line .loc after a context change: a lone advance */
    B_BACK_IN_CONTEXT,   /* ... none when back in the last inlined context a row went out in */
    B_MERC_ENTRY_ADVANCE,/* Mercury: a same-line .loc after an entry: a lone advance */
    /* the sm_90+ delay of context rows */
    B_DELAY,             /* a same-line .loc whose new contexts are on that line waits for the next */
    B_SELECT_QUIETLY,    /* ... and still selects its context and name for the next 0x90 */
    B_LEAVE_BRANCH,      /* ... not when it leaves the context written last for new ones */
    B_HOLD,              /* a delayed .loc survives .locs that only select a context */
    B_REVISIT_KEEPS,     /* a .loc in effect before does not take the delayed one */
    B_DELAYED_OWN_ROW,   /* a delayed .loc taken at its own line writes its row if its name changed */
    B_OWED_CONTEXT_ROWS, /* a row on a new line under unwritten contexts of that line: in the context above, theirs owed */
    B_OWED_GROUP,        /* one step's owed rows are one row */
    B_LATE_SELECT,       /* a delayed .loc waiting on an owed row selects its context when it is written */
    B_OWED_MOVE,         /* the 0x90 moves to the first row still owed */
    B_START_OWED,        /* a sequence's start leaves the contexts of its inlined .loc owed */
    B_START_CLAIM,       /* ... a later long row of that .loc's file, line and column is that context */
    B_OTHER_FILE_LINE,   /* the same line in another file, under new contexts: a row to decide on */
    B_PROVISIONAL_ADVANCE, /* ... its lone advance becomes a row when the next .loc writes on a new line */
    B_REPEAT_IF_LONG,    /* sm_90+: the entry row again only where the first .loc's row is not one special opcode */
    B_FIRST_ROW_NAMES,   /* sm_90+: a context is named by the first row at its address on its line */
    /* the lazy opcode writer and the file it believes in */
    B_DEAD_0X90,         /* a 0x90 a row needed, replaced before that row, goes out all the same */
    B_BACK_TO_WRITTEN,   /* sm_90+: a quiet return to the context written last cancels the wanted 0x90 */
    B_AT_ROW_STICKY,     /* sm_75/80, Mercury: a 0x90 chosen at the row just written goes out even if replaced */
    B_TWICE,             /* sm_90+: the next context sharing a delayed .loc's row writes its 0x90 again */
    B_TURN,              /* sm_90+: an owed row's 0x90, then another name in its context: both go out */
    B_NAMES_AFTER_DEAD,  /* after a dead 0x90, names count too in its context */
    B_NAME_STAYS,        /* sm_75/80, Mercury: back in the context written last, its name stays */
    B_CONTEXT_FIRST,     /* sm_75/80: a 0x90 of a context sharing the row goes before the next set_file */
    B_CONTEXT_FILE,      /* ... a context of another file sharing it: a set_file to that file first */
    B_FILE_FIRST,        /* Mercury: a row at another address than an entry: its set_file before the 0x92 0 */
    B_STALE_FILE,        /* after a line-0 .loc, ptxas believes it is in the call site's file */
    B_ENTRY_BELIEF,      /* at entries, ptxas believes it is in the callee's first file */
    B_MERGE_DEAD,        /* a dead 0x90 the next row carries as it is is written once */
    B_COUNT
};

/* Where the model stands: the line, file and address of the last row
 * (the state ptxas compares a .loc with), and of the last advance. */
typedef struct gen_pos {
    int has_line;
    uint64_t line, file; /* of the last row (file: the .loc's, before any belief) */
    uint64_t dfile;
    int has_addr;
    uint64_t addr;       /* of the last row */
    int has_pc;
    uint64_t pc;         /* of the last row or lone advance */
} gen_pos;

/* The lazy 0x90 writer: the context in effect in the bytes, the one the
 * next row wants, and how firmly. */
typedef struct gen_ctx {
    uint64_t dctx, dfn;  /* the 0x90 in effect (written) */
    uint64_t own_ctx;    /* the context of the .loc's own row */
    uint64_t nz_ctx, nz_fn; /* the last inlined context a row or 0x90 went out in (0: none yet) */
    int want_set;        /* a 0x90 (want_c, want_f) waits for the next row */
    uint64_t want_c, want_f;
    uint64_t want_file;  /* sm_75/80, Mercury: the file of the .loc that made that 0x90 sticky (0: none) */
    int force;           /* it goes out even if equal to the one in effect */
    int soft;            /* chosen by a .loc that wrote nothing (select_quietly) */
    int sticky;          /* ... by a delayed .loc's contexts: it goes out even if replaced (dead_0x90) */
    int cfirst;          /* a context row another context shares was just taken: the next 0x90 goes before its set_file */
    uint64_t cfile;      /* ... and, that context being of another file, a set_file to it before the 0x90 (0: none) */
    int owed_sel;        /* the pending 0x90 was chosen by an owed row's context */
    int name_turned;     /* ... and replaced by the next context's: the .loc's own row keeps that */
    int name_cmp;        /* a 0x90 went out dead in the context in effect: names count too (names_after_dead) */
} gen_ctx;

/* The bytes: the line and file registers as encoded, and the file
 * ptxas believes it is in (stale_file). */
typedef struct gen_enc {
    uint64_t line, file; /* of the last row written */
    int stale;           /* ptxas believes the file is `believed`, not `file` */
    uint64_t believed;
    uint64_t ctx_believed; /* an entry on the state line: a context row of this file next gets no set_file (0: none) */
    int flag_open;       /* Mercury: an entry row (0x92 1) at flag_addr was the last SASS row's */
    uint64_t flag_addr;
    int file_first;      /* ... and this SASS row is at another address: its row's set_file before the 0x92 0 */
} gen_enc;

/* A lone advance that may become a row (provisional_advance). */
typedef struct gen_adv {
    size_t xh;           /* 1 + the row index of a lone advance that may become a row */
    int xsilent;         /* ... written after a .loc's own row: gone if a context row takes its place */
    size_t xprov;        /* 1 + the row index of such an advance made provisional */
    size_t xadv;         /* 1 + the row index of the last such advance */
    int leaf_last;       /* the last row is a .loc's own, not an entry's or its contexts' */
    size_t leaf_L;       /* ... that .loc */
} gen_adv;

/* Per .loc (1-based index - 1), valid when its generation is the
 * sequence's (gen): its context row, owed rows, what was taken. */
typedef struct gen_locs {
    uint64_t *reg;         /* its context row, valid when reg_gen matches */
    uint32_t *reg_gen;
    uint32_t *logical_gen; /* left unwritten, its row owed (owed_context_rows) */
    uint64_t *cap_f;       /* ... and the name that row will carry */
    size_t *owed_by;       /* ... and the .loc whose step left it owed */
    uint32_t *nofile_gen;  /* a line-0 .loc of another file inlined at it came first (stale_file) */
    uint32_t *taken_gen;   /* in effect for an instruction of this sequence */
    uint32_t gen;          /* the sequence's generation */
    size_t *chain;         /* ptxg_ensure's and ptxg_chain's work list */
    size_t capchain;
} gen_locs;

/* The delay of sm_90+ .debug_line (delay.c). */
typedef struct gen_defer {
    size_t pending;      /* the delayed .loc the next .loc inlined in it takes */
    size_t held;         /* ... kept through .locs that write nothing */
    int held_strict;     /* ... all of them with their contexts written */
    size_t keep;         /* the pending .loc a revisit leaves pending */
    size_t chg;          /* the last delayed .loc that selected another context */
} gen_defer;

typedef struct gen {
    const cudw_ptx *p;
    ptx_dialect dialect;
    uint64_t off;        /* behaviours switched off (1 << B_*): the unit tests' proof */
    const cudw_line_params *prm; /* of the table written: the special opcodes */
    line_wrow *rows;     /* what is written, in order */
    size_t nrows, cap;
    line_wrow proto;     /* symbol of the sequence */
    uint64_t n;          /* rows counted in context numbers */
    size_t seq_first;    /* rows[seq_first..nrows): this sequence's */
    size_t step;         /* the .loc being taken */
    size_t lin;          /* the inlined_at of the last .loc taken, written or not */
    size_t start_lin;    /* start_owed: the context of the sequence's first .loc, while the .locs stay in it */
    uint64_t start_f;    /* ... and that .loc's name */
    size_t claimed;      /* the owed start context a later row took (start_claim), while it stands */
    gen_pos pos;
    gen_ctx w;
    gen_enc enc;
    gen_adv adv;
    gen_locs loc;
    gen_defer d;
} gen;

static inline int on(const gen *g, enum behaviour b) { return !(g->off >> b & 1); }
static inline int delays(const gen *g) { return g->dialect == PTXD_DELAYED; }
static inline int is_merc(const gen *g) { return g->dialect == PTXD_MERCURY; }

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
static inline int registered(const gen *g, size_t L) { return g->loc.reg_gen[L - 1] == g->loc.gen; }
static inline int same_flc(const cudw_ptx_loc *a, const cudw_ptx_loc *b)
{
    return a->file == b->file && a->line == b->line && a->column == b->column;
}
/* x's context row is row n; another instance of what a later row took
 * (B_START_CLAIM) being a context row undoes that (rnd56.cu) */
static inline void set_reg(gen *g, size_t x, uint64_t n)
{
    if (g->claimed && x != g->claimed && same_flc(&g->p->locs[x - 1], &g->p->locs[g->claimed - 1])) {
        g->loc.reg_gen[g->claimed - 1] = 0;
        g->claimed = 0;
    }
    g->loc.reg_gen[x - 1] = g->loc.gen;
    g->loc.reg[x - 1] = n;
}
static inline uint64_t wctx(const gen *g) { return g->w.want_set ? g->w.want_c : g->w.dctx; }
static inline uint64_t wfn(const gen *g) { return g->w.want_set ? g->w.want_f : g->w.dfn; }
/* Whether a context not written yet, at x or above, is not owed either. */
static inline int fresh_above(const gen *g, size_t x)
{
    for (; x && !registered(g, x); x = LOC(g, x)->inlined_at)
        if (g->loc.logical_gen[x - 1] != g->loc.gen)
            return 1;
    return 0;
}

/* B_OTHER_FILE_LINE takes a same-line .loc of another file out of B_DELAY only when
 * its unwritten contexts on its line reach the top (rnd3.cu's k1) and
 * none of them was in effect for an instruction of the sequence already
 * (rnd3.cu's k0, rich10.cu, rich12.cu). */
static inline int xfile_run(const gen *g, const cudw_ptx_loc *L)
{
    size_t x = L->inlined_at;
    for (; x && !registered(g, x) && LOC(g, x)->line == L->line; x = LOC(g, x)->inlined_at)
        if (g->loc.taken_gen[x - 1] == g->loc.gen)
            return 0;
    return !x;
}

line_wrow *ptxg_push(gen *g);
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
