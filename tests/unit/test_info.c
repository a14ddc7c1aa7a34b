/* The DIE reader on hand-made DWARF: every DWARF 2/3 form, DW_FORM_indirect,
 * strp, relocated values, the linkage-name priority, and one clear error
 * (code, section, offset) for each kind of malformed input. */
#include "testutil.h"

typedef struct buf {
    uint8_t b[8192];
    size_t n;
} buf;

static void put(buf *b, const void *p, size_t n) { memcpy(b->b + b->n, p, n); b->n += n; }
static void u8(buf *b, uint8_t v) { b->b[b->n++] = v; }
static void u16(buf *b, uint16_t v) { put(b, &v, 2); }
static void u32(buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(buf *b, uint64_t v) { put(b, &v, 8); }
static void uleb(buf *b, uint64_t v) { b->n += cudw_uleb128_write(v, b->b + b->n, 10); }
static void sleb(buf *b, int64_t v) { b->n += cudw_sleb128_write(v, b->b + b->n, 10); }
static void str(buf *b, const char *s) { put(b, s, strlen(s) + 1); }

/* unit header: returns where the length goes */
static size_t unit_begin(buf *b, uint16_t version, uint32_t abbrev_off, uint8_t asz)
{
    size_t at = b->n;
    u32(b, 0);
    u16(b, version);
    u32(b, abbrev_off);
    u8(b, asz);
    return at;
}

static void unit_end(buf *b, size_t at)
{
    uint32_t len = (uint32_t)(b->n - at - 4);
    memcpy(b->b + at, &len, 4);
}

static cudw_file *open_dwarf(uint8_t **img, const buf *abbrev, const buf *info, const buf *str_,
                             const char *info_name)
{
    tsec secs[3] = {
        {.name = ".debug_abbrev", .data = abbrev->b, .size = abbrev->n},
        {.name = info_name, .data = info->b, .size = info->n},
        {.name = ".debug_str", .data = str_ ? str_->b : (const uint8_t *)"", .size = str_ ? str_->n : 1},
    };
    size_t len;
    *img = telf_build(secs, 3, &len);
    return topen(*img, len);
}

static void all_forms(void **state)
{
    (void)state;
    buf ab = {0}, in = {0}, st = {0};
    str(&st, "");
    str(&st, "producer-in-strp"); /* offset 1 */
    /* 1: compile_unit: producer strp, language data2, name via indirect, low_pc addr */
    uleb(&ab, 1); uleb(&ab, 0x11); u8(&ab, 1);
    uleb(&ab, 0x25); uleb(&ab, 0x0e);
    uleb(&ab, 0x13); uleb(&ab, 0x05);
    uleb(&ab, 0x03); uleb(&ab, 0x16);
    uleb(&ab, 0x11); uleb(&ab, 0x01);
    uleb(&ab, 0); uleb(&ab, 0);
    /* 2: variable: every other form */
    uleb(&ab, 2); uleb(&ab, 0x34); u8(&ab, 0);
    uint32_t forms[] = {0x0b, 0x05, 0x06, 0x07, 0x0c, 0x0d, 0x0f, 0x11, 0x12, 0x13, 0x14,
                        0x15, 0x10, 0x0a, 0x03, 0x04, 0x09, 0x08};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        uleb(&ab, 0x3000 + i); /* user attributes */
        uleb(&ab, forms[i]);
    }
    uleb(&ab, 0); uleb(&ab, 0);
    uleb(&ab, 0);

    /* DWARF 3, 4-byte addresses: ref_addr is offset-sized (4) */
    size_t at = unit_begin(&in, 3, 0, 4);
    uleb(&in, 1);
    u32(&in, 1);                  /* strp */
    u16(&in, 4);                  /* data2: C++ */
    uleb(&in, 0x08); str(&in, "cu.cu"); /* indirect -> string */
    u32(&in, 0x1234);             /* addr (4 bytes) */
    uleb(&in, 2);
    u8(&in, 0xab); u16(&in, 0xabcd); u32(&in, 0xdeadbeef); u64(&in, 0x0123456789abcdefull);
    u8(&in, 1); sleb(&in, -300); uleb(&in, 300);
    u8(&in, 0x0b); u16(&in, 0x0b); u32(&in, 0x0b); u64(&in, 0x0b); uleb(&in, 0x0b);
    u32(&in, 0x0b);               /* ref_addr */
    u8(&in, 2); u8(&in, 0x9c); u8(&in, 0x96);            /* block1: call_frame_cfa; nop */
    u16(&in, 1); u8(&in, 0x96);                          /* block2 */
    u32(&in, 1); u8(&in, 0x96);                          /* block4 */
    uleb(&in, 1); u8(&in, 0x96);                         /* block */
    str(&in, "last");
    u8(&in, 0);
    unit_end(&in, at);

    uint8_t *img;
    cudw_file *f = open_dwarf(&img, &ab, &in, &st, ".nv_debug_info_ptx");
    const cudw_section *s = cudw_section_find(f, ".nv_debug_info_ptx");
    uint64_t cur = 0;
    cudw_unit u;
    assert_int_equal(cudw_unit_next(f, s, &cur, &u), CUDW_OK);
    assert_int_equal(u.version, 3);
    assert_int_equal(u.addr_size, 4);
    cudw_die_iter it;
    cudw_die d;
    cudw_die_iter_init(&u, &it);
    assert_int_equal(cudw_die_next(&it, &d), CUDW_OK);
    assert_int_equal(d.tag, 0x11);
    assert_int_equal(d.offset, 11);
    cudw_attr a;
    assert_int_equal(cudw_die_attr(&d, 0x25, &a), CUDW_OK);
    assert_string_equal(a.str, "producer-in-strp");
    assert_int_equal(a.u, 1);
    assert_int_equal(cudw_die_attr(&d, 0x03, &a), CUDW_OK);
    assert_true(a.indirect);
    assert_int_equal(a.form, 0x08);
    assert_string_equal(a.str, "cu.cu");
    assert_int_equal(cudw_die_attr(&d, 0x11, &a), CUDW_OK);
    assert_int_equal(a.u, 0x1234);
    assert_int_equal(a.size, 4);

    assert_int_equal(cudw_die_next(&it, &d), CUDW_OK);
    assert_int_equal(d.depth, 1);
    cudw_attr_iter ai;
    cudw_attr_iter_init(&d, &ai);
    uint64_t want[] = {0xab, 0xabcd, 0xdeadbeef, 0x0123456789abcdefull, 1, (uint64_t)-300, 300};
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(cudw_attr_next(&ai, &a), CUDW_OK);
        assert_true(a.u == want[i]);
    }
    for (size_t i = 0; i < 6; i++) { /* refs: unit offset 0 + 0x0b */
        assert_int_equal(cudw_attr_next(&ai, &a), CUDW_OK);
        assert_int_equal(a.vclass, CUDW_V_REF);
        assert_int_equal(a.u, 0x0b);
        if (a.form == 0x10)
            assert_int_equal(a.size, 4);
    }
    assert_int_equal(cudw_attr_next(&ai, &a), CUDW_OK);
    assert_int_equal(a.block_len, 2);
    assert_int_equal(a.block[0], 0x9c);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(cudw_attr_next(&ai, &a), CUDW_OK);
        assert_int_equal(a.vclass, CUDW_V_BLOCK);
        assert_int_equal(a.block_len, 1);
    }
    assert_int_equal(cudw_attr_next(&ai, &a), CUDW_OK);
    assert_string_equal(a.str, "last");
    assert_int_equal(cudw_attr_next(&ai, &a), CUDW_DONE);
    cudw_die_iter_resume(&it, &ai);
    assert_int_equal(cudw_die_next(&it, &d), CUDW_DONE);
    assert_int_equal(cudw_unit_next(f, s, &cur, &u), CUDW_DONE);
    cudw_close(f);
    free(img);
}

