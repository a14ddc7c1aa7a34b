/* The rows and opcodes of ptxas's stage 1 (docs/ptx-lines.md): a row, a
 * lone advance (hidden row), a 0x90 that goes out without a row (hidden
 * row of kind 2), the 0x90 a row will carry, owed context rows, and the
 * context rows a .loc needs.  The walk that decides when is model.c. */
#include "stage1/gen.h"

line_wrow *ptxg_push(gen *g)
{
    line_wrow *v = vec_room(g->rows, &g->cap, g->nrows, sizeof *v, 256);
    if (!v)
        return NULL;
    g->rows = v;
    v = &g->rows[g->nrows++];
    *v = g->proto;
    v->context = g->w.dctx;
    v->function_offset = g->w.dfn;
    if (g->w.dctx) {
        g->w.nz_ctx = g->w.dctx;
        g->w.nz_fn = g->w.dfn;
    }
    return v;
}

void ptxg_flush(gen *g)
{
    if (g->w.want_set && (g->w.want_c != g->w.dctx || g->w.want_f != g->w.dfn || g->w.force)) {
        if (g->w.want_c != g->w.dctx)
            g->w.name_cmp = 0;
        g->w.dctx = g->w.want_c;
        g->w.dfn = g->w.want_f;
    }
    g->w.want_set = 0;
    g->w.force = 0;
    g->w.soft = 0;
    g->w.sticky = 0;
    g->w.want_file = 0;
}

/* The file a row of `file` decodes in, and whether ptxas writes a set_file
 * that changes nothing: after a line-0 .loc ptxas believes it is in the
 * call site's file: when that call site's context row comes, ptxas writes
 * no set_file for it, so it stays in the file before; the next row
 * elsewhere sets its file even when that is the one in effect
 * (docs/ptx-lines.md, B_STALE_FILE). */
static uint64_t real_file(gen *g, uint64_t file, uint8_t *again)
{
    *again = 0;
    if (!g->enc.stale || !on(g, B_STALE_FILE))
        return file;
    if (file == g->enc.believed)
        return g->enc.file;
    *again = file == g->enc.file;
    g->enc.stale = 0;
    return file;
}

int ptxg_row(gen *g, uint64_t a, uint64_t file, uint64_t line, uint8_t merc_flag)
{
    g->pos.dfile = file;
    g->adv.leaf_last = 0;
    g->enc.ctx_believed = 0; /* the first row after an entry decides (ptxg_ensure) */
    int new_ctx = g->w.want_set && (g->w.want_c != g->w.dctx || g->w.want_f != g->w.dfn || g->w.force);
    ptxg_flush(g);
    /* B_NAMES_AFTER_DEAD: the names a dead 0x90 made count stop counting at the
     * first row that goes out without a 0x90 of its own (chainbase.cu:
     * Chain<N> bottoming out in a noinline base()) */
    if (!new_ctx)
        g->w.name_cmp = 0;
    line_wrow *r = ptxg_push(g);
    if (!r)
        return CUDW_E_NOMEM;
    uint64_t logical = file;
    file = real_file(g, file, &r->file_again);
    r->ctx_first = on(g, B_CONTEXT_FIRST) && g->w.cfirst && new_ctx && (file != g->enc.file || r->file_again) &&
                   g->w.dctx; /* not a return to the function itself (tmplline.cu of the sweep) */
    r->pre_file = r->ctx_first ? g->w.cfile : 0;
    g->w.cfile = 0;
    r->file_first = g->enc.file_first && file != g->enc.file;
    g->enc.file_first = 0;
    if (merc_flag) {
        g->enc.flag_open = 1;
        g->enc.flag_addr = a;
    }
    g->w.cfirst = 0;
    r->address = a;
    r->file = file;
    r->line = line;
    r->merc_flag = merc_flag;
    r->index = ++g->n;
    g->pos.has_line = 1;
    g->pos.line = line;
    g->pos.file = logical;
    g->pos.has_addr = g->pos.has_pc = 1;
    g->pos.addr = g->pos.pc = a;
    g->enc.line = line;
    g->enc.file = file;
    return CUDW_OK;
}

/* A lone advance to a; file: the file it is in (Mercury moves the file
 * with it, .debug_line keeps the last row's). */
