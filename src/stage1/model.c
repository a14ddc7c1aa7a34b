/* ptxas's stage 1: the line table it writes from the PTX's .locs and the
 * cubin's .nv_debug_line_sass (SASS address -> PTX line).  The model
 * (docs/ptx-lines.md; each behaviour named there is an enum behaviour of
 * gen.h, and tests/unit/test_stage1.c shows it on ptxas's own output):
 *
 *   1. Which rows an instruction needs (every dialect).  Walking the SASS
 *      rows of a sequence, the .loc in effect for the PTX line is the
 *      row's; the same .loc instance as the previous instruction, or
 *      line 0, needs nothing.  A .loc on a new line needs its row, and
 *      before it (at the same address) the rows of the contexts it is
 *      inlined at that are not written yet, outermost first.  A function
 *      entry (the sequence's start, a callee placed in its section, a
 *      Mercury row flagged 0x92) needs the entry row.  A same-line .loc
 *      in a new context needs only a lone address advance.
 *   2. The sm_90+ delay.  .debug_line of sm_90 and later writes the
 *      context rows one .loc late: a same-line .loc whose new contexts are
 *      all on its line waits until the next .loc shows whether they are
 *      needed; a row on a new line under unwritten contexts of that line
 *      goes in the context above them, leaving their rows owed.
 *   3. The lazy opcode writer.  Rows carry their context; the 0x90 that
 *      sets it goes out only before a row that needs it (writer.c) --
 *      but once chosen firmly it goes out even if replaced (a dead 0x90).
 *      The writer also keeps the file it believes it is in, which after a
 *      line-0 .loc or an entry is not always the file in effect.
 *   4. Three dialects (ptx_dialect): sm_75/80 .debug_line (immediate),
 *      sm_90+ .debug_line (delayed), Mercury (immediate, entries flagged).
 *
 * This file walks one sequence (ptxg_sequence) and decides, per SASS row,
 * which of those apply; writer.c writes rows and opcodes, delay.c takes a
 * delayed .loc, run.c cuts the table into sequences. */
#include "stage1/gen.h"
#include <stdlib.h>

/* What the walk of one sequence carries from one SASS row to the next. */
typedef struct walk {
    entries *E;
    size_t lastL;          /* the .loc of the last instruction taken */
    size_t late;           /* a delayed .loc waiting for an owed row (B_LATE_SELECT) */
    int revisit;           /* the last .loc taken was in effect before in this sequence */
    int after_entry;       /* the .loc before was an entry's */
    int entry_open;        /* the next SASS row may repeat the entry */
    uint64_t entry_a, entry_line;
    size_t entry_L;        /* the entry's .loc */
    uint64_t entry_file;   /* the file of its row */
    size_t entry_row0;     /* the index of its first row */
    size_t entry_first;    /* its function's first .loc */
    int entry_inl;         /* a callee entered at an inlined .loc whose own row did not go out */
    int placed_before;     /* callees placed in the section, entered so far */
    size_t start_top;      /* the outermost context a sequence's start left owed */
} walk;

/* The SASS row being taken and what is decided about its .loc. */
typedef struct step {
    uint64_t a;            /* its address */
    size_t L;              /* its .loc */
    const cudw_ptx_loc *PL;
    size_t first;          /* an entry: its function's first .loc */
    int is_entry, stand_in, placed_inl;
    int after_now;         /* right after an entry */
    int keep_name;         /* inlined at the start's context: its name stays */
    int leaving;           /* B_LEAVE_BRANCH */
    int xfile;             /* B_OTHER_FILE_LINE */
    size_t xh;             /* a provisional advance before it */
    size_t top, run;       /* B_OWED_CONTEXT_ROWS: the context written, the run left owed */
    size_t lin;            /* where the .loc before was inlined */
    uint64_t c, name;      /* the context of its row and the name */
} step;

/* A 0x90 that goes out even if replaced, chosen by .loc L after a row in
 * row_file, carries L's file (althdr.cu: a recursion alternating between
 * two headers' line 8) */
static void chooser_file(gen *g, size_t L, uint64_t row_file)
{
    if (g->w.want_set && LOC(g, L)->file != row_file)
        g->w.want_file = LOC(g, L)->file;
}

