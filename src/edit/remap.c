/* Rewriting the source paths of a cubin (cudwarf remap): GCC's
 * -fdebug-prefix-map after the fact.
 *
 * Paths live in three places:
 *   line tables   include_directories and file_names of every table of
 *                 .debug_line, .nv_debug_line_sass and their Mercury twins
 *   .debug_info   DW_AT_name and DW_AT_comp_dir of each compile unit, as
 *                 DW_FORM_string (ptxas) or DW_FORM_strp
 *   .debug_str    where a DW_FORM_strp points: the new string is appended,
 *                 so no other offset into the section moves
 *
 * A string that changes length moves everything after it in its section.
 * Each section's changes are kept as edits (at old offset pos, old_len
 * bytes become new bytes) and the offset map they define,
 *
 *   new(x) = x + sum of (new_len - old_len) over edits ending at or before x
 *
 * is applied to everything that points into the section: unit and header
 * lengths, DW_AT_stmt_list, DIE references (CU-relative and ref_addr),
 * the .debug_pubnames/.debug_pubtypes/.debug_aranges unit offsets, and the
 * offsets and section-symbol addends of every relocation.  Fixed-size
 * fields are patched at their mapped place after the edits.
 *
 * Output: the input's bytes; a section whose bytes changed is written over
 * its old place when it fits (the rest zeroed), else appended at the end
 * of the file; relocation sections keep their size and place; the section
 * header table is updated where it is.  Nothing else moves, so code,
 * segments and every other section stay byte for byte.  Sections that
 * share their bytes (Mercury twins, "aliased") share the rewrite. */
#include "remap.h"

#include <stdlib.h>


/* ---- edits and the offset map ---- */

static int by_pos(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* the change in length of the edits within [from, to) */
static int64_t delta_in(const sec_rw *w, uint64_t from, uint64_t to)
{
    int64_t d = 0;
    for (size_t i = 0; i < w->ne; i++)
        if (w->e[i].pos >= from && w->e[i].pos < to)
            d += (int64_t)w->e[i].new_len - (int64_t)w->e[i].old_len;
    return d;
}

static int add_edit(sec_rw *w, uint64_t pos, uint64_t old_len, char *text)
{
    edit *n = vec_room(w->e, &w->cape, w->ne, sizeof *n, 16);
    if (!n)
        return -1;
    w->e = n;
    w->e[w->ne++] = (edit){pos, old_len, text, strlen(text)};
    w->changed = 1;
    return 0;
}

static int add_patch(sec_rw *w, uint64_t pos, uint64_t value, unsigned width)
{
    patch *n = vec_room(w->p, &w->capp, w->np, sizeof *n, 16);
    if (!n)
        return -1;
    w->p = n;
    w->p[w->np++] = (patch){pos, value, width};
    w->changed = 1;
    return 0;
}

/* The path with the first matching prefix replaced (malloc'd), or NULL. */
static char *remap_path(const cudw_remap *r, const char *s)
{
    for (size_t i = 0; i < r->nrules; i++) {
        size_t n = strlen(r->from[i]);
        if (strncmp(s, r->from[i], n) != 0)
            continue;
        size_t m = strlen(r->to[i]), rest = strlen(s + n);
        char *out = malloc(m + rest + 1);
        if (out) {
            memcpy(out, r->to[i], m);
            memcpy(out + m, s + n, rest + 1);
        }
        return out ? out : (char *)-1;
    }
    return NULL;
}

/* Replace the NUL-terminated string at section offset pos of s, when a
 * rule matches it and the result differs.  -1 when out of memory. */
static int string_edit(cudw_remap *r, const cudw_section *s, uint64_t pos, sec_rw *w)
{
    const char *old = (const char *)s->data + pos;
    char *nw = remap_path(r, old);
    if (nw == (char *)-1)
        return -1;
    if (!nw)
        return 0;
    if (!strcmp(nw, old)) {
        free(nw);
        return 0;
    }
    r->strings++;
    if (add_edit(w, pos, strlen(old), nw)) {
        free(nw);
        return -1;
    }
    return 0;
}

static uint64_t skip_uleb(const uint8_t *p, uint64_t at, uint64_t end)
{
    while (at < end && (p[at] & 0x80))
        at++;
    return at < end ? at + 1 : end;
}

/* ---- line tables ---- */

static int remap_lines(cudw_remap *r, unsigned si)
{
    cudw_file *f = r->f;
    const cudw_section *s = &f->secs[si];
    sec_rw *w = &r->rw[r->owner[si]];
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
        const uint8_t *d = s->data;
        uint64_t hstart = t->offset + 10, hend = hstart + t->header_length;
        uint64_t at = hstart + (t->version >= 4 ? 6 : 5) + (t->opcode_base ? t->opcode_base - 1u : 0);
        size_t before = w->ne;
        while (at < hend && d[at]) { /* include_directories */
            if (string_edit(r, s, at, w))
                return CUDW_E_NOMEM;
            at += strlen((const char *)d + at) + 1;
        }
        at++;
        while (at < hend && d[at]) { /* file_names: name, dir, mtime, size */
            if (string_edit(r, s, at, w))
                return CUDW_E_NOMEM;
            at += strlen((const char *)d + at) + 1;
            for (int k = 0; k < 3; k++)
                at = skip_uleb(d, at, hend);
        }
        if (w->ne == before)
            continue;
        int64_t dl = 0;
        for (size_t k = before; k < w->ne; k++)
            dl += (int64_t)w->e[k].new_len - (int64_t)w->e[k].old_len;
        if (add_patch(w, t->offset, (uint64_t)((int64_t)t->unit_length + dl), 4) ||
            add_patch(w, t->offset + 6, (uint64_t)((int64_t)t->header_length + dl), 4))
            return CUDW_E_NOMEM;
    }
    return rc == CUDW_DONE ? CUDW_OK : rc;
}

