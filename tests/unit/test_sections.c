/* Section classes: nvlink's classifier order and match rules, the Mercury
 * flag gate, twins and aliasing. */
#include "testutil.h"

static void classify(void **state)
{
    (void)state;
    cudw_secclass c;
    assert_int_equal(cudw_classify_name(".debug_info", 0, &c), CUDW_OK);
    assert_int_equal(c.kind, CUDW_SEC_INFO);
    assert_int_equal(c.type_id, 1);
    assert_int_equal(c.link_action, CUDW_LINK_PARSE);
    assert_int_equal(c.family, CUDW_FAMILY_DWARF);
    assert_int_equal(cudw_classify_name(".debug_loc", 0, &c), CUDW_OK);
    assert_int_equal(c.type_id, 2);
    assert_int_equal(cudw_classify_name(".debug_abbrev", 0, &c), CUDW_OK);
    assert_int_equal(c.type_id, 3);
    assert_int_equal(cudw_classify_name(".debug_line", 0, &c), CUDW_OK);
    assert_int_equal(c.type_id, 5);
    assert_int_equal(c.link_action, CUDW_LINK_MERGE_LINE);
    assert_int_equal(cudw_classify_name(".debug_str", 0, &c), CUDW_OK);
    assert_int_equal(c.type_id, 6);
    /* the length-bounded compares include the NUL: exact, not prefix */
    assert_int_equal(cudw_classify_name(".debug_info.dwo", 0, &c), CUDW_DONE);
    assert_int_equal(cudw_classify_name(".debug_abbrevX", 0, &c), CUDW_DONE);
    assert_int_equal(cudw_classify_name(".debug_lin", 0, &c), CUDW_DONE);
    /* the one prefix match */
    assert_int_equal(cudw_classify_name(".nv_debug_ptx_txt.1017007223", 0, &c), CUDW_OK);
    assert_int_equal(c.kind, CUDW_SEC_NV_PTX_TXT);
    assert_int_equal(c.type_id, 4);
    assert_int_equal(c.link_action, CUDW_LINK_PASS);
    assert_int_equal(cudw_classify_name(".nv_debug_line_sass", 0, &c), CUDW_OK);
    assert_int_equal(c.family, CUDW_FAMILY_NV);
    assert_int_equal(c.link_action, CUDW_LINK_MERGE_LINE);
    assert_int_equal(cudw_classify_name(".nv_debug_info_reg_sass", 0, &c), CUDW_OK);
    assert_int_equal(c.link_action, CUDW_LINK_CONCAT);
    assert_int_equal(cudw_classify_name(".nv_debug.shared", 0, &c), CUDW_OK);
    assert_int_equal(c.link_action, CUDW_LINK_DROP);
    assert_int_equal(cudw_classify_name(".nv_debug_info_ptx", 0, &c), CUDW_OK);
    assert_int_equal(c.link_action, CUDW_LINK_PARSE);
    assert_int_equal(cudw_classify_name(".text._Z3foov", 6, &c), CUDW_DONE);
    assert_int_equal(c.kind, CUDW_SEC_NONE);
}

static void mercury(void **state)
{
    (void)state;
    cudw_secclass c;
    assert_int_equal(cudw_classify_name(".nv.merc.debug_info", CUDW_SHF_MERCURY, &c), CUDW_OK);
    assert_int_equal(c.kind, CUDW_SEC_INFO);
    assert_true(c.mercury);
    assert_string_equal(c.base_name, ".debug_info");
    /* without the flag the dispatcher does not accept the name */
    assert_int_equal(cudw_classify_name(".nv.merc.debug_info", 0, &c), CUDW_DONE);
    assert_int_equal(cudw_classify_name(".nv.merc.nv_debug_ptx_txt.12", CUDW_SHF_MERCURY, &c), CUDW_OK);
    assert_int_equal(c.kind, CUDW_SEC_NV_PTX_TXT);
    /* no Mercury twin exists for these two */
    assert_int_equal(cudw_classify_name(".nv.merc.nv_debug.shared", CUDW_SHF_MERCURY, &c), CUDW_DONE);
    assert_int_equal(cudw_classify_name(".nv.merc.nv_debug_info_ptx", CUDW_SHF_MERCURY, &c), CUDW_DONE);
    assert_int_equal(cudw_classify_name(".nv.merc.nv.info", CUDW_SHF_MERCURY, &c), CUDW_DONE);
}