int ptxg_hidden(gen *g, uint64_t a, uint64_t file)
{
    line_wrow *r = ptxg_push(g);
    if (!r)
        return CUDW_E_NOMEM;
    file = real_file(g, file, &r->file_again);
    g->enc.file = file;
    g->enc.file_first = 0;
    r->address = a;
    r->file = file;
    r->line = g->enc.line;
    r->hidden = 1;
    r->index = g->n;
    g->pos.has_pc = 1;
    g->pos.pc = a;
    return CUDW_OK;
}

/* A forced 0x90 (B_DEAD_0X90) that the next context replaces before any row:
 * ptxas writes it all the same (templ.cu at -O0: two 0x90s in a row). */
int ptxg_dead(gen *g)
{
    line_wrow *r = ptxg_push(g);
    if (!r)
        return CUDW_E_NOMEM;
    r->address = g->pos.has_pc ? g->pos.pc : 0;
    r->file = g->w.want_file ? g->w.want_file : g->enc.file;
    g->enc.file = r->file;
    r->line = g->enc.line;
    r->context = g->w.want_c;
    r->function_offset = g->w.want_f;
    if (g->w.want_c) {
        g->w.nz_ctx = g->w.want_c;
        g->w.nz_fn = g->w.want_f;
    }
    r->hidden = 2;
    r->index = g->n;
    g->w.dctx = g->w.want_c;
    g->w.dfn = g->w.want_f;
    g->w.want_set = g->w.force = 0;
    g->w.sticky = 0;
    g->w.want_file = 0;
    g->w.name_cmp = delays(g) && on(g, B_NAMES_AFTER_DEAD);
    return CUDW_OK;
}

/* The 0x90 (c, f) for the next row; soft: chosen by a .loc that writes
 * nothing (B_SELECT_QUIETLY). */
int ptxg_want(gen *g, uint64_t c, uint64_t f, int soft)
{
    if (on(g, B_DEAD_0X90) && g->w.want_set && ((delays(g) && soft) || g->w.sticky) && !g->w.soft &&
        (g->w.want_c != g->w.dctx || g->w.want_f != g->w.dfn) && (c != g->w.want_c || f != g->w.want_f)) {
        /* B_DEAD_0X90: a 0x90 a row needed, replaced before that row by a .loc
         * that writes nothing, goes out (templ.cu at -O0); so does one a
         * deferred .loc's contexts chose, whatever replaces it
         * (tests/fixtures/stage1/stair_sm90_lineinfo), and in the tables
         * that do the work at once, one chosen at the row just written
         * (B_AT_ROW_STICKY, collapse_sm100_lineinfo) */
        int rc = ptxg_dead(g);
        if (rc)
            return rc;
    } else if (delays(g) && g->w.want_set && on(g, B_BACK_TO_WRITTEN)) {
        if (c == g->w.dctx) {
            /* B_BACK_TO_WRITTEN: back to the context written last, whose 0x90 stands */
            g->w.want_set = 0;
            g->w.soft = 0;
            return CUDW_OK;
        }
    }
    g->w.owed_sel = 0;
    g->w.want_set = 1;
    g->w.want_c = c;
    g->w.want_f = f;
    g->w.soft = soft;
    g->w.sticky = 0;
    g->w.want_file = 0;
    return CUDW_OK;
}

/* Leave the context row of .loc x unwritten, owed (B_OWED_CONTEXT_ROWS): it will
 * carry the name a row written now would, the one in effect when its
 * context is the one in effect (names are sticky). */
void ptxg_leave(gen *g, size_t x)
{
    size_t up = LOC(g, x)->inlined_at;
    uint64_t pc = up ? (registered(g, up) ? g->loc.reg[up - 1] : UINT64_MAX) : 0;
    g->loc.logical_gen[x - 1] = g->loc.gen;
    g->loc.cap_f[x - 1] = pc == wctx(g) ? wfn(g) : LOC(g, x)->function_offset;
    g->loc.owed_by[x - 1] = g->step;
}

/* The address and line registers after the last row or lone advance of
 * the sequence before rows[end] (a 0x90 alone moves neither); at its
 * start, the start. */
static void last_regs(const gen *g, size_t end, uint64_t start, uint64_t *a, uint64_t *line)
{
    for (size_t i = end; i-- > g->seq_first;)
        if (g->rows[i].hidden != 2) {
            *a = g->rows[i].address;
            *line = g->rows[i].line;
            return;
        }
    *a = start;
    *line = 1;
}

/* B_START_CLAIM: the outermost context a sequence's start left owed, top, is
 * the row just written for L when L is a later .loc of its file, line and
 * column, not inlined (hashline.cu; an earlier one,
 * placed.cu -rdc, and an inlined one, hdrpair.cu -rdc, do not take it). */
