/* cudwarf correlate --json: one object per image, the schema docs/json.md
 * describes (the page of correlate_html.c carries the same records). */
#include "correlate_out.h"

#include <string.h>


/* A line's, function's or file's costs; ptx: whether its PTX count is
 * known (null otherwise); line >= 0: a source line's index, whose
 * functions follow */
static void cost_json(json *j, const cudw_correlation *c, const cudw_corr_cost *k, const char *name_key, long line,
                      int ptx)
{
    json_obj(j, NULL);
    json_str(j, name_key, k->name);
    if (line >= 0)
        json_u64(j, "line", k->line);
    json_u64(j, "sass_bytes", k->sass_bytes);
    json_u64(j, "sass_bytes_inclusive", k->sass_bytes_inclusive);
    json_u64(j, "sass_instructions", k->sass_instructions);
    json_u64(j, "sass_instructions_inclusive", k->sass_instructions_inclusive);
    if (ptx)
        json_u64(j, "ptx_instructions", k->ptx_instructions);
    else
        json_null(j, "ptx_instructions");
    if (line >= 0) {
        const cudw_corr_line_fn *v;
        size_t n = cudw_corr_line_functions(c, (size_t)line, &v);
        json_arr(j, "functions");
        for (size_t i = 0; i < n; i++) {
            json_obj(j, NULL);
            json_str(j, "function", v[i].function);
            json_u64(j, "sass_bytes", v[i].sass_bytes);
            json_u64(j, "sass_instructions", v[i].sass_instructions);
            json_end_obj(j);
        }
        json_end_arr(j);
        const cudw_corr_caller *w;
        size_t m = cudw_corr_line_callers(c, (size_t)line, &w);
        json_arr(j, "callers"); /* the call sites it was inlined at */
        for (size_t i = 0; i < m; i++) {
            json_obj(j, NULL);
            json_str(j, "path", w[i].file);
            json_u64(j, "line", w[i].line);
            json_str(j, "function", w[i].function);
            json_u64(j, "sass_bytes", w[i].sass_bytes);
            json_u64(j, "sass_instructions", w[i].sass_instructions);
            json_end_obj(j);
        }
        json_end_arr(j);
    }
    json_end_obj(j);
}

/* The .loc chain of an instruction whose frames it is not. */
static void loc_json(const corr_opts *o, const cudw_correlation *c, const cudw_corr_insn *in, json *j)
{
    const cudw_ptx *p = cudw_corr_ptx_get(c, in->ptx)->ptx;
    json_obj(j, "loc");
    json_u64(j, "ptx_line", cudw_ptx_loc_get(p, in->loc)->ptx_line);
    json_str(j, "reason", cudw_corr_reason_name(in->reason));
    json_arr(j, "frames");
    for (size_t k = in->loc; k; k = cudw_ptx_loc_get(p, k)->inlined_at) {
        const cudw_ptx_loc *l = cudw_ptx_loc_get(p, k);
        const cudw_ptx_file *pf = cudw_ptx_file_find(p, l->file);
        json_obj(j, NULL);
        char buf[4096];
        const char *name = l->name;
        if (name && o->demangle && cudw_demangle(name, buf, sizeof buf) && strlen(buf) < sizeof buf - 1)
            name = buf;
        json_str(j, "function", name);
        json_str(j, "path", pf ? pf->path : NULL);
        json_u64(j, "line", l->line);
        json_u64(j, "column", l->column);
        json_u64(j, "ptx_line", l->ptx_line);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

void correlate_json(const corr_opts *o, cudw_correlation *c, json *j)
{
    const cudw_corr_summary *s = cudw_corr_summary_get(c);
    json_obj(j, NULL);
    json_str(j, "image", s->image);
    json_u64(j, "sm", s->sm);
    json_u64(j, "code_bytes", s->code_bytes);
    json_u64(j, "sass_bytes", s->sass_bytes);
    json_u64(j, "capsule_bytes", s->capsule_bytes);
    json_u64(j, "instruction_count", s->instructions);
    json_u64(j, "with_line", s->with_line);
    json_u64(j, "with_ptx", s->with_ptx);
    json_u64(j, "disagree", s->disagree);
    json_str(j, "ptx_instructions_by", s->ptx_by_loc ? "loc" : "sass");
    json_arr(j, "ptx");
    for (size_t i = 0, n = cudw_corr_ptx_count(c); i < n; i++) {
        const cudw_corr_ptx *p = cudw_corr_ptx_get(c, i);
        json_obj(j, NULL);
        json_str(j, "source", p->from == CUDW_PTX_FROM_FILE ? "file" : p->from == CUDW_PTX_FROM_FATBIN ? "fatbin"
                                                                                                      : "section");
        json_str(j, "name", p->name);
        json_str(j, "section", p->section->name);
        json_u64(j, "lines", p->lines);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_arr(j, "instructions");
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        json_obj(j, NULL);
        json_str(j, "section", in->section_name);
        json_u64(j, "pc", in->pc);
        json_str(j, "symbol", in->symbol);
        if (in->symbol)
            json_u64(j, "offset", in->offset);
        if (in->func && (!in->symbol || strcmp(in->func, in->symbol))) { /* a callee ptxas placed in the section */
            json_str(j, "function_symbol", in->func);
            json_u64(j, "function_offset", in->func_offset);
        }
        json_u64(j, "size", in->size);
        if (in->ptx_line) {
            if (in->ptx != CUDW_CORR_NO_TEXT)
                json_u64(j, "ptx", in->ptx);
            else
                json_null(j, "ptx");
            json_u64(j, "ptx_line", in->ptx_line);
        } else {
            json_null(j, "ptx_line");
        }
        size_t nf;
        const cudw_sym_frame *fr = cudw_corr_frames(c, i, &nf);
        frames_json(j, "frames", fr, nf, o->demangle);
        if (in->reason)
            loc_json(o, c, in, j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_arr(j, "source_lines");
    for (size_t i = 0, n = cudw_corr_line_count(c); i < n; i++)
        cost_json(j, c, cudw_corr_line_get(c, i), "path", (long)i, 1);
    json_end_arr(j);
    json_arr(j, "functions");
    for (size_t i = 0, n = cudw_corr_function_count(c); i < n; i++)
        cost_json(j, c, cudw_corr_function_get(c, i), "function", -1, s->ptx_by_loc);
    json_end_arr(j);
    json_arr(j, "files");
    for (size_t i = 0, n = cudw_corr_file_count(c); i < n; i++)
        cost_json(j, c, cudw_corr_file_get(c, i), "path", -1, s->ptx_by_loc);
    json_end_arr(j);
    json_end_obj(j);
}