/* An entry of the sequence at a, each once (its start, a placed callee). */
static int take_entry(entries *E, uint64_t a)
{
    size_t i = func_start_find(E->v, E->n, a);
    if (i != SIZE_MAX) {
        if (E->seen[i])
            return 0;
        E->seen[i] = 1;
        E->start_seen |= a == E->start;
        return 1;
    }
    if (a == E->start && !E->start_seen)
        return E->start_seen = 1;
    return 0;
}

/* A new sequence: what carries over from the one before is what ptxas
 * keeps too (flags whose meaning depends on a reset one stay as they were). */
static void sequence_reset(gen *g)
{
    g->loc.gen++;
    g->w.name_cmp = 0;
    g->claimed = 0;
    g->adv.xadv = 0;
    g->adv.xsilent = 0;
    g->adv.xprov = 0;
    g->adv.xh = 0;
    g->n = 0;
    g->seq_first = g->nrows;
    g->start_lin = 0;
    g->enc.ctx_believed = 0;
    g->pos.has_line = g->pos.has_addr = g->pos.has_pc = 0;
    g->w.dctx = g->w.dfn = g->w.own_ctx = 0;
    g->w.nz_ctx = g->w.nz_fn = 0;
    g->lin = 0;
    g->w.want_set = g->w.force = g->w.cfirst = 0;
    g->pos.dfile = g->enc.file = 1;
    g->enc.stale = 0;
    g->enc.line = 1;
    g->d = (gen_defer){0};
    g->enc.flag_open = g->enc.file_first = 0;
}

/* The end of the sequence at a. */
static int sequence_end(gen *g, uint64_t a)
{
    /* a provisional advance nothing came after: gone, even if its .loc
     * came back (tests/fixtures/stage1/sticky_sm90 -rdc) */
    if (g->adv.xprov && g->adv.xprov == g->nrows && g->rows[g->nrows - 1].hidden == 1)
        g->nrows--;
    line_wrow *e = ptxg_push(g);
    if (!e)
        return CUDW_E_NOMEM;
    e->address = a;
    e->file = g->enc.file;
    e->line = g->enc.line;
    e->end_sequence = 1;
    e->index = g->n + 1;
    return CUDW_OK;
}

/* The .loc of SASS row r (0: none to take); an entry on `{`, or on a
 * line-0 .loc (an instruction -O3 hoisted to the top), stands for its
 * function's first .loc. */
static size_t locate(gen *g, const cudw_line_row *r, step *s)
{
    const cudw_ptx *p = g->p;
    cudw_ptx_where w;
    cudw_ptx_where_is(p, r->line, &w);
    size_t L = w.loc;
    if (s->is_entry && (w.kind != CUDW_PTX_OUTSIDE || L))
        s->first = p->funcs[w.kind != CUDW_PTX_OUTSIDE ? w.function : LOC(g, L)->function].first_loc;
    s->stand_in = on(g, B_STAND_IN) && s->is_entry &&
                  (w.kind == CUDW_PTX_BRACE || (L && s->first && LOC(g, L)->line == 0));
    if (w.kind == CUDW_PTX_BRACE && !s->is_entry)
        return 0;
    return s->stand_in ? s->first : L;
}

/* A callee placed in the section entered at an inlined .loc: it writes
 * the rows that .loc writes on a fresh line, in no context. */
static int enter_placed_inlined(gen *g, const step *s)
{
    int rc = ptxg_want(g, 0, 0, 0);
    if (rc)
        return rc;
    g->pos.has_line = 0;
    /* sm_90+: ptxas believes it is in the file of the function's first
     * .loc and writes no set_file for it -- unless the row before was
     * inlined (manynoinl.cu at -O3) */
    if (on(g, B_ENTRY_BELIEF) && delays(g) && s->first && LOC(g, s->first)->file != g->enc.file && !g->w.dctx) {
        g->enc.stale = 1;
        g->enc.believed = LOC(g, s->first)->file;
    }
    return CUDW_OK;
}

/* The sequence's start or a callee entered at a .loc not inlined: the
 * entry row, unless on the state line.  At a sequence's start the
 * contexts of an inlined .loc are owed, not written -- but those on its
 * line in another file take its row, in their file (B_START_OWED). */
