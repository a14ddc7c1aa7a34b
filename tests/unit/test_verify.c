/* cudw_verify (src/check/verify.c) and cudw_strip_run (src/edit/strip.c) on
 * hand-made objects: a clean unit has no finding; a reference outside its
 * unit, one into the middle of a DIE and a broken sibling chain are each
 * one ERROR at the attribute that says it, and verify goes on past them;
 * strip removes exactly the debug sections and their relocations and
 * keeps every other byte. */
#include "testutil.h"

typedef struct bb {
    uint8_t b[512];
    size_t n;
} bb;

static void p8(bb *x, uint8_t v) { x->b[x->n++] = v; }
static void p16(bb *x, uint16_t v) { W16(x->b + x->n, v); x->n += 2; }
static void p32(bb *x, uint32_t v) { W32(x->b + x->n, v); x->n += 4; }
static void pstr(bb *x, const char *s) { memcpy(x->b + x->n, s, strlen(s) + 1); x->n += strlen(s) + 1; }

/* abbrev 1: compile_unit, children, name string; abbrev 2: variable, no
 * children, type ref4, sibling ref4 */
static void abbrevs(bb *ab)
{
    p8(ab, 1); p8(ab, CUDW_DW_TAG_compile_unit); p8(ab, 1);
    p8(ab, CUDW_DW_AT_name); p8(ab, CUDW_DW_FORM_string); p8(ab, 0); p8(ab, 0);
    p8(ab, 2); p8(ab, CUDW_DW_TAG_variable); p8(ab, 0);
    p8(ab, CUDW_DW_AT_type); p8(ab, CUDW_DW_FORM_ref4);
    p8(ab, CUDW_DW_AT_sibling); p8(ab, CUDW_DW_FORM_ref4); p8(ab, 0); p8(ab, 0);
    p8(ab, 0);
}

/* One unit: the CU (offset 11), then variables whose type and sibling
 * references are given (unit-relative), then the end of the children. */
static void unit(bb *in, const uint32_t (*refs)[2], size_t n)
{
    size_t at = in->n;
    p32(in, 0);
    p16(in, 2);
    p32(in, 0);
    p8(in, 8);
    p8(in, 1); pstr(in, "u.cu"); /* 11 .. 16 */
    for (size_t i = 0; i < n; i++) {
        p8(in, 2);
        p32(in, refs[i][0]);
        p32(in, refs[i][1]);
    }
    p8(in, 0);
    W32(in->b + at, in->n - at - 4);
}

typedef struct seen {
    cudw_finding f[8];
    size_t n;
} seen;

static void collect(const cudw_finding *fd, void *ctx)
{
    seen *s = ctx;
    if (fd->severity == CUDW_FINDING_ERROR && s->n < 8)
        s->f[s->n++] = *fd;
}

static size_t verify_unit(const uint32_t (*refs)[2], size_t n, seen *s)
{
    bb ab = {0}, in = {0};
    abbrevs(&ab);
    unit(&in, refs, n);
    tsec secs[] = {{.name = ".debug_abbrev", .data = ab.b, .size = ab.n},
                   {.name = ".debug_info", .data = in.b, .size = in.n}};
    size_t len;
    uint8_t *img = telf_build(secs, 2, &len);
    cudw_file *f = topen(img, len);
    memset(s, 0, sizeof *s);
    size_t errors = cudw_verify(f, collect, s);
    cudw_close(f);
    free(img);
    return errors;
}

