/* The debug half of nvlink -g: merge the debug sections of relocatable
 * cubins (docs/linking.md has the evidence; docs/spec-disagreements.md
 * where the reconstruction of nvlink's writers, section slots, Mercury
 * dispatcher and filter differs from the bytes).
 *
 *   pass 1  every debug section of every input, in input order, becomes a
 *           fragment of the output section of its name (.nv_debug_ptx_txt.N:
 *           one output section per input; .nv_debug.shared: dropped;
 *           .nv.merc.*: only through the Mercury gate)
 *   pass 2  per input section: FDE CIE pointers written structurally; each
 *           relocation applied and removed (against a debug section, an
 *           undefined local label, a __shared__ variable whose address the
 *           symbols file gives) or kept (functions, data); line-table
 *           .debug_str base words without a relocation rebased
 *   then    every defined function in the symbol table, global symbols
 *           defined from whichever input defines them,
 *           optional string de-duplication, byte-identical Mercury twins
 *           aliased, and the ELF laid out for streaming. */
#include "link.h"

#include <stdio.h>
#include <stdlib.h>

#define SHT_REL_ 9u
#define SHT_RELA_ 4u
#define SHT_NOBITS_ 8u

/* ---------------- pass 1: sections ---------------- */

static int check_inputs(cudw_link *L)
{
    for (size_t k = 0; k < L->nin; k++) {
        const cudw_elf_header *h = cudw_header(L->in[k]);
        if (h->machine != 190)
            return link_fail(L, (int)k, CUDW_E_UNSUPPORTED, NULL, 0, "ELF header",
                             "e_machine %u is not EM_CUDA (190)", h->machine);
        if (h->elf_class == 1)
            return link_fail(L, (int)k, CUDW_E_UNSUPPORTED, NULL, 4, "ELF header",
                             "an ELF32 cubin (CUDA 6.5-8): link writes ELF64 only");
        if (L->opts.keep_debug && L->nin != 1)
            return link_fail(L, -1, CUDW_E_ARG, NULL, 0, "link", "keep_debug takes one input");
        if (h->type != 1 && !L->opts.keep_debug)
            return link_fail(L, (int)k, CUDW_E_UNSUPPORTED, NULL, 0, "ELF header",
                             "not a relocatable object (e_type %u): link takes the -dc objects nvlink links",
                             h->type);
        if (k && h->sm != L->sm)
            return link_fail(L, (int)k, CUDW_E_UNSUPPORTED, NULL, 0, "ELF header",
                             "sm_%u object, but the first input is sm_%u", h->sm, L->sm);
        L->sm = h->sm;
    }
    return CUDW_OK;
}

/* nvlink refuses two inputs defining one global function or variable
 * ("Multiple definition of 'X' in 'b', first defined in 'a'"), and so do
 * we: a debug link of what nvlink would not link describes nothing. */
static int check_definitions(cudw_link *L)
{
    size_t total = 0;
    for (size_t k = 0; k < L->nin; k++) {
        const cudw_section *st = cudw_section_find(L->in[k], ".symtab");
        total += st && st->data ? (size_t)(st->data_size / 24) : 0;
    }
    struct def {
        const char *name;
        size_t input;
    } *defs = malloc((total ? total : 1) * sizeof *defs);
    size_t n = 0;
    hmap idx = {0}; /* name -> defs index */
    if (!defs || hmap_reserve(&idx, total)) {
        free(defs);
        return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
    }
    int rc = CUDW_OK;
    for (size_t k = 0; k < L->nin && !rc; k++) {
        cudw_file *f = L->in[k];
        const cudw_section *st = cudw_section_find(f, ".symtab");
        for (uint32_t i = 1; st && st->data && i < st->data_size / 24 && !rc; i++) {
            cudw_symbol y;
            if (cudw_symbol_get(f, st->index, i, &y) != CUDW_OK || y.bind != 1 /* GLOBAL */ ||
                (y.type != 1 && y.type != 2) || !y.shndx || y.shndx >= 0xff00 || !y.name[0])
                continue;
            uint64_t h = fnv1a(CUDW_FNV0, y.name, strlen(y.name));
            hmap_probe p = hmap_probe_at(&idx, h);
            uint32_t r;
            while ((r = hmap_next(&p)) != HMAP_NONE && strcmp(defs[r].name, y.name))
                ;
            if (r == HMAP_NONE) {
                hmap_add(&idx, h, (uint32_t)n); /* reserved: cannot fail */
                defs[n++] = (struct def){y.name, k};
            } else if (defs[r].input != k) {
                rc = link_fail(L, (int)k, CUDW_E_ARG, st, (uint64_t)i * 24, "symbol",
                               "multiple definition of '%s', first defined in input %zu (%s)", y.name,
                               defs[r].input + 1, cudw_file_name(L->in[defs[r].input]));
            }
        }
    }
    free(defs);
    hmap_free(&idx);
    return rc;
}

