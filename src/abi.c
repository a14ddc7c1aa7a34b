/* The ABI a binding checks (cudwarf.h: cudw_abi_version, cudw_struct_size). */
#include "internal.h"

unsigned cudw_abi_version(void) { return CUDW_ABI_VERSION; }

size_t cudw_struct_size(const char *name)
{
    static const struct { const char *name; size_t size; } sizes[] = {
        {"cudw_error", sizeof(cudw_error)},
        {"cudw_elf_header", sizeof(cudw_elf_header)},
        {"cudw_section", sizeof(cudw_section)},
        {"cudw_symbol", sizeof(cudw_symbol)},
        {"cudw_reloc", sizeof(cudw_reloc)},
        {"cudw_corr_ptx", sizeof(cudw_corr_ptx)},
        {"cudw_corr_insn", sizeof(cudw_corr_insn)},
        {"cudw_corr_cost", sizeof(cudw_corr_cost)},
        {"cudw_corr_line_fn", sizeof(cudw_corr_line_fn)},
        {"cudw_corr_caller", sizeof(cudw_corr_caller)},
        {"cudw_func_resources", sizeof(cudw_func_resources)},
        {"cudw_corr_summary", sizeof(cudw_corr_summary)},
        {"cudw_correlate_opts", sizeof(cudw_correlate_opts)},
        {"cudw_unit", sizeof(cudw_unit)},
        {"cudw_die", sizeof(cudw_die)},
        {"cudw_die_iter", sizeof(cudw_die_iter)},
        {"cudw_attr", sizeof(cudw_attr)},
        {"cudw_attr_iter", sizeof(cudw_attr_iter)},
        {"cudw_input_image", sizeof(cudw_input_image)},
        {"cudw_image", sizeof(cudw_image)},
        {"cudw_code_section", sizeof(cudw_code_section)},
        {"cudw_dup", sizeof(cudw_dup)},
        {"cudw_dup_set", sizeof(cudw_dup_set)},
        {"cudw_line_row", sizeof(cudw_line_row)},
        {"cudw_line_op", sizeof(cudw_line_op)},
        {"cudw_ptx_diff", sizeof(cudw_ptx_diff)},
        {"cudw_line_iter", sizeof(cudw_line_iter)},
        {"cudw_line_file", sizeof(cudw_line_file)},
        {"cudw_ptx_diag", sizeof(cudw_ptx_diag)},
        {"cudw_ptx_file", sizeof(cudw_ptx_file)},
        {"cudw_ptx_loc", sizeof(cudw_ptx_loc)},
        {"cudw_ptx_func", sizeof(cudw_ptx_func)},
        {"cudw_ptx_where", sizeof(cudw_ptx_where)},
        {"cudw_ptx_insn", sizeof(cudw_ptx_insn)},
        {"cudw_ptx_walk", sizeof(cudw_ptx_walk)},
        {"cudw_ptx_prediction", sizeof(cudw_ptx_prediction)},
        {"cudw_symbolizer_opts", sizeof(cudw_symbolizer_opts)},
        {"cudw_sym_frame", sizeof(cudw_sym_frame)},
        {"cudw_sym_result", sizeof(cudw_sym_result)},
        {"cudw_sym_query", sizeof(cudw_sym_query)},
        {"cudw_finding", sizeof(cudw_finding)},
    };
    for (size_t i = 0; name && i < sizeof sizes / sizeof *sizes; i++)
        if (!strcmp(sizes[i].name, name))
            return sizes[i].size;
    return 0;
}