static void references(void **state)
{
    (void)state;
    seen s;
    /* variables at 17 and 26: types name the CU; the first one's sibling is
     * the second (the last sibling's is never followed) */
    const uint32_t clean[][2] = {{11, 26}, {11, 17}};
    assert_int_equal(verify_unit(clean, 2, &s), 0);
    assert_int_equal(s.n, 0);

    /* variables at 17, 26, 35: a type outside the unit, a sibling that
     * skips the next sibling, a type into the middle of the CU DIE: three
     * errors, in the order of the bytes, each where it is seen */
    const uint32_t bad[][2] = {{0x400, 35}, {13, 35}, {11, 26}};
    assert_int_equal(verify_unit(bad, 3, &s), 3);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.f[0].where.section, ".debug_info");
    assert_int_equal(s.f[0].where.code, CUDW_E_BAD_OFFSET);
    assert_int_equal(s.f[0].where.offset, 18);          /* the first variable's DW_AT_type */
    assert_non_null(strstr(s.f[0].where.detail, "outside its unit"));
    assert_string_equal(s.f[1].where.what, "sibling chain");
    assert_int_equal(s.f[1].where.offset, 26);          /* the sibling the chain skipped */
    assert_int_equal(s.f[2].where.offset, 27);          /* the second variable's DW_AT_type */
    assert_non_null(strstr(s.f[2].where.detail, "not the start of a DIE"));
}

typedef struct obuf_t {
    uint8_t b[4096];
    size_t n;
} obuf_t;

static int grow(void *ctx, const void *p, size_t n)
{
    obuf_t *o = ctx;
    if (o->n + n > sizeof o->b)
        return -1;
    memcpy(o->b + o->n, p, n);
    o->n += n;
    return 0;
}

static void strip(void **state)
{
    (void)state;
    bb ab = {0}, in = {0};
    abbrevs(&ab);
    const uint32_t refs[][2] = {{11, 26}};
    unit(&in, refs, 1);
    uint8_t rela[24] = {0};
    W64(rela, 6);   /* r_offset: the abbrev offset */
    W64(rela + 8, 1); /* R_CUDA_32, symbol 0 */
    static const uint8_t code[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t sym[24] = {0};
    tsec secs[] = {
        {.name = ".text.k", .data = code, .size = sizeof code, .flags = 6},
        {.name = ".strtab", .type = 3, .data = "\0", .size = 1},
        {.name = ".symtab", .type = 2, .data = sym, .size = sizeof sym, .link = 2, .entsize = 24},
        {.name = ".debug_abbrev", .data = ab.b, .size = ab.n},
        {.name = ".debug_info", .data = in.b, .size = in.n},
        {.name = ".rela.debug_info", .type = 4, .data = rela, .size = 24, .link = 3, .info = 5, .entsize = 24},
        {.name = ".nv.info", .data = "nvinfo!", .size = 8},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 7, &len);
    cudw_file *f = topen(img, len);
    cudw_strip *st;
    assert_int_equal(cudw_strip_run(f, &st), CUDW_OK);
    size_t bytes;
    assert_int_equal(cudw_strip_removed(st, &bytes), 3);
    assert_int_equal(bytes, ab.n + in.n + 24);
    static obuf_t o;
    obuf_t *out = &o;
    assert_int_equal(cudw_strip_write(st, grow, out), CUDW_OK);
    assert_int_equal(out->n, cudw_strip_size(st));
    cudw_strip_close(st);
    cudw_file *g = topen(out->b, out->n);
    /* the indexes stay; the removed sections are SHT_NULL */
    assert_int_equal(cudw_section_count(g), cudw_section_count(f));
    for (unsigned i = 4; i <= 6; i++)
        assert_int_equal(cudw_section_get(g, i)->type, 0);
    const cudw_section *a = cudw_section_find(f, ".text.k"), *b = cudw_section_find(g, ".text.k");
    assert_non_null(b);
    assert_int_equal(b->index, a->index);
    assert_memory_equal(b->data, code, sizeof code);
    b = cudw_section_find(g, ".nv.info");
    assert_non_null(b);
    assert_memory_equal(b->data, "nvinfo!", 8);
    assert_null(cudw_section_find(g, ".debug_info"));
    assert_int_equal(cudw_verify(g, collect, &(seen){0}), 0);
    cudw_close(g);
    cudw_close(f);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(references), cmocka_unit_test(strip)};
    return run_group("verify", tests);
}
