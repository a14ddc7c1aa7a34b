/* Resources per function from .nv.info records and section sizes
 * (cudwarf/resources.h has the layout; docs/formats.md 8 the evidence:
 * every value checked against ptxas -v on sm_75 to sm_120).
 *
 *   .nv.info record:  fmt u8 | attr u8 | fmt 4 (EIFMT_SVAL): size u16, bytes
 *                                      | fmt 3 (EIFMT_HVAL): value u16
 *                                      | fmt 2 (EIFMT_BVAL): value u8, pad u8
 *                                      | fmt 1 (EIFMT_NVAL): pad u16
 *   per-function SVAL of .nv.info:     sym u32 | value u32
 */
#include "../internal.h"

#include <stdio.h>

enum {
    EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4,
    EIATTR_MAX_THREADS = 0x05, EIATTR_FRAME_SIZE = 0x11, EIATTR_MIN_STACK_SIZE = 0x12,
    EIATTR_CBANK_PARAM_SIZE = 0x19, EIATTR_MAXREG_COUNT = 0x1b, EIATTR_REGCOUNT = 0x2f,
    EIATTR_NUM_BARRIERS = 0x4c,
};

typedef struct nvrec {
    uint8_t fmt, attr;
    uint32_t value;          /* HVAL, BVAL */
    const uint8_t *data;     /* SVAL */
    uint16_t size;
} nvrec;

/* The record at *pos of s; CUDW_DONE at the end. */
static int rec_next(cudw_file *f, const cudw_section *s, uint64_t *pos, nvrec *r)
{
    uint64_t at = *pos;
    if (at >= s->data_size)
        return CUDW_DONE;
    if (s->data_size - at < 4)
        return file_fail(f, CUDW_E_TRUNCATED, s, at, ".nv.info record", "%llu bytes left, a record needs 4",
                         (unsigned long long)(s->data_size - at));
    const uint8_t *p = s->data + at;
    *r = (nvrec){p[0], p[1], 0, NULL, 0};
    switch (r->fmt) {
    case EIFMT_NVAL: break;
    case EIFMT_BVAL: r->value = p[2]; break;
    case EIFMT_HVAL: r->value = ld16(p + 2); break;
    case EIFMT_SVAL:
        r->size = ld16(p + 2);
        if (r->size > s->data_size - at - 4)
            return file_fail(f, CUDW_E_TRUNCATED, s, at, ".nv.info record",
                             "attribute 0x%02x: %u bytes run past the section's end", r->attr, r->size);
        r->data = p + 4;
        break;
    default:
        return file_fail(f, CUDW_E_UNSUPPORTED, s, at, ".nv.info record", "format %u (expected 1 to 4)", r->fmt);
    }
    *pos = at + 4 + r->size;
    return CUDW_OK;
}

typedef struct rctx {
    cudw_file *f;
    cudw_func_resources *v;
    size_t n;
    uint32_t *of_sym;        /* symbol index -> 1 + v index; 0: not a function */
    size_t nsym;
    hmap by_name;            /* name -> v index */
    uint64_t reserve;        /* note_reserve */
} rctx;

static cudw_func_resources *by_sym(rctx *c, uint32_t sym)
{
    return sym < c->nsym && c->of_sym[sym] ? &c->v[c->of_sym[sym] - 1] : NULL;
}

static cudw_func_resources *by_name(rctx *c, const char *name)
{
    hmap_probe p = hmap_probe_at(&c->by_name, fnv1a(CUDW_FNV0, name, strlen(name)));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (!strcmp(c->v[r].name, name))
            return &c->v[r];
    return NULL;
}

/* .nv.info: (symbol, value) records of every function */
static int global_info(rctx *c, const cudw_section *s)
{
    nvrec r;
    int rc;
    for (uint64_t pos = 0; (rc = rec_next(c->f, s, &pos, &r)) == CUDW_OK;) {
        if (r.fmt != EIFMT_SVAL || r.size != 8)
            continue;
        cudw_func_resources *fn = by_sym(c, ld32(r.data));
        int64_t v = ld32(r.data + 4);
        if (!fn)
            continue;
        if (r.attr == EIATTR_REGCOUNT)
            fn->registers = v;
        else if (r.attr == EIATTR_FRAME_SIZE)
            fn->stack_bytes = v;
        else if (r.attr == EIATTR_MIN_STACK_SIZE)
            fn->min_stack_bytes = v;
    }
    return rc < 0 ? rc : CUDW_OK;
}

/* .nv.info.<function>: that function's records (kernels', and -G device
 * functions') */
static int kernel_info(rctx *c, const cudw_section *s, cudw_func_resources *fn)
{
    nvrec r;
    int rc;
    for (uint64_t pos = 0; (rc = rec_next(c->f, s, &pos, &r)) == CUDW_OK;) {
        if (r.attr == EIATTR_NUM_BARRIERS && r.fmt != EIFMT_SVAL)
            fn->barriers = r.value;
        else if (r.attr == EIATTR_MAXREG_COUNT && r.fmt == EIFMT_HVAL)
            fn->max_registers = r.value;
        else if (r.attr == EIATTR_CBANK_PARAM_SIZE && r.fmt == EIFMT_HVAL)
            fn->param_bytes = r.value;
        else if (r.attr == EIATTR_MAX_THREADS && r.fmt == EIFMT_SVAL && r.size == 12)
            for (int k = 0; k < 3; k++)
                fn->max_threads[k] = ld32(r.data + 4 * k);
    }
    return rc < 0 ? rc : CUDW_OK;
}

/* The bytes at the start of a linked image's .nv.shared.<kernel> that the
 * sm_90+ runtime keeps (ptxas -v leaves them out): the .nv.reservedSmem.cap
 * symbol's value, 1 KiB where only .nv.reservedSmem.offset0 says there is
 * a reserve; 0 in relocatable objects and before sm_90.  collect() sees
 * the symbols. */