static int enter_row(gen *g, walk *W, const step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    size_t up = s->stand_in || !delays(g) || !on(g, B_START_OWED) ? 0 : PL->inlined_at, xrun = 0;
    for (size_t y = up; y && LOC(g, y)->line == PL->line; y = LOC(g, y)->inlined_at)
        xrun = y;
    if (xrun && (LOC(g, xrun)->file == PL->file || (g->pos.has_line && PL->line == g->pos.line)))
        xrun = 0;
    W->entry_file = xrun ? LOC(g, xrun)->file : PL->file;
    int rc;
    if (!g->pos.has_line || PL->line != g->pos.line) {
        if ((rc = ptxg_want(g, 0, 0, 0)) || (rc = ptxg_row(g, s->a, W->entry_file, PL->line, is_merc(g) ? 1 : 0)))
            return rc;
        if (xrun) {
            ptxg_take(g, up, LOC(g, xrun)->inlined_at);
            up = LOC(g, xrun)->inlined_at;
        }
    } else if (on(g, B_ENTRY_BELIEF) && delays(g) && s->first && PL->line == LOC(g, s->first)->line && !g->w.dctx) {
        /* no entry row: if a context row comes first, ptxas believes it
         * is in the callee's file (hdrpair.cu at -O0); a plain row has
         * its set_file (hdrcall.cu) */
        g->enc.ctx_believed = PL->file;
    }
    /* the state line: the entry's (sm_90+ .debug_line), else the
     * function's first .loc's */
    if (!delays(g) && on(g, B_ENTRY_STATE_LINE)) {
        g->pos.has_line = s->first != 0;
        g->pos.line = s->first ? LOC(g, s->first)->line : 0;
    }
    for (size_t y = up; y; y = LOC(g, y)->inlined_at)
        ptxg_leave(g, y);
    for (W->start_top = up; W->start_top && LOC(g, W->start_top)->inlined_at;)
        W->start_top = LOC(g, W->start_top)->inlined_at;
    /* ... and its name stays in effect for the .locs inlined at its
     * context, as if its context row had been written */
    g->start_lin = up == PL->inlined_at ? up : 0;
    g->start_f = fn_of(g, s->L, 1);
    /* ... and a context row first is believed to be in the file of the
     * function's first .loc (hdrpair.cu -rdc), a plain row not */
    if (on(g, B_ENTRY_BELIEF) && g->start_lin && s->first)
        g->enc.ctx_believed = LOC(g, s->first)->file;
    return CUDW_OK;
}

/* A function entry at s->a. */
static int enter(gen *g, walk *W, step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    s->placed_inl = !s->stand_in && PL->inlined_at && W->E && s->a != W->E->start;
    g->d.pending = W->late = g->d.held = 0;
    W->entry_file = PL->file;
    W->entry_row0 = g->nrows;
    int rc = s->placed_inl ? enter_placed_inlined(g, s) : enter_row(g, W, s);
    if (rc)
        return rc;
    W->after_entry = 1;
    W->entry_open = 1;
    W->entry_a = s->a;
    W->entry_L = s->L;
    W->entry_first = s->first;
    W->entry_inl = 0;
    W->placed_before += W->E && s->a != W->E->start;
    W->lastL = s->stand_in ? 0 : s->L;
    return CUDW_OK;
}

/* The SASS row right after an entry: the entry row again, not counted
 * (B_ENTRY_REPEAT) -- in sm_90+ .debug_line only where a row of the
 * function's first .loc, after the row before the entry, would not be one
 * special opcode (B_REPEAT_IF_LONG).  dup: the entry's SASS row twice. */
static int entry_repeat(gen *g, walk *W, const step *s, int dup)
{
    const cudw_ptx_loc *El = LOC(g, W->entry_L);
    uint64_t F = W->entry_first ? LOC(g, W->entry_first)->line : 0;
    /* its line or its file: a function may begin at line 3 of one header
     * in line 3 of another (hdrentry.cu) */
    int differ = !W->entry_first || El->line != F || W->entry_file != LOC(g, W->entry_first)->file;
    /* an entry that wrote no row (on the state line): a lone advance in
     * the callee's file (sm_90+: even without the repeat), then the
     * repeat alone (hdrentry.cu) */
    if (on(g, B_ENTRY_ADVANCE) && dup && differ && (!g->pos.has_pc || g->pos.pc != s->a)) {
        int rc = ptxg_hidden(g, s->a, El->file);
        if (rc)
            return rc;
        g->pos.dfile = El->file;
    }
    int again = differ && on(g, B_ENTRY_REPEAT);
    if (again && delays(g) && W->entry_first && W->placed_before <= 1 && on(g, B_REPEAT_IF_LONG))
        again = !ptxg_entry_special(g, W->entry_row0, W->entry_a, F, LOC(g, W->entry_first)->file);
    if (!again)
        return CUDW_OK;
    line_wrow *x = ptxg_push(g);
    if (!x)
        return CUDW_E_NOMEM;
    x->address = W->entry_a;
    x->file = g->enc.file; /* the row it copies, as encoded */
    x->line = El->line;
    x->index = g->n; /* ptxas does not count it */
    g->enc.line = El->line;
    if (!W->entry_inl) { /* ... which the repeat keeps (manynoinl.cu) */
        g->pos.has_line = 1;
        g->pos.line = El->line;
    }
    return CUDW_OK;
}

