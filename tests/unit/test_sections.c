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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classify),
        cmocka_unit_test(mercury),
        cmocka_unit_test(twins),
    };
    return cmocka_run_group_tests_name("sections", tests, NULL, NULL);
}