static void twins(void **state)
{
    (void)state;
    uint8_t abbrev[] = {0};
    uint8_t line[] = {1, 2, 3};
    tsec secs[] = {
        {.name = ".debug_abbrev", .data = abbrev, .size = 1},
        {.name = ".nv.merc.debug_abbrev", .data = abbrev, .size = 1, .flags = CUDW_SHF_MERCURY},
        {.name = ".debug_line", .data = line, .size = 3},
        {.name = ".nv.merc.debug_line", .data = line, .size = 3, .flags = CUDW_SHF_MERCURY},
    };
    size_t len;
    uint8_t *b = telf_build(secs, 4, &len);
    /* make the abbrev twin share the bytes of the bare one */
    uint64_t shoff;
    memcpy(&shoff, b + 40, 8);
    memcpy(b + shoff + 2 * 64 + 24, b + shoff + 1 * 64 + 24, 16);
    cudw_file *f = topen(b, len);
    cudw_secclass c;
    int twin, aliased;
    assert_int_equal(cudw_section_class(f, 1, &c, &twin, &aliased), CUDW_OK);
    assert_int_equal(twin, 2);
    assert_true(aliased);
    assert_int_equal(cudw_section_class(f, 2, &c, &twin, &aliased), CUDW_OK);
    assert_true(c.mercury);
    assert_int_equal(twin, 1);
    assert_int_equal(cudw_section_class(f, 3, &c, &twin, &aliased), CUDW_OK);
    assert_int_equal(twin, 4);
    assert_false(aliased); /* same bytes, but a separate copy */
    cudw_close(f);
    free(b);
}

/* cudw_image_sizes: each byte counted once, by class, the rest headers;
 * overlapping sections (patched in by hand) count for the one that starts
 * first; shared memory (0x7000000a) and NOBITS hold no file bytes; the
 * classes sum to the file.  cudw_code_next: .text.NAME and the capsule. */
static void sizes(void **state)
{
    (void)state;
    uint8_t code[64], cap[48], cons[32], dbg[40], sh[16], bss[8];
    memset(code, 1, sizeof code);
    memset(cap, 2, sizeof cap);
    tsec secs[] = {
        {.name = ".text.k", .type = 1, .flags = 6, .data = code, .size = sizeof code},
        {.name = ".nv.capmerc.text.k", .type = 0x70000016, .data = cap, .size = sizeof cap},
        {.name = ".nv.constant0.k", .type = 1, .flags = 2, .data = cons, .size = sizeof cons},
        {.name = ".nv.shared.k", .type = 0x7000000a, .flags = 3, .data = sh, .size = sizeof sh},
        {.name = ".debug_info", .type = 1, .data = dbg, .size = sizeof dbg},
        {.name = ".nv.global", .type = 8, .flags = 3, .data = bss, .size = sizeof bss},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 6, &len);
    uint64_t shoff;
    memcpy(&shoff, img + 40, 8);
    uint64_t off_text, off_cons, off_dbg;
    memcpy(&off_text, img + shoff + 1 * 64 + 24, 8);
    memcpy(&off_cons, img + shoff + 3 * 64 + 24, 8);
    memcpy(&off_dbg, img + shoff + 5 * 64 + 24, 8);
    /* .nv.shared.k at .nv.constant0.k's bytes, as ptxas writes it for
     * sm_100; .debug_info moved onto the last 16 bytes of .text.k */
    memcpy(img + shoff + 4 * 64 + 24, &off_cons, 8);
    uint64_t moved = off_text + 48;
    memcpy(img + shoff + 5 * 64 + 24, &moved, 8);
    cudw_file *f = topen(img, len);
    uint64_t b[CUDW_SIZE_NCLASSES];
    assert_int_equal(cudw_image_sizes(f, b), CUDW_OK);
    /* .text.k [0, 64); .debug_info [48, 88) from its start on: [64, 88);
     * the capsule [64, 112) from there on: [88, 112) */
    assert_int_equal(b[CUDW_SIZE_CODE], 64 + 24);
    assert_int_equal(b[CUDW_SIZE_DATA], 32);
    assert_int_equal(b[CUDW_SIZE_DEBUG], 24);
    const cudw_section *shstr = cudw_section_find(f, ".shstrtab");
    assert_int_equal(b[CUDW_SIZE_SYMBOLS], shstr->size);
    assert_int_equal(b[CUDW_SIZE_METADATA] + b[CUDW_SIZE_NV_DEBUG] + b[CUDW_SIZE_RELOCS] + b[CUDW_SIZE_OTHER], 0);
    uint64_t sum = 0;
    for (int c = 0; c < CUDW_SIZE_NCLASSES; c++)
        sum += b[c];
    assert_int_equal(sum, len);
    assert_int_equal(b[CUDW_SIZE_HEADERS], len - (88 + 32 + 24 + shstr->size));
    assert_string_equal(cudw_size_class_name(CUDW_SIZE_NV_DEBUG), "nv_debug");
    assert_null(cudw_size_class_name(CUDW_SIZE_NCLASSES));
    unsigned cur = 0;
    cudw_code_section cs;
    assert_int_equal(cudw_code_next(f, &cur, &cs), CUDW_OK);
    assert_string_equal(cs.function, "k");
    assert_int_equal(cs.size, 64);
    assert_int_equal(cs.capsule, 0);
    assert_int_equal(cudw_code_next(f, &cur, &cs), CUDW_OK);
    assert_string_equal(cs.function, "k");
    assert_int_equal(cs.size, 48);
    assert_int_equal(cs.capsule, 1);
    assert_int_equal(cudw_code_next(f, &cur, &cs), CUDW_DONE);
    (void)off_dbg;
    cudw_close(f);
    free(img);
}