/* A SASS row that is no entry: the entry's repeat, or the same .loc
 * again (nothing to take), or a .loc to take (*take). */
static int no_entry(gen *g, walk *W, step *s, const cudw_line_row *r, int *take)
{
    *take = 0;
    /* the entry's SASS row twice -- or, in sm_90+ .debug_line, once: its
     * repeat is decided by its own rows (nsplace.cu's mass()) */
    int dup = W->entry_open && W->entry_a == s->a && W->entry_line == r->line;
    if (dup || (W->entry_open && delays(g) && g->pos.has_pc && g->pos.pc == W->entry_a)) {
        int rc = entry_repeat(g, W, s, dup);
        W->entry_open = 0;
        if (rc || dup)
            return rc;
    }
    W->entry_open = 0;
    if (s->L == W->lastL)
        return CUDW_OK;
    W->lastL = s->L;
    W->revisit = on(g, B_REVISIT_KEEPS) && g->loc.taken_gen[s->L - 1] == g->loc.gen;
    g->loc.taken_gen[s->L - 1] = g->loc.gen;
    *take = 1;
    return CUDW_OK;
}

/* B_DELAY: whether the same-line .loc s waits (*delayed) -- when its
 * unwritten contexts are all on this line, or owed -- and what it selects
 * meanwhile (B_SELECT_QUIETLY). */
static int maybe_delay(gen *g, walk *W, step *s, int *delayed)
{
    const cudw_ptx_loc *PL = s->PL;
    *delayed = 0;
    size_t x = PL->inlined_at;
    int same = 1;
    for (; x && !registered(g, x); x = LOC(g, x)->inlined_at)
        if (LOC(g, x)->line != g->pos.line && g->loc.logical_gen[x - 1] != g->loc.gen) {
            same = 0;
            break;
        }
    /* B_LEAVE_BRANCH: not when it leaves the context written last for
     * another branch and some of those contexts are new: then a row goes
     * out as B_OWED_CONTEXT_ROWS writes it, same line or not */
    int fresh = 0;
    for (size_t y = PL->inlined_at; y != x; y = LOC(g, y)->inlined_at)
        fresh |= g->loc.logical_gen[y - 1] != g->loc.gen;
    uint64_t last = g->w.dctx; /* ... or the one that goes out whatever replaces it (findbins.cu) */
    if (g->w.want_set && g->w.sticky && g->w.want_c)
        last = g->w.want_c;
    /* "the context written last" is the one its unwritten contexts hang
     * from, not any above it (kmdist.cu: Dist<D,I> recursing over two
     * lines) */
    if (same && fresh && last && on(g, B_LEAVE_BRANCH)) {
        s->leaving = !(x && g->loc.reg[x - 1] == last);
        same = !s->leaving;
    }
    if (!same)
        return CUDW_OK;
    *delayed = 1;
    g->d.pending = g->d.keep ? g->d.keep : s->L;
    size_t K = PL->inlined_at;
    if (!K || registered(g, K)) {
        /* it still selects its context, when that row is known, and the
         * name that goes with it */
        uint64_t cc = K ? g->loc.reg[K - 1] : 0;
        g->d.chg = cc != wctx(g) ? s->L : 0;
        if (on(g, B_SELECT_QUIETLY) && cc != wctx(g))
            return ptxg_want(g, cc, fn_of(g, s->L, cc), 1);
        return CUDW_OK;
    }
    /* its contexts are owed; it selects its context when that row is
     * written (B_LATE_SELECT) */
    for (size_t y = K; y && !registered(g, y) && g->loc.logical_gen[y - 1] != g->loc.gen; y = LOC(g, y)->inlined_at)
        ptxg_leave(g, y);
    W->late = s->L;
    return CUDW_OK;
}

