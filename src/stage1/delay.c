/* B_DELAY (docs/ptx-lines.md): sm_90+ .debug_line delays a same-line .loc
 * whose new contexts are all on that line until the next .loc shows
 * whether it needs them.  This is the taking of such a deferred .loc by
 * the .loc PL at address a, before PL's own rows: whether it is
 * taken (inlined in it), kept pending (a revisit), held (PL writes
 * nothing) or dropped -- and, when taken, its context rows and 0x90.
 *
 *     .loc A (deferred)    -> pending = A
 *     .loc B, inlined in A -> A's contexts written here, A's 0x90 chosen
 *     .loc C, elsewhere    -> A dropped -- or held, when C only selects a
 *                             context: the next .loc inlined in A takes it */
#include "stage1/gen.h"

int ptxg_take_deferred(gen *g, const cudw_ptx_loc *PL, uint64_t a, int revisit, int xfile)
{
    int rc = CUDW_OK;
    /* kept only if this .loc is inlined in it -- or, when it
     * only selects a context (same line, contexts written), held
     * for the next .loc inlined in it, also through .locs inlined
     * in such a one: that one writes its rows, and after such a
     * wait with the held .loc's own name -- not when one of them
     * had contexts only owed (B_HOLD; offsetnd.cu, binsearch.cu,
     * findbins.cu: templates recursing on one line) */
    int revived = 0; /* it was held: its own name wins */
    g->d.keep = 0;
    if (g->d.pending || g->d.held) {
        size_t x = PL->inlined_at;
        while (x && x != g->d.pending && x != g->d.held)
            x = LOC(g, x)->inlined_at;
        int online = g->pos.has_line && PL->line == g->pos.line && !xfile;
        int strict = online && (!PL->inlined_at || registered(g, PL->inlined_at));
        /* ... or whose contexts are written or owed (findbins.cu at -O2) */
        int quiet = strict || (online && !fresh_above(g, PL->inlined_at));
        if (x && revisit) {
            /* a .loc in effect before does not take it: it stays
             * pending for the next new one (binsearch.cu -rdc,
             * offsetnd.cu on sm_120 at -O1) */
            g->d.keep = g->d.pending ? g->d.pending : g->d.held;
            g->d.pending = 0;
        } else if (x) {
            revived = x == g->d.held && g->d.held_strict;
            g->d.pending = x;
            if (x == g->d.held)
                g->d.held = 0;
        } else {
            if (on(g, B_HOLD) && quiet && g->d.pending && LOC(g, g->d.pending)->inlined_at &&
                !registered(g, LOC(g, g->d.pending)->inlined_at)) {
                g->d.held = g->d.pending;
                g->d.held_strict = strict;
            } else if (!quiet) {
                g->d.held = 0;
            } else if (!strict) {
                g->d.held_strict = 0;
            }
            g->d.pending = 0;
        }
    }
    if (g->d.pending) {
        size_t X = g->d.pending;
        g->d.pending = 0;
        uint64_t cx = 0;
        if (LOC(g, X)->inlined_at && (rc = ptxg_ensure(g, LOC(g, X)->inlined_at, a, &cx)))
            return rc;
        uint64_t fx = fn_of(g, X, cx);
        size_t n0 = g->nrows;
        if ((cx != wctx(g) || (revived && cx && fx != wfn(g))) && (rc = ptxg_want(g, cx, fx, 0)))
            return rc;
        g->w.sticky = g->w.want_set;
        if (g->w.want_set) /* in the deferred .loc's file (althdr.cu) */
            g->w.want_file = LOC(g, X)->file;
        /* its contexts were written already, and where it was
         * deferred it chose another context than the one in
         * effect: taken by a .loc on its line inlined right at it,
         * it writes a row of its own there, if its 0x90 names
         * another function than the last written (horner.cu at
         * -O1..-O3: the `.loc` of horner<1> after the return from
         * horner<0>) */
        if (on(g, B_DELAYED_OWN_ROW) && PL->line == g->pos.line && n0 == g->nrows && cx && g->d.chg == X && PL->inlined_at == X &&
            fx != g->w.dfn && !revived) {
            if ((rc = ptxg_want(g, cx, fx, 0)))
                return rc;
            g->w.force = 1;
            if ((rc = ptxg_row(g, a, LOC(g, X)->file, LOC(g, X)->line, 0)))
                return rc;
        }
    }
    return rc;
}