static int is_reloc_or_table(uint32_t type)
{
    return type == SHT_REL_ || type == SHT_RELA_ || type == CUDW_SHT_MERC_RELA || type == 2 /* SYMTAB */ ||
           type == 3 /* STRTAB */ || type == CUDW_SHT_MERC_SYMTAB;
}

static int collect(cudw_link *L, size_t k)
{
    cudw_file *f = L->in[k];
    unsigned n = cudw_section_count(f);
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (is_reloc_or_table(s->type))
            continue;
        cudw_secclass c;
        int twin, aliased;
        if (cudw_section_class(f, i, &c, &twin, &aliased) != CUDW_OK || c.kind == CUDW_SEC_NONE)
            continue;
        if (c.kind == CUDW_SEC_NV_SHARED) /* the nvlink reconstruction's filter: always dropped */
            continue;
        if (c.mercury && !L->gate) {
            L->st.mercury_ignored++;
            continue;
        }
        if (L->opts.mercury && !c.mercury && twin >= 0)
            continue; /* the input's own Mercury twin goes there */
        char name[512];
        int merc_out = c.mercury || L->opts.mercury;
        if (L->opts.mercury && !c.mercury)
            snprintf(name, sizeof name, ".nv.merc.%s", s->name + 1);
        else
            snprintf(name, sizeof name, "%s", s->name);
        int o = c.kind == CUDW_SEC_NV_PTX_TXT ? -1 : link_osec_find(L, name);
        if (o < 0) {
            uint64_t flags = s->flags | (merc_out ? CUDW_SHF_MERCURY : 0);
            o = link_osec_add(L, name, s->type == SHT_NOBITS_ ? SHT_NOBITS_ : 1, flags, s->align);
            if (o < 0)
                return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
            L->secs[o].kind = c.kind;
            L->secs[o].mercury = merc_out;
        }
        osec *os = &L->secs[o];
        L->osec_of[k][i] = o;
        L->base_of[k][i] = os->size;
        if (s->type == SHT_NOBITS_) {
            os->size += s->size;
            continue;
        }
        if (!s->data && s->size)
            return link_fail(L, (int)k, CUDW_E_BAD_OFFSET, s, 0, "section",
                             "its bytes (file offset 0x%llx, size 0x%llx) lie outside the file",
                             (unsigned long long)s->offset, (unsigned long long)s->size);
        if (link_add_frag(os, s->data, (size_t)s->data_size, (unsigned)k, i))
            return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
    }
    return CUDW_OK;
}

/* ---------------- pass 2: patches and relocations ---------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Write every FDE's CIE pointer as its CIE's merged offset.  ptxas's -dc
 * pointers are off by 4 per preceding entry; nvlink writes the right ones
 * (docs/spec-disagreements.md 7), so the structure decides, not the
 * relocation.  *at receives the pointer offsets (malloc'd, ascending). */
static int frame_pointers(cudw_link *L, size_t k, unsigned i, uint64_t **at, size_t *n)
{
    cudw_file *f = L->in[k];
    const cudw_section *s = cudw_section_get(f, i);
    int o = L->osec_of[k][i];
    uint64_t base = L->base_of[k][i], cur = 0;
    size_t cap = 0;
    cudw_cfa_entry e;
    uint64_t cie;
    int rc, guessed;
    *at = NULL;
    *n = 0;
    while ((rc = frame_next_headers(f, s, 8, &cur, &e)) == CUDW_OK) {
        if (e.is_cie || !e.length)
            continue;
        if ((rc = frame_cie_offset(f, s, 8, &e, &cie, &guessed)) != CUDW_OK)
            return link_fail_from(L, (int)k, rc);
        unsigned w = e.format64 ? 8 : 4;
        uint64_t p = e.offset + (e.format64 ? 12 : 4);
        link_patch(L, o, base + p, base + cie, w);
        L->st.cie_pointers++;
        uint64_t *v = vec_room(*at, &cap, *n, sizeof *v, 32);
        if (!v)
            return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
        *at = v;
        (*at)[(*n)++] = p;
    }
    if (rc < 0)
        return link_fail_from(L, (int)k, rc);
    if (*n)
        qsort(*at, *n, sizeof **at, cmp_u64);
    return CUDW_OK;
}