void ptxg_claim(gen *g, size_t top, size_t L)
{
    const cudw_ptx_loc *T = LOC(g, top ? top : L), *X = LOC(g, L);
    if (!(top && top < L && !X->inlined_at && !registered(g, top) && g->loc.logical_gen[top - 1] == g->loc.gen &&
          same_flc(T, X)))
        return;
    /* only a row written long, not one special opcode (rnd15.cu, rich4.cu) */
    const line_wrow *r = &g->rows[g->nrows - 1];
    uint64_t pa, pl;
    last_regs(g, g->nrows - 1, r->address, &pa, &pl);
    if (ptxg_special(g, pa, pl, r->address, r->line))
        return;
    /* not once another instance of it is a context row */
    const cudw_ptx_func *F = &g->p->funcs[T->function];
    for (size_t y = F->first_loc; y && y < F->first_loc + F->nlocs; y++)
        if (registered(g, y) && same_flc(LOC(g, y), T))
            return;
    set_reg(g, top, g->n);
    g->claimed = top;
}

/* The .locs from `from` up to `stop` (not included) have the row just
 * written as their context row. */
void ptxg_take(gen *g, size_t from, size_t stop)
{
    for (size_t x = from; x && x != stop; x = LOC(g, x)->inlined_at)
        set_reg(g, x, g->n);
}

/* The .locs from `from` up to `stop` (not included), innermost first, into
 * g->loc.chain[0..*k). */
int ptxg_chain(gen *g, size_t from, size_t stop, size_t *k)
{
    *k = 0;
    for (size_t x = from; x != stop; x = LOC(g, x)->inlined_at) {
        size_t *v = vec_room(g->loc.chain, &g->loc.capchain, *k, sizeof *v, 16);
        if (!v)
            return CUDW_E_NOMEM;
        g->loc.chain = v;
        g->loc.chain[(*k)++] = x;
    }
    return CUDW_OK;
}

/* The first row at address a on `line` of `file` (sm_90+ .debug_line):
 * ptxas writes a context row when the row before is on another line, but
 * names the context by the first row at that address on its line, even an
 * outer context's (tests/fixtures/stage1/firstrow_sm90_lineinfo). */
static uint64_t first_row_on(const gen *g, uint64_t a, uint64_t file, uint64_t line, uint64_t row)
{
    for (size_t i = g->nrows; i-- > g->seq_first && g->rows[i].address == a;) {
        const line_wrow *r = &g->rows[i];
        if (!r->hidden && !r->end_sequence && r->line == line && r->file == file)
            row = r->index;
    }
    return row;
}

/* The context row of .loc L (0: not inlined), writing the rows of the
 * contexts it needs at address a, outermost first. */
