/* Names of DWARF constants, DWARF 2 to 5 and the vendor codes seen in
 * CUDA objects.  The codes are the DWARF standard's: the nvlink reconstruction shifts the
 * attribute codes from 62 up by one, which real cubins contradict (see
 * docs/spec-disagreements.md). */
#include "../internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const tags[] = {
    [0x01] = "DW_TAG_array_type", [0x02] = "DW_TAG_class_type", [0x03] = "DW_TAG_entry_point",
    [0x04] = "DW_TAG_enumeration_type", [0x05] = "DW_TAG_formal_parameter",
    [0x08] = "DW_TAG_imported_declaration", [0x0a] = "DW_TAG_label", [0x0b] = "DW_TAG_lexical_block",
    [0x0d] = "DW_TAG_member", [0x0f] = "DW_TAG_pointer_type", [0x10] = "DW_TAG_reference_type",
    [0x11] = "DW_TAG_compile_unit", [0x12] = "DW_TAG_string_type", [0x13] = "DW_TAG_structure_type",
    [0x15] = "DW_TAG_subroutine_type", [0x16] = "DW_TAG_typedef", [0x17] = "DW_TAG_union_type",
    [0x18] = "DW_TAG_unspecified_parameters", [0x19] = "DW_TAG_variant", [0x1a] = "DW_TAG_common_block",
    [0x1b] = "DW_TAG_common_inclusion", [0x1c] = "DW_TAG_inheritance",
    [0x1d] = "DW_TAG_inlined_subroutine", [0x1e] = "DW_TAG_module", [0x1f] = "DW_TAG_ptr_to_member_type",
    [0x20] = "DW_TAG_set_type", [0x21] = "DW_TAG_subrange_type", [0x22] = "DW_TAG_with_stmt",
    [0x23] = "DW_TAG_access_declaration", [0x24] = "DW_TAG_base_type", [0x25] = "DW_TAG_catch_block",
    [0x26] = "DW_TAG_const_type", [0x27] = "DW_TAG_constant", [0x28] = "DW_TAG_enumerator",
    [0x29] = "DW_TAG_file_type", [0x2a] = "DW_TAG_friend", [0x2b] = "DW_TAG_namelist",
    [0x2c] = "DW_TAG_namelist_item", [0x2d] = "DW_TAG_packed_type", [0x2e] = "DW_TAG_subprogram",
    [0x2f] = "DW_TAG_template_type_parameter", [0x30] = "DW_TAG_template_value_parameter",
    [0x31] = "DW_TAG_thrown_type", [0x32] = "DW_TAG_try_block", [0x33] = "DW_TAG_variant_part",
    [0x34] = "DW_TAG_variable", [0x35] = "DW_TAG_volatile_type", [0x36] = "DW_TAG_dwarf_procedure",
    [0x37] = "DW_TAG_restrict_type", [0x38] = "DW_TAG_interface_type", [0x39] = "DW_TAG_namespace",
    [0x3a] = "DW_TAG_imported_module", [0x3b] = "DW_TAG_unspecified_type",
    [0x3c] = "DW_TAG_partial_unit", [0x3d] = "DW_TAG_imported_unit", [0x3f] = "DW_TAG_condition",
    [0x40] = "DW_TAG_shared_type", [0x41] = "DW_TAG_type_unit", [0x42] = "DW_TAG_rvalue_reference_type",
    [0x43] = "DW_TAG_template_alias", [0x44] = "DW_TAG_coarray_type", [0x45] = "DW_TAG_generic_subrange",
    [0x46] = "DW_TAG_dynamic_type", [0x47] = "DW_TAG_atomic_type", [0x48] = "DW_TAG_call_site",
    [0x49] = "DW_TAG_call_site_parameter", [0x4a] = "DW_TAG_skeleton_unit",
    [0x4b] = "DW_TAG_immutable_type",
};

const char *cudw_tag_name(uint32_t t)
{
    if (t < N(tags))
        return tags[t];
    switch (t) {
    case 0x4081: return "DW_TAG_MIPS_loop";
    case 0x4101: return "DW_TAG_format_label";
    case 0x4102: return "DW_TAG_function_template";
    case 0x4103: return "DW_TAG_class_template";
    case 0x4106: return "DW_TAG_GNU_template_template_param";
    case 0x4107: return "DW_TAG_GNU_template_parameter_pack";
    case 0x4108: return "DW_TAG_GNU_formal_parameter_pack";
    case 0x4109: return "DW_TAG_GNU_call_site";
    case 0x410a: return "DW_TAG_GNU_call_site_parameter";
    default: return NULL;
    }
}

