/* The relocations aimed at one section, merged from every relocation
 * section that targets it, sorted by offset.
 *
 *   Elf64_Rel  (16 B): r_offset u64 | r_info u64 (sym << 32 | type)
 *   Elf64_Rela (24 B): r_offset u64 | r_info u64 | r_addend i64
 *   Elf32_Rel   (8 B): r_offset u32 | r_info u32 (sym << 8 | type)
 *   Elf32_Rela (12 B): r_offset u32 | r_info u32 | r_addend i32
 *
 * sm_75/sm_80 mix REL and RELA for one target (.rel.debug_line next to
 * .rela.debug_line); Mercury twins use sh_type 0x70000082 (RELA layout)
 * with .nv.merc.symtab.  For REL the addend is the field's own bytes. */
#include "../internal.h"
#include "reloc.h"

#include <gelf.h>
#include <stdlib.h>

static int is_reloc_section(const cudw_section *s)
{
    return s->type == SHT_REL || s->type == SHT_RELA || s->type == CUDW_SHT_MERC_RELA;
}

/* The entry size of relocation section r in f's class. */
static size_t entry_size(const cudw_file *f, const cudw_section *r)
{
    size_t rel = f->hdr.elf_class == ELFCLASS32 ? 8 : 16;
    return r->type == SHT_REL ? rel : rel + rel / 2;
}

static int cmp_reloc(const void *a, const void *b)
{
    const cudw_reloc *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->reloc_section < y->reloc_section ? -1 : x->reloc_section > y->reloc_section;
}

/* Check relocation section r as a whole: bytes present, whole entries. */
static int check_section(cudw_file *f, const cudw_section *r)
{
    size_t esz = entry_size(f, r);
    if (!r->data)
        return file_fail(f, CUDW_E_BAD_RELOC, r, 0, "relocation section",
                         "sh_offset 0x%llx + sh_size 0x%llx lies outside the file",
                         (unsigned long long)r->offset, (unsigned long long)r->size);
    if (r->data_size % esz)
        return file_fail(f, CUDW_E_BAD_RELOC, r, r->data_size - r->data_size % esz, "relocation section",
                         "size 0x%llx is not a multiple of %zu", (unsigned long long)r->data_size, esz);
    return CUDW_OK;
}

/* The entry at off of relocation section ri, aimed at section tgt. */
static int decode(cudw_file *f, unsigned ri, uint64_t off, const cudw_section *tgt, cudw_reloc *x)
{
    const cudw_section *r = &f->secs[ri];
    const uint8_t *p;
    int is32 = f->hdr.elf_class == ELFCLASS32;
    int rc = cur_record_at(f, r, off, entry_size(f, r), "relocation", "relocation entry", &p);
    if (rc)
        return rc;
    x->offset = is32 ? ld32(p) : ld64(p);
    uint64_t info = is32 ? ld32(p + 4) : ld64(p + 8);
    x->type = is32 ? (uint32_t)(info & 0xff) : (uint32_t)info;
    x->sym_index = (uint32_t)(info >> (is32 ? 8 : 32));
    x->rela = r->type != SHT_REL;
    x->reloc_section = ri;
    x->width = (uint8_t)cudw_reloc_type_width(x->type);
    x->addend = 0;
    if (x->width && (x->offset > tgt->size || x->width > tgt->size - x->offset))
        return file_fail(f, CUDW_E_BAD_RELOC, r, off, "relocation", "r_offset 0x%llx (%u bytes) outside %s (size 0x%llx)",
                         (unsigned long long)x->offset, x->width, tgt->name, (unsigned long long)tgt->size);
    if (x->rela) {
        x->addend = is32 ? (int64_t)(int32_t)ld32(p + 8) : (int64_t)ld64(p + 16);
    } else if (x->width && tgt->data) { /* REL: the addend is the field's bytes */
        const uint8_t *q;
        if ((rc = cur_record_at(f, tgt, x->offset, x->width, "relocated field", "addend", &q)))
            return rc;
        x->addend = x->width == 4 ? (int64_t)(int32_t)ld32(q) : (int64_t)ld64(q);
    }
    cudw_symbol sym;
    if (cudw_symbol_get(f, cudw_symtab_of(f, r), x->sym_index, &sym))
        return file_fail(f, CUDW_E_BAD_RELOC, r, off, "relocation", "symbol %u: %s", x->sym_index, f->err.detail);
    x->sym_name = sym.name;
    x->sym_value = sym.value;
    x->sym_type = sym.type;
    x->sym_shndx = sym.shndx;
    x->sym_bind = sym.bind;
    x->sym_other = sym.other;
    x->sym_size = sym.size;
    /* sh_addr of the symbol's section is 0 in every cubin; add it anyway so
     * a placed image still reads right. */
    uint64_t base = sym.shndx && sym.shndx < f->nsecs && sym.shndx < SHN_LORESERVE ? f->secs[sym.shndx].addr : 0;
    x->value = base + sym.value + (uint64_t)x->addend;
    return CUDW_OK;
}