int ptxg_ensure(gen *g, size_t L, uint64_t a, uint64_t *out)
{
    size_t top = L, k;
    while (top && !registered(g, top))
        top = LOC(g, top)->inlined_at;
    if (ptxg_chain(g, L, top, &k))
        return CUDW_E_NOMEM;
    uint64_t pctx = top ? g->loc.reg[top - 1] : 0;
    int owed_below = 0; /* the row just written here was owed */
    int wrote = 0;      /* ... and written by this call */
    int shared = 0;     /* the last .loc taken shares the row before it */
    int rc0;
    while (k--) {
        size_t x = g->loc.chain[k];
        const cudw_ptx_loc *X = LOC(g, x);
        int owed = g->loc.logical_gen[x - 1] == g->loc.gen;
        /* B_TURN: the 0x90 an owed row chose, then a context not owed in
         * that row with another name: the first goes out dead, the second
         * is the 0x90 of the .loc's own row (horner.cu at -O0) */
        int turn = on(g, B_TURN) && delays(g) && g->w.owed_sel && g->w.want_set && !owed && pctx == g->w.want_c &&
                   fn_of(g, x, pctx) != g->w.want_f;
        /* B_TWICE: the 0x90 a delayed .loc's contexts chose stands; the
         * next context sharing that row writes its own, even the same
         * (a template recursing on one line: two 0x90s; B_TWICE, walkloop.cu) */
        /* ... also the first one, sharing the row its parent's context
         * got just before at this address, when a deferred .loc taken
         * here chose that 0x90 (walkloop.cu: Walk<D> recursing
         * from inside a loop, at -O0) */
        int pre = !wrote && pctx && pctx == g->n && g->pos.has_addr && g->pos.addr == a && g->pos.has_line &&
                  g->pos.line == X->line;
        int twice = on(g, B_TWICE) && delays(g) && (shared || pre) && g->w.sticky && g->w.want_set && pctx == g->w.want_c &&
                    fn_of(g, x, pctx) == g->w.want_f;
        if (twice) {
            int cmp = g->w.name_cmp; /* the same 0x90 again: names do not start to count */
            if ((rc0 = ptxg_dead(g)))
                return rc0;
            g->w.name_cmp = cmp;
            g->rows[g->nrows - 1].kept = 1; /* ptxas writes both */
        }
        /* names count (B_NAMES_AFTER_DEAD) only while the context in effect is the
         * dead 0x90's: not against a 0x90 a deferred .loc chose in
         * another (B_SELECT_QUIETLY; matvec.cu at -O0) */
        int names = g->w.name_cmp && wctx(g) == g->w.dctx && pctx && fn_of(g, x, pctx) != wfn(g);
        if (pctx != wctx(g) || names || turn || twice) {
            int rc = turn ? ptxg_dead(g) : CUDW_OK;
            if (rc || (rc = ptxg_want(g, pctx, fn_of(g, x, pctx), 0)))
                return rc;
            g->w.own_ctx = pctx;
            g->w.owed_sel = owed && g->w.want_set;
            g->w.name_turned |= turn;
        }
        set_reg(g, x, g->n); /* the row already there, or the one written below */
        shared = g->pos.has_addr && g->pos.addr == a && g->pos.has_line && g->pos.line == X->line;
        if (shared) {
            /* the 0x90 of what is inlined at it goes out before the next
             * row's set_file (B_CONTEXT_FIRST; warpsum.cu on sm_75) */
            g->w.cfirst = !delays(g) && X->file == g->pos.file && wrote;
            /* ... and in another file (its line number the row's), after a
             * set_file to its file (B_CONTEXT_FILE: chain3.cu of the sweep) */
            if (on(g, B_CONTEXT_FILE) && !delays(g) && X->file != g->pos.file && wrote) {
                g->w.cfirst = 1;
                g->w.cfile = X->file;
            }
            if (delays(g) && owed_below && X->file != g->pos.file && g->w.want_set && g->w.want_c != g->w.dctx) {
                /* ... in another file, just after an owed row: what is
                 * inlined at it writes its own 0x90, name and all; and
                 * unless it is owed too, its set_file and 0x90 go out
                 * at once, no row (B_OTHER_FILE_LINE) */
                if (!owed) {
                    uint8_t again;
                    uint64_t f = real_file(g, X->file, &again);
                    g->w.want_file = f;
                    int rc = ptxg_dead(g);
                    if (rc)
                        return rc;
                    g->rows[g->nrows - 1].file_again = again;
                    g->pos.file = X->file;
                }
                g->w.own_ctx = UINT64_MAX;
            }
        } else {
            g->w.own_ctx = pctx;
            if (on(g, B_STALE_FILE) && (g->loc.nofile_gen[x - 1] == g->loc.gen || X->file == g->enc.ctx_believed) &&
                X->file != g->enc.file) {
                g->enc.stale = 1; /* no set_file for it: the row stays in the file before */
                g->enc.believed = X->file;
            }
            owed_below = g->loc.logical_gen[x - 1] == g->loc.gen;
            int rc = ptxg_row(g, a, X->file, X->line, 0);
            if (rc)
                return rc;
            wrote = 1;
            g->loc.reg[x - 1] = g->n;
        }
        if (delays(g) && on(g, B_FIRST_ROW_NAMES))
            g->loc.reg[x - 1] = first_row_on(g, a, X->file, X->line, g->loc.reg[x - 1]);
        pctx = g->loc.reg[x - 1];
    }
    *out = pctx;
    return CUDW_OK;
}

/* Whether a row on `line` at a, after one on line0 at a0, is one special
 * opcode of the table's header (both advances non-zero, in range). */
int ptxg_special(const gen *g, uint64_t a0, uint64_t line0, uint64_t a, uint64_t line)
{
    const cudw_line_params *p = g->prm;
    return a > a0 && p->min_inst_length &&
           line_special_op(p, (int64_t)(line - line0), (a - a0) / p->min_inst_length) >= 0;
}


