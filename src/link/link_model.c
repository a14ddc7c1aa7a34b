/* The link's data model: output sections built from fragments of the
 * inputs' sections, the patches written over them, the relocations kept,
 * and the error and notes the link reports (link.c drives the passes that
 * fill it; link.h draws it). */
#include "link.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int link_fail(cudw_link *L, int input, int code, const cudw_section *sec, uint64_t off, const char *what,
              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&L->err, code, sec ? sec->name : NULL, off, what, fmt, ap);
    va_end(ap);
    L->err_input = input;
    return code;
}

int link_fail_from(cudw_link *L, int input, int rc)
{
    if (rc == CUDW_E_NOMEM && input < 0)
        return link_fail(L, input, rc, NULL, 0, "link", "out of memory");
    L->err = *cudw_last_error(L->in[input]);
    if (!L->err.code)
        L->err.code = rc;
    L->err_input = input;
    return rc;
}

int link_note(cudw_link *L, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **n = vec_room(L->notes, &L->cnotes, L->nnotes, sizeof *n, 8);
    if (!n)
        return CUDW_E_NOMEM;
    L->notes = n;
    if (!(n[L->nnotes] = strdup(buf)))
        return CUDW_E_NOMEM;
    L->nnotes++;
    return CUDW_OK;
}

/* Output sections by name: CUB links carry thousands of placeholder
 * .text.<function> sections. */
static uint64_t name_hash(const char *name) { return fnv1a(CUDW_FNV0, name, strlen(name)); }

int link_osec_find(cudw_link *L, const char *name)
{
    int found = -1;
    hmap_probe p = hmap_probe_at(&L->sec_idx, name_hash(name));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if ((int)r > found && !strcmp(L->secs[r].name, name))
            found = (int)r; /* the last of a name: ptx_txt sections repeat */
    return found;
}

int link_osec_add(cudw_link *L, const char *name, uint32_t type, uint64_t flags, uint64_t align)
{
    osec *v = vec_room(L->secs, &L->csecs, L->nsecs, sizeof *v, 32);
    if (!v)
        return -1;
    L->secs = v;
    if (hmap_reserve(&L->sec_idx, L->nsecs + 1))
        return -1;
    osec *s = &L->secs[L->nsecs];
    memset(s, 0, sizeof *s);
    if (!(s->name = strdup(name)))
        return -1;
    hmap_add(&L->sec_idx, name_hash(name), (uint32_t)L->nsecs); /* reserved: cannot fail */
    s->type = type;
    s->flags = flags;
    s->align = align ? align : 1;
    s->alias = -1;
    return (int)L->nsecs++;
}

int link_add_frag(osec *s, const uint8_t *p, size_t n, unsigned input, unsigned isec)
{
    frag *v = vec_room(s->frags, &s->cfrags, s->nfrags, sizeof *v, 8);
    if (!v)
        return -1;
    s->frags = v;
    s->frags[s->nfrags++] = (frag){p, NULL, s->size, n, input, isec, 0};
    s->size += n;
    return 0;
}

/* The fragment holding off (fragments ascend). */
frag *link_frag_at(const osec *s, uint64_t off)
{
    if (!s->nfrags)
        return NULL;
    return &s->frags[floor_index(s->frags, s->nfrags, sizeof *s->frags, offsetof(frag, at), off)];
}

/* Patches never straddle fragments: each lies in one input's bytes. */
void link_patch(cudw_link *L, int osec_i, uint64_t off, uint64_t v, unsigned width)
{
    frag *fr = link_frag_at(&L->secs[osec_i], off);
    if (!fr || off < fr->at || off - fr->at + width > fr->n)
        return;
    if (!fr->cow) {
        fr->cow = malloc(fr->n ? fr->n : 1);
        if (!fr->cow) {
            L->err.code = CUDW_E_NOMEM;
            return;
        }
        memcpy(fr->cow, fr->p, fr->n);
    }
    uint8_t *p = fr->cow + (off - fr->at);
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t link_read(const cudw_link *L, int osec_i, uint64_t off, unsigned width)
{
    const frag *fr = link_frag_at(&L->secs[osec_i], off);
    if (!fr || off < fr->at || off - fr->at + width > fr->n)
        return 0;
    const uint8_t *p = (fr->cow ? fr->cow : fr->p) + (off - fr->at);
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int link_keep(cudw_link *L, int osec_i, int kind, uint64_t off, uint32_t type, uint32_t sym, int64_t addend,
              int target)
{
    osec *s = &L->secs[osec_i];
    orel *v = vec_room(s->rel[kind], &s->crel[kind], s->nrel[kind], sizeof *v, 64);
    if (!v)
        return CUDW_E_NOMEM;
    s->rel[kind] = v;
    s->rel[kind][s->nrel[kind]++] = (orel){off, type, sym, addend, target};
    L->st.relocs_kept++;
    return CUDW_OK;
}

void link_free_model(cudw_link *L)
{
    for (size_t i = 0; i < L->nsecs; i++) {
        osec *s = &L->secs[i];
        for (size_t k = 0; k < s->nfrags; k++) {
            free(s->frags[k].cow);
            if (s->frags[k].owned)
                free((void *)s->frags[k].p);
        }
        free(s->frags);
        for (int r = 0; r < 3; r++)
            free(s->rel[r]);
        free(s->name);
    }
    free(L->secs);
    hmap_free(&L->sec_idx);
    for (size_t k = 0; k < L->nin; k++) {
        if (L->osec_of)
            free(L->osec_of[k]);
        if (L->base_of)
            free(L->base_of[k]);
    }
    free(L->osec_of);
    free(L->base_of);
    free(L->patches);
    for (size_t i = 0; i < L->nnotes; i++)
        free(L->notes[i]);
    free(L->notes);
}
