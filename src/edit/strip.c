/* Removing the debug sections from a cubin (what -suppress-debug-info
 * leaves out), and nothing else.
 *
 * Section indexes stay: sh_link and sh_info of cubin sections name
 * sections (and, for .text, symbols), .nv.info records name symbols, so
 * the removed sections keep their header slot as SHT_NULL and the symbol
 * table keeps its order (the removed sections' own symbols become null
 * entries).  The bytes move: every range that must stay together (a
 * retained section; a segment's file image; the program header table) is
 * a block, and blocks are laid out in their old order, each at an offset
 * congruent to its old one modulo its alignment, so every section and
 * segment keeps its alignment and every segment its internal layout.
 *
 *   removed: every debug section (cudw_classify_name), including the
 *            Mercury twins and .nv_debug.shared, and every relocation
 *            section aimed at one. */
#include "../internal.h"

#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct block {
    uint64_t start, end;      /* old file range */
    uint64_t align;
    uint64_t to;              /* new offset */
} block;

struct cudw_strip {
    cudw_file *f;
    uint8_t *remove;          /* per section */
    block *blocks;
    size_t nblocks;
    uint8_t **symtabs;        /* replacement bytes per section (NULL: the file's) */
    uint64_t phoff, shoff, total;
    size_t removed, removed_bytes;
};

