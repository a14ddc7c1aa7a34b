/* Laying out and streaming an ELF64 file from sections given as fragment
 * lists (the linker's merged sections point into the inputs' mappings
 * wherever nothing was patched, so the output is never held twice).
 *
 *   +----------------------+ 0
 *   | Elf64_Ehdr (64)      |
 *   +----------------------+
 *   | section bytes, each  |  in section order, aligned to sh_addralign;
 *   | at its alignment     |  an aliased section shares its twin's offset
 *   +----------------------+
 *   | .shstrtab            |  appended last
 *   +----------------------+ 8-aligned
 *   | Elf64_Shdr x (n + 2) |  index 0 null, 1..n the sections, n+1 .shstrtab
 *   +----------------------+                                              */
#include "../internal.h"

#include <stdlib.h>

static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* An alignment we honour: a power of two up to 64 KiB (inputs' sh_addralign
 * may be anything; beyond that it is taken as 1). */
static uint64_t sane_align(uint64_t a) { return a && a <= 0x10000 && !(a & (a - 1)) ? a : 1; }

int ew_layout(ew_file *e)
{
    e->shstr = (wbuf){0};
    wb_byte(&e->shstr, 0);
    uint64_t at = 64;
    for (size_t i = 0; i < e->nsecs; i++) {
        ew_sec *s = &e->secs[i];
        s->name_off = (uint32_t)e->shstr.n;
        wb_put(&e->shstr, s->name, strlen(s->name) + 1);
        if (s->type != 8 /* SHT_NOBITS */ && s->alias < 0) {
            uint64_t sum = 0;
            for (size_t k = 0; k < s->nfrags; k++)
                sum += s->frags[k].n;
            s->size = sum;
        }
    }
    for (size_t i = 0; i < e->nsecs; i++) {
        ew_sec *s = &e->secs[i];
        if (s->alias >= 0) {
            s->offset = e->secs[s->alias].offset;
            s->size = e->secs[s->alias].size;
            continue;
        }
        s->align = sane_align(s->align);
        at = align_up(at, s->align);
        s->offset = at;
        if (s->type != 8)
            at += s->size;
    }
    e->shstr_name = (uint32_t)e->shstr.n;
    wb_put(&e->shstr, ".shstrtab", sizeof ".shstrtab");
    if (e->shstr.oom)
        return CUDW_E_NOMEM;
    e->shstr_off = at;
    at += e->shstr.n;
    e->shoff = align_up(at, 8);
    e->total = e->shoff + (e->nsecs + 2) * 64;
    return CUDW_OK;
}

static void le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

typedef struct emitter {
    cudw_write_fn fn;
    void *ctx;
    uint64_t at;
    int failed;
} emitter;

static void out(emitter *m, const void *p, size_t n)
{
    if (!m->failed && n && m->fn(m->ctx, p, n))
        m->failed = 1;
    m->at += n;
}

static void pad_to(emitter *m, uint64_t to)
{
    static const uint8_t zero[64];
    while (m->at < to) {
        uint64_t k = to - m->at < sizeof zero ? to - m->at : sizeof zero;
        out(m, zero, (size_t)k);
    }
}

static void shdr(uint8_t *h, uint32_t name, uint32_t type, uint64_t flags, uint64_t off, uint64_t size,
                 uint32_t link, uint32_t info, uint64_t align, uint64_t entsize)
{
    memset(h, 0, 64);
    le(h, name, 4);
    le(h + 4, type, 4);
    le(h + 8, flags, 8);
    le(h + 24, off, 8);
    le(h + 32, size, 8);
    le(h + 40, link, 4);
    le(h + 44, info, 4);
    le(h + 48, align ? align : 1, 8);
    le(h + 56, entsize, 8);
}

int ew_emit(const ew_file *e, cudw_write_fn fn, cudw_copy_fn copy, void *ctx)
{
    emitter m = {fn, ctx, 0, 0};
    uint8_t h[64] = {0};
    memcpy(h, e->ident, 16);
    le(h + 16, e->type, 2);
    le(h + 18, e->machine, 2);
    le(h + 20, 1, 4);                 /* EV_CURRENT */
    le(h + 40, e->shoff, 8);
    le(h + 48, e->flags, 4);
    le(h + 52, 64, 2);                /* e_ehsize */
    le(h + 58, 64, 2);                /* e_shentsize */
    le(h + 60, e->nsecs + 2, 2);
    le(h + 62, e->nsecs + 1, 2);      /* e_shstrndx */
    out(&m, h, 64);
    for (size_t i = 0; i < e->nsecs; i++) {
        const ew_sec *s = &e->secs[i];
        if (s->alias >= 0 || s->type == 8)
            continue;
        pad_to(&m, s->offset);
        for (size_t k = 0; k < s->nfrags; k++) {
            const ew_frag *fr = &s->frags[k];
            int done = 1;
            if (copy && fr->input >= 0 && fr->n && !m.failed) {
                int rc = copy(ctx, (size_t)fr->input, fr->file_off, fr->n);
                if (rc < 0)
                    m.failed = 1;
                done = rc <= 0;
            } else {
                done = 0;
            }
            if (done)
                m.at += fr->n;
            else
                out(&m, fr->p, fr->n);
        }
    }
    pad_to(&m, e->shstr_off);
    out(&m, e->shstr.p, e->shstr.n);
    pad_to(&m, e->shoff);
    shdr(h, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    le(h + 48, 0, 8);
    out(&m, h, 64);
    for (size_t i = 0; i < e->nsecs; i++) {
        const ew_sec *s = &e->secs[i];
        shdr(h, s->name_off, s->type, s->flags, s->offset, s->size, s->link, s->info, s->align, s->entsize);
        out(&m, h, 64);
    }
    shdr(h, e->shstr_name, 3 /* SHT_STRTAB */, 0, e->shstr_off, e->shstr.n, 0, 0, 1, 0);
    out(&m, h, 64);
    return m.failed ? CUDW_E_IO : CUDW_OK;
}

void ew_free(ew_file *e)
{
    wb_free(&e->shstr);
}