/* ---- .debug_info ---- */

/* The section of kind with the Mercury flag of s (its twin family). */
static unsigned family_section(cudw_file *f, const cudw_section *s, int kind)
{
    int merc = (s->flags & CUDW_SHF_MERCURY) != 0;
    for (unsigned i = 1; i < f->nsecs; i++) {
        cudw_secclass c;
        if (cudw_classify_name(f->secs[i].name, f->secs[i].flags, &c) == CUDW_OK && c.kind == kind &&
            c.mercury == merc)
            return i;
    }
    return 0;
}

/* A DW_FORM_strp path that changes: the new string goes at the end of the
 * unit's .debug_str, and of its Mercury twin when .debug_info's bytes are
 * shared with the twin's (so the one offset is right in both). */
static int append_string(cudw_remap *r, const cudw_section *info, unsigned stri, const char *nw, uint64_t field,
                         sec_rw *w)
{
    cudw_file *f = r->f;
    sec_rw *sw = &r->rw[r->owner[stri]];
    uint64_t at = f->secs[stri].data_size + sw->append.n;
    for (unsigned k = 1; k < f->nsecs; k++) { /* the twins reading the same .debug_info bytes */
        cudw_secclass c;
        if (k == info->index || r->owner[k] != r->owner[info->index] ||
            cudw_classify_name(f->secs[k].name, f->secs[k].flags, &c) != CUDW_OK)
            continue;
        unsigned tk = family_section(f, &f->secs[k], CUDW_SEC_STR);
        if (!tk || r->owner[tk] == r->owner[stri])
            continue;
        sec_rw *tw = &r->rw[r->owner[tk]];
        if (f->secs[tk].data_size + tw->append.n != at)
            return file_fail(f, CUDW_E_UNSUPPORTED, info, field, "CUDW_DW_FORM_strp",
                             "shared by %s and %s, whose string sections differ in size", info->name,
                             f->secs[k].name);
        wb_put(&tw->append, nw, strlen(nw) + 1);
        tw->changed = 1;
    }
    wb_put(&sw->append, nw, strlen(nw) + 1);
    sw->changed = 1;
    r->strings++;
    return sw->append.oom || add_patch(w, field, at, 4) ? CUDW_E_NOMEM : CUDW_OK;
}

