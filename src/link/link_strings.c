/* --dedup-strings: one copy of each string in the merged .debug_str (and
 * its Mercury twin), every reference rewritten.
 *
 * Who points into .debug_str:
 *   - DW_FORM_strp values (and any other relocation against .debug_str),
 *     applied by the linker as section offsets: remapped in place;
 *   - line tables: a function name is str[base word + operand], the operand
 *     a ULEB128 of DW_LNE 0x90.  New offsets change operand lengths, so
 *     every table of a line section that uses this .debug_str is decoded
 *     and encoded again (cudw_line_encode writes ptxas's bytes, the test
 *     suite checks it on every table of the corpus) with the base word set
 *     to the smallest name offset the table uses.  Tables move, so the
 *     DW_AT_stmt_list offsets into the section (applied, or kept as
 *     Mercury PROG_REL32 relocations) are remapped too, and the
 *     set_address relocations are taken from the encoder's sites. */
#include "link.h"

#include <stdlib.h>

/* Where pieces of a section went: the start of each piece (a string, a
 * line table) before and after; an offset moves with the piece it is in. */
typedef struct moved {
    uint64_t old_at, new_at;
} moved;
typedef struct offmap {
    moved *v;
    size_t n, cap;
} offmap;
typedef offmap strmap;
typedef offmap tabmap;

static uint64_t map_off(const offmap *m, uint64_t x)
{
    if (!m->n)
        return x;
    const moved *p = &m->v[floor_index(m->v, m->n, sizeof *m->v, offsetof(moved, old_at), x)];
    return p->new_at + (x - p->old_at);
}

/* Merged bytes of an osec (its fragments, patched) into one buffer. */
static uint8_t *flatten(const osec *s)
{
    uint8_t *b = malloc(s->size ? s->size : 1);
    if (!b)
        return NULL;
    for (size_t k = 0; k < s->nfrags; k++)
        if (s->frags[k].n) /* an empty section may have no bytes at all */
            memcpy(b + s->frags[k].at, s->frags[k].cow ? s->frags[k].cow : s->frags[k].p, s->frags[k].n);
    return b;
}

static void replace_frags(osec *s, uint8_t *data, size_t n)
{
    for (size_t k = 0; k < s->nfrags; k++) {
        free(s->frags[k].cow);
        if (s->frags[k].owned)
            free((void *)s->frags[k].p);
    }
    unsigned input = s->nfrags ? s->frags[0].input : 0, isec = s->nfrags ? s->frags[0].isec : 0;
    s->frags[0] = (frag){data, NULL, 0, n, input, isec, 1};
    s->nfrags = 1;
    s->size = n;
}

static int map_add(offmap *m, uint64_t old_at, uint64_t new_at)
{
    moved *v = vec_room(m->v, &m->cap, m->n, sizeof *v, 256);
    if (!v)
        return CUDW_E_NOMEM;
    m->v = v;
    v[m->n++] = (moved){old_at, new_at};
    return CUDW_OK;
}

/* Strings (NUL-terminated runs; an unterminated tail counts as one) in
 * order; the first of each content is kept, later ones map onto it. */