static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static int cmp_block(const void *a, const void *b)
{
    const block *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int add_range(block **v, size_t *n, size_t *cap, uint64_t start, uint64_t end, uint64_t align)
{
    block *b = vec_room(*v, cap, *n, sizeof *b, 64);
    if (!b)
        return -1;
    *v = b;
    /* a power of two up to 64 KiB, else 1: a hostile sh_addralign must not
     * overflow the layout (no real cubin goes past 256) */
    if (!align || align > 0x10000 || (align & (align - 1)))
        align = 1;
    (*v)[(*n)++] = (block){start, end, align, 0};
    return 0;
}

/* new offset of old offset x */
static uint64_t map(const cudw_strip *s, uint64_t x)
{
    if (!s->nblocks)
        return 64;
    const block *b = &s->blocks[floor_index(s->blocks, s->nblocks, sizeof *b, offsetof(block, start), x)];
    if (x < b->start) /* before every block: right after the header */
        return 64;
    if (x <= b->end)
        return b->to + (x - b->start);
    return b->to + (b->end - b->start); /* in a removed gap: the end of the block before */
}

static int is_reloc(uint32_t t) { return t == 9 || t == 4 || t == CUDW_SHT_MERC_RELA; }

int cudw_strip_run(cudw_file *f, cudw_strip **out)
{
    *out = NULL;
    const uint8_t *m = f->map;
    if (f->map_size < 64)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, 0, "ELF header", "file too small");
    if (file_writable_class(f, "strip"))
        return f->err.code;
    cudw_strip *s = calloc(1, sizeof *s);
    unsigned n = f->nsecs;
    if (s)
        s->f = f;
    if (!s || !(s->remove = calloc(n ? n : 1, 1)) || !(s->symtabs = calloc(n ? n : 1, sizeof *s->symtabs))) {
        cudw_strip_close(s);
        return file_fail(f, CUDW_E_NOMEM, NULL, 0, "strip", "out of memory");
    }
    for (unsigned i = 1; i < n; i++) {
        cudw_secclass c;
        if (cudw_classify_name(f->secs[i].name, f->secs[i].flags, &c) == CUDW_OK && c.kind != CUDW_SEC_NONE)
            s->remove[i] = 1;
    }
    for (unsigned i = 1; i < n; i++)
        if (is_reloc(f->secs[i].type) && f->secs[i].info < n && s->remove[f->secs[i].info])
            s->remove[i] = 1;
    /* program headers */
    uint64_t phoff = ld64(m + 32);
    uint16_t phentsize = ld16(m + 54), phnum = ld16(m + 56);
    if (phnum && (phentsize != 56 || phoff > f->map_size || (uint64_t)phnum * 56 > f->map_size - phoff)) {
        cudw_strip_close(s);
        return file_fail(f, CUDW_E_BAD_ELF, NULL, 32, "program headers", "table (offset 0x%llx, %u entries of "
                         "%u bytes) lies outside the file", (unsigned long long)phoff, phnum, phentsize);
    }
    size_t cap = 0;
    int rc = 0;
    if (phnum)
        rc |= add_range(&s->blocks, &s->nblocks, &cap, phoff, phoff + phnum * 56u, 8);
    for (unsigned k = 0; k < phnum && !rc; k++) {
        const uint8_t *p = m + phoff + k * 56u;
        uint64_t off = ld64(p + 8), filesz = ld64(p + 32), align = ld64(p + 48);
        if (!filesz)
            continue;
        if (off > f->map_size || filesz > f->map_size - off) {
            cudw_strip_close(s);
            return file_fail(f, CUDW_E_BAD_ELF, NULL, phoff + k * 56u, "program header",
                             "segment %u (offset 0x%llx, size 0x%llx) lies outside the file", k,
                             (unsigned long long)off, (unsigned long long)filesz);
        }
        rc |= add_range(&s->blocks, &s->nblocks, &cap, off, off + filesz, align);
    }
    for (unsigned i = 1; i < n && !rc; i++) {
        const cudw_section *x = &f->secs[i];
        if (x->type == 8 || !x->size || !x->data)
            continue;
        if (s->remove[i]) {
            s->removed_bytes += x->size;
            continue;
        }
        rc |= add_range(&s->blocks, &s->nblocks, &cap, x->offset, x->offset + x->size, x->align);
    }
    if (rc) {
        cudw_strip_close(s);
        return file_fail(f, CUDW_E_NOMEM, NULL, 0, "strip", "out of memory");
    }
    /* a removed section inside a segment cannot go */
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *x = &f->secs[i];
        if (!s->remove[i] || x->type == 8 || !x->size)
            continue;
        for (unsigned k = 0; k < phnum; k++) {
            const uint8_t *p = m + phoff + k * 56u;
            uint64_t off = ld64(p + 8), filesz = ld64(p + 32);
            if (filesz && x->offset < off + filesz && off < x->offset + x->size) {
                cudw_strip_close(s);
                return file_fail(f, CUDW_E_UNSUPPORTED, x, 0, "section",
                                 "lies inside loadable segment %u: it cannot be removed", k);
            }
        }
        s->removed++;
    }
    for (unsigned i = 1; i < n; i++)
        if (s->remove[i] && (f->secs[i].type == 8 || !f->secs[i].size))
            s->removed++;
    /* merge overlapping ranges into blocks */
    if (s->nblocks)
        qsort(s->blocks, s->nblocks, sizeof *s->blocks, cmp_block);
    size_t w = 0;
    for (size_t i = 0; i < s->nblocks; i++) {
        if (w && s->blocks[i].start <= s->blocks[w - 1].end) {
            block *b = &s->blocks[w - 1];
            if (s->blocks[i].end > b->end)
                b->end = s->blocks[i].end;
            continue; /* its alignment holds: its offset relative to the block does not change */
        }
        s->blocks[w++] = s->blocks[i];
    }
    s->nblocks = w;
    uint64_t at = 64;
    for (size_t i = 0; i < s->nblocks; i++) {
        block *b = &s->blocks[i];
        uint64_t a = b->align > 1 ? b->align : 1;
        uint64_t rem = b->start % a;
        uint64_t to = align_up(at > rem ? at - rem : 0, a) + rem;
        if (to < at)
            to += a;
        b->to = to;
        at = to + (b->end - b->start);
    }
    s->phoff = phnum ? map(s, phoff) : 0;
    s->shoff = align_up(at, 8);
    s->total = n ? s->shoff + (uint64_t)n * 64 : at;
    /* symbol tables: the removed sections' symbols become null entries */
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *x = &f->secs[i];
        if (s->remove[i] || (x->type != 2 && x->type != CUDW_SHT_MERC_SYMTAB) || !x->data)
            continue;
        uint8_t *copy = malloc(x->data_size ? x->data_size : 1);
        if (!copy) {
            cudw_strip_close(s);
            return file_fail(f, CUDW_E_NOMEM, NULL, 0, "strip", "out of memory");
        }
        memcpy(copy, x->data, x->data_size);
        for (uint64_t k = 24; k + 24 <= x->data_size; k += 24) {
            uint16_t shndx = ld16(copy + k + 6);
            if (shndx && shndx < n && s->remove[shndx])
                memset(copy + k, 0, 24);
        }
        s->symtabs[i] = copy;
    }
    *out = s;
    return CUDW_OK;
}