/* B_OWED_CONTEXT_ROWS: a row on a new line whose unwritten contexts just
 * above it are on that line too is written in the context above them
 * (s->top), named as the outermost of them (s->run), and they stay
 * unwritten. */
static void owed_run(gen *g, step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    s->top = PL->inlined_at;
    s->run = 0;
    if (!delays(g) || !on(g, B_OWED_CONTEXT_ROWS))
        return;
    size_t y = s->top, r1 = 0;
    for (; y && !registered(g, y) && LOC(g, y)->line == PL->line; y = LOC(g, y)->inlined_at)
        r1 = y;
    /* ... also on the state line, when contexts above that run are new
     * and on another line: their rows move the line away first
     * (twohdr.cu: lerp3() of one header's line 4 under poly() of
     * another's line 4, called on line 11) */
    int moved = r1 && y && !registered(g, y);
    if (!g->pos.has_line || PL->line != g->pos.line || s->leaving || s->xfile || moved) {
        s->top = y;
        s->run = r1;
    }
}

/* B_PROVISIONAL_ADVANCE: the lone advance of the last other-file .loc
 * becomes its row when this one writes on a new line -- not when the
 * first row it writes, a context's, is on its line (that row takes its
 * place). */
static void settle_advance(gen *g, const step *s)
{
    if (!(s->xh && s->xh == g->nrows && (!g->pos.has_line || s->PL->line != g->pos.line)))
        return;
    if (!on(g, B_PROVISIONAL_ADVANCE))
        return;
    size_t out = 0;
    for (size_t y = s->top; y && !registered(g, y); y = LOC(g, y)->inlined_at)
        out = y;
    if (!out || LOC(g, out)->line != g->pos.line) {
        g->rows[s->xh - 1].hidden = 0;
        g->rows[s->xh - 1].index = ++g->n;
    } else if (g->adv.xsilent) {
        g->nrows--; /* after a .loc's own row it leaves no advance */
        g->adv.xprov = 0;
    }
}

/* The context of the .loc's row (its context rows written first) and the
 * 0x90 it wants. */
static int select_context(gen *g, step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    int rc;
    s->c = 0;
    if (s->top && (rc = ptxg_ensure(g, s->top, s->a, &s->c)))
        return rc;
    size_t run = s->run;
    s->name = run && g->loc.logical_gen[run - 1] == g->loc.gen ? g->loc.cap_f[run - 1] : fn_of(g, run ? run : s->L, s->c);
    if (s->keep_name && !run && s->c)
        s->name = g->start_f;
    if (delays(g) && s->c != g->w.own_ctx) {
        /* a row of owed rows carries their name over the one a delayed
         * .loc selected quietly in that context */
        int owed_name = run && g->loc.logical_gen[run - 1] == g->loc.gen && g->w.soft && g->w.want_f != s->name;
        if ((!g->w.want_set || g->w.want_c != s->c || (g->w.own_ctx == UINT64_MAX && g->w.want_f != s->name) ||
             owed_name) &&
            (rc = ptxg_want(g, s->c, s->name, 0)))
            return rc;
        g->w.force = 1;
    } else if (s->c != wctx(g) || (g->w.name_cmp && !g->w.name_turned && s->c && s->name != wfn(g))) {
        /* sm_75/80, Mercury: back in the context written last after a
         * return to the function that wrote nothing, the name stays
         * (mathx.cu, backctx k5) */
        if (on(g, B_NAME_STAYS) && !delays(g) && g->w.want_set && s->c && s->c == g->w.dctx && !g->w.name_cmp &&
            !g->w.sticky)
            s->name = g->w.dfn;
        if ((rc = ptxg_want(g, s->c, s->name, 0)))
            return rc;
    }
    g->w.name_turned = 0;
    g->w.own_ctx = s->c;
    s->lin = g->lin;
    g->lin = PL->inlined_at;
    return CUDW_OK;
}

/* B_OTHER_FILE_LINE, second of two right after the first's advance: its
 * contexts' row goes out here, and ptxas is in the .loc's file now (a
 * third is delayed, B_DELAY). */