/* A __shared__ variable: CUDA marks them in st_other (0x40) and puts them
 * in .nv.shared.<kernel> (or, for device functions, .nv_debug.shared). */
static int is_shared(cudw_file *f, const cudw_reloc *r)
{
    if (r->sym_other & 0x40)
        return 1;
    const cudw_section *s = r->sym_shndx ? cudw_section_get(f, r->sym_shndx) : NULL;
    return s && (!strncmp(s->name, ".nv.shared.", 11) || !strcmp(s->name, ".nv_debug.shared"));
}

static int record_patch(cudw_link *L, int o, uint64_t off, unsigned width, int target, uint64_t v)
{
    if (!L->opts.dedup_strings)
        return CUDW_OK;
    patchrec *n = vec_room(L->patches, &L->cpatches, L->npatches, sizeof *n, 256);
    if (!n)
        return CUDW_E_NOMEM;
    L->patches = n;
    L->patches[L->npatches++] = (patchrec){o, off, width, target, v};
    return CUDW_OK;
}

static int is_unused_clear(uint32_t type)
{
    return type == CUDW_R_CUDA_UNUSED_CLEAR64 || type == CUDW_R_MERCURY_UNUSED_CLEAR64;
}
static int is_prog_rel(uint32_t type) { return type == CUDW_R_MERCURY_PROG_REL64 || type == CUDW_R_MERCURY_PROG_REL32; }

static int relocate(cudw_link *L, size_t k, unsigned i)
{
    cudw_file *f = L->in[k];
    int o = L->osec_of[k][i]; /* an index: placeholders added below move L->secs */
    int merc = L->secs[o].mercury;
    uint64_t base = L->base_of[k][i];
    reloc_iter it;
    cudw_reloc rbuf, *r = &rbuf;
    int rc = CUDW_OK, more;
    uint64_t *ptrs = NULL;
    size_t nptrs = 0;
    if (L->opts.keep_debug) {
        /* a companion carries the relocations as they are */
        reloc_iter_init(&it, f, i);
        while (rc == CUDW_OK && (more = reloc_iter_next(&it, r)) == CUDW_OK) {
            int kind = merc ? REL_MERC : r->rela ? REL_RELA : REL_REL;
            uint32_t sym;
            int target = r->sym_type == 3 && r->sym_shndx < cudw_section_count(f) ? L->osec_of[k][r->sym_shndx] : -1;
            rc = target >= 0 ? link_intern_section_sym(L, kind == REL_MERC, target, &sym)
                             : link_intern_reloc_sym(L, kind == REL_MERC, k, r, &sym);
            if (rc == CUDW_OK)
                rc = link_keep(L, o, kind, base + r->offset, r->type, sym, r->addend, target);
        }
        if (rc == CUDW_OK && more < 0)
            return link_fail_from(L, (int)k, more);
        return rc == CUDW_E_NOMEM ? link_fail(L, -1, rc, NULL, 0, "link", "out of memory") : rc;
    }
    if (L->secs[o].kind == CUDW_SEC_FRAME && (rc = frame_pointers(L, k, i, &ptrs, &nptrs)) != CUDW_OK)
        return rc;
    reloc_iter_init(&it, f, i);
    while (rc == CUDW_OK && (more = reloc_iter_next(&it, r)) == CUDW_OK) {
        uint64_t at = base + r->offset;
        if (u64_sorted_has(ptrs, nptrs, r->offset)) {
            L->st.relocs_resolved++;
            continue;
        }
        if (is_unused_clear(r->type)) {
            L->st.cleared_dropped++;
            continue;
        }
        int kind = merc ? REL_MERC : r->rela ? REL_RELA : REL_REL;
        int table = kind == REL_MERC;
        uint32_t sym;
        if (r->sym_type == 3 /* STT_SECTION */ && r->sym_shndx < cudw_section_count(f) &&
            L->osec_of[k][r->sym_shndx] >= 0) {
            uint64_t v = L->base_of[k][r->sym_shndx] + (uint64_t)r->addend;
            int target = L->osec_of[k][r->sym_shndx];
            if (is_prog_rel(r->type) || !r->width) {
                /* nvlink keeps Mercury's stmt_list relocation, rebased */
                if ((rc = link_intern_section_sym(L, table, target, &sym)) == CUDW_OK)
                    rc = link_keep(L, o, kind, at, r->type, sym, (int64_t)v, target);
            } else {
                link_patch(L, o, at, v, r->width);
                rc = record_patch(L, o, at, r->width, target, v);
                L->st.relocs_resolved++;
            }
            continue;
        }
        if (r->sym_shndx == 0 && r->sym_type == 0 && r->sym_bind == 0 && r->width) {
            /* ptxas leaves some $L__tmp labels undefined; nvlink writes the addend */
            link_patch(L, o, at, (uint64_t)r->addend, r->width);
            L->st.labels_resolved++;
            continue;
        }
        if (is_shared(f, r) && r->width) {
            uint64_t v;
            if (L->opts.symbols && link_code_lookup(L, r->sym_name, &v)) {
                /* The symbol's value there already holds the window base
                 * that ptxas's addend stands for (0 before sm_90, 0x400)...
                 * except, on sm_90, for extern (dynamic) __shared__ arrays
                 * (undefined in the input) when no device function's
                 * variable lives in .nv_debug.shared: nvlink then leaves
                 * the window out of their value, and writes value + addend
                 * (docs/linking.md, "Shared memory"). */
                if (L->sm == 90 && r->sym_shndx == 0 && !L->debug_shared_vars)
                    v += (uint64_t)r->addend;
                link_patch(L, o, at, v, r->width);
                L->st.shared_resolved++;
                continue;
            }
            L->st.shared_kept++;
        }
        if ((rc = link_intern_reloc_sym(L, table, k, r, &sym)) == CUDW_OK)
            rc = link_keep(L, o, kind, at, r->type, sym, r->addend, -1);
    }
    free(ptrs);
    if (rc == CUDW_OK && more < 0)
        return link_fail_from(L, (int)k, more);
    if (rc == CUDW_E_NOMEM && !L->err.code)
        return link_fail(L, -1, rc, NULL, 0, "link", "out of memory");
    return rc;
}

