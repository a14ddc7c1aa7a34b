/* The symbolizer's DIE half: every DW_TAG_inlined_subroutine of
 * .debug_info as a node (its function's name through DW_AT_abstract_origin,
 * the call's file, line and column, the enclosing inlined subroutine), and
 * its address ranges (DW_AT_low_pc/high_pc, or DW_AT_ranges) turned into
 * disjoint segments, each naming the innermost node that covers it: a
 * lookup is one binary search, then the parent links.  -G code has these
 * and no inlined-call contexts in its line table. */
#include "sym.h"

#include <stdlib.h>

enum {
    TAG_INLINED = 0x1d, TAG_SUBPROGRAM = 0x2e,
    AT_LOW_PC = 0x11, AT_HIGH_PC = 0x12, AT_RANGES = 0x55, AT_ORIGIN = 0x31, AT_SPEC = 0x47,
    AT_CALL_FILE = 0x58, AT_CALL_LINE = 0x59, AT_CALL_COLUMN = 0x57, AT_STMT_LIST = 0x10
};

typedef struct ival {
    uint32_t shndx, node, depth;
    uint64_t lo, hi;
} ival;

typedef struct ibuild {
    sym_image *img;
    unsigned flags;
    ival *iv;
    size_t niv, cap_iv, cap_inl, cap_segs;
} ibuild;

/* The name of the function an inlined subroutine instantiates: its
 * abstract origin's linkage name (or name), through specifications. */
static const char *origin_name(const cudw_unit *u, const cudw_die *d)
{
    cudw_die cur = *d;
    for (int hop = 0; hop < 8; hop++) {
        const char *name;
        cudw_attr a;
        uint64_t next = 0;
        if (hop && cudw_die_name(&cur, &name) == CUDW_OK)
            return name;
        if (cudw_die_attr(&cur, AT_ORIGIN, &a) == CUDW_OK && a.vclass == CUDW_V_REF)
            next = a.u;
        else if (cudw_die_attr(&cur, AT_SPEC, &a) == CUDW_OK && a.vclass == CUDW_V_REF)
            next = a.u;
        if (!next || cudw_die_at(u, next, &cur) != CUDW_OK)
            return hop ? NULL : (cudw_die_name(d, &name) == CUDW_OK ? name : NULL);
    }
    return NULL;
}

/* (section, address) of a relocated address value. */
static int placed(const sym_image *img, const cudw_reloc *r, uint64_t value, uint32_t *shndx, uint64_t *addr)
{
    if (!r)
        return 0;
    const sym_func *fn = r->sym_name ? sym_func_named(img, r->sym_name, strlen(r->sym_name)) : NULL;
    if (fn) {
        *shndx = fn->shndx;
        *addr = fn->value + (value - r->sym_value);
    } else {
        *shndx = r->sym_shndx;
        *addr = value;
    }
    return *shndx != 0;
}

static int add_ival(ibuild *b, uint32_t node, uint32_t depth, uint32_t shndx, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return CUDW_OK;
    if (sym_grow((void **)&b->iv, &b->cap_iv, b->niv, sizeof *b->iv))
        return sym_fail(b->img, CUDW_E_NOMEM, NULL, 0, "inline ranges", "out of memory");
    b->iv[b->niv++] = (ival){shndx, node, depth, lo, hi};
    return CUDW_OK;
}