static const char *const ats[] = {
    [0x01] = "DW_AT_sibling", [0x02] = "DW_AT_location", [0x03] = "DW_AT_name",
    [0x09] = "DW_AT_ordering", [0x0b] = "DW_AT_byte_size", [0x0c] = "DW_AT_bit_offset",
    [0x0d] = "DW_AT_bit_size", [0x10] = "DW_AT_stmt_list", [0x11] = "DW_AT_low_pc",
    [0x12] = "DW_AT_high_pc", [0x13] = "DW_AT_language", [0x15] = "DW_AT_discr",
    [0x16] = "DW_AT_discr_value", [0x17] = "DW_AT_visibility", [0x18] = "DW_AT_import",
    [0x19] = "DW_AT_string_length", [0x1a] = "DW_AT_common_reference", [0x1b] = "DW_AT_comp_dir",
    [0x1c] = "DW_AT_const_value", [0x1d] = "DW_AT_containing_type", [0x1e] = "DW_AT_default_value",
    [0x20] = "DW_AT_inline", [0x21] = "DW_AT_is_optional", [0x22] = "DW_AT_lower_bound",
    [0x25] = "DW_AT_producer", [0x27] = "DW_AT_prototyped", [0x2a] = "DW_AT_return_addr",
    [0x2c] = "DW_AT_start_scope", [0x2e] = "DW_AT_bit_stride", [0x2f] = "DW_AT_upper_bound",
    [0x31] = "DW_AT_abstract_origin", [0x32] = "DW_AT_accessibility", [0x33] = "DW_AT_address_class",
    [0x34] = "DW_AT_artificial", [0x35] = "DW_AT_base_types", [0x36] = "DW_AT_calling_convention",
    [0x37] = "DW_AT_count", [0x38] = "DW_AT_data_member_location", [0x39] = "DW_AT_decl_column",
    [0x3a] = "DW_AT_decl_file", [0x3b] = "DW_AT_decl_line", [0x3c] = "DW_AT_declaration",
    [0x3d] = "DW_AT_discr_list", [0x3e] = "DW_AT_encoding", [0x3f] = "DW_AT_external",
    [0x40] = "DW_AT_frame_base", [0x41] = "DW_AT_friend", [0x42] = "DW_AT_identifier_case",
    [0x43] = "DW_AT_macro_info", [0x44] = "DW_AT_namelist_item", [0x45] = "DW_AT_priority",
    [0x46] = "DW_AT_segment", [0x47] = "DW_AT_specification", [0x48] = "DW_AT_static_link",
    [0x49] = "DW_AT_type", [0x4a] = "DW_AT_use_location", [0x4b] = "DW_AT_variable_parameter",
    [0x4c] = "DW_AT_virtuality", [0x4d] = "DW_AT_vtable_elem_location", [0x4e] = "DW_AT_allocated",
    [0x4f] = "DW_AT_associated", [0x50] = "DW_AT_data_location", [0x51] = "DW_AT_byte_stride",
    [0x52] = "DW_AT_entry_pc", [0x53] = "DW_AT_use_UTF8", [0x54] = "DW_AT_extension",
    [0x55] = "DW_AT_ranges", [0x56] = "DW_AT_trampoline", [0x57] = "DW_AT_call_column",
    [0x58] = "DW_AT_call_file", [0x59] = "DW_AT_call_line", [0x5a] = "DW_AT_description",
    [0x5b] = "DW_AT_binary_scale", [0x5c] = "DW_AT_decimal_scale", [0x5d] = "DW_AT_small",
    [0x5e] = "DW_AT_decimal_sign", [0x5f] = "DW_AT_digit_count", [0x60] = "DW_AT_picture_string",
    [0x61] = "DW_AT_mutable", [0x62] = "DW_AT_threads_scaled", [0x63] = "DW_AT_explicit",
    [0x64] = "DW_AT_object_pointer", [0x65] = "DW_AT_endianity", [0x66] = "DW_AT_elemental",
    [0x67] = "DW_AT_pure", [0x68] = "DW_AT_recursive", [0x69] = "DW_AT_signature",
    [0x6a] = "DW_AT_main_subprogram", [0x6b] = "DW_AT_data_bit_offset", [0x6c] = "DW_AT_const_expr",
    [0x6d] = "DW_AT_enum_class", [0x6e] = "DW_AT_linkage_name",
    [0x6f] = "DW_AT_string_length_bit_size", [0x70] = "DW_AT_string_length_byte_size",
    [0x71] = "DW_AT_rank", [0x72] = "DW_AT_str_offsets_base", [0x73] = "DW_AT_addr_base",
    [0x74] = "DW_AT_rnglists_base", [0x76] = "DW_AT_dwo_name", [0x77] = "DW_AT_reference",
    [0x78] = "DW_AT_rvalue_reference", [0x79] = "DW_AT_macros", [0x7a] = "DW_AT_call_all_calls",
    [0x7b] = "DW_AT_call_all_source_calls", [0x7c] = "DW_AT_call_all_tail_calls",
    [0x7d] = "DW_AT_call_return_pc", [0x7e] = "DW_AT_call_value", [0x7f] = "DW_AT_call_origin",
    [0x80] = "DW_AT_call_parameter", [0x81] = "DW_AT_call_pc", [0x82] = "DW_AT_call_tail_call",
    [0x83] = "DW_AT_call_target", [0x84] = "DW_AT_call_target_clobbered",
    [0x85] = "DW_AT_call_data_location", [0x86] = "DW_AT_call_data_value", [0x87] = "DW_AT_noreturn",
    [0x88] = "DW_AT_alignment", [0x89] = "DW_AT_export_symbols", [0x8a] = "DW_AT_deleted",
    [0x8b] = "DW_AT_defaulted", [0x8c] = "DW_AT_loclists_base",
};