/* A one-CU .debug_info for the error tests: compile_unit { variable } */
static void simple(buf *ab, buf *in, uint16_t version)
{
    uleb(ab, 1); uleb(ab, 0x11); u8(ab, 1);
    uleb(ab, 0x03); uleb(ab, 0x08);
    uleb(ab, 0); uleb(ab, 0);
    uleb(ab, 2); uleb(ab, 0x34); u8(ab, 0);
    uleb(ab, 0x2007); uleb(ab, 0x08);
    uleb(ab, 0x03); uleb(ab, 0x08);
    uleb(ab, 0); uleb(ab, 0);
    uleb(ab, 0);
    size_t at = unit_begin(in, version, 0, 8);
    uleb(in, 1); str(in, "a.cu");
    uleb(in, 2); str(in, "_Z1vv"); str(in, "v");
    u8(in, 0);
    unit_end(in, at);
}

/* Walk everything; return the first error code. */
static int walk(cudw_file *f, const char *name)
{
    const cudw_section *s = cudw_section_find(f, name);
    uint64_t cur = 0;
    cudw_unit u;
    int rc;
    while ((rc = cudw_unit_next(f, s, &cur, &u)) == CUDW_OK) {
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while ((rc = cudw_attr_next(&ai, &a)) == CUDW_OK)
                ;
            if (rc < 0)
                return rc;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static void linkage_name_wins(void **state)
{
    (void)state;
    buf ab = {0}, in = {0};
    simple(&ab, &in, 2);
    uint8_t *img;
    cudw_file *f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    uint64_t cur = 0;
    cudw_unit u;
    assert_int_equal(cudw_unit_next(f, cudw_section_find(f, ".debug_info"), &cur, &u), CUDW_OK);
    cudw_die_iter it;
    cudw_die d;
    cudw_die_iter_init(&u, &it);
    const char *nm;
    assert_int_equal(cudw_die_next(&it, &d), CUDW_OK);
    assert_int_equal(cudw_die_name(&d, &nm), CUDW_OK);
    assert_string_equal(nm, "a.cu");
    assert_int_equal(cudw_die_next(&it, &d), CUDW_OK);
    assert_int_equal(cudw_die_name(&d, &nm), CUDW_OK);
    assert_string_equal(nm, "_Z1vv");
    cudw_close(f);
    free(img);
}

static void expect_error(cudw_file *f, int code, const char *section, uint64_t offset)
{
    assert_int_equal(walk(f, ".debug_info"), code);
    const cudw_error *e = cudw_last_error(f);
    assert_int_equal(e->code, code);
    assert_string_equal(e->section, section);
    assert_int_equal(e->offset, offset);
}

static void errors(void **state)
{
    (void)state;
    uint8_t *img;
    cudw_file *f;
    buf ab, in;

    /* unknown abbreviation code at the variable DIE (offset 11 + 1 + 5) */
    ab = (buf){0}; in = (buf){0};
    simple(&ab, &in, 2);
    in.b[17] = 9;
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_BAD_CODE, ".debug_info", 17);
    cudw_close(f); free(img);

    /* unit length past the end of the section */
    ab = (buf){0}; in = (buf){0};
    simple(&ab, &in, 2);
    in.b[0] = 0xf0;
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_TRUNCATED, ".debug_info", 0);
    cudw_close(f); free(img);

    /* DWARF 4 and 64-bit DWARF: unsupported, with the offset */
    ab = (buf){0}; in = (buf){0};
    simple(&ab, &in, 4);
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_UNSUPPORTED, ".debug_info", 4);
    cudw_close(f); free(img);
    ab = (buf){0}; in = (buf){0};
    u32(&in, 0xffffffffu); u64(&in, 7); u16(&in, 2);
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_UNSUPPORTED, ".debug_info", 0);
    cudw_close(f); free(img);

    /* a string running into the end of the unit */
    ab = (buf){0}; in = (buf){0};
    simple(&ab, &in, 2);
    in.b[0] = (uint8_t)(in.n - 4 - 5); /* cut the unit inside "_Z1vv" */
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_TRUNCATED, ".debug_info", 18);
    cudw_close(f); free(img);

    /* abbrev offset past the end of .debug_abbrev */
    ab = (buf){0}; in = (buf){0};
    simple(&ab, &in, 2);
    in.b[6] = 0x80;
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_BAD_OFFSET, ".debug_info", 6);
    cudw_close(f); free(img);

    /* more than 256 attributes in one abbreviation entry */
    ab = (buf){0}; in = (buf){0};
    uleb(&ab, 1); uleb(&ab, 0x11); u8(&ab, 0);
    for (int i = 0; i < 257; i++) { uleb(&ab, 0x0b); uleb(&ab, 0x0b); }
    uleb(&ab, 0); uleb(&ab, 0); uleb(&ab, 0);
    size_t at = unit_begin(&in, 2, 0, 8);
    uleb(&in, 1);
    unit_end(&in, at);
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    assert_int_equal(walk(f, ".debug_info"), CUDW_E_BAD_ABBREV);
    assert_string_equal(cudw_last_error(f)->section, ".debug_abbrev");
    assert_int_equal(cudw_last_error(f)->offset, 0);
    assert_non_null(strstr(cudw_last_error(f)->detail, "more than 256"));
    cudw_close(f); free(img);

    /* nesting deeper than the limit: every DIE has children */
    ab = (buf){0}; in = (buf){0};
    uleb(&ab, 1); uleb(&ab, 0x0b); u8(&ab, 1); uleb(&ab, 0); uleb(&ab, 0); uleb(&ab, 0);
    at = unit_begin(&in, 2, 0, 8);
    for (int i = 0; i < CUDW_MAX_DIE_DEPTH + 10; i++)
        u8(&in, 1);
    unit_end(&in, at);
    f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    expect_error(f, CUDW_E_LIMIT, ".debug_info", 11 + CUDW_MAX_DIE_DEPTH - 1);
    cudw_close(f); free(img);
}

