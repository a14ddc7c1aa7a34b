/* ptxas's stage 1: the .debug_line it writes from the PTX's .locs and the
 * cubin's .nv_debug_line_sass (SASS address -> PTX line).  The rules were
 * measured against ptxas 13.0 (docs/ptx-lines.md has them with the proof);
 * in short, walking the SASS rows of a sequence:
 *
 *   - the .loc in effect for the PTX line is the row's; the same .loc
 *     instance as the previous instruction, or line 0, writes nothing;
 *   - a row is written only when the line changes; its context is the
 *     row of its inlined_at .loc, written first (at the same address) the
 *     first time a context is needed -- or, when the last row already is
 *     there with that line, that row;
 *   - the 0x90 opcode goes out lazily, only before something that needs
 *     the context (rows carry it: the encoder writes it when it changes);
 *   - a function entry (address 0, a callee symbol placed in the kernel's
 *     section, a Mercury row flagged 0x92) writes the entry row (of the
 *     function's first .loc when the row is `{` or a line-0 .loc), then the
 *     state line is the function's first .loc; a next SASS row at the same
 *     address and PTX line repeats the entry row, not counted in context
 *     numbers;
 *   - a same-line instruction after a context change (another .loc
 *     instance inlined at, even one sharing the row) or an entry writes a
 *     lone advance (a hidden row); sm_75/80 and Mercury move its file with
 *     it, and write nothing for a return to context 0 -- and where that
 *     instruction is at the row just written, its 0x90 goes out at once;
 *   - sm_90+ (not Mercury) defers a same-line .loc whose new contexts would
 *     all be on that line until the next .loc shows whether it needs them
 *     -- but it still selects its context, and its name, for the next
 *     0x90, and a return to the context written last keeps that 0x90 as
 *     written; a deferred .loc replacing a 0x90 a row needed does not take
 *     it back (a hidden row of kind 2), nor does anything replacing the one
 *     a deferred .loc's contexts chose; no set_file goes out for a call
 *     site's context row when a line-0 .loc of another file inlined at it
 *     came first; and a row on a new line inlined at unwritten .locs of
 *     that line goes in the context above them, leaving their rows owed
 *     (with the name they would carry now): a later such row over them is
 *     theirs, and a deferred .loc waiting for one selects its context
 *     when it is written.  In short, .debug_line writes the context rows
 *     Mercury writes, one instruction late and only when still needed;
 *   - sm_90+ .debug_line repeats a callee's entry row only where a row of
 *     its first .loc would not be one special opcode (as if that row were
 *     written and replaced while pending), and ptxas's file belief goes
 *     astray at entries (rules 5, 12); the same line in another file is
 *     the same line, with a few consequences (rule 15). */
#include "ptx/ptx_gen.h"
#include <stdlib.h>

/* A 0x90 that goes out even if replaced, chosen by .loc L after a row in
 * row_file, carries L's file (althdr.cu: a recursion alternating between
 * two headers' line 8; rule 15) */
