/* The record-style readers (loc_read.c, pub_read.c, aranges_read.c,
 * macinfo_read.c), the relocations under their fields (reloc.c), the
 * cursor's errors and the walker (walk.c), on hand-made sections whose
 * every byte the test chose. */
#include "testutil.h"

typedef struct bb {
    uint8_t b[1024];
    size_t n;
} bb;

static void p8(bb *x, uint8_t v) { x->b[x->n++] = v; }
static void p16(bb *x, uint16_t v) { W16(x->b + x->n, v); x->n += 2; }
static void p32(bb *x, uint32_t v) { W32(x->b + x->n, v); x->n += 4; }
static void p64(bb *x, uint64_t v) { W64(x->b + x->n, v); x->n += 8; }
static void pstr(bb *x, const char *s) { memcpy(x->b + x->n, s, strlen(s) + 1); x->n += strlen(s) + 1; }
static void puleb(bb *x, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        p8(x, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}

/* An ELF with .text._Z1kv (section 1), .strtab, .symtab (symbol 1: FUNC
 * _Z1kv, value 0x40 so a relocation's value shows it), the section under
 * test (5) and, when rela is given, a .rela section aimed at it (6). */
static cudw_file *open_one(uint8_t **img, const char *name, const bb *sec, const bb *rela)
{
    static uint8_t strtab[] = "\0_Z1kv";
    static uint8_t sym[48];
    memset(sym, 0, sizeof sym);
    W32(sym + 24, 1);
    sym[24 + 4] = 0x12; /* GLOBAL FUNC */
    W16(sym + 24 + 6, 1);
    W64(sym + 24 + 8, 0x40);
    W64(sym + 24 + 16, 0x80);
    tsec secs[] = {
        {.name = ".text._Z1kv", .data = "\0\0\0\0", .size = 4, .flags = 6},
        {.name = ".strtab", .type = 3, .data = strtab, .size = sizeof strtab},
        {.name = ".symtab", .type = 2, .data = sym, .size = sizeof sym, .link = 2, .entsize = 24},
        {.name = ".debug_str", .data = "x\0", .size = 2},
        {.name = name, .data = sec->b, .size = sec->n},
        {.name = ".rela.x", .type = 4, .data = rela ? rela->b : NULL, .size = rela ? rela->n : 0, .link = 3,
         .info = 5, .entsize = 24},
    };
    size_t len;
    *img = telf_build(secs, rela ? 6 : 5, &len);
    return topen(*img, len);
}

static void rela_entry(bb *r, uint64_t off, uint32_t type, uint32_t sym, int64_t add)
{
    p64(r, off);
    p64(r, (uint64_t)sym << 32 | type);
    p64(r, (uint64_t)add);
}

static void expect_error(cudw_file *f, int code, const char *section, uint64_t off)
{
    const cudw_error *e = cudw_last_error(f);
    assert_int_equal(e->code, code);
    assert_string_equal(e->section, section);
    assert_int_equal(e->offset, off);
    assert_true(e->what && e->what[0]);
}

static void loc_lists(void **state)
{
    (void)state;
    bb s = {0}, r = {0};
    p64(&s, 0); p64(&s, 0x10); p16(&s, 2); p8(&s, 0x91); p8(&s, 0x7c); /* range, DW_OP_fbreg -4 */
    p64(&s, ~0ull); p64(&s, 0x200);                                      /* base address */
    p64(&s, 0); p64(&s, 0);                                              /* end */
    rela_entry(&r, 0, 2, 1, 0);    /* R_CUDA_64 _Z1kv + 0 on begin */
    rela_entry(&r, 8, 2, 1, 0x10); /* ... + 0x10 on end */
    uint8_t *img;
    cudw_file *f = open_one(&img, ".debug_loc", &s, &r);
    const cudw_section *sec = cudw_section_find(f, ".debug_loc");
    uint64_t cur = 0;
    cudw_list_entry e;
    assert_int_equal(cudw_list_next(f, sec, 1, 8, &cur, &e), CUDW_OK);
    assert_int_equal(e.kind, CUDW_LOC_RANGE);
    assert_int_equal(e.begin, 0x40); /* relocated: the symbol's value, not the bytes */
    assert_int_equal(e.end, 0x50);
    assert_non_null(e.begin_reloc);
    assert_string_equal(e.begin_reloc->sym_name, "_Z1kv");
    assert_int_equal(e.expr_len, 2);
    assert_int_equal(e.expr_offset, 18);
    assert_int_equal(e.expr[0], CUDW_DW_OP_fbreg);
    assert_int_equal(cudw_list_next(f, sec, 1, 8, &cur, &e), CUDW_OK);
    assert_int_equal(e.kind, CUDW_LOC_BASE);
    assert_int_equal(e.end, 0x200);
    assert_int_equal(cudw_list_next(f, sec, 1, 8, &cur, &e), CUDW_OK);
    assert_int_equal(e.kind, CUDW_LOC_END);
    assert_int_equal(cudw_list_next(f, sec, 1, 8, &cur, &e), CUDW_DONE);
    assert_int_equal(cudw_walk_section(f, sec, CUDW_WALK_DEEP), CUDW_OK);
    cudw_close(f);
    free(img);

    /* an expression longer than the section: the error names the length field */
    bb t = {0};
    p64(&t, 1); p64(&t, 2); p16(&t, 9); p8(&t, 0x91);
    f = open_one(&img, ".debug_loc", &t, NULL);
    sec = cudw_section_find(f, ".debug_loc");
    cur = 0;
    assert_int_equal(cudw_list_next(f, sec, 1, 8, &cur, &e), CUDW_E_TRUNCATED);
    expect_error(f, CUDW_E_TRUNCATED, ".debug_loc", 16);
    assert_int_equal(cudw_walk_section(f, sec, 0), CUDW_E_TRUNCATED); /* the walker meets the same */
    expect_error(f, CUDW_E_TRUNCATED, ".debug_loc", 16);
    cudw_close(f);
    free(img);

    /* a malformed DW_OP: only the deep walk decodes expressions */
    bb u = {0};
    p64(&u, 1); p64(&u, 2); p16(&u, 1); p8(&u, 0x03); /* DW_OP_addr without its 8 bytes */
    p64(&u, 0); p64(&u, 0);
    f = open_one(&img, ".debug_loc", &u, NULL);
    sec = cudw_section_find(f, ".debug_loc");
    assert_int_equal(cudw_walk_section(f, sec, 0), CUDW_OK);
    assert_true(cudw_walk_section(f, sec, CUDW_WALK_DEEP) < 0);
    expect_error(f, cudw_last_error(f)->code, ".debug_loc", 18);
    cudw_close(f);
    free(img);
}

static void pubnames(void **state)
{
    (void)state;
    bb s = {0};
    p32(&s, 2 + 4 + 4 + (4 + 5) + (4 + 5) + 4); /* length */
    p16(&s, 2);
    p32(&s, 0x30);   /* unit offset */
    p32(&s, 0x100);  /* unit size */
    p32(&s, 0x2a); pstr(&s, "main");
    p32(&s, 0x44); pstr(&s, "k_fn");
    p32(&s, 0);
    uint8_t *img;
    cudw_file *f = open_one(&img, ".debug_pubnames", &s, NULL);
    const cudw_section *sec = cudw_section_find(f, ".debug_pubnames");
    uint64_t cur = 0, die;
    cudw_pub_set set;
    const char *name;
    assert_int_equal(cudw_pub_next_set(f, sec, &cur, &set), CUDW_OK);
    assert_int_equal(set.unit_offset, 0x30);
    assert_int_equal(set.unit_size, 0x100);
    assert_int_equal(set.entries_offset, 14);
    uint64_t pos = set.entries_offset;
    assert_int_equal(cudw_pub_next(f, sec, &set, &pos, &die, &name), CUDW_OK);
    assert_int_equal(die, 0x2a);
    assert_string_equal(name, "main");
    assert_int_equal(cudw_pub_next(f, sec, &set, &pos, &die, &name), CUDW_OK);
    assert_string_equal(name, "k_fn");
    assert_int_equal(cudw_pub_next(f, sec, &set, &pos, &die, &name), CUDW_DONE);
    assert_int_equal(cudw_pub_next_set(f, sec, &cur, &set), CUDW_DONE);
    cudw_close(f);
    free(img);

    /* a name without its NUL inside the set: the error is at the name */
    bb t = {0};
    p32(&t, 2 + 4 + 4 + 4 + 3);
    p16(&t, 2); p32(&t, 0); p32(&t, 0x10);
    p32(&t, 0x2a); p8(&t, 'a'); p8(&t, 'b'); p8(&t, 'c');
    p8(&t, 0); /* past the set: not its terminator */
    f = open_one(&img, ".debug_pubnames", &t, NULL);
    sec = cudw_section_find(f, ".debug_pubnames");
    cur = 0;
    assert_int_equal(cudw_pub_next_set(f, sec, &cur, &set), CUDW_OK);
    pos = set.entries_offset;
    assert_int_equal(cudw_pub_next(f, sec, &set, &pos, &die, &name), CUDW_E_TRUNCATED);
    expect_error(f, CUDW_E_TRUNCATED, ".debug_pubnames", 18);
    cudw_close(f);
    free(img);

    /* a reserved unit length: unsupported, at the set */
    bb u = {0};
    p32(&u, 0xfffffff5u); p16(&u, 2); p32(&u, 0); p32(&u, 0);
    f = open_one(&img, ".debug_pubnames", &u, NULL);
    sec = cudw_section_find(f, ".debug_pubnames");
    cur = 0;
    assert_int_equal(cudw_pub_next_set(f, sec, &cur, &set), CUDW_E_UNSUPPORTED);
    expect_error(f, CUDW_E_UNSUPPORTED, ".debug_pubnames", 0);
    cudw_close(f);
    free(img);
}

static void aranges(void **state)
{
    (void)state;
    bb s = {0}, r = {0};
    p32(&s, 2 + 4 + 1 + 1 + 4 + 16 + 16);
    p16(&s, 2); p32(&s, 0); p8(&s, 8); p8(&s, 0);
    p32(&s, 0);                   /* padding to 16 */
    p64(&s, 0); p64(&s, 0x80);    /* _Z1kv, 0x80 bytes */
    p64(&s, 0); p64(&s, 0);
    rela_entry(&r, 16, 2, 1, 0);
    uint8_t *img;
    cudw_file *f = open_one(&img, ".debug_aranges", &s, &r);
    const cudw_section *sec = cudw_section_find(f, ".debug_aranges");
    uint64_t cur = 0, a, l;
    const cudw_reloc *rel;
    cudw_aranges_set set;
    assert_int_equal(cudw_aranges_next_set(f, sec, &cur, &set), CUDW_OK);
    assert_int_equal(set.addr_size, 8);
    assert_int_equal(set.tuples_offset, 16);
    uint64_t pos = set.tuples_offset;
    assert_int_equal(cudw_aranges_next(f, sec, &set, &pos, &a, &l, &rel), CUDW_OK);
    assert_int_equal(a, 0x40);
    assert_int_equal(l, 0x80);
    assert_non_null(rel);
    assert_int_equal(cudw_aranges_next(f, sec, &set, &pos, &a, &l, &rel), CUDW_DONE);
    cudw_close(f);
    free(img);

    /* a set longer than the section */
    bb t = {0};
    p32(&t, 0x100); p16(&t, 2); p32(&t, 0); p8(&t, 8); p8(&t, 0);
    f = open_one(&img, ".debug_aranges", &t, NULL);
    sec = cudw_section_find(f, ".debug_aranges");
    cur = 0;
    assert_int_equal(cudw_aranges_next_set(f, sec, &cur, &set), CUDW_E_TRUNCATED);
    expect_error(f, CUDW_E_TRUNCATED, ".debug_aranges", 0);
    cudw_close(f);
    free(img);
}

static void macinfo(void **state)
{
    (void)state;
    bb s = {0};
    p8(&s, CUDW_DW_MACINFO_start_file); puleb(&s, 0); puleb(&s, 1);
    p8(&s, CUDW_DW_MACINFO_define); puleb(&s, 300); pstr(&s, "N 4");
    p8(&s, CUDW_DW_MACINFO_end_file);
    p8(&s, CUDW_DW_MACINFO_vendor_ext); puleb(&s, 7); pstr(&s, "v");
    p8(&s, 0);
    uint8_t *img;
    cudw_file *f = open_one(&img, ".debug_macinfo", &s, NULL);
    const cudw_section *sec = cudw_section_find(f, ".debug_macinfo");
    uint64_t cur = 0;
    cudw_macinfo_entry m;
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_OK);
    assert_int_equal(m.type, CUDW_DW_MACINFO_start_file);
    assert_int_equal(m.file, 1);
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_OK);
    assert_int_equal(m.line, 300);
    assert_string_equal(m.string, "N 4");
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_OK);
    assert_int_equal(m.type, CUDW_DW_MACINFO_end_file);
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_OK);
    assert_int_equal(m.constant, 7);
    assert_string_equal(m.string, "v");
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_OK);
    assert_int_equal(m.type, 0);
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_DONE);
    cudw_close(f);
    free(img);

    /* a define whose string has no NUL: the error is at the string, and the
     * cursor the caller holds has not moved */
    bb t = {0};
    p8(&t, CUDW_DW_MACINFO_define); puleb(&t, 1); p8(&t, 'X');
    f = open_one(&img, ".debug_macinfo", &t, NULL);
    sec = cudw_section_find(f, ".debug_macinfo");
    cur = 0;
    assert_int_equal(cudw_macinfo_next(f, sec, &cur, &m), CUDW_E_TRUNCATED);
    assert_int_equal(cur, 0);
    expect_error(f, CUDW_E_TRUNCATED, ".debug_macinfo", 2);
    cudw_close(f);
    free(img);
}