/* The ranges of DIE d: low/high pc, or a .debug_ranges list. */
static int ranges_of(ibuild *b, const cudw_unit *u, const cudw_die *d, uint32_t node, uint32_t depth)
{
    cudw_attr lo, hi, rg;
    uint32_t shndx, sh2;
    uint64_t a, z;
    if (cudw_die_attr(d, AT_LOW_PC, &lo) == CUDW_OK && cudw_die_attr(d, AT_HIGH_PC, &hi) == CUDW_OK) {
        if (!placed(b->img, lo.reloc, lo.u, &shndx, &a))
            return CUDW_OK;
        if (hi.vclass == CUDW_V_ADDRESS) {
            if (!placed(b->img, hi.reloc, hi.u, &sh2, &z) || sh2 != shndx)
                z = a + (hi.u - lo.u);
        } else {
            z = a + hi.u; /* DWARF 4: an offset from low_pc */
        }
        return add_ival(b, node, depth, shndx, a, z);
    }
    if (cudw_die_attr(d, AT_RANGES, &rg) != CUDW_OK)
        return CUDW_OK;
    const cudw_section *rs = section_companion(u->file, u->section, ".debug_ranges");
    if (!rs)
        return CUDW_OK;
    uint64_t cur = rg.u, base = 0;
    uint32_t base_sh = 0;
    cudw_list_entry e;
    for (int n = 0; n < 65536 && cudw_list_next(u->file, rs, 0, u->addr_size, &cur, &e) == CUDW_OK; n++) {
        if (e.kind == CUDW_LOC_END)
            break;
        if (e.kind == CUDW_LOC_BASE) {
            if (!placed(b->img, e.end_reloc, e.end, &base_sh, &base))
                base_sh = 0;
            continue;
        }
        if (placed(b->img, e.begin_reloc, e.begin, &shndx, &a)) {
            if (!placed(b->img, e.end_reloc, e.end, &sh2, &z) || sh2 != shndx)
                z = a + (e.end - e.begin);
        } else if (base_sh) {
            shndx = base_sh;
            a = base + e.begin;
            z = base + e.end;
        } else {
            continue;
        }
        int rc = add_ival(b, node, depth, shndx, a, z);
        if (rc)
            return rc;
    }
    return CUDW_OK;
}

/* The line table of unit u (for call_file), from its DW_AT_stmt_list. */
static const cudw_line_table *unit_lines(cudw_file *f, const cudw_unit *u)
{
    cudw_die_iter it;
    cudw_die d;
    cudw_attr a;
    const cudw_line_table *t;
    cudw_die_iter_init(u, &it);
    if (cudw_die_next(&it, &d) != CUDW_OK || cudw_die_attr(&d, AT_STMT_LIST, &a) != CUDW_OK)
        return NULL;
    const cudw_section *ls = section_companion(f, u->section, ".debug_line");
    return ls && cudw_line_table_get(f, ls, a.u, &t) == CUDW_OK ? t : NULL;
}

static int unit_nodes(ibuild *b, const cudw_unit *u)
{
    sym_image *img = b->img;
    const cudw_line_table *lt = unit_lines(img->f, u);
    int32_t parent[CUDW_MAX_DIE_DEPTH]; /* at each DIE depth: the innermost inlined node open there */
    uint32_t idepth[CUDW_MAX_DIE_DEPTH];
    cudw_die_iter it;
    cudw_die d;
    int rc;
    cudw_die_iter_init(u, &it);
    while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
        int32_t up = d.depth ? parent[d.depth - 1] : -1;
        uint32_t upd = d.depth ? idepth[d.depth - 1] : 0;
        if (d.tag == TAG_SUBPROGRAM)
            up = -1, upd = 0; /* a function's own inlining tree */
        parent[d.depth] = up;
        idepth[d.depth] = upd;
        if (d.tag != TAG_INLINED)
            continue;
        if (img->ninl >= INT32_MAX)
            return sym_fail(img, CUDW_E_LIMIT, u->section, d.offset, "inlined subroutine", "too many");
        if (sym_grow((void **)&img->inl, &b->cap_inl, img->ninl, sizeof *img->inl))
            return sym_fail(img, CUDW_E_NOMEM, u->section, d.offset, "inlined subroutine", "out of memory");
        uint32_t node = (uint32_t)img->ninl++;
        sym_inl *n = &img->inl[node];
        memset(n, 0, sizeof *n);
        n->parent = up;
        n->name = origin_name(u, &d);
        n->demangled = n->name && (b->flags & CUDW_SYM_DEMANGLE) ? sym_demangled(img, n->name) : NULL;
        cudw_attr a;
        if (cudw_die_attr(&d, AT_CALL_FILE, &a) == CUDW_OK && lt)
            n->call_file = cudw_line_file_path(lt, a.u);
        if (cudw_die_attr(&d, AT_CALL_LINE, &a) == CUDW_OK)
            n->call_line = a.u;
        if (cudw_die_attr(&d, AT_CALL_COLUMN, &a) == CUDW_OK)
            n->call_column = a.u;
        if ((rc = ranges_of(b, u, &d, node, upd + 1)))
            return rc;
        parent[d.depth] = (int32_t)node; /* for its children */
        idepth[d.depth] = upd + 1;
    }
    return rc < 0 ? rc : CUDW_OK;
}