static void chooser_file(gen *g, size_t L, uint64_t row_file)
{
    if (g->want_set && LOC(g, L)->file != row_file)
        g->want_file = LOC(g, L)->file;
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

/* One sequence: sass[0..n) (no hidden rows), its entry addresses. */
int ptxg_sequence(gen *g, const cudw_line_row *sass, size_t n, entries *E)
{
    const cudw_ptx *p = g->p;
    g->gen++;
    g->name_cmp = 0;
    g->claimed = 0;
    g->xadv = 0;
    g->xsilent = 0;
    g->xprov = 0;
    g->n = 0;
    g->seq_first = g->nrows;
    g->start_lin = 0;
    g->xh = 0;
    g->ctx_believed = 0;
    g->has_line = g->has_addr = g->has_pc = 0;
    g->dctx = g->dfn = g->own_ctx = 0;
    g->nz_ctx = g->nz_fn = 0;
    g->lin = 0;
    g->want_set = g->force = g->cfirst = 0;
    g->dfile = g->enc_file = 1;
    g->stale = 0;
    g->enc_line = 1;
    size_t lastL = 0, late = 0;
    int revisit = 0;
    g->pending = g->held = g->keep = g->chg = 0;
    g->held_strict = 0;
    g->flag_open = g->file_first = 0;
    int after_entry = 0, entry_open = 0;
    uint64_t entry_a = 0, entry_line = 0;
    size_t entry_L = 0;
    uint64_t entry_file = 0;           /* the file of its row */
    size_t entry_row0 = 0;             /* the index of its first row */
    size_t entry_first = 0;            /* its function's first .loc */
    int entry_inl = 0;                 /* ... a callee entered at an inlined .loc (rule 12) */
    int placed_before = 0;             /* callees placed in the section, entered so far */
    size_t start_top = 0;              /* the outermost context a sequence's start left owed */
    int rc = CUDW_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const cudw_line_row *r = &sass[i];
        uint64_t a = r->address, c;
        if (r->end_sequence) {
            /* a provisional advance (rule 15) nothing came after: gone,
             * even if its .loc came back (g33.cu, g72.cu -rdc) */
            if (g->xprov && g->xprov == g->nrows && g->rows[g->nrows - 1].hidden == 1)
                g->nrows--;
            cudw_line_row *e = ptxg_push(g);
            if (!e)
                return CUDW_E_NOMEM;
            e->address = a;
            e->file = g->enc_file;
            e->line = g->enc_line;
            e->end_sequence = 1;
            e->index = g->n + 1;
            break;
        }
        /* rule 14: the 0x92 0 closing an entry row goes out at the next
         * SASS row -- first thing at the entry's address, after the
         * set_file of a row written at another */
        g->file_first = g->flag_open && a != g->flag_addr;
        g->flag_open = 0;
        int is_entry = E ? take_entry(E, a) : (g->merc && r->merc_flag == 1);
        cudw_ptx_where w;
        cudw_ptx_where_is(p, r->line, &w);
        size_t L = w.loc, first = 0; /* first: the first .loc of an entry's function */
        if (is_entry && (w.kind != CUDW_PTX_OUTSIDE || L))
            first = p->funcs[w.kind != CUDW_PTX_OUTSIDE ? w.function : LOC(g, L)->function].first_loc;
        /* an entry on `{`, or on a line-0 .loc (an instruction -O3 hoisted
         * to the top), stands for its function's first .loc */
        int stand_in = is_entry && (w.kind == CUDW_PTX_BRACE || (L && first && LOC(g, L)->line == 0));
        if (w.kind == CUDW_PTX_BRACE && !is_entry)
            continue;
        if (stand_in)
            L = first;
        if (!L)
            continue;
        const cudw_ptx_loc *PL = LOC(g, L);
        g->step = L;
        /* rule 12: a callee placed in the section entered at an inlined
         * .loc writes the rows that .loc writes on a fresh line (its
         * context rows, then its own unless on the last one's line); at
         * a sequence's start its row goes alone, in no context */
        int placed_inl = is_entry && !stand_in && PL->inlined_at && E && a != E->start;
        if (is_entry) {
            g->pending = late = g->held = 0;
            entry_file = PL->file;
            entry_row0 = g->nrows;
            if (placed_inl) {
                if ((rc = ptxg_want(g, 0, 0, 0)))
                    break;
                g->has_line = 0;
                /* sm_90+: ptxas believes it is in the file of the
                 * function's first .loc and writes no set_file for it
                 * (rule 8's stale file; hdrfile.cu of docs/ptx-lines.md)
                 * -- unless the row before was inlined (r2.cu) */
                if (g->defer && first && LOC(g, first)->file != g->enc_file && !g->dctx) {
                    g->stale = 1;
                    g->believed = LOC(g, first)->file;
                }
            } else {
                /* rule 12: at a sequence's start, the contexts of an
                 * inlined .loc are owed (rule 10), not written -- but
                 * those on its line in another file take its row, in
                 * their file (rules 10 and 15: a3.cu) */
                size_t up = stand_in || !g->defer ? 0 : PL->inlined_at, xrun = 0;
                for (size_t y = up; y && LOC(g, y)->line == PL->line; y = LOC(g, y)->inlined_at)
                    xrun = y;
                if (xrun && (LOC(g, xrun)->file == PL->file || (g->has_line && PL->line == g->line)))
                    xrun = 0;
                entry_file = xrun ? LOC(g, xrun)->file : PL->file;
                if (!g->has_line || PL->line != g->line) {
                    if ((rc = ptxg_want(g, 0, 0, 0)) || (rc = ptxg_row(g, a, entry_file, PL->line, g->merc ? 1 : 0)))
                        break;
                    if (xrun) {
                        ptxg_take(g, up, LOC(g, xrun)->inlined_at);
                        up = LOC(g, xrun)->inlined_at;
                    }
                } else if (g->defer && first && PL->line == LOC(g, first)->line && !g->dctx) {
                    /* no entry row: if a context row comes first, ptxas
                     * believes it is in the callee's file (hdrpair.cu at
                     * -O0); a plain row has its set_file (hdrcall.cu) */
                    g->ctx_believed = PL->file;
                }
                /* the state line: the entry's (sm_90+ .debug_line), else
                 * the function's first .loc's (docs/ptx-lines.md, rule 5) */
                if (!g->defer) {
                    g->has_line = first != 0;
                    g->line = first ? LOC(g, first)->line : 0;
                }
                for (size_t y = up; y; y = LOC(g, y)->inlined_at)
                    ptxg_leave(g, y);
                for (start_top = up; start_top && LOC(g, start_top)->inlined_at;)
                    start_top = LOC(g, start_top)->inlined_at;
                /* ... and its name stays in effect for the .locs inlined
                 * at its context, as if its context row had been written */
                g->start_lin = up == PL->inlined_at ? up : 0;
                g->start_f = fn_of(g, L, 1);
                /* ... and a context row first is believed to be in the
                 * file of the function's first .loc (rule 8's stale
                 * file; hdrpair.cu -rdc), a plain row not (u5.cu) */
                if (g->start_lin && first)
                    g->ctx_believed = LOC(g, first)->file;
            }
            after_entry = 1;
            entry_open = 1;
            entry_a = a;
            entry_line = r->line;
            entry_L = L;
            entry_first = first;
            entry_inl = 0;
            placed_before += E && a != E->start;
            lastL = stand_in ? 0 : L;
            if (!placed_inl)
                continue;
        } else {
            /* the entry's SASS row twice -- or, in sm_90+ .debug_line, once:
             * its repeat is decided by its own rows (nsplace.cu's mass()) */
            int dup = entry_open && entry_a == a && entry_line == r->line;
            if (dup || (entry_open && g->defer && g->has_pc && g->pc == entry_a)) {
                const cudw_ptx_loc *El = LOC(g, entry_L);
                /* the entry row again, not counted -- in the tables of
                 * rule 7 only where a row of the function's first .loc,
                 * after the row before the entry, would not be one special
                 * opcode (docs/ptx-lines.md, rule 5) */
                uint64_t F = entry_first ? LOC(g, entry_first)->line : 0;
                /* its line or its file: q1.cu's d1() begins at line 3 of
                 * one header in line 3 of another */
                int differ = !entry_first || El->line != F || entry_file != LOC(g, entry_first)->file;
                /* an entry that wrote no row (on the state line): a lone
                 * advance in the callee's file (sm_90+: even without the
                 * repeat), then the repeat alone (hdrentry.cu, rule 5) */
                if (dup && differ && (!g->has_pc || g->pc != a)) {
                    if ((rc = ptxg_hidden(g, a, El->file)))
                        break;
                    g->dfile = El->file;
                }
                /* sm_90+: not where a row of the first .loc's line would
                 * be one special opcode (rule 5) */
                int again = differ;
                if (again && g->defer && entry_first && placed_before <= 1)
                    again = !ptxg_entry_special(g, entry_row0, entry_a, F, LOC(g, entry_first)->file);
                if (again) {
                    cudw_line_row *x = ptxg_push(g);
                    if (!x)
                        return CUDW_E_NOMEM;
                    x->address = entry_a;
                    x->file = g->enc_file; /* the row it copies, as encoded */
                    x->line = El->line;
                    x->index = g->n; /* ptxas does not count it */
                    g->enc_line = El->line;
                    if (!entry_inl) { /* ... which the repeat keeps (r2.cu) */
                        g->has_line = 1;
                        g->line = El->line;
                    }
                }
                entry_open = 0;
                if (dup)
                    continue;
            }
            entry_open = 0;
            if (L == lastL)
                continue;
            lastL = L;
            revisit = g->taken_gen[L - 1] == g->gen;
            g->taken_gen[L - 1] = g->gen;
        }
        if (PL->line == 0) {
            size_t X = PL->inlined_at;
            if (g->defer && X && !registered(g, X) && LOC(g, X)->file != PL->file)
                g->nofile_gen[X - 1] = g->gen; /* rule 8 */
            continue;
        }
        /* decided by this .loc: a row or not -- after a .loc's own row, by
         * the first that writes, unless that .loc comes back first (v1.cu) */
        if (g->xsilent && L == g->leaf_L)
            g->xsilent = 0;
        size_t xh = g->xh;
        if (!g->xsilent)
            g->xh = 0;
        int keep_name = g->start_lin && PL->inlined_at == g->start_lin;
        if (!keep_name)
            g->start_lin = 0;
        int after_now = after_entry, leaving = 0;
        after_entry = 0;
        /* (not when a context row goes out here: b7.cu on sm_100) */
        if (g->merc && after_now && PL->line == g->line && (!g->has_pc || g->pc != a) &&
            !(PL->inlined_at && !registered(g, PL->inlined_at)) && (rc = ptxg_hidden(g, a, PL->file)))
            break;
        /* the same line in another file, under contexts some of which
         * are new: a row to decide on, though none may come of it
         * (r1.cu of docs/ptx-lines.md) */
        int xfile = g->defer && g->has_line && PL->line == g->line && PL->file != g->file &&
                    fresh_above(g, PL->inlined_at) && xfile_run(g, PL);
        if (g->defer) {
            if ((rc = ptxg_take_deferred(g, PL, a, revisit, xfile)))
                break;
            if (g->has_line && PL->line == g->line && !xfile) {
                /* rule 7: deferred when its unwritten contexts are all on
                 * this line, or owed (rule 10) */
                size_t x = PL->inlined_at;
                int same = 1;
                for (; x && !registered(g, x); x = LOC(g, x)->inlined_at)
                    if (LOC(g, x)->line != g->line && g->logical_gen[x - 1] != g->gen) {
                        same = 0;
                        break;
                    }
                /* rule 11: not when it leaves the context written last for
                 * another branch and some of those contexts are new: then a
                 * row goes out as rule 10 writes it, same line or not */
                int fresh = 0;
                for (size_t y = PL->inlined_at; y != x; y = LOC(g, y)->inlined_at)
                    fresh |= g->logical_gen[y - 1] != g->gen;
                uint64_t last = g->dctx; /* ... or the one that goes out whatever replaces it (findbins.cu) */
                if (g->want_set && g->sticky && g->want_c)
                    last = g->want_c;
                /* "the context written last" is the one its unwritten
                 * contexts hang from, not any above it (kmdist.cu:
                 * Dist<D,I> recursing over two lines; after the own row
                 * of a .loc in context 11, one inlined under that .loc's
                 * context row 14 leaves 11) */
                if (same && fresh && last) {
                    leaving = !(x && g->reg[x - 1] == last);
                    same = !leaving;
                }
                if (same) {
                    g->pending = g->keep ? g->keep : L;
                    /* rule 9: it still selects its context, when that row
                     * is known, and the name that goes with it */
                    size_t K = PL->inlined_at;
                    if (!K || registered(g, K)) {
                        uint64_t cc = K ? g->reg[K - 1] : 0;
                        g->chg = cc != wctx(g) ? L : 0;
                        if (cc != wctx(g) && (rc = ptxg_want(g, cc, fn_of(g, L, cc), 1)))
                            break;
                    } else {
                        /* its contexts are owed; it selects its context
                         * when that row is written (rule 10) */
                        for (size_t y = K; y && !registered(g, y) && g->logical_gen[y - 1] != g->gen;
                             y = LOC(g, y)->inlined_at)
                            ptxg_leave(g, y);
                        late = L;
                    }
                    continue;
                }
            }
        }
        g->xh = 0;
        /* rule 10: a row on a new line whose unwritten contexts just above
         * it are on that line too is written in the context above them,
         * named as the outermost of them, and they stay unwritten */
        size_t top = PL->inlined_at, run = 0;
        if (g->defer) {
            size_t y = top, r1 = 0;
            for (; y && !registered(g, y) && LOC(g, y)->line == PL->line; y = LOC(g, y)->inlined_at)
                r1 = y;
            /* ... also on the state line, when contexts above that run are
             * new and on another line: their rows move the line away first
             * (twohdr.cu: lerp3() of one header's line 4 under poly() of
             * another's line 4, called on line 11) */
            int moved = r1 && y && !registered(g, y);
            if (!g->has_line || PL->line != g->line || leaving || xfile || moved) {
                top = y;
                run = r1;
            }
        }
        /* the lone advance of the last such .loc (below) becomes its
         * row when this one writes on a new line (r1.cu at -O0) -- not
         * when the first row it writes, a context's, is on its line
         * (a3.cu at -O0: that row takes its place) */
        if (xh && xh == g->nrows && (!g->has_line || PL->line != g->line)) {
            size_t out = 0;
            for (size_t y = top; y && !registered(g, y); y = LOC(g, y)->inlined_at)
                out = y;
            if (!out || LOC(g, out)->line != g->line) {
                g->rows[xh - 1].hidden = 0;
                g->rows[xh - 1].index = ++g->n;
            } else if (g->xsilent) {
                g->nrows--; /* after a .loc's own row it leaves no advance (g3.cu) */
                g->xprov = 0;
            }
        }
        c = 0;
        if (top && (rc = ptxg_ensure(g, top, a, &c)))
            break;
        uint64_t name = run && g->logical_gen[run - 1] == g->gen ? g->cap_f[run - 1] : fn_of(g, run ? run : L, c);
        if (keep_name && !run && c)
            name = g->start_f;
        if (g->defer && c != g->own_ctx) {
            /* a rule-10 row of owed rows carries their name over the one
             * a deferred .loc selected quietly (rule 9) in that context */
            int owed_name = run && g->logical_gen[run - 1] == g->gen && g->soft && g->want_f != name;
            if ((!g->want_set || g->want_c != c || (g->own_ctx == UINT64_MAX && g->want_f != name) || owed_name) &&
                (rc = ptxg_want(g, c, name, 0)))
                break;
            g->force = 1;
        } else if (c != wctx(g) || (g->name_cmp && !g->name_turned && c && name != wfn(g))) {
            /* sm_75/80, Mercury: back in the context written last after a
             * return to the function that wrote nothing, the name stays
             * (rule 4: mathx.cu, backctx k5) */
            if (!g->defer && g->want_set && c && c == g->dctx && !g->name_cmp && !g->sticky)
                name = g->dfn;
            if ((rc = ptxg_want(g, c, name, 0)))
                break;
        }
        g->name_turned = 0;
        g->own_ctx = c;
        size_t lin = g->lin;
        g->lin = PL->inlined_at;
        if (xfile && run && LOC(g, run)->file == g->file && g->xadv && g->xadv == g->nrows && g->pc != a) {
            /* a second one right after the first's advance: its
             * contexts' row goes out here, and ptxas is in the .loc's
             * file now (a third is deferred, rule 7: b6.cu) */
            if ((rc = ptxg_row(g, a, g->file, PL->line, 0)))
                break;
            ptxg_take(g, PL->inlined_at, top);
            g->file = PL->file;
        } else if (xfile && run && LOC(g, run)->file == g->file) {
            /* its contexts' row would be on the line and file of the
             * last: only its address advance goes out, they stay owed */
            if (!g->has_pc || g->pc != a) {
                g->xsilent = g->leaf_last;
                if ((rc = ptxg_hidden(g, a, g->enc_file)))
                    break;
                g->xh = g->xadv = g->nrows;
                g->xprov = g->xsilent ? g->nrows : 0;
            }
            size_t k;
            if (ptxg_chain(g, PL->inlined_at, top, &k))
                return CUDW_E_NOMEM;
            for (size_t j = 0; j < k; j++)
                if (g->logical_gen[g->chain[j] - 1] != g->gen)
                    ptxg_leave(g, g->chain[j]);
            g->pending = L;
        } else if (!g->has_line || PL->line != g->line || (leaving && run)) {
            if (run && LOC(g, run)->file != PL->file)
                g->stale = 0; /* a row of its contexts' file: its set_file goes out (r1.cu) */
            uint64_t row_file = run ? LOC(g, run)->file : PL->file;
            rc = ptxg_row(g, a, row_file, PL->line, 0);
            if (!run) {
                ptxg_claim(g, start_top, L);
                g->leaf_last = 1;
                g->leaf_L = L;
            }
            size_t next = 0; /* rule 10: the first row still owed after this one */
            int all_owed = 0; /* ... none: the row is of rows all owed before */
            int grouped = 0;
            /* rule 10: the owed rows just above it are this row now, the
             * others stay owed; a deferred .loc waiting for one of them
             * selects its context, and that 0x90 goes out even if replaced */
            if (run) {
                size_t k, owed;
                if (ptxg_chain(g, PL->inlined_at, top, &k))
                    return CUDW_E_NOMEM;
                for (owed = k; owed && g->logical_gen[g->chain[owed - 1] - 1] == g->gen; owed--)
                    ; /* chain[owed..k): owed from before, outermost last */
                for (size_t j = 0; j < owed; j++)
                    ptxg_leave(g, g->chain[j]);
                for (size_t j = owed; j < k; j++)
                    set_reg(g, g->chain[j], g->n);
                /* ... and so are the others the same step left owed under
                 * them: one step's owed rows are one row (dotsum.cu) */
                for (size_t j = owed; j < k; j++) {
                    size_t leaf = g->owed_by[g->chain[j] - 1];
                    for (size_t y = leaf ? LOC(g, leaf)->inlined_at : 0;
                         y && !registered(g, y) && g->logical_gen[y - 1] == g->gen && g->owed_by[y - 1] == leaf;
                         y = LOC(g, y)->inlined_at) {
                        set_reg(g, y, g->n);
                        grouped = 1;
                    }
                }
                next = owed && owed < k ? g->chain[owed - 1] : 0;
                all_owed = owed == 0;
            }
            if (grouped) /* a deferred .loc among them selects nothing (dotsum.cu) */
                late = 0;
            if (late && registered(g, LOC(g, late)->inlined_at)) {
                /* ... unless a row just written here carries that 0x90
                 * already (deep.cu: rows of its context's line, then a
                 * deeper one's) */
                uint64_t cc = g->reg[LOC(g, late)->inlined_at - 1], nm = fn_of(g, late, cc);
                int met = 0;
                for (size_t j = g->nrows; j-- > g->seq_first && g->rows[j].address == a && !met;)
                    met = !g->rows[j].hidden && g->rows[j].context == cc && g->rows[j].function_offset == nm;
                if (!met && cc != wctx(g) && (rc = ptxg_want(g, cc, nm, 0)))
                    break;
                g->sticky = g->want_set;
                chooser_file(g, late, row_file);
                late = 0;
            } else if (next) {
                /* the 0x90 moves to the first row still owed (it goes out
                 * even if replaced): q7 of docs/ptx-lines.md */
                uint64_t cc = g->reg[LOC(g, next)->inlined_at - 1];
                if ((cc != wctx(g) || g->cap_f[next - 1] != wfn(g)) &&
                    (rc = ptxg_want(g, cc, g->cap_f[next - 1], 0)))
                    break;
                g->sticky = g->want_set;
                chooser_file(g, next, row_file);
            }
            if (run && LOC(g, run)->file != PL->file) {
                /* the row was the contexts' (their file); the .loc's own
                 * is on that line: no row, its 0x90 goes out, in its file,
                 * once its context is written (r1.cu, rule 10) */
                size_t K = PL->inlined_at;
                if (registered(g, K)) {
                    uint64_t cc = g->reg[K - 1];
                    if (cc != wctx(g) && (rc = ptxg_want(g, cc, fn_of(g, L, cc), 0)))
                        break;
                    g->sticky = g->want_set;
                    g->want_file = g->want_set ? PL->file : 0;
                }
            } else if (run && all_owed && registered(g, PL->inlined_at)) {
                /* ... but a row of rows all owed before is theirs: the
                 * .loc's own 0x90 goes out, even if replaced (fiblist.cu) */
                uint64_t cc = g->reg[PL->inlined_at - 1];
                if (cc != wctx(g) && (rc = ptxg_want(g, cc, fn_of(g, L, cc), 0)))
                    break;
                g->sticky = g->want_set;
            } else if (run) {
                g->pending = L; /* rule 10: its contexts wait for the next .loc, as a deferred one's */
            }
        } else if (!g->defer && c == 0 && !after_now) {
            /* sm_75/80 and Mercury: back to the function itself on the
             * same line writes nothing yet (the 0x90 waits for the next row) */
        } else if (!g->defer) {
            rc = ptxg_same_line(g, PL, a, c, name, lin, after_now);
        }
        if (placed_inl) { /* the state line of an entry, as above; sm_90+: its
                           * first .loc's too when its own row did not go
                           * out (rule 15, r1.cu at -O2) */
            entry_inl = g->defer && run && LOC(g, run)->file != PL->file;
            if (run) /* its row is its contexts', in their file (b7.cu) */
                entry_file = LOC(g, run)->file;
            if (!g->defer || entry_inl) {
                g->has_line = first != 0;
                g->line = first ? LOC(g, first)->line : 0;
            }
            after_entry = 1;
        }
    }
    return rc;
}