static int other_file_second(gen *g, const step *s)
{
    int rc = ptxg_row(g, s->a, g->pos.file, s->PL->line, 0);
    if (rc)
        return rc;
    ptxg_take(g, s->PL->inlined_at, s->top);
    g->pos.file = s->PL->file;
    return CUDW_OK;
}

/* B_OTHER_FILE_LINE: its contexts' row would be on the line and file of
 * the last: only its address advance goes out, they stay owed. */
static int other_file_first(gen *g, const step *s)
{
    if (!g->pos.has_pc || g->pos.pc != s->a) {
        g->adv.xsilent = g->adv.leaf_last;
        int rc = ptxg_hidden(g, s->a, g->enc.file);
        if (rc)
            return rc;
        g->adv.xh = g->adv.xadv = g->nrows;
        g->adv.xprov = g->adv.xsilent ? g->nrows : 0;
    }
    size_t k;
    if (ptxg_chain(g, s->PL->inlined_at, s->top, &k))
        return CUDW_E_NOMEM;
    for (size_t j = 0; j < k; j++)
        if (g->loc.logical_gen[g->loc.chain[j] - 1] != g->loc.gen)
            ptxg_leave(g, g->loc.chain[j]);
    g->d.pending = s->L;
    return CUDW_OK;
}

/* After a row over owed rows (s->run): the owed rows just above it are
 * this row now, the others stay owed.  *next: the first row still owed;
 * *all_owed: the row is of rows all owed before; *grouped: B_OWED_GROUP
 * made more of them this row. */
static int absorb_owed(gen *g, const step *s, size_t *next, int *all_owed, int *grouped)
{
    size_t k, owed;
    if (ptxg_chain(g, s->PL->inlined_at, s->top, &k))
        return CUDW_E_NOMEM;
    size_t *ch = g->loc.chain;
    for (owed = k; owed && g->loc.logical_gen[ch[owed - 1] - 1] == g->loc.gen; owed--)
        ; /* chain[owed..k): owed from before, outermost last */
    for (size_t j = 0; j < owed; j++)
        ptxg_leave(g, ch[j]);
    for (size_t j = owed; j < k; j++)
        set_reg(g, ch[j], g->n);
    /* ... and so are the others the same step left owed under them: one
     * step's owed rows are one row (dotsum.cu) */
    for (size_t j = owed; j < k && on(g, B_OWED_GROUP); j++) {
        size_t leaf = g->loc.owed_by[ch[j] - 1];
        for (size_t y = leaf ? LOC(g, leaf)->inlined_at : 0;
             y && !registered(g, y) && g->loc.logical_gen[y - 1] == g->loc.gen && g->loc.owed_by[y - 1] == leaf;
             y = LOC(g, y)->inlined_at) {
            set_reg(g, y, g->n);
            *grouped = 1;
        }
    }
    *next = owed && owed < k ? ch[owed - 1] : 0;
    *all_owed = owed == 0;
    return CUDW_OK;
}

/* After a row over owed rows: the 0x90 a delayed .loc waiting for one of
 * them selects (B_LATE_SELECT), or the one of the first row still owed
 * (B_OWED_MOVE); both go out even if replaced. */
static int owed_0x90(gen *g, walk *W, const step *s, size_t next, uint64_t row_file)
{
    int rc = CUDW_OK;
    if (on(g, B_LATE_SELECT) && W->late && registered(g, LOC(g, W->late)->inlined_at)) {
        /* ... unless a row just written here carries that 0x90 already
         * (deep.cu: rows of its context's line, then a deeper one's) */
        uint64_t cc = g->loc.reg[LOC(g, W->late)->inlined_at - 1], nm = fn_of(g, W->late, cc);
        int met = 0;
        for (size_t j = g->nrows; j-- > g->seq_first && g->rows[j].address == s->a && !met;)
            met = !g->rows[j].hidden && g->rows[j].context == cc && g->rows[j].function_offset == nm;
        if (!met && cc != wctx(g) && (rc = ptxg_want(g, cc, nm, 0)))
            return rc;
        g->w.sticky = g->w.want_set;
        chooser_file(g, W->late, row_file);
        W->late = 0;
    } else if (next && on(g, B_OWED_MOVE)) {
        uint64_t cc = g->loc.reg[LOC(g, next)->inlined_at - 1];
        if ((cc != wctx(g) || g->loc.cap_f[next - 1] != wfn(g)) && (rc = ptxg_want(g, cc, g->loc.cap_f[next - 1], 0)))
            return rc;
        g->w.sticky = g->w.want_set;
        chooser_file(g, next, row_file);
    }
    return rc;
}