static void bad_relocations(void **state)
{
    (void)state;
    bb s = {0};
    p64(&s, 0); p64(&s, 0); /* an end entry */
    /* r_offset past the section */
    bb r = {0};
    rela_entry(&r, 12, 2, 1, 0);
    uint8_t *img;
    cudw_file *f = open_one(&img, ".debug_ranges", &s, &r);
    const cudw_section *sec = cudw_section_find(f, ".debug_ranges");
    const cudw_reloc *rel;
    size_t n;
    assert_int_equal(cudw_relocs(f, sec->index, &rel, &n), CUDW_E_BAD_RELOC);
    expect_error(f, CUDW_E_BAD_RELOC, ".rela.x", 0);
    uint64_t cur = 0;
    cudw_list_entry e;
    assert_int_equal(cudw_list_next(f, sec, 0, 8, &cur, &e), CUDW_E_BAD_RELOC); /* no stale value read */
    cudw_close(f);
    free(img);

    /* R_CUDA_32 writes 4 bytes: the value is truncated to them; an
     * UNUSED_CLEAR64 writes nothing: the bytes stand */
    bb t = {0}, q = {0};
    p64(&t, 0x1234); p64(&t, 0x99); p64(&t, 0); p64(&t, 0);
    rela_entry(&q, 0, 1, 1, 0x100000000ll); /* R_CUDA_32: 0x40 + 2^32 -> 0x40 */
    rela_entry(&q, 8, 73, 1, 0);            /* R_CUDA_UNUSED_CLEAR64 */
    f = open_one(&img, ".debug_ranges", &t, &q);
    sec = cudw_section_find(f, ".debug_ranges");
    assert_int_equal(cudw_relocs(f, sec->index, &rel, &n), CUDW_OK);
    assert_int_equal(n, 2);
    assert_int_equal(rel[0].width, 4);
    assert_int_equal(rel[1].width, 0);
    cur = 0;
    assert_int_equal(cudw_list_next(f, sec, 0, 8, &cur, &e), CUDW_OK);
    assert_int_equal(e.begin, (0x1234ull & ~0xffffffffull) | 0x40);
    assert_int_equal(e.end, 0x99);
    assert_null(e.end_reloc);
    cudw_close(f);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loc_lists), cmocka_unit_test(pubnames),        cmocka_unit_test(aranges),
        cmocka_unit_test(macinfo),   cmocka_unit_test(bad_relocations),
    };
    return run_group("records", tests);
}