static void missing_abbrev(void **state)
{
    (void)state;
    buf ab = {0}, in = {0};
    simple(&ab, &in, 2);
    tsec secs[] = {{.name = ".debug_info", .data = in.b, .size = in.n}};
    size_t len;
    uint8_t *img = telf_build(secs, 1, &len);
    cudw_file *f = topen(img, len);
    assert_int_equal(walk(f, ".debug_info"), CUDW_E_NO_ABBREV);
    assert_non_null(strstr(cudw_last_error(f)->detail, "missing .debug_abbrev"));
    cudw_close(f);
    free(img);
}

static void sparse_codes(void **state)
{
    (void)state;
    buf ab = {0}, in = {0};
    /* codes 7 and 300: not dense, found by binary search */
    uleb(&ab, 300); uleb(&ab, 0x11); u8(&ab, 1); uleb(&ab, 0); uleb(&ab, 0);
    uleb(&ab, 7); uleb(&ab, 0x34); u8(&ab, 0); uleb(&ab, 0x03); uleb(&ab, 0x08); uleb(&ab, 0); uleb(&ab, 0);
    uleb(&ab, 0);
    size_t at = unit_begin(&in, 2, 0, 8);
    uleb(&in, 300); uleb(&in, 7); str(&in, "x"); u8(&in, 0);
    unit_end(&in, at);
    uint8_t *img;
    cudw_file *f = open_dwarf(&img, &ab, &in, NULL, ".debug_info");
    assert_int_equal(walk(f, ".debug_info"), CUDW_DONE);
    const cudw_abbrev_table *t;
    assert_int_equal(cudw_abbrev_table_get(f, cudw_section_find(f, ".debug_abbrev"), 0, &t), CUDW_OK);
    assert_int_equal(t->count, 2);
    assert_non_null(cudw_abbrev_find(t, 300));
    assert_int_equal(cudw_abbrev_find(t, 7)->tag, 0x34);
    assert_null(cudw_abbrev_find(t, 8));
    assert_null(cudw_abbrev_find(t, 0));
    cudw_close(f);
    free(img);
}