void reloc_iter_init(reloc_iter *it, cudw_file *f, unsigned target)
{
    *it = (reloc_iter){f, target, 1, 0, NULL, 0, 0, 0};
    if (target < f->nsecs && f->state[target].relocs_built) {
        it->cached = f->state[target].relocs;
        it->n = f->state[target].nrelocs;
        it->use_cache = 1;
    }
}

int reloc_iter_next(reloc_iter *it, cudw_reloc *out)
{
    cudw_file *f = it->f;
    if (it->target >= f->nsecs)
        return CUDW_DONE;
    if (it->use_cache) {
        if (it->k >= it->n)
            return CUDW_DONE;
        *out = it->cached[it->k++];
        return CUDW_OK;
    }
    for (; it->sec < f->nsecs; it->sec++, it->pos = 0) {
        const cudw_section *r = &f->secs[it->sec];
        if (!is_reloc_section(r) || r->info != it->target)
            continue;
        if (it->pos == 0) {
            int rc = check_section(f, r);
            if (rc)
                return rc;
        }
        if (it->pos >= r->data_size)
            continue;
        int rc = decode(f, it->sec, it->pos, &f->secs[it->target], out);
        it->pos += entry_size(f, r);
        return rc;
    }
    return CUDW_DONE;
}

static int build(cudw_file *f, unsigned target)
{
    const cudw_section *tgt = &f->secs[target];
    size_t total = 0;
    for (unsigned i = 1; i < f->nsecs; i++) {
        const cudw_section *r = &f->secs[i];
        if (!is_reloc_section(r) || r->info != target)
            continue;
        int rc = check_section(f, r);
        if (rc)
            return rc;
        total += r->data_size / entry_size(f, r);
    }
    cudw_reloc *v = total ? arena_alloc(&f->arena, total * sizeof *v) : NULL;
    if (total && !v)
        return file_fail(f, CUDW_E_NOMEM, tgt, 0, "relocations", "out of memory");
    size_t n = 0;
    for (unsigned i = 1; i < f->nsecs; i++) {
        const cudw_section *r = &f->secs[i];
        if (!is_reloc_section(r) || r->info != target)
            continue;
        size_t esz = entry_size(f, r);
        for (uint64_t off = 0; off < r->data_size; off += esz) {
            int rc = decode(f, i, off, tgt, &v[n]);
            if (rc)
                return rc;
            n++;
        }
    }
    /* Usually one section already in order: ascending, or descending as
     * ptxas writes .rela.debug_info and .rela.debug_loc (reversed in place);
     * check before sorting. */
    int sorted = 1, reversed = 1;
    for (size_t i = 1; i < n && (sorted || reversed); i++) {
        sorted &= cmp_reloc(&v[i - 1], &v[i]) <= 0;
        reversed &= v[i - 1].offset > v[i].offset;
    }
    if (!sorted && reversed) {
        for (size_t i = 0, j = n - 1; i < j; i++, j--) {
            cudw_reloc t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
    } else if (!sorted) {
        qsort(v, n, sizeof *v, cmp_reloc);
    }
    f->state[target].relocs = v;
    f->state[target].nrelocs = n;
    f->state[target].relocs_built = 1;
    return CUDW_OK;
}

int cudw_relocs(cudw_file *f, unsigned target, const cudw_reloc **relocs, size_t *count)
{
    if (target >= f->nsecs)
        return file_fail(f, CUDW_E_ARG, NULL, 0, "relocations", "no section %u", target);
    if (!f->state[target].relocs_built) {
        int rc = build(f, target);
        if (rc)
            return rc;
    }
    *relocs = f->state[target].relocs;
    *count = f->state[target].nrelocs;
    return CUDW_OK;
}

const cudw_reloc *cudw_reloc_at(cudw_file *f, unsigned target, uint64_t offset)
{
    if (target >= f->nsecs)
        return NULL;
    sec_state *st = &f->state[target];
    if (!st->relocs_built && build(f, target))
        return NULL;
    const cudw_reloc *r = st->relocs;
    size_t n = st->nrelocs, lo;
    /* Readers walk a section forward, so the answer is usually at or just
     * after the last one: try a short scan from there before bisecting. */
    size_t h = st->hint;
    if (h <= n && (h == 0 || r[h - 1].offset < offset) && (h == n || r[h].offset >= offset)) {
        lo = h;
    } else if (h < n && r[h].offset < offset && (h + 1 == n || r[h + 1].offset >= offset)) {
        lo = h + 1;
    } else {
        size_t a = 0, b = n;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (r[mid].offset < offset)
                a = mid + 1;
            else
                b = mid;
        }
        lo = a;
    }
    st->hint = lo;
    if (lo == n || r[lo].offset != offset)
        return NULL;
    /* Prefer a relocation that writes, should two sit on one field. */
    for (size_t i = lo; i < n && r[i].offset == offset; i++)
        if (r[i].width)
            return &r[i];
    return &r[lo];
}

/* A cursor over a section whose relocations are decoded first (cursor.h):
 * here, so that the cursor's own file needs nothing of this one. */
int cur_open(cur_t *c, cudw_file *f, const cudw_section *s, uint64_t off, uint64_t end, const char *what)
{
    *c = cur_make(f, s, off, end, what);
    const cudw_reloc *r;
    size_t n;
    return cudw_relocs(f, s->index, &r, &n);
}