/* One walk over the attributes of .debug_info section si (of each unit's
 * root DIE only, with roots): unit_fn first for each unit, then attr_fn
 * for each attribute; a non-zero return stops the walk with it. */
typedef struct walk {
    cudw_remap *r;
    const cudw_section *s;
    sec_rw *w;                /* the section's rewrite */
    unsigned stri;            /* its .debug_str */
    const sec_rw *lw;         /* its .debug_line's rewrite, or NULL */
    uint64_t unew;            /* the unit's new offset */
} walk;

static int each_attr(walk *k, int roots, int (*unit_fn)(walk *, const cudw_unit *),
                     int (*attr_fn)(walk *, const cudw_unit *, const cudw_attr *))
{
    uint64_t cur = 0;
    cudw_unit u;
    int rc;
    while ((rc = cudw_unit_next(k->r->f, k->s, &cur, &u)) == CUDW_OK) {
        if (unit_fn && (rc = unit_fn(k, &u)) != 0)
            return rc;
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while ((rc = cudw_attr_next(&ai, &a)) == CUDW_OK)
                if ((rc = attr_fn(k, &u, &a)) != 0)
                    return rc;
            if (rc < 0 || roots)
                break;
            cudw_die_iter_resume(&it, &ai);
        }
        if (rc < 0)
            return rc;
    }
    return rc == CUDW_DONE ? CUDW_OK : rc;
}

/* A root DIE's DW_AT_name or DW_AT_comp_dir: inline, an edit; strp, a new
 * string at the end of .debug_str and a patched offset. */
static int root_string(walk *k, const cudw_unit *u, const cudw_attr *a)
{
    (void)u;
    if ((a->name != CUDW_DW_AT_name && a->name != CUDW_DW_AT_comp_dir) || !a->str)
        return 0;
    if (a->form == CUDW_DW_FORM_string)
        return string_edit(k->r, k->s, a->offset, k->w) ? CUDW_E_NOMEM : 0;
    if (a->form != CUDW_DW_FORM_strp || !k->stri)
        return 0;
    char *nw = remap_path(k->r, a->str);
    if (nw == (char *)-1)
        return CUDW_E_NOMEM;
    int rc = nw && strcmp(nw, a->str) ? append_string(k->r, k->s, k->stri, nw, a->offset, k->w) : 0;
    free(nw);
    return rc;
}

static int is_ref(uint32_t form) { return form >= 0x11 && form <= 0x15; }

/* the unit's length, once the strings in it changed */
static int unit_length(walk *k, const cudw_unit *u)
{
    k->unew = remap_map_off(k->w, u->offset);
    int64_t du = delta_in(k->w, u->offset, u->offset + 4 + u->length);
    return du && add_patch(k->w, u->offset, (uint64_t)((int64_t)u->length + du), 4) ? CUDW_E_NOMEM : 0;
}