/* After a row over owed rows, the .loc's own 0x90: the row was the
 * contexts' (their file) and the .loc's own is on that line -- or the
 * row is of rows all owed before: no row, its 0x90 goes out (in its
 * file, the first case) once its context is written, even if replaced;
 * else its contexts wait for the next .loc, as a delayed one's. */
static int own_0x90(gen *g, const step *s, int all_owed)
{
    const cudw_ptx_loc *PL = s->PL;
    size_t K = PL->inlined_at;
    int other_file = LOC(g, s->run)->file != PL->file;
    if (!other_file && !(all_owed && registered(g, K))) {
        g->d.pending = s->L;
        return CUDW_OK;
    }
    if (!registered(g, K))
        return CUDW_OK;
    uint64_t cc = g->loc.reg[K - 1];
    int rc = cc != wctx(g) ? ptxg_want(g, cc, fn_of(g, s->L, cc), 0) : CUDW_OK;
    if (rc)
        return rc;
    g->w.sticky = g->w.want_set;
    if (other_file)
        g->w.want_file = g->w.want_set ? PL->file : 0;
    return CUDW_OK;
}

/* The .loc's row on a new line (or leaving for another branch) -- or,
 * under owed rows (s->run), the row of its contexts on its line. */
static int new_line_row(gen *g, walk *W, const step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    size_t run = s->run;
    if (run && LOC(g, run)->file != PL->file)
        g->enc.stale = 0; /* a row of its contexts' file: its set_file goes out */
    uint64_t row_file = run ? LOC(g, run)->file : PL->file;
    int rc = ptxg_row(g, s->a, row_file, PL->line, 0);
    if (rc)
        return rc;
    if (!run) {
        if (on(g, B_START_CLAIM))
            ptxg_claim(g, W->start_top, s->L);
        g->adv.leaf_last = 1;
        g->adv.leaf_L = s->L;
        return owed_0x90(g, W, s, 0, row_file);
    }
    size_t next = 0;
    int all_owed = 0, grouped = 0;
    if ((rc = absorb_owed(g, s, &next, &all_owed, &grouped)))
        return rc;
    if (grouped) /* a delayed .loc among them selects nothing (dotsum.cu) */
        W->late = 0;
    if ((rc = owed_0x90(g, W, s, next, row_file)))
        return rc;
    return own_0x90(g, s, all_owed);
}

/* What the .loc writes once its context is selected. */
static int write_loc(gen *g, walk *W, const step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    int xrun = s->xfile && s->run && LOC(g, s->run)->file == g->pos.file;
    if (xrun && g->adv.xadv && g->adv.xadv == g->nrows && g->pos.pc != s->a)
        return other_file_second(g, s);
    if (xrun)
        return other_file_first(g, s);
    if (!g->pos.has_line || PL->line != g->pos.line || (s->leaving && s->run))
        return new_line_row(g, W, s);
    if (!delays(g) && s->c == 0 && !s->after_now)
        return CUDW_OK; /* back to the function itself on the same line: the 0x90 waits for the next row */
    if (!delays(g))
        return ptxg_same_line(g, PL, s->a, s->c, s->name, s->lin, s->after_now);
    return CUDW_OK;
}

/* The state line after a callee entered at an inlined .loc (as
 * enter_row's); sm_90+: its first .loc's too when its own row did not go
 * out. */
static void placed_state_line(gen *g, walk *W, const step *s)
{
    W->entry_inl = delays(g) && s->run && LOC(g, s->run)->file != s->PL->file;
    if (s->run) /* its row is its contexts', in their file */
        W->entry_file = LOC(g, s->run)->file;
    if ((!delays(g) && on(g, B_ENTRY_STATE_LINE)) || W->entry_inl) {
        g->pos.has_line = s->first != 0;
        g->pos.line = s->first ? LOC(g, s->first)->line : 0;
    }
    W->after_entry = 1;
}

/* Before the .loc's rows: the provisional advance, the name kept from
 * the start, a Mercury entry's advance, and whether it is an other-file
 * .loc on the state line. */