/* Section bytes in no ELF (cudw_open_sections): the readers take them as
 * they take a cubin's, and a malformed one's error lands on the handle. */
static void spans(void **state)
{
    (void)state;
    /* a name index set written out by hand: length 0x1a, version 2, unit 0x10
     * of size 0x40, DIE 0x2a "k", DIE 0x31 "g", then the 0 */
    static const uint8_t pub[] = {0x1a, 0, 0, 0, 2, 0, 0x10, 0, 0, 0, 0x40, 0, 0, 0,
                                  0x2a, 0, 0, 0, 'k', 0, 0x31, 0, 0, 0, 'g', 0, 0, 0, 0, 0};
    cudw_span sp[2] = {{".debug_pubnames", pub, sizeof pub}, {".debug_pubtypes", pub, 9}};
    cudw_file *f;
    assert_int_equal(cudw_open_sections(&f, sp, 2, "built"), CUDW_OK);
    assert_int_equal(cudw_section_count(f), 3);
    assert_string_equal(cudw_file_name(f), "built");
    const cudw_section *s = cudw_section_find(f, ".debug_pubnames");
    assert_non_null(s);
    uint64_t cur = 0, pos, die;
    const char *name;
    cudw_pub_set set;
    assert_int_equal(cudw_pub_next_set(f, s, &cur, &set), CUDW_OK);
    assert_int_equal(set.unit_offset, 0x10);
    assert_int_equal(set.unit_size, 0x40);
    pos = set.entries_offset;
    assert_int_equal(cudw_pub_next(f, s, &set, &pos, &die, &name), CUDW_OK);
    assert_int_equal(die, 0x2a);
    assert_string_equal(name, "k");
    assert_int_equal(cudw_pub_next(f, s, &set, &pos, &die, &name), CUDW_OK);
    assert_int_equal(die, 0x31);
    assert_string_equal(name, "g");
    assert_int_equal(cudw_pub_next(f, s, &set, &pos, &die, &name), CUDW_DONE);
    assert_int_equal(cudw_pub_next_set(f, s, &cur, &set), CUDW_DONE);
    /* 9 bytes: the header is cut short */
    cur = 0;
    assert_true(cudw_pub_next_set(f, cudw_section_find(f, ".debug_pubtypes"), &cur, &set) < 0);
    assert_int_equal(cudw_last_error(f)->code, CUDW_E_TRUNCATED);
    assert_string_equal(cudw_last_error(f)->section, ".debug_pubtypes");
    cudw_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classify),
        cmocka_unit_test(mercury),
        cmocka_unit_test(twins),
        cmocka_unit_test(sizes),
        cmocka_unit_test(spans),
    };
    return run_group("sections", tests);
}