/* references within and across units, DW_AT_stmt_list of moved tables */
static int moved_ref(walk *k, const cudw_unit *u, const cudw_attr *a)
{
    const uint8_t *raw = k->s->data + a->offset;
    sec_rw *w = k->w;
    if (w->ne && is_ref(a->form)) {
        unsigned wd = a->form == CUDW_DW_FORM_ref1   ? 1
                      : a->form == CUDW_DW_FORM_ref2 ? 2
                      : a->form == CUDW_DW_FORM_ref4 ? 4
                                                     : 8;
        uint64_t v = a->form == CUDW_DW_FORM_ref_udata ? a->u
                     : wd == 1 ? raw[0] : wd == 2 ? ld16(raw) : wd == 4 ? ld32(raw) : ld64(raw);
        uint64_t nv = remap_map_off(w, u->offset + v) - k->unew;
        if (nv == v)
            return 0;
        if (a->form == CUDW_DW_FORM_ref_udata || (wd < 8 && nv >> (8 * wd)))
            return file_fail(k->r->f, CUDW_E_UNSUPPORTED, k->s, a->offset, "DIE reference",
                             "a %s reference that no longer fits its form",
                             a->form == CUDW_DW_FORM_ref_udata ? "DW_FORM_ref_udata" : "short");
        return add_patch(w, a->offset, nv, wd) ? CUDW_E_NOMEM : 0;
    }
    if (w->ne && a->form == CUDW_DW_FORM_ref_addr) { /* ref_addr: a section offset */
        unsigned wd = u->version <= 2 ? u->addr_size : 4;
        uint64_t v = wd == 4 ? ld32(raw) : ld64(raw);
        return v && remap_map_off(w, v) != v && add_patch(w, a->offset, remap_map_off(w, v), wd) ? CUDW_E_NOMEM : 0;
    }
    if (k->lw && k->lw->ne && a->name == CUDW_DW_AT_stmt_list &&
        (a->form == CUDW_DW_FORM_data4 || a->form == CUDW_DW_FORM_sec_offset)) {
        uint64_t v = ld32(raw); /* stmt_list (data4, sec_offset): stored (REL) or 0 (RELA) */
        return v && remap_map_off(k->lw, v) != v && add_patch(w, a->offset, remap_map_off(k->lw, v), 4) ? CUDW_E_NOMEM : 0;
    }
    return 0;
}

static int remap_info(cudw_remap *r, unsigned si, int pass)
{
    cudw_file *f = r->f;
    const cudw_section *s = &f->secs[si];
    unsigned li = family_section(f, s, CUDW_SEC_LINE);
    walk k = {r, s, &r->rw[r->owner[si]], family_section(f, s, CUDW_SEC_STR), li ? &r->rw[r->owner[li]] : NULL,
              0};
    if (pass == 1)
        return each_attr(&k, 1, NULL, root_string);
    if (!k.w->ne && !(k.lw && k.lw->ne))
        return CUDW_OK;
    return each_attr(&k, 0, unit_length, moved_ref);
}

/* .debug_pubnames/.debug_pubtypes (unit offset, unit size, DIE offsets
 * within it) and .debug_aranges (unit offset) after .debug_info moved. */
static int remap_name_tables(cudw_remap *r, unsigned si, int kind)
{
    cudw_file *f = r->f;
    const cudw_section *s = &f->secs[si];
    unsigned ii = family_section(f, s, CUDW_SEC_INFO);
    if (!ii || !r->rw[r->owner[ii]].ne)
        return CUDW_OK;
    const sec_rw *iw = &r->rw[r->owner[ii]];
    const cudw_section *info = &f->secs[ii];
    sec_rw *w = &r->rw[r->owner[si]];
    /* The sets and entries as the readers walk them; the unit-offset words
     * patched are the raw bytes (a relocatable object's hold 0, and its
     * relocation's addend is mapped with the relocations).  A set the
     * readers reject ends the walk: it is left as it is. */
    const uint8_t *d = s->data;
    cudw_error saved = f->err; /* the readers' complaints are not remap's */
    uint64_t cur = 0;
    for (;;) {
        uint64_t at = cur; /* a set the reader accepts has its header's bytes */
        cudw_pub_set ps;
        cudw_aranges_set as;
        if (kind == CUDW_SEC_ARANGES ? cudw_aranges_next_set(f, s, &cur, &as) != CUDW_OK
                                     : cudw_pub_next_set(f, s, &cur, &ps) != CUDW_OK)
            break;
        uint64_t cu = ld32(d + at + 6), ncu = remap_map_off(iw, cu);
        if (cu && ncu != cu && add_patch(w, at + 6, ncu, 4))
            return CUDW_E_NOMEM;
        if (kind == CUDW_SEC_ARANGES)
            continue;
        uint64_t cu_len = ps.unit_size;
        if (cu + 4 <= info->data_size) {
            uint64_t nl = (uint64_t)((int64_t)cu_len + delta_in(iw, cu, cu + cu_len));
            if (nl != cu_len && add_patch(w, at + 10, nl, 4))
                return CUDW_E_NOMEM;
        }
        uint64_t pos = ps.entries_offset, die;
        const char *name;
        for (uint64_t p = pos; cudw_pub_next(f, s, &ps, &pos, &die, &name) == CUDW_OK; p = pos) {
            uint64_t no = remap_map_off(iw, cu + die) - ncu;
            if (no != die && add_patch(w, p, no, 4))
                return CUDW_E_NOMEM;
        }
    }
    f->err = saved;
    return CUDW_OK;
}