const char *cudw_at_name(uint32_t a)
{
    if (a < N(ats))
        return ats[a];
    switch (a) {
    /* the seven vendor attributes nvlink knows (the nvlink reconstruction) */
    case 0x2007: return "DW_AT_MIPS_linkage_name";
    case 0x2134: return "DW_AT_GNU_pubnames";
    case 0x2703: return "DW_AT_NV_general_flags";
    case 0x3a00: return "DW_AT_PGI_lbase";
    case 0x3a01: return "DW_AT_PGI_soffset";
    case 0x3a02: return "DW_AT_PGI_lstride";
    case 0x3fff: return "DW_AT_hi_user";
    /* others readers meet in the wild */
    case 0x2001: return "DW_AT_MIPS_fde";
    case 0x2002: return "DW_AT_MIPS_loop_begin";
    case 0x2003: return "DW_AT_MIPS_tail_loop_begin";
    case 0x2004: return "DW_AT_MIPS_epilog_begin";
    case 0x2005: return "DW_AT_MIPS_loop_unroll_factor";
    case 0x2006: return "DW_AT_MIPS_software_pipeline_depth";
    case 0x2101: return "DW_AT_sf_names";
    case 0x2102: return "DW_AT_src_info";
    case 0x2103: return "DW_AT_mac_info";
    case 0x2104: return "DW_AT_src_coords";
    case 0x2105: return "DW_AT_body_begin";
    case 0x2106: return "DW_AT_body_end";
    case 0x2107: return "DW_AT_GNU_vector";
    case 0x2110: return "DW_AT_GNU_template_name";
    case 0x2135: return "DW_AT_GNU_pubtypes";
    default: return NULL;
    }
}

static const char *const forms[] = {
    [0x01] = "DW_FORM_addr", [0x03] = "DW_FORM_block2", [0x04] = "DW_FORM_block4",
    [0x05] = "DW_FORM_data2", [0x06] = "DW_FORM_data4", [0x07] = "DW_FORM_data8",
    [0x08] = "DW_FORM_string", [0x09] = "DW_FORM_block", [0x0a] = "DW_FORM_block1",
    [0x0b] = "DW_FORM_data1", [0x0c] = "DW_FORM_flag", [0x0d] = "DW_FORM_sdata",
    [0x0e] = "DW_FORM_strp", [0x0f] = "DW_FORM_udata", [0x10] = "DW_FORM_ref_addr",
    [0x11] = "DW_FORM_ref1", [0x12] = "DW_FORM_ref2", [0x13] = "DW_FORM_ref4",
    [0x14] = "DW_FORM_ref8", [0x15] = "DW_FORM_ref_udata", [0x16] = "DW_FORM_indirect",
    [0x17] = "DW_FORM_sec_offset", [0x18] = "DW_FORM_exprloc", [0x19] = "DW_FORM_flag_present",
    [0x20] = "DW_FORM_ref_sig8",
};