static void put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int cudw_strip_write(const cudw_strip *s, cudw_write_fn fn, void *ctx)
{
    cudw_file *f = s->f;
    const uint8_t *m = f->map;
    uint8_t h[64];
    memcpy(h, m, 64);
    put(h + 32, s->phoff, 8);
    put(h + 40, f->nsecs ? s->shoff : 0, 8);
    put(h + 58, 64, 2);
    put(h + 60, f->nsecs, 2);
    if (!f->nsecs)
        put(h + 62, 0, 2);
    uint64_t at = 0;
    static const uint8_t zero[256];
#define OUT(p, k) do { if ((k) && fn(ctx, (p), (k))) return CUDW_E_IO; at += (k); } while (0)
#define PAD(to) do { while (at < (to)) { size_t z_ = (to) - at < sizeof zero ? (size_t)((to) - at) : sizeof zero; OUT(zero, z_); } } while (0)
    OUT(h, 64);
    uint16_t phnum = ld16(m + 56);
    uint64_t phoff = ld64(m + 32);
    for (size_t i = 0; i < s->nblocks; i++) {
        const block *b = &s->blocks[i];
        PAD(b->to);
        /* the block's bytes, with rewritten symbol tables and program headers */
        for (uint64_t x = b->start; x < b->end;) {
            uint64_t next = b->end;
            const uint8_t *src = m + x;
            size_t len;
            int done = 0;
            if (phnum && x >= phoff && x < phoff + phnum * 56u) {
                uint64_t k = (x - phoff) / 56, inner = (x - phoff) % 56;
                uint8_t ph[56];
                memcpy(ph, m + phoff + k * 56, 56);
                if (ld64(ph + 32) || ld64(ph + 8))
                    put(ph + 8, map(s, ld64(ph + 8)), 8);
                len = (size_t)(56 - inner);
                if (x + len > b->end)
                    len = (size_t)(b->end - x);
                OUT(ph + inner, len);
                x += len;
                continue;
            }
            for (unsigned j = 1; j < f->nsecs && !done; j++) {
                const cudw_section *sec = &f->secs[j];
                if (s->symtabs[j] && x >= sec->offset && x < sec->offset + sec->data_size) {
                    len = (size_t)(sec->offset + sec->data_size - x);
                    if (x + len > b->end)
                        len = (size_t)(b->end - x);
                    OUT(s->symtabs[j] + (x - sec->offset), len);
                    x += len;
                    done = 1;
                } else if (s->symtabs[j] && sec->offset > x && sec->offset < next) {
                    next = sec->offset;
                }
            }
            if (done)
                continue;
            if (phnum && phoff > x && phoff < next)
                next = phoff;
            len = (size_t)(next - x);
            OUT(src, len);
            x = next;
        }
    }
    if (!f->nsecs)
        return CUDW_OK; /* no section header table to write */
    PAD(s->shoff);
    memset(h, 0, 64);
    OUT(h, 64);
    for (unsigned j = 1; j < f->nsecs; j++) {
        const cudw_section *sec = &f->secs[j];
        memset(h, 0, 64);
        if (!s->remove[j]) {
            /* the header as libelf validated it (the table may use the
             * extended count, e_shnum 0) */
            Elf_Scn *scn = elf_getscn((Elf *)f->elf, j);
            const Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;
            if (!sh)
                return CUDW_E_BAD_ELF;
            memcpy(h, sh, 64);
            put(h + 24, sec->type == 8 && !sec->size ? 0 : map(s, sec->offset), 8);
        }
        OUT(h, 64);
    }
#undef OUT
#undef PAD
    return CUDW_OK;
}

uint64_t cudw_strip_size(const cudw_strip *s) { return s->total; }
size_t cudw_strip_removed(const cudw_strip *s, size_t *bytes)
{
    if (bytes)
        *bytes = s->removed_bytes;
    return s->removed;
}

void cudw_strip_close(cudw_strip *s)
{
    if (!s)
        return;
    if (s->symtabs)
        for (unsigned i = 0; i < s->f->nsecs; i++)
            free(s->symtabs[i]);
    free(s->symtabs);
    free(s->blocks);
    free(s->remove);
    free(s);
}

/* the name of 0.1 */
void cudw_strip_free(cudw_strip *s) { cudw_strip_close(s); }