/* B_REPEAT_IF_LONG (sm_90+): whether a row of line F at a, the first .loc's, would
 * be one special opcode after what came before the last row or lone
 * advance -- or, where the entry's first row, rows[row0], is itself on
 * that line in that file (a context row: nn() of hlnmacro.cu), whether
 * that row is one after what came before it. */
int ptxg_entry_special(const gen *g, size_t row0, uint64_t a, uint64_t F, uint64_t ffile)
{
    const line_wrow *r0 = row0 < g->nrows ? &g->rows[row0] : NULL;
    int own = r0 && !r0->hidden && r0->line == F && row0 + 1 < g->nrows && r0->file == ffile;
    size_t last = g->nrows; /* the last row or lone advance, if any */
    while (last > g->seq_first && g->rows[last - 1].hidden == 2)
        last--;
    if (last > g->seq_first)
        last--;
    uint64_t pa, pl;
    last_regs(g, own ? row0 : last, a, &pa, &pl);
    return ptxg_special(g, pa, pl, a, F);
}

/* sm_75/80 and Mercury: a .loc on the line of the last row, in context c
 * named `name` (lin: where the .loc before was inlined).  Another .loc
 * instance inlined at the same row (two shared one row) also
 * advances; the 0x90 stays unwritten. */
int ptxg_same_line(gen *g, const cudw_ptx_loc *PL, uint64_t a, uint64_t c, uint64_t name, size_t lin,
                   int after_entry)
{
    int had = g->w.want_set ? g->w.want_c != g->w.dctx || g->w.want_f != g->w.dfn
                          : c && c == g->w.dctx && PL->inlined_at != lin;
    /* from the function itself (context 0) into a context on its line,
     * ptxas compares with the last context a row or 0x90 went out in, not
     * with 0: back in that one, no advance (B_BACK_IN_CONTEXT: k1 of the backctx
     * fixtures, cgcopy.cu) -- but a .loc of another file on its call
     * site's line number is B_OTHER_FILE_LINE's */
    if (on(g, B_BACK_IN_CONTEXT) && had && g->w.want_set && !g->w.dctx && g->w.want_c && PL->inlined_at &&
        (PL->file == g->pos.file || LOC(g, PL->inlined_at)->line != PL->line))
        had = g->w.want_c != g->w.nz_ctx || g->w.want_f != g->w.nz_fn;
    /* ... but not one inlined where the last was, whose 0x90 is the one
     * going out dead already: it goes out alone (rnd31.cu) */
    if (g->w.want_set && g->w.sticky && PL->inlined_at == lin && g->w.want_c == c && g->w.want_f == name &&
        (!g->pos.has_pc || g->pos.pc != a)) {
        int rc = ptxg_dead(g);
        if (rc)
            return rc;
        had = 0;
    }
    if (on(g, B_AT_ROW_STICKY) && g->w.want_set && had && g->pos.has_pc && g->pos.pc == a) {
        /* at the address of the row just written, that 0x90 goes out even
         * if replaced before the next row (B_AT_ROW_STICKY), in the file of the .loc
         * that made it (line 4 of another file
         * is the same line) */
        g->w.sticky = 1;
        g->w.want_file = PL->file;
        return CUDW_OK;
    }
    ptxg_flush(g);
    if (on(g, B_SAME_LINE_ADVANCE) && (had || after_entry) && (!g->pos.has_pc || g->pos.pc != a))
        return ptxg_hidden(g, a, PL->file); /* in its file */
    return CUDW_OK;
}

/* A dead 0x90 (hidden row of kind 2) that the next row or the end carries
 * as it is -- same context, name and file -- is that row's own 0x90: ptxas
 * writes it once (rnd31.cu on sm_80, hlnsame.cu's p3() on sm_100), and a
 * decoder reads no lone 0x90 there.  Drop such rows of rows[from..) --
 * but those ptxg_ensure marked kept (B_TWICE: the 0x90 written twice,
 * walkloop.cu); the mark is cleared here. */
void ptxg_merge_dead(gen *g, size_t from)
{
    size_t o = from;
    for (size_t i = from; i < g->nrows; i++) {
        const line_wrow *r = &g->rows[i], *nx = i + 1 < g->nrows ? &g->rows[i + 1] : NULL;
        if (on(g, B_MERGE_DEAD) && r->hidden == 2 && !r->kept && nx && !nx->hidden && nx->context == r->context &&
            nx->function_offset == r->function_offset && nx->file == r->file && !nx->file_again)
            continue;
        g->rows[o] = *r;
        g->rows[o++].kept = 0;
    }
    g->nrows = o;
}