const char *cudw_form_name(uint32_t f) { return f < N(forms) ? forms[f] : NULL; }

static const char *const ops[256] = {
    [0x03] = "DW_OP_addr", [0x06] = "DW_OP_deref", [0x08] = "DW_OP_const1u",
    [0x09] = "DW_OP_const1s", [0x0a] = "DW_OP_const2u", [0x0b] = "DW_OP_const2s",
    [0x0c] = "DW_OP_const4u", [0x0d] = "DW_OP_const4s", [0x0e] = "DW_OP_const8u",
    [0x0f] = "DW_OP_const8s", [0x10] = "DW_OP_constu", [0x11] = "DW_OP_consts",
    [0x12] = "DW_OP_dup", [0x13] = "DW_OP_drop", [0x14] = "DW_OP_over", [0x15] = "DW_OP_pick",
    [0x16] = "DW_OP_swap", [0x17] = "DW_OP_rot", [0x18] = "DW_OP_xderef", [0x19] = "DW_OP_abs",
    [0x1a] = "DW_OP_and", [0x1b] = "DW_OP_div", [0x1c] = "DW_OP_minus", [0x1d] = "DW_OP_mod",
    [0x1e] = "DW_OP_mul", [0x1f] = "DW_OP_neg", [0x20] = "DW_OP_not", [0x21] = "DW_OP_or",
    [0x22] = "DW_OP_plus", [0x23] = "DW_OP_plus_uconst", [0x24] = "DW_OP_shl", [0x25] = "DW_OP_shr",
    [0x26] = "DW_OP_shra", [0x27] = "DW_OP_xor", [0x28] = "DW_OP_bra", [0x29] = "DW_OP_eq",
    [0x2a] = "DW_OP_ge", [0x2b] = "DW_OP_gt", [0x2c] = "DW_OP_le", [0x2d] = "DW_OP_lt",
    [0x2e] = "DW_OP_ne", [0x2f] = "DW_OP_skip",
    [0x30] = "DW_OP_lit0", [0x31] = "DW_OP_lit1", [0x32] = "DW_OP_lit2", [0x33] = "DW_OP_lit3",
    [0x34] = "DW_OP_lit4", [0x35] = "DW_OP_lit5", [0x36] = "DW_OP_lit6", [0x37] = "DW_OP_lit7",
    [0x38] = "DW_OP_lit8", [0x39] = "DW_OP_lit9", [0x3a] = "DW_OP_lit10", [0x3b] = "DW_OP_lit11",
    [0x3c] = "DW_OP_lit12", [0x3d] = "DW_OP_lit13", [0x3e] = "DW_OP_lit14", [0x3f] = "DW_OP_lit15",
    [0x40] = "DW_OP_lit16", [0x41] = "DW_OP_lit17", [0x42] = "DW_OP_lit18", [0x43] = "DW_OP_lit19",
    [0x44] = "DW_OP_lit20", [0x45] = "DW_OP_lit21", [0x46] = "DW_OP_lit22", [0x47] = "DW_OP_lit23",
    [0x48] = "DW_OP_lit24", [0x49] = "DW_OP_lit25", [0x4a] = "DW_OP_lit26", [0x4b] = "DW_OP_lit27",
    [0x4c] = "DW_OP_lit28", [0x4d] = "DW_OP_lit29", [0x4e] = "DW_OP_lit30", [0x4f] = "DW_OP_lit31",
    [0x50] = "DW_OP_reg0", [0x51] = "DW_OP_reg1", [0x52] = "DW_OP_reg2", [0x53] = "DW_OP_reg3",
    [0x54] = "DW_OP_reg4", [0x55] = "DW_OP_reg5", [0x56] = "DW_OP_reg6", [0x57] = "DW_OP_reg7",
    [0x58] = "DW_OP_reg8", [0x59] = "DW_OP_reg9", [0x5a] = "DW_OP_reg10", [0x5b] = "DW_OP_reg11",
    [0x5c] = "DW_OP_reg12", [0x5d] = "DW_OP_reg13", [0x5e] = "DW_OP_reg14", [0x5f] = "DW_OP_reg15",
    [0x60] = "DW_OP_reg16", [0x61] = "DW_OP_reg17", [0x62] = "DW_OP_reg18", [0x63] = "DW_OP_reg19",
    [0x64] = "DW_OP_reg20", [0x65] = "DW_OP_reg21", [0x66] = "DW_OP_reg22", [0x67] = "DW_OP_reg23",
    [0x68] = "DW_OP_reg24", [0x69] = "DW_OP_reg25", [0x6a] = "DW_OP_reg26", [0x6b] = "DW_OP_reg27",
    [0x6c] = "DW_OP_reg28", [0x6d] = "DW_OP_reg29", [0x6e] = "DW_OP_reg30", [0x6f] = "DW_OP_reg31",
    [0x70] = "DW_OP_breg0", [0x71] = "DW_OP_breg1", [0x72] = "DW_OP_breg2", [0x73] = "DW_OP_breg3",
    [0x74] = "DW_OP_breg4", [0x75] = "DW_OP_breg5", [0x76] = "DW_OP_breg6", [0x77] = "DW_OP_breg7",
    [0x78] = "DW_OP_breg8", [0x79] = "DW_OP_breg9", [0x7a] = "DW_OP_breg10", [0x7b] = "DW_OP_breg11",
    [0x7c] = "DW_OP_breg12", [0x7d] = "DW_OP_breg13", [0x7e] = "DW_OP_breg14", [0x7f] = "DW_OP_breg15",
    [0x80] = "DW_OP_breg16", [0x81] = "DW_OP_breg17", [0x82] = "DW_OP_breg18", [0x83] = "DW_OP_breg19",
    [0x84] = "DW_OP_breg20", [0x85] = "DW_OP_breg21", [0x86] = "DW_OP_breg22", [0x87] = "DW_OP_breg23",
    [0x88] = "DW_OP_breg24", [0x89] = "DW_OP_breg25", [0x8a] = "DW_OP_breg26", [0x8b] = "DW_OP_breg27",
    [0x8c] = "DW_OP_breg28", [0x8d] = "DW_OP_breg29", [0x8e] = "DW_OP_breg30", [0x8f] = "DW_OP_breg31",
    [0x90] = "DW_OP_regx", [0x91] = "DW_OP_fbreg", [0x92] = "DW_OP_bregx", [0x93] = "DW_OP_piece",
    [0x94] = "DW_OP_deref_size", [0x95] = "DW_OP_xderef_size", [0x96] = "DW_OP_nop",
    [0x97] = "DW_OP_push_object_address", [0x98] = "DW_OP_call2", [0x99] = "DW_OP_call4",
    [0x9a] = "DW_OP_call_ref", [0x9b] = "DW_OP_form_tls_address", [0x9c] = "DW_OP_call_frame_cfa",
    [0x9d] = "DW_OP_bit_piece", [0x9e] = "DW_OP_implicit_value", [0x9f] = "DW_OP_stack_value",
    [0xe0] = "DW_OP_GNU_push_tls_address", [0xf0] = "DW_OP_GNU_uninit",
};

