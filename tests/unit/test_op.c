/* DW_OP decoding and NVIDIA register naming. */
#include "testutil.h"

static void regs(void **state)
{
    (void)state;
    char b[32];
    cudw_register_name(0x25726431, b, sizeof b); /* FINDINGS 5: %rd1 */
    assert_string_equal(b, "%rd1");
    cudw_register_name(0x257236, b, sizeof b);
    assert_string_equal(b, "%r6");
    assert_true(cudw_register_is_packed(0x257236));
    cudw_register_name(0x05000014, b, sizeof b); /* return-address register of .debug_frame */
    assert_string_equal(b, "R20");
    cudw_register_name(0x09000000, b, sizeof b);
    assert_string_equal(b, "UP0");
    cudw_register_name(0x0b000004, b, sizeof b);
    assert_string_equal(b, "UR4");
    cudw_register_name(0x02000007, b, sizeof b);
    assert_string_equal(b, "PT");
    cudw_register_name(0x04000003, b, sizeof b);
    assert_string_equal(b, "R1.hi");
    cudw_register_name(1, b, sizeof b);
    assert_string_equal(b, "R1");
    assert_false(cudw_register_is_packed(1));
    assert_false(cudw_register_is_packed(0x05000014));
    cudw_register_name(0x5235, b, sizeof b); /* "R5" packed */
    assert_string_equal(b, "R5");
    assert_int_equal(cudw_register_name(0x25726431, NULL, 0), 4);
}

static void ops(void **state)
{
    (void)state;
    /* regx %rd1; fbreg -8; addr 0x210 (8 bytes); constu 5; swap; xderef; breg3 +4; bregx 0x5235 -2; skip -3 */
    uint8_t e[] = {0x90, 0xb1, 0xc8, 0xc9, 0xab, 0x02, 0x91, 0x78, 0x03, 0x10, 0x02, 0, 0, 0, 0, 0, 0,
                   0x10, 0x05, 0x16, 0x18, 0x73, 0x04, 0x92, 0xb5, 0xa4, 0x01, 0x7e, 0x2f, 0xfd, 0xff};
    uint64_t pos = 0;
    cudw_op o;
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_int_equal(o.op, 0x90);
    assert_int_equal(o.arg[0], 0x25726431);
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_int_equal(o.op, 0x91);
    assert_int_equal((int64_t)o.arg[0], -8);
    assert_true(cudw_op_arg_signed(0x91, 0));
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_int_equal(o.arg[0], 0x210);
    assert_int_equal(o.size, 9);
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_int_equal(o.arg[0], 5);
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_string_equal(cudw_op_name(o.op), "DW_OP_swap");
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_string_equal(cudw_op_name(o.op), "DW_OP_xderef");
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_string_equal(cudw_op_name(o.op), "DW_OP_breg3");
    assert_int_equal(o.arg[0], 4);
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_int_equal(o.arg[0], 0x5235);
    assert_int_equal((int64_t)o.arg[1], -2);
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_OK);
    assert_int_equal((int64_t)o.arg[0], -3);
    assert_int_equal(cudw_op_next(e, sizeof e, 8, &pos, &o), CUDW_DONE);
    /* 4-byte address size */
    uint8_t a4[] = {0x03, 0x10, 0x02, 0, 0};
    pos = 0;
    assert_int_equal(cudw_op_next(a4, sizeof a4, 4, &pos, &o), CUDW_OK);
    assert_int_equal(o.arg[0], 0x210);
    /* truncated operand, unknown opcode */
    pos = 0;
    assert_int_equal(cudw_op_next(a4, 3, 4, &pos, &o), CUDW_E_TRUNCATED);
    uint8_t bad[] = {0x01};
    pos = 0;
    assert_int_equal(cudw_op_next(bad, 1, 8, &pos, &o), CUDW_E_BAD_EXPR);
    assert_true(cudw_attr_is_expr(0x02));
    assert_true(cudw_attr_is_expr(0x3a01)); /* PGI soffset */
    assert_false(cudw_attr_is_expr(0x03));
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(cudw_at_name(0x49), "DW_AT_type");       /* not 74 as spec 000 lists */
    assert_string_equal(cudw_at_name(0x3e), "DW_AT_encoding");
    assert_string_equal(cudw_at_name(0x2007), "DW_AT_MIPS_linkage_name");
    assert_string_equal(cudw_at_name(0x2703), "DW_AT_NV_general_flags");
    assert_string_equal(cudw_at_name(0x3a02), "DW_AT_PGI_lstride");
    assert_null(cudw_at_name(0x2fff));
    assert_string_equal(cudw_tag_name(0x42), "DW_TAG_rvalue_reference_type");
    assert_string_equal(cudw_form_name(0x16), "DW_FORM_indirect");
    assert_null(cudw_form_name(0x02));
    assert_string_equal(cudw_op_name(0x4f), "DW_OP_lit31");
    assert_string_equal(cudw_op_name(0x8f), "DW_OP_breg31");
    assert_string_equal(cudw_address_class_name(8), "shared");
    assert_string_equal(cudw_address_class_name(12), "generic");
    assert_string_equal(cudw_reloc_type_name(73), "R_CUDA_UNUSED_CLEAR64");
    assert_string_equal(cudw_reloc_type_name(0x1003d), "R_MERCURY_ABS_PROG_REL64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regs),
        cmocka_unit_test(ops),
        cmocka_unit_test(names),
    };
    return run_group("op", tests);
}