static void relocated(void **state)
{
    (void)state;
    /* symtab: 0 null, 1 FUNC "_Z1kv" size 0x80 in section 1 */
    uint8_t strtab[] = "\0_Z1kv";
    uint8_t sym[48] = {0};
    uint32_t name = 1;
    memcpy(sym + 24, &name, 4);
    sym[24 + 4] = 0x12; /* GLOBAL FUNC */
    uint16_t shndx = 1;
    memcpy(sym + 24 + 6, &shndx, 2);
    uint64_t size = 0x80;
    memcpy(sym + 24 + 16, &size, 8);
    buf ab = {0}, in = {0};
    uleb(&ab, 1); uleb(&ab, 0x2e); u8(&ab, 0);
    uleb(&ab, 0x11); uleb(&ab, 0x01); uleb(&ab, 0x12); uleb(&ab, 0x01);
    uleb(&ab, 0); uleb(&ab, 0); uleb(&ab, 0);
    size_t at = unit_begin(&in, 2, 0, 8);
    uleb(&in, 1);
    u64(&in, 0x5555); /* stale bytes under the relocation */
    u64(&in, 0x6666);
    unit_end(&in, at);
    /* RELA on high_pc (offset 20): _Z1kv + 0x80; REL on low_pc (12): addend from bytes */
    uint8_t rela[24], rel[16];
    uint64_t off = 20, info = (1ull << 32) | 2;
    int64_t add = 0x80;
    memcpy(rela, &off, 8); memcpy(rela + 8, &info, 8); memcpy(rela + 16, &add, 8);
    off = 12;
    memcpy(rel, &off, 8); memcpy(rel + 8, &info, 8);
    tsec secs[] = {
        {.name = ".text._Z1kv", .data = "\0\0\0\0", .size = 4, .flags = 6},
        {.name = ".strtab", .type = 3, .data = strtab, .size = sizeof strtab},
        {.name = ".symtab", .type = 2, .data = sym, .size = sizeof sym, .link = 2, .entsize = 24},
        {.name = ".debug_abbrev", .data = ab.b, .size = ab.n},
        {.name = ".debug_info", .data = in.b, .size = in.n},
        {.name = ".rela.debug_info", .type = 4, .data = rela, .size = 24, .link = 3, .info = 5},
        {.name = ".rel.debug_info", .type = 9, .data = rel, .size = 16, .link = 3, .info = 5},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 7, &len);
    cudw_file *f = topen(img, len);
    const cudw_reloc *r;
    size_t n;
    assert_int_equal(cudw_relocs(f, 5, &r, &n), CUDW_OK);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].offset, 12); /* merged and sorted */
    assert_false(r[0].rela);
    assert_int_equal(r[0].addend, 0x5555);
    uint64_t cur = 0;
    cudw_unit u;
    assert_int_equal(cudw_unit_next(f, cudw_section_get(f, 5), &cur, &u), CUDW_OK);
    cudw_die_iter it;
    cudw_die d;
    cudw_die_iter_init(&u, &it);
    assert_int_equal(cudw_die_next(&it, &d), CUDW_OK);
    cudw_attr a;
    assert_int_equal(cudw_die_attr(&d, 0x12, &a), CUDW_OK);
    assert_int_equal(a.u, 0x80);
    assert_non_null(a.reloc);
    assert_string_equal(a.reloc->sym_name, "_Z1kv");
    assert_string_equal(cudw_reloc_type_name(a.reloc->type), "R_CUDA_64");
    assert_int_equal(cudw_die_attr(&d, 0x11, &a), CUDW_OK);
    assert_int_equal(a.u, 0x5555);
    cudw_close(f);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_forms),      cmocka_unit_test(linkage_name_wins),
        cmocka_unit_test(errors),         cmocka_unit_test(missing_abbrev),
        cmocka_unit_test(sparse_codes),   cmocka_unit_test(relocated),
    };
    return run_group("info", tests);
}