const char *cudw_op_name(uint8_t op) { return ops[op]; }

static const char *const langs[] = {
    [0x01] = "DW_LANG_C89", [0x02] = "DW_LANG_C", [0x03] = "DW_LANG_Ada83",
    [0x04] = "DW_LANG_C_plus_plus", [0x05] = "DW_LANG_Cobol74", [0x06] = "DW_LANG_Cobol85",
    [0x07] = "DW_LANG_Fortran77", [0x08] = "DW_LANG_Fortran90", [0x09] = "DW_LANG_Pascal83",
    [0x0a] = "DW_LANG_Modula2", [0x0b] = "DW_LANG_Java", [0x0c] = "DW_LANG_C99",
    [0x0d] = "DW_LANG_Ada95", [0x0e] = "DW_LANG_Fortran95", [0x0f] = "DW_LANG_PLI",
    [0x10] = "DW_LANG_ObjC", [0x11] = "DW_LANG_ObjC_plus_plus", [0x12] = "DW_LANG_UPC",
    [0x13] = "DW_LANG_D", [0x14] = "DW_LANG_Python", [0x15] = "DW_LANG_OpenCL", [0x16] = "DW_LANG_Go",
    [0x17] = "DW_LANG_Modula3", [0x18] = "DW_LANG_Haskell", [0x19] = "DW_LANG_C_plus_plus_03",
    [0x1a] = "DW_LANG_C_plus_plus_11", [0x1b] = "DW_LANG_OCaml", [0x1c] = "DW_LANG_Rust",
    [0x1d] = "DW_LANG_C11", [0x1e] = "DW_LANG_Swift", [0x1f] = "DW_LANG_Julia",
    [0x20] = "DW_LANG_Dylan", [0x21] = "DW_LANG_C_plus_plus_14", [0x22] = "DW_LANG_Fortran03",
    [0x23] = "DW_LANG_Fortran08", [0x24] = "DW_LANG_RenderScript", [0x25] = "DW_LANG_BLISS",
};