static int ival_cmp(const void *a, const void *c)
{
    const ival *x = a, *y = c;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int add_seg(ibuild *b, uint32_t shndx, uint64_t lo, uint64_t hi, uint32_t node)
{
    sym_image *img = b->img;
    if (img->nsegs) {
        sym_seg *p = &img->segs[img->nsegs - 1];
        if (p->shndx == shndx && p->node == node && p->hi == lo) {
            p->hi = hi;
            return CUDW_OK;
        }
    }
    if (sym_grow((void **)&img->segs, &b->cap_segs, img->nsegs, sizeof *img->segs))
        return sym_fail(img, CUDW_E_NOMEM, NULL, 0, "inline ranges", "out of memory");
    img->segs[img->nsegs++] = (sym_seg){shndx, node, lo, hi};
    return CUDW_OK;
}

/* Disjoint segments, each under the deepest range covering it: a sweep
 * over the range boundaries of each section, with the ranges open there
 * (few: siblings do not overlap). */
static int segments(ibuild *b)
{
    if (b->niv)
        qsort(b->iv, b->niv, sizeof *b->iv, ival_cmp);
    size_t cap = 0;
    const ival **open = NULL;
    int rc = CUDW_OK;
    for (size_t g0 = 0, g1; g0 < b->niv && !rc; g0 = g1) {
        uint32_t sh = b->iv[g0].shndx;
        for (g1 = g0; g1 < b->niv && b->iv[g1].shndx == sh; g1++)
            ;
        size_t i = g0, nopen = 0;
        uint64_t x = b->iv[g0].lo;
        while (!rc) {
            while (i < g1 && b->iv[i].lo <= x) {
                if (sym_grow((void **)&open, &cap, nopen, sizeof *open)) {
                    rc = sym_fail(b->img, CUDW_E_NOMEM, NULL, 0, "inline ranges", "out of memory");
                    break;
                }
                open[nopen++] = &b->iv[i++];
            }
            if (rc)
                break;
            if (!nopen) {
                if (i >= g1)
                    break;
                x = b->iv[i].lo;
                continue;
            }
            uint64_t next = i < g1 ? b->iv[i].lo : UINT64_MAX;
            const ival *deep = NULL;
            for (size_t k = 0; k < nopen; k++) {
                if (open[k]->hi < next)
                    next = open[k]->hi;
                if (!deep || open[k]->depth >= deep->depth)
                    deep = open[k];
            }
            if (next > x)
                rc = add_seg(b, sh, x, next, deep->node);
            size_t w = 0;
            for (size_t k = 0; k < nopen; k++)
                if (open[k]->hi > next)
                    open[w++] = open[k];
            nopen = w;
            x = next;
        }
    }
    free(open);
    return rc;
}

int sym_inline_build(sym_image *img, unsigned flags)
{
    const cudw_section *info = cudw_section_find(img->f, ".debug_info");
    if (!info)
        info = cudw_section_find(img->f, ".nv.merc.debug_info");
    if (!info || !info->data)
        return CUDW_OK;
    ibuild b = {img, flags, NULL, 0, 0, 0, 0};
    uint64_t cur = 0;
    cudw_unit u;
    int rc;
    while ((rc = cudw_unit_next(img->f, info, &cur, &u)) == CUDW_OK)
        if ((rc = unit_nodes(&b, &u)))
            break;
    if (rc < 0 && !img->err.code)
        img->err = *cudw_last_error(img->f);
    if (rc >= 0)
        rc = segments(&b);
    free(b.iv);
    return rc < 0 ? rc : CUDW_OK;
}