static int dedup_section(cudw_link *L, int o, strmap *m, size_t *saved)
{
    osec *s = &L->secs[o];
    uint8_t *b = flatten(s);
    if (!b)
        return CUDW_E_NOMEM;
    moved *kept = NULL; /* each content's first copy: where it was and where it is */
    size_t nkept = 0, ckept = 0;
    hmap idx = {0};     /* content -> index in kept */
    wbuf nb = {0};
    int rc = CUDW_OK;
    for (uint64_t at = 0; at < s->size && rc == CUDW_OK;) {
        const uint8_t *z = memchr(b + at, 0, (size_t)(s->size - at));
        size_t full = z ? (size_t)(z - (b + at)) + 1 : (size_t)(s->size - at);
        uint64_t h = fnv1a(CUDW_FNV0, b + at, full);
        hmap_probe p = hmap_probe_at(&idx, h);
        uint32_t r;
        /* equal bytes through a NUL are equal strings; the unterminated
         * tail is longer than any equal prefix before it: never a copy */
        while ((r = hmap_next(&p)) != HMAP_NONE)
            if (z && !memcmp(b + kept[r].old_at, b + at, full))
                break;
        if (r != HMAP_NONE) {
            rc = map_add(m, at, kept[r].new_at);
        } else {
            moved *v = vec_room(kept, &ckept, nkept, sizeof *v, 256);
            if (!v || hmap_add(&idx, h, (uint32_t)nkept)) {
                kept = v ? v : kept;
                rc = CUDW_E_NOMEM;
                break;
            }
            kept = v;
            kept[nkept++] = (moved){at, nb.n};
            rc = map_add(m, at, nb.n);
            wb_put(&nb, b + at, full);
        }
        at += full;
    }
    free(kept);
    hmap_free(&idx);
    free(b);
    if (rc != CUDW_OK || nb.oom) {
        wb_free(&nb);
        return CUDW_E_NOMEM;
    }
    *saved += (size_t)(s->size - nb.n);
    replace_frags(s, nb.p, nb.n);
    return CUDW_OK;
}

typedef struct relvec {
    orel *v;
    size_t n, cap;
} relvec;

static int relvec_add(relvec *r, orel x)
{
    orel *v = vec_room(r->v, &r->cap, r->n, sizeof *v, 64);
    if (!v)
        return CUDW_E_NOMEM;
    r->v = v;
    r->v[r->n++] = x;
    return CUDW_OK;
}

typedef struct relref {
    uint64_t offset;
    int kind;
    size_t j;
} relref;