const char *cudw_lang_name(uint64_t l)
{
    if (l < N(langs))
        return langs[l];
    return l == 0x8001 ? "DW_LANG_Mips_Assembler" : NULL;
}

static const char *const ates[] = {
    [0x01] = "DW_ATE_address", [0x02] = "DW_ATE_boolean", [0x03] = "DW_ATE_complex_float",
    [0x04] = "DW_ATE_float", [0x05] = "DW_ATE_signed", [0x06] = "DW_ATE_signed_char",
    [0x07] = "DW_ATE_unsigned", [0x08] = "DW_ATE_unsigned_char", [0x09] = "DW_ATE_imaginary_float",
    [0x0a] = "DW_ATE_packed_decimal", [0x0b] = "DW_ATE_numeric_string", [0x0c] = "DW_ATE_edited",
    [0x0d] = "DW_ATE_signed_fixed", [0x0e] = "DW_ATE_unsigned_fixed", [0x0f] = "DW_ATE_decimal_float",
    [0x10] = "DW_ATE_UTF",
};

const char *cudw_ate_name(uint64_t e) { return e < N(ates) ? ates[e] : NULL; }

const char *cudw_inline_name(uint64_t v)
{
    static const char *const n[] = {"DW_INL_not_inlined", "DW_INL_inlined",
                                    "DW_INL_declared_not_inlined", "DW_INL_declared_inlined"};
    return v < N(n) ? n[v] : NULL;
}

const char *cudw_access_name(uint64_t v)
{
    static const char *const n[] = {NULL, "DW_ACCESS_public", "DW_ACCESS_protected", "DW_ACCESS_private"};
    return v < N(n) ? n[v] : NULL;
}

/* DW_AT_address_class values are PTX state spaces (docs/spec-disagreements.md
 * and cuda-gdb's names; the values 2, 4, 5, 6, 7, 8, 12 occur in real cubins). */
const char *cudw_address_class_name(uint64_t v)
{
    static const char *const n[] = {
        "unspecified", "code", "reg", "sreg", "const", "global", "local", "param", "shared",
        "surf", "tex", "texsampler", "generic", "iparam", "oparam", "frame", "ureg",
    };
    return v < N(n) ? n[v] : NULL;
}

const char *cudw_line_op_name(uint8_t op, int extended)
{
    static const char *const std[] = {
        [CUDW_DW_LNS_copy] = "DW_LNS_copy", [CUDW_DW_LNS_advance_pc] = "DW_LNS_advance_pc",
        [CUDW_DW_LNS_advance_line] = "DW_LNS_advance_line", [CUDW_DW_LNS_set_file] = "DW_LNS_set_file",
        [CUDW_DW_LNS_set_column] = "DW_LNS_set_column", [CUDW_DW_LNS_negate_stmt] = "DW_LNS_negate_stmt",
        [CUDW_DW_LNS_set_basic_block] = "DW_LNS_set_basic_block",
        [CUDW_DW_LNS_const_add_pc] = "DW_LNS_const_add_pc",
        [CUDW_DW_LNS_fixed_advance_pc] = "DW_LNS_fixed_advance_pc",
        [CUDW_DW_LNS_set_prologue_end] = "DW_LNS_set_prologue_end",
        [CUDW_DW_LNS_set_epilogue_begin] = "DW_LNS_set_epilogue_begin", [CUDW_DW_LNS_set_isa] = "DW_LNS_set_isa",
    };
    if (!extended)
        return op < N(std) ? std[op] : NULL;
    switch (op) {
    case CUDW_DW_LNE_end_sequence: return "DW_LNE_end_sequence";
    case CUDW_DW_LNE_set_address: return "DW_LNE_set_address";
    case CUDW_DW_LNE_define_file: return "DW_LNE_define_file";
    case CUDW_DW_LNE_set_discriminator: return "DW_LNE_set_discriminator";
    case CUDW_DW_LNE_NVIDIA_inlined_call: return "DW_LNE_NVIDIA_inlined_call";
    case CUDW_DW_LNE_NVIDIA_set_function_name: return "DW_LNE_NVIDIA_set_function_name";
    case CUDW_DW_LNE_NVIDIA_0x92: return "DW_LNE_NVIDIA_0x92";
    default: return NULL;
    }
}
