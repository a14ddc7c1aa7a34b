/* Rule 7 of docs/ptx-lines.md: sm_90+ .debug_line defers a same-line .loc
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
#include "ptx/ptx_gen.h"

int ptxg_take_deferred(gen *g, const cudw_ptx_loc *PL, uint64_t a, int revisit, int xfile)
{
    int rc = CUDW_OK;
    /* kept only if this .loc is inlined in it -- or, when it
     * only selects a context (same line, contexts written), held
     * for the next .loc inlined in it, also through .locs inlined
     * in such a one: that one writes its rows, and after such a
     * wait with the held .loc's own name -- not when one of them
     * had contexts only owed (rule 7; offsetnd.cu, binsearch.cu,
     * findbins.cu: templates recursing on one line) */
    int revived = 0; /* it was held: its own name wins */
    g->keep = 0;
    if (g->pending || g->held) {
        size_t x = PL->inlined_at;
        while (x && x != g->pending && x != g->held)
            x = LOC(g, x)->inlined_at;
        int online = g->has_line && PL->line == g->line && !xfile;
        int strict = online && (!PL->inlined_at || registered(g, PL->inlined_at));
        /* ... or whose contexts are written or owed (findbins.cu at -O2) */
        int quiet = strict || (online && !fresh_above(g, PL->inlined_at));
        if (x && revisit) {
            /* a .loc in effect before does not take it: it stays
             * pending for the next new one (binsearch.cu -rdc,
             * offsetnd.cu on sm_120 at -O1) */
            g->keep = g->pending ? g->pending : g->held;
            g->pending = 0;
        } else if (x) {
            revived = x == g->held && g->held_strict;
            g->pending = x;
            if (x == g->held)
                g->held = 0;
        } else {
            if (quiet && g->pending && LOC(g, g->pending)->inlined_at &&
                !registered(g, LOC(g, g->pending)->inlined_at)) {
                g->held = g->pending;
                g->held_strict = strict;
            } else if (!quiet) {
                g->held = 0;
            } else if (!strict) {
                g->held_strict = 0;
            }
            g->pending = 0;
        }
    }
    if (g->pending) {
        size_t X = g->pending;
        g->pending = 0;
        uint64_t cx = 0;
        if (LOC(g, X)->inlined_at && (rc = ptxg_ensure(g, LOC(g, X)->inlined_at, a, &cx)))
            return rc;
        uint64_t fx = fn_of(g, X, cx);
        size_t n0 = g->nrows;
        if ((cx != wctx(g) || (revived && cx && fx != wfn(g))) && (rc = ptxg_want(g, cx, fx, 0)))
            return rc;
        g->sticky = g->want_set;
        if (g->want_set) /* in the deferred .loc's file (rule 15: althdr.cu) */
            g->want_file = LOC(g, X)->file;
        /* its contexts were written already, and where it was
         * deferred it chose another context than the one in
         * effect: taken by a .loc on its line inlined right at it,
         * it writes a row of its own there, if its 0x90 names
         * another function than the last written (horner.cu at
         * -O1..-O3: the `.loc` of horner<1> after the return from
         * horner<0>) */
        if (PL->line == g->line && n0 == g->nrows && cx && g->chg == X && PL->inlined_at == X &&
            fx != g->dfn && !revived) {
            if ((rc = ptxg_want(g, cx, fx, 0)))
                return rc;
            g->force = 1;
            if ((rc = ptxg_row(g, a, LOC(g, X)->file, LOC(g, X)->line, 0)))
                return rc;
        }
    }
    return rc;
}