static int by_offset(const void *a, const void *b)
{
    const relref *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Re-encode one input table t (its bytes are at out_at in the osec) into
 * nb, names remapped through m.  The set_address relocations the table had
 * (in order) are re-based on the encoder's sites into newrel. */
static int reencode(cudw_link *L, int o, const cudw_line_table *t, uint64_t out_at, const strmap *m, wbuf *nb,
                    relvec newrel[3])
{
    size_t cap = 256, n = 0;
    cudw_line_op *ops = malloc(cap * sizeof *ops);
    if (!ops)
        return CUDW_E_NOMEM;
    cudw_line_op op;
    int rc;
    /* the output's base word: the table's own, rebased */
    uint64_t base = t->has_str_base ? link_read(L, o, out_at + (t->str_base_offset - t->offset), 4) : 0;
    uint64_t lo = UINT64_MAX;
    uint64_t pos = t->program_offset;
    while ((rc = cudw_line_op_next(t, &pos, &op)) == CUDW_OK) {
        cudw_line_op *v = vec_room(ops, &cap, n, sizeof *ops, 256);
        if (!v) {
            rc = CUDW_E_NOMEM;
            break;
        }
        ops = v;
        /* a function name (0x90's second operand, 0x91's): remapped, the
         * opcode written anew around it (raw NULL: every decoded extended
         * opcode has its bytes, so that marks it for the rebase below) */
        int inl = op.kind == CUDW_LOP_EXTENDED && op.opcode == CUDW_LNE_INLINED_CALL;
        int setfn = op.kind == CUDW_LOP_EXTENDED && op.opcode == CUDW_LNE_SET_FUNCTION;
        uint64_t *fn = inl ? &op.u2 : setfn ? &op.u : NULL;
        if (fn && (*fn || (inl && op.u)) && cudw_line_function_name(t, *fn)) {
            *fn = map_off(m, base + *fn);
            if (*fn < lo)
                lo = *fn;
            op.raw = NULL;
            op.size = op.ext_len = op.raw_len = 0;
        }
        ops[n++] = op;
    }
    if (rc != CUDW_DONE) {
        free(ops);
        return rc == CUDW_E_NOMEM ? rc : link_fail(L, -1, rc, t->section, t->offset, "line table",
                                                   "cannot decode it to re-encode it");
    }
    uint64_t nbase = lo == UINT64_MAX ? map_off(m, base) : lo;
    for (size_t i = 0; i < n; i++)
        if (ops[i].kind == CUDW_LOP_EXTENDED && !ops[i].raw)
            *(ops[i].opcode == CUDW_LNE_INLINED_CALL ? &ops[i].u2 : &ops[i].u) -= nbase;
    cudw_line_params p = {.version = t->version, .addr_size = 8, .min_inst_length = t->min_inst_length,
                          .default_is_stmt = t->default_is_stmt, .line_range = t->line_range,
                          .opcode_base = t->opcode_base, .line_base = t->line_base};
    cudw_line_header_in h = {.dirs = t->dirs, .ndirs = t->ndirs, .files = t->files, .nfiles = t->nfiles,
                             .has_str_base = t->has_str_base, .str_base = (uint32_t)nbase};
    cudw_line_out lo_out;
    rc = cudw_line_encode_ops(&p, &h, ops, n, &lo_out);
    free(ops);
    if (rc != CUDW_OK) {
        L->err = lo_out.err;
        return rc;
    }
    /* the set_address relocations of the old table, in offset order
     * across REL and RELA (sm_75 mixes them), matched to the sites */
    osec *s = &L->secs[o];
    uint64_t end = out_at + (t->end - t->offset), at = nb->n;
    relref *refs = NULL;
    size_t nrefs = 0;
    for (int kind = 0; kind < 3; kind++)
        for (size_t j = 0; j < s->nrel[kind]; j++)
            if (s->rel[kind][j].offset >= out_at && s->rel[kind][j].offset < end)
                nrefs++;
    if (nrefs && !(refs = malloc(nrefs * sizeof *refs))) {
        cudw_line_out_free(&lo_out);
        return CUDW_E_NOMEM;
    }
    nrefs = 0;
    for (int kind = 0; kind < 3; kind++)
        for (size_t j = 0; j < s->nrel[kind]; j++)
            if (s->rel[kind][j].offset >= out_at && s->rel[kind][j].offset < end)
                refs[nrefs++] = (relref){s->rel[kind][j].offset, kind, j};
    if (nrefs)
        qsort(refs, nrefs, sizeof *refs, by_offset);
    if (nrefs != lo_out.nsites)
        rc = link_fail(L, -1, CUDW_E_BAD_RELOC, t->section, t->offset, "line table",
                       "%zu relocations for %zu set_address operands", nrefs, lo_out.nsites);
    for (size_t q = 0; q < nrefs && rc == CUDW_OK; q++) {
        orel x = s->rel[refs[q].kind][refs[q].j];
        x.offset = at + lo_out.sites[q].offset;
        if (refs[q].kind == REL_REL) /* REL: the addend lives in the bytes */
            for (unsigned w = 0; w < 8; w++)
                lo_out.data[lo_out.sites[q].offset + w] = (uint8_t)((uint64_t)x.addend >> (8 * w));
        rc = relvec_add(&newrel[refs[q].kind], x);
    }
    free(refs);
    wb_put(nb, lo_out.data, lo_out.size);
    cudw_line_out_free(&lo_out);
    return nb->oom ? CUDW_E_NOMEM : rc;
}

/* Rebuild every table of line osec o; its .debug_str is str (mapped by m). */
static int rebuild_lines(cudw_link *L, int o, int str, const strmap *m, tabmap *tm)
{
    osec *s = &L->secs[o];
    wbuf nb = {0};
    relvec newrel[3] = {{0}};
    int rc = CUDW_OK;
    for (size_t k = 0; k < s->nfrags && rc == CUDW_OK; k++) {
        frag fr = s->frags[k];
        cudw_file *f = L->in[fr.input];
        const cudw_section *is = cudw_section_get(f, fr.isec);
        uint64_t cur = 0;
        const cudw_line_table *t;
        while (rc == CUDW_OK && (rc = cudw_line_table_next(f, is, &cur, &t)) == CUDW_OK) {
            int uses = t->str_section && L->osec_of[fr.input][t->str_section->index] == str;
            uint64_t out_at = fr.at + t->offset;
            if ((rc = map_add(tm, out_at, nb.n)) != CUDW_OK)
                break;
            if (!uses || !t->has_str_base) {
                /* untouched: copy, keep its relocations where they move to */
                const uint8_t *src = (fr.cow ? fr.cow : fr.p) + t->offset;
                uint64_t at = nb.n;
                wb_put(&nb, src, (size_t)(t->end - t->offset));
                for (int kind = 0; kind < 3 && rc == CUDW_OK; kind++)
                    for (size_t j = 0; j < s->nrel[kind] && rc == CUDW_OK; j++) {
                        orel x = s->rel[kind][j];
                        if (x.offset >= out_at && x.offset < out_at + (t->end - t->offset)) {
                            x.offset = at + (x.offset - out_at);
                            rc = relvec_add(&newrel[kind], x);
                        }
                    }
                continue;
            }
            rc = reencode(L, o, t, out_at, m, &nb, newrel);
            s = &L->secs[o];
        }
        if (rc == CUDW_DONE)
            rc = CUDW_OK;
        else if (rc < 0 && !L->err.code)
            link_fail_from(L, (int)fr.input, rc);
    }
    if (rc != CUDW_OK || nb.oom) {
        wb_free(&nb);
        for (int kind = 0; kind < 3; kind++)
            free(newrel[kind].v);
        return rc ? rc : CUDW_E_NOMEM;
    }
    s = &L->secs[o];
    replace_frags(s, nb.p, nb.n);
    for (int kind = 0; kind < 3; kind++) {
        free(s->rel[kind]);
        s->rel[kind] = newrel[kind].v;
        s->nrel[kind] = newrel[kind].n;
        s->crel[kind] = newrel[kind].cap;
    }
    return CUDW_OK;
}

int link_dedup_strings(cudw_link *L)
{
    int rc = CUDW_OK;
    for (size_t so = 0; so < L->nsecs && rc == CUDW_OK; so++) {
        if (L->secs[so].kind != CUDW_SEC_STR || L->secs[so].placeholder || L->secs[so].type == 8)
            continue;
        strmap m = {0};
        if ((rc = dedup_section(L, (int)so, &m, &L->st.strings_removed)) != CUDW_OK)
            break;
        /* applied offsets into this .debug_str */
        for (size_t i = 0; i < L->npatches; i++) {
            patchrec *p = &L->patches[i];
            if (p->target == (int)so) {
                p->value = map_off(&m, p->value);
                link_patch(L, p->osec, p->off, p->value, p->width);
            }
        }
        for (size_t o = 0; o < L->nsecs && rc == CUDW_OK; o++) {
            int kind = L->secs[o].kind;
            /* bare tables name bare strings, Mercury tables the twin's */
            if ((kind != CUDW_SEC_LINE && kind != CUDW_SEC_NV_LINE_SASS) ||
                L->secs[o].mercury != L->secs[so].mercury)
                continue;
            tabmap tm = {0};
            if ((rc = rebuild_lines(L, (int)o, (int)so, &m, &tm)) != CUDW_OK) {
                free(tm.v);
                break;
            }
            /* offsets into the rebuilt section: stmt_list, applied or kept */
            for (size_t i = 0; i < L->npatches; i++) {
                patchrec *p = &L->patches[i];
                if (p->target == (int)o && p->osec != (int)o) {
                    p->value = map_off(&tm, p->value);
                    link_patch(L, p->osec, p->off, p->value, p->width);
                }
            }
            for (size_t x = 0; x < L->nsecs; x++)
                for (int k = 0; k < 3; k++)
                    for (size_t j = 0; j < L->secs[x].nrel[k]; j++) {
                        orel *r = &L->secs[x].rel[k][j];
                        if (r->target == (int)o)
                            r->addend = (int64_t)map_off(&tm, (uint64_t)r->addend);
                    }
            free(tm.v);
        }
        free(m.v);
    }
    if (rc == CUDW_E_NOMEM && !L->err.code)
        return link_fail(L, -1, rc, NULL, 0, "link", "out of memory");
    return rc;
}