/* Line tables whose .debug_str base word carries no relocation (sm_90
 * objects): nvlink leaves the word at 0 in the output, which sends every
 * inlined function name of the second and later inputs to the first
 * input's strings.  We add the input's .debug_str offset. */
static int rebase_str_words(cudw_link *L, size_t k, unsigned i)
{
    cudw_file *f = L->in[k];
    const cudw_section *s = cudw_section_get(f, i);
    int o = L->osec_of[k][i];
    uint64_t base = L->base_of[k][i], cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
        if (!t->has_str_base || t->str_base_reloc || !t->str_section)
            continue;
        unsigned si = t->str_section->index;
        if (L->osec_of[k][si] < 0)
            continue;
        link_patch(L, o, base + t->str_base_offset, (uint64_t)t->str_base_raw + L->base_of[k][si], 4);
        L->st.str_base_words++;
    }
    return rc < 0 ? link_fail_from(L, (int)k, rc) : CUDW_OK;
}

/* Byte-identical twins share their bytes, as ptxas writes them. */
static int same_bytes(const cudw_link *L, int a, int b)
{
    const osec *x = &L->secs[a], *y = &L->secs[b];
    if (x->size != y->size || x->type != y->type)
        return 0;
    for (uint64_t off = 0; off < x->size;) {
        const frag *fx = link_frag_at(x, off), *fy = link_frag_at(y, off);
        uint64_t ex = fx->at + fx->n, ey = fy->at + fy->n;
        uint64_t end = ex < ey ? ex : ey;
        const uint8_t *px = (fx->cow ? fx->cow : fx->p) + (off - fx->at);
        const uint8_t *py = (fy->cow ? fy->cow : fy->p) + (off - fy->at);
        if (memcmp(px, py, (size_t)(end - off)))
            return 0;
        off = end;
    }
    return 1;
}

static void alias_twins(cudw_link *L)
{
    for (size_t i = 0; i < L->nsecs; i++) {
        osec *s = &L->secs[i];
        if (!s->mercury || s->placeholder || strncmp(s->name, ".nv.merc.", 9))
            continue;
        char bare[512];
        snprintf(bare, sizeof bare, ".%s", s->name + 9);
        int b = link_osec_find(L, bare);
        if (b >= 0 && L->secs[b].alias < 0 && same_bytes(L, b, (int)i))
            s->alias = b;
    }
}

void cudw_link_close(cudw_link *L)
{
    if (!L)
        return;
    link_emit_free(L);
    link_syms_free(L);
    link_free_model(L);
    free(L);
}