static int prepare_loc(gen *g, walk *W, step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    /* decided by this .loc: a row or not -- after a .loc's own row, by
     * the first that writes, unless that .loc comes back first */
    if (g->adv.xsilent && s->L == g->adv.leaf_L)
        g->adv.xsilent = 0;
    s->xh = g->adv.xh;
    if (!g->adv.xsilent)
        g->adv.xh = 0;
    s->keep_name = g->start_lin && PL->inlined_at == g->start_lin;
    if (!s->keep_name)
        g->start_lin = 0;
    s->after_now = W->after_entry;
    W->after_entry = 0;
    /* (not when a context row goes out here: manynoinl.cu on sm_100) */
    if (on(g, B_MERC_ENTRY_ADVANCE) && is_merc(g) && s->after_now && PL->line == g->pos.line &&
        (!g->pos.has_pc || g->pos.pc != s->a) && !(PL->inlined_at && !registered(g, PL->inlined_at))) {
        int rc = ptxg_hidden(g, s->a, PL->file);
        if (rc)
            return rc;
    }
    /* the same line in another file, under contexts some of which are
     * new: a row to decide on, though none may come of it */
    s->xfile = on(g, B_OTHER_FILE_LINE) && delays(g) && g->pos.has_line && PL->line == g->pos.line &&
               PL->file != g->pos.file && fresh_above(g, PL->inlined_at) && xfile_run(g, PL);
    return CUDW_OK;
}

/* The .loc s->L of a SASS row (not line 0): its rows and 0x90s. */
static int take_loc(gen *g, walk *W, step *s)
{
    const cudw_ptx_loc *PL = s->PL;
    int rc = prepare_loc(g, W, s);
    if (rc)
        return rc;
    if (delays(g)) {
        if ((rc = ptxg_take_deferred(g, PL, s->a, W->revisit, s->xfile)))
            return rc;
        if (on(g, B_DELAY) && g->pos.has_line && PL->line == g->pos.line && !s->xfile) {
            int delayed;
            if ((rc = maybe_delay(g, W, s, &delayed)) || delayed)
                return rc;
        }
    }
    g->adv.xh = 0;
    owed_run(g, s);
    settle_advance(g, s);
    if ((rc = select_context(g, s)) || (rc = write_loc(g, W, s)))
        return rc;
    if (s->placed_inl)
        placed_state_line(g, W, s);
    return CUDW_OK;
}

/* One SASS row r of the sequence (not its end). */
static int take_row(gen *g, walk *W, const cudw_line_row *r)
{
    step s = {.a = r->address};
    /* B_FILE_FIRST: the 0x92 0 closing an entry row goes out at the next
     * SASS row -- first thing at the entry's address, after the set_file
     * of a row written at another */
    g->enc.file_first = on(g, B_FILE_FIRST) && g->enc.flag_open && s.a != g->enc.flag_addr;
    g->enc.flag_open = 0;
    s.is_entry = W->E ? take_entry(W->E, s.a) : (is_merc(g) && r->merc_flag == 1);
    if (!(s.L = locate(g, r, &s)))
        return CUDW_OK;
    s.PL = LOC(g, s.L);
    g->step = s.L;
    int rc;
    if (s.is_entry) {
        W->entry_line = r->line;
        if ((rc = enter(g, W, &s)) || !s.placed_inl)
            return rc;
    } else {
        int take;
        if ((rc = no_entry(g, W, &s, r, &take)) || !take)
            return rc;
    }
    if (s.PL->line == 0) {
        size_t X = s.PL->inlined_at;
        if (on(g, B_STALE_FILE) && delays(g) && X && !registered(g, X) && LOC(g, X)->file != s.PL->file)
            g->loc.nofile_gen[X - 1] = g->loc.gen;
        return CUDW_OK;
    }
    return take_loc(g, W, &s);
}

/* One sequence: sass[0..n) (no hidden rows), its entry addresses. */
int ptxg_sequence(gen *g, const cudw_line_row *sass, size_t n, entries *E)
{
    sequence_reset(g);
    walk W = {.E = E};
    int rc = CUDW_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        if (sass[i].end_sequence)
            return sequence_end(g, sass[i].address);
        rc = take_row(g, &W, &sass[i]);
    }
    return rc;
}