static void note_reserve(rctx *c, const cudw_symbol *y)
{
    if (cudw_header(c->f)->type != 2 /* ET_EXEC */ || strncmp(y->name, ".nv.reservedSmem.", 17))
        return;
    if (!strcmp(y->name + 17, "cap"))
        c->reserve = y->value;
    else if (!c->reserve)
        c->reserve = 1024;
}

/* What the section named for a function says: .nv.info.<f>, .nv.shared.<f>,
 * .nv.constantN.<f>. */
static int named_section(rctx *c, const cudw_section *s)
{
    const char *nm = s->name;
    cudw_func_resources *fn;
    if (!strncmp(nm, ".nv.info.", 9) && (fn = by_name(c, nm + 9)))
        return s->data ? kernel_info(c, s, fn) : CUDW_OK;
    if (!strncmp(nm, ".nv.shared.", 11) && (fn = by_name(c, nm + 11))) {
        fn->shared_bytes = (int64_t)(s->size >= c->reserve ? s->size - c->reserve : s->size);
        return CUDW_OK;
    }
    unsigned bank;
    int len = 0;
    if (sscanf(nm, ".nv.constant%u.%n", &bank, &len) == 1 && len > 0 && bank < CUDW_RES_BANKS &&
        (fn = by_name(c, nm + len)))
        fn->const_bytes[bank] = (int64_t)s->size;
    return CUDW_OK;
}

/* Before CUDA 13 the code section carried them: registers in sh_info bits
 * 24-31, barriers in sh_flags bits 20-26. */
static void section_bits(rctx *c)
{
    for (size_t i = 0; i < c->n; i++) {
        cudw_func_resources *fn = &c->v[i];
        const cudw_section *t = cudw_section_get(c->f, fn->section);
        if (!t || fn->placed_in)
            continue;
        if (fn->registers < 0 && (t->info >> 24))
            fn->registers = t->info >> 24;
        if (fn->entry && fn->barriers < 0)
            fn->barriers = (t->flags >> 20) & 0x7f;
        if (fn->entry && fn->shared_bytes < 0)
            fn->shared_bytes = 0;
    }
}

static void init_one(cudw_func_resources *r, const cudw_symbol *y, uint32_t i)
{
    memset(r, 0, sizeof *r);
    r->name = y->name;
    r->symbol = i;
    r->section = y->shndx;
    r->code_bytes = y->size;
    r->entry = (y->other & 0x10) != 0; /* STO_CUDA_ENTRY */
    r->registers = r->barriers = r->shared_bytes = r->stack_bytes = -1;
    r->min_stack_bytes = r->max_registers = r->param_bytes = -1;
    for (int k = 0; k < CUDW_RES_BANKS; k++)
        r->const_bytes[k] = -1;
}

/* The FUNC symbols, kernels first; the shared-memory reserve. */
static int collect(rctx *c, unsigned symtab)
{
    cudw_symbol y;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 1; i < c->nsym; i++) {
            int ok = cudw_symbol_get(c->f, symtab, i, &y) == CUDW_OK;
            if (ok && !pass)
                note_reserve(c, &y);
            if (!ok || y.type != 2 /* STT_FUNC */ || !y.shndx ||
                y.shndx >= 0xff00 || !y.name[0] || ((y.other & 0x10) != 0) != (pass == 0))
                continue;
            init_one(&c->v[c->n], &y, i);
            c->of_sym[i] = (uint32_t)++c->n;
            hmap_add(&c->by_name, fnv1a(CUDW_FNV0, y.name, strlen(y.name)), (uint32_t)(c->n - 1));
        }
    return CUDW_OK;
}

/* "$kernel$callee": the kernel's index + 1 */
static void placements(rctx *c)
{
    for (size_t i = 0; i < c->n; i++) {
        const char *nm = c->v[i].name, *end = nm[0] == '$' ? strchr(nm + 1, '$') : NULL;
        if (!end)
            continue;
        char k[512];
        if ((size_t)(end - nm - 1) >= sizeof k)
            continue;
        memcpy(k, nm + 1, (size_t)(end - nm - 1));
        k[end - nm - 1] = 0;
        cudw_func_resources *owner = by_name(c, k);
        if (owner)
            c->v[i].placed_in = (uint32_t)(owner - c->v) + 1;
    }
}

int cudw_resources(cudw_file *f, cudw_func_resources **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const cudw_section *st = cudw_section_find(f, ".symtab");
    rctx c = {f, NULL, 0, NULL, st ? cudw_symbol_count(f, st->index) : 0, {0}, 0};
    if (!c.nsym)
        return CUDW_OK;
    c.v = calloc(c.nsym, sizeof *c.v);
    c.of_sym = calloc(c.nsym, sizeof *c.of_sym);
    int rc = !c.v || !c.of_sym || hmap_reserve(&c.by_name, c.nsym) ? CUDW_E_NOMEM : collect(&c, st->index);
    placements(&c);
    for (unsigned i = 1; !rc && i < f->nsecs; i++) {
        const cudw_section *s = &f->secs[i];
        rc = !strcmp(s->name, ".nv.info") && s->data ? global_info(&c, s) : named_section(&c, s);
    }
    if (!rc)
        section_bits(&c);
    free(c.of_sym);
    hmap_free(&c.by_name);
    if (rc) {
        free(c.v);
        return rc == CUDW_E_NOMEM ? file_fail(f, rc, NULL, 0, "resources", "out of memory") : rc;
    }
    *out = c.v;
    *n = c.n;
    return CUDW_OK;
}

void cudw_resources_free(cudw_func_resources *r) { free(r); }