static int run(cudw_link *L)
{
    int rc;
    if ((rc = check_inputs(L)) != CUDW_OK)
        return rc;
    if (!L->opts.keep_debug && L->nin > 1 && (rc = check_definitions(L)) != CUDW_OK)
        return rc;
    L->gate = L->sm >= 100 || L->opts.mercury;
    L->osec_of = calloc(L->nin, sizeof *L->osec_of);
    L->base_of = calloc(L->nin, sizeof *L->base_of);
    if (!L->osec_of || !L->base_of)
        return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
    for (size_t k = 0; k < L->nin; k++) {
        unsigned n = cudw_section_count(L->in[k]);
        L->osec_of[k] = malloc((n ? n : 1) * sizeof **L->osec_of);
        L->base_of[k] = calloc(n ? n : 1, sizeof **L->base_of);
        if (!L->osec_of[k] || !L->base_of[k])
            return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
        for (unsigned i = 0; i < n; i++)
            L->osec_of[k][i] = -1;
    }
    if (L->opts.symbols && (rc = link_code_symbols(L)) != CUDW_OK)
        return rc;
    for (size_t k = 0; k < L->nin; k++)
        if ((rc = collect(L, k)) != CUDW_OK)
            return rc;
    size_t ndebug = L->nsecs;
    for (size_t k = 0; k < L->nin; k++) {
        unsigned n = cudw_section_count(L->in[k]);
        for (unsigned i = 1; i < n; i++) {
            int o = L->osec_of[k][i];
            if (o < 0 || L->secs[o].type == SHT_NOBITS_)
                continue;
            if ((rc = relocate(L, k, i)) != CUDW_OK)
                return rc;
            int kind = L->secs[o].kind;
            if ((kind == CUDW_SEC_LINE || kind == CUDW_SEC_NV_LINE_SASS) && !L->opts.keep_debug &&
                (rc = rebase_str_words(L, k, i)))
                return rc;
            if (L->err.code)
                return L->err.code;
        }
    }
    if ((rc = link_add_symbols(L)) != CUDW_OK)
        return rc;
    if (L->opts.dedup_strings && (rc = link_dedup_strings(L)) != CUDW_OK)
        return rc;
    alias_twins(L);
    L->st.sections = ndebug;
    if (L->st.mercury_ignored)
        link_note(L, "%zu .nv.merc. debug sections of sm_%u inputs ignored: the Mercury gate opens for "
                  "sm_100 and later, or with --mercury", L->st.mercury_ignored, L->sm);
    if (L->st.shared_kept && !L->opts.symbols)
        link_note(L, "%zu relocations against __shared__ variables kept: nvlink lays out shared memory "
                  "(give its output with --symbols to resolve them as it does)", L->st.shared_kept);
    else if (L->st.shared_kept)
        /* nvlink without -g drops the symbols of function-local __shared__
         * variables from its output: nothing to take their places from */
        link_note(L, "%zu relocations against __shared__ variables kept: the --symbols file does not define "
                  "them (nvlink keeps the symbols of function-local __shared__ variables only when it links "
                  "with -g)", L->st.shared_kept);
    return link_build_elf(L);
}

int cudw_link_run(cudw_file *const *inputs, size_t n, const cudw_link_opts *opts, cudw_link **out)
{
    cudw_link *L = *out = calloc(1, sizeof *L);
    if (!L)
        return CUDW_E_NOMEM;
    L->in = inputs;
    L->nin = n;
    L->err_input = -1;
    if (opts)
        L->opts = *opts;
    int rc = n ? run(L) : link_fail(L, -1, CUDW_E_ARG, NULL, 0, "link", "no inputs");
    if (rc != CUDW_OK && !L->err.code)
        link_fail(L, -1, rc, NULL, 0, "link", "%s", cudw_status_name(rc));
    return L->err.code;
}

const cudw_error *cudw_link_error(const cudw_link *L, int *input)
{
    if (input)
        *input = L->err_input;
    return &L->err;
}

const cudw_link_stats *cudw_link_get_stats(const cudw_link *L) { return &L->st; }
uint64_t cudw_link_size(const cudw_link *L) { return L->ew.total; }
size_t cudw_link_note_count(const cudw_link *L) { return L->nnotes; }
const char *cudw_link_note(const cudw_link *L, size_t i) { return i < L->nnotes ? L->notes[i] : NULL; }
int cudw_link_write(const cudw_link *L, cudw_write_fn fn, void *ctx)
{
    return L->err.code ? L->err.code : ew_emit(&L->ew, fn, NULL, ctx); /* a failed link has no file */
}
int cudw_link_write_copy(const cudw_link *L, cudw_write_fn fn, cudw_copy_fn copy, void *ctx)
{
    return L->err.code ? L->err.code : ew_emit(&L->ew, fn, copy, ctx);
}

/* the name of 0.1 */
void cudw_link_free(cudw_link *l) { cudw_link_close(l); }