int cudw_remap_run(cudw_file *f, const char *const *from, const char *const *to, size_t nrules, cudw_remap **out)
{
    *out = NULL;
    if (file_writable_class(f, "remap"))
        return f->err.code;
    cudw_remap *r = calloc(1, sizeof *r);
    unsigned n = f->nsecs;
    if (r) {
        r->f = f;
        r->from = from;
        r->to = to;
        r->nrules = nrules;
    }
    if (!r || !(r->owner = calloc(n ? n : 1, sizeof *r->owner)) || !(r->rw = calloc(n ? n : 1, sizeof *r->rw)) ||
        !(r->relbytes = calloc(n ? n : 1, sizeof *r->relbytes))) {
        cudw_remap_close(r);
        return file_fail(f, CUDW_E_NOMEM, NULL, 0, "remap", "out of memory");
    }
    for (unsigned i = 0; i < n; i++) { /* twins that share their bytes share the rewrite */
        r->owner[i] = i;
        for (unsigned j = 1; j < i && f->secs[i].data; j++)
            if (f->secs[j].data == f->secs[i].data && f->secs[j].data_size == f->secs[i].data_size) {
                r->owner[i] = r->owner[j];
                break;
            }
    }
    int rc = CUDW_OK;
    for (int pass = 0; pass < 4 && rc == CUDW_OK; pass++) {
        if (pass == 2) /* the strings are all found: the maps (map_off) want them in order */
            for (unsigned i = 1; i < n; i++)
                if (r->rw[i].ne)
                    qsort(r->rw[i].e, r->rw[i].ne, sizeof *r->rw[i].e, by_pos);
        for (unsigned i = 1; i < n && rc == CUDW_OK; i++) {
            cudw_secclass c;
            if (r->owner[i] != i || !f->secs[i].data ||
                cudw_classify_name(f->secs[i].name, f->secs[i].flags, &c) != CUDW_OK)
                continue;
            if (pass == 0 && (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS))
                rc = remap_lines(r, i);
            else if ((pass == 1 || pass == 2) && c.kind == CUDW_SEC_INFO)
                rc = remap_info(r, i, pass);
            else if (pass == 3 && (c.kind == CUDW_SEC_PUBNAMES || c.kind == CUDW_SEC_PUBTYPES ||
                                   c.kind == CUDW_SEC_ARANGES))
                rc = remap_name_tables(r, i, c.kind);
        }
    }
    for (unsigned i = 1; i < n && rc == CUDW_OK; i++)
        if (remap_is_rel_type(f->secs[i].type))
            rc = remap_relocs(r, i);
    for (unsigned i = 1; i < n && rc == CUDW_OK; i++)
        if (r->owner[i] == i)
            rc = remap_materialize(r, i);
    if (rc != CUDW_OK) {
        cudw_remap_close(r);
        return rc == CUDW_E_NOMEM ? file_fail(f, rc, NULL, 0, "remap", "out of memory") : rc;
    }
    /* layout: in place when it fits, else at the end */
    uint64_t end = f->map_size;
    for (unsigned i = 1; i < n; i++) {
        sec_rw *w = &r->rw[i];
        if (r->owner[i] != i || !w->changed)
            continue;
        if (w->size <= f->secs[i].data_size) {
            w->out_off = f->secs[i].offset;
        } else {
            uint64_t a = f->secs[i].align && f->secs[i].align <= 0x10000 ? f->secs[i].align : 1;
            w->out_off = (end + a - 1) / a * a;
            end = w->out_off + w->size;
        }
    }
    r->total = end;
    *out = r;
    return CUDW_OK;
}

