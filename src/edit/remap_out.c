/* Applying a remap: relocation entries mapped, each rewritten section's
 * new bytes (edits, then fixed-size patches at their mapped places), and
 * the output: the input with the new bytes over their old place or at the
 * end, and the section headers updated where they are. */
#include "remap.h"

#include <stdlib.h>

/* ---- the offset map (remap.c plans the edits, this file applies them:
 * both map offsets, and this file needs nothing of remap.c) ---- */

uint64_t remap_map_off(const sec_rw *w, uint64_t x)
{
    int64_t d = 0;
    for (size_t i = 0; i < w->ne && w->e[i].pos + w->e[i].old_len <= x; i++) /* sorted by pos */
        d += (int64_t)w->e[i].new_len - (int64_t)w->e[i].old_len;
    return (uint64_t)((int64_t)x + d);
}

/* ---- relocations ---- */

int remap_is_rel_type(uint32_t t) { return t == 9 || t == 4 || t == CUDW_SHT_MERC_RELA; }

/* Entries of relocation section ri: offsets into a moved target mapped,
 * addends against a moved section's symbol mapped; strp fields that now
 * point at appended strings get those offsets. */
int remap_relocs(cudw_remap *r, unsigned ri)
{
    cudw_file *f = r->f;
    const cudw_section *rs = &f->secs[ri];
    unsigned ti = rs->info;
    if (!rs->data || ti >= f->nsecs || !rs->entsize)
        return CUDW_OK;
    unsigned esz = rs->type == 9 ? 16 : 24;
    const sec_rw *tw = &r->rw[r->owner[ti]];
    uint8_t *nb = NULL;
    for (uint64_t k = 0; k + esz <= rs->data_size; k += esz) {
        const uint8_t *e = rs->data + k;
        uint64_t off = ld64(e), info = ld64(e + 8);
        int64_t add = esz == 24 ? (int64_t)ld64(e + 16) : 0;
        uint64_t noff = tw->ne ? remap_map_off(tw, off) : off;
        int64_t nadd = add;
        cudw_symbol sym = {0};
        if (esz == 24 && cudw_symbol_get(f, rs->link, (uint32_t)(info >> 32), &sym) == CUDW_OK &&
            sym.type == 3 /* STT_SECTION */ && sym.shndx && sym.shndx < f->nsecs) {
            const sec_rw *sw = &r->rw[r->owner[sym.shndx]];
            if (sw->ne && add >= 0)
                nadd = (int64_t)remap_map_off(sw, (uint64_t)add);
        }
        /* a patched strp (or other patched field) takes the patch's value */
        for (size_t p = 0; p < tw->np && esz == 24; p++)
            if (tw->p[p].pos == off && tw->p[p].width == 4) {
                cudw_secclass c;
                if (sym.shndx < f->nsecs &&
                    cudw_classify_name(f->secs[sym.shndx].name, f->secs[sym.shndx].flags, &c) == CUDW_OK &&
                    c.kind != CUDW_SEC_NONE)
                    nadd = (int64_t)tw->p[p].value;
            }
        if (noff == off && nadd == add)
            continue;
        if (!nb) {
            nb = malloc(rs->data_size);
            if (!nb)
                return CUDW_E_NOMEM;
            memcpy(nb, rs->data, rs->data_size);
        }
        for (int b = 0; b < 8; b++) {
            nb[k + (unsigned)b] = (uint8_t)(noff >> (8 * b));
            if (esz == 24)
                nb[k + 16 + (unsigned)b] = (uint8_t)((uint64_t)nadd >> (8 * b));
        }
    }
    r->relbytes[ri] = nb;
    return CUDW_OK;
}

/* ---- the new bytes and the layout ---- */

int remap_materialize(cudw_remap *r, unsigned si)
{
    const cudw_section *s = &r->f->secs[si];
    sec_rw *w = &r->rw[si];
    if (!w->changed)
        return CUDW_OK;
    int64_t grow = 0;
    for (size_t i = 0; i < w->ne; i++)
        grow += (int64_t)w->e[i].new_len - (int64_t)w->e[i].old_len;
    w->size = (uint64_t)((int64_t)s->data_size + grow) + w->append.n;
    w->bytes = malloc(w->size ? w->size : 1);
    if (!w->bytes)
        return CUDW_E_NOMEM;
    uint64_t from = 0, to = 0;
    for (size_t i = 0; i < w->ne; i++) {
        memcpy(w->bytes + to, s->data + from, w->e[i].pos - from);
        to += w->e[i].pos - from;
        memcpy(w->bytes + to, w->e[i].text, w->e[i].new_len);
        to += w->e[i].new_len;
        from = w->e[i].pos + w->e[i].old_len;
    }
    memcpy(w->bytes + to, s->data + from, s->data_size - from);
    to += s->data_size - from;
    if (w->append.n)
        memcpy(w->bytes + to, w->append.p, w->append.n);
    for (size_t i = 0; i < w->np; i++) {
        uint64_t at = remap_map_off(w, w->p[i].pos);
        for (unsigned b = 0; b < w->p[i].width && at + b < w->size; b++)
            w->bytes[at + b] = (uint8_t)(w->p[i].value >> (8 * b));
    }
    return CUDW_OK;
}

uint64_t cudw_remap_size(const cudw_remap *r) { return r->total; }
size_t cudw_remap_strings(const cudw_remap *r) { return r->strings; }

int cudw_remap_write(const cudw_remap *r, cudw_write_fn fn, void *ctx)
{
    cudw_file *f = r->f;
    uint8_t *out = malloc(r->total ? r->total : 1);
    if (!out)
        return CUDW_E_NOMEM;
    memcpy(out, f->map, f->map_size);
    memset(out + f->map_size, 0, r->total - f->map_size);
    uint64_t shoff = ld64(f->map + 40);
    for (unsigned i = 1; i < f->nsecs; i++) {
        const sec_rw *w = &r->rw[r->owner[i]];
        const cudw_section *s = &f->secs[i];
        if (r->relbytes[i])
            memcpy(out + s->offset, r->relbytes[i], s->data_size);
        if (!w->changed)
            continue;
        if (r->owner[i] == i) {
            if (w->out_off == s->offset)
                memset(out + s->offset, 0, s->data_size); /* what the new bytes do not cover */
            memcpy(out + w->out_off, w->bytes, w->size);
        }
        uint8_t *h = out + shoff + (uint64_t)i * 64;
        for (int b = 0; b < 8; b++) {
            h[24 + b] = (uint8_t)(w->out_off >> (8 * b));
            h[32 + b] = (uint8_t)(w->size >> (8 * b));
        }
    }
    int rc = fn(ctx, out, r->total) ? CUDW_E_IO : CUDW_OK;
    free(out);
    return rc;
}

void cudw_remap_close(cudw_remap *r)
{
    if (!r)
        return;
    for (unsigned i = 0; r->rw && i < r->f->nsecs; i++) {
        for (size_t k = 0; k < r->rw[i].ne; k++)
            free(r->rw[i].e[k].text);
        free(r->rw[i].e);
        free(r->rw[i].p);
        free(r->rw[i].append.p);
        free(r->rw[i].bytes);
    }
    for (unsigned i = 0; r->relbytes && i < r->f->nsecs; i++)
        free(r->relbytes[i]);
    free(r->relbytes);
    free(r->rw);
    free(r->owner);
    free(r);
}

/* the name of 0.1 */
void cudw_remap_free(cudw_remap *r) { cudw_remap_close(r); }
