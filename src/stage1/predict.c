/* cudw_ptx_predict: the rows of stage 1 (model.c) encoded as a unit
 * with the header of the cubin's own table (or, without one, the header
 * ptxas builds from the .file directives). */
#include "internal.h"
#include "ptx/ptx_handle.h"

void cudw_ptx_prediction_free(cudw_ptx_prediction *pr)
{
    if (!pr)
        return;
    free(pr->ops);
    free(pr->rows);
    cudw_line_out_free(&pr->unit);
    memset(pr, 0, sizeof *pr);
}

int cudw_ptx_predict(cudw_file *f, const cudw_ptx *p, const char *section, cudw_ptx_prediction *out)
{
    return ptx_predict_with(f, p, section, 0, out);
}

/* The opcodes ptxas writes for rows w[0..n), and the rows a decoder
 * reads from them (what is not a row left out). */
static int outputs(const cudw_line_params *prm, const line_wrow *w, size_t n, cudw_ptx_prediction *out)
{
    lop_vec o = {0};
    int rc = line_rows_to_ops(prm, w, n, &o, &out->unit.err); /* what failed: on the unit, as the encoder's */
    out->ops = o.v;
    out->nops = o.n;
    if (rc)
        return rc;
    if (!(out->rows = malloc((n ? n : 1) * sizeof *out->rows)))
        return CUDW_E_NOMEM;
    uint64_t seq = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i].hidden)
            continue;
        out->rows[out->nrows++] = (cudw_line_row){
            .address = w[i].address, .symbol = w[i].symbol, .symbol_value = w[i].symbol_value,
            .symtab = w[i].symtab, .file = w[i].file, .line = w[i].line, .is_stmt = w[i].is_stmt,
            .end_sequence = w[i].end_sequence, .merc_flag = w[i].merc_flag, .context = w[i].context,
            .function_offset = w[i].function_offset, .sequence = seq, .index = w[i].index};
        seq += w[i].end_sequence;
    }
    return CUDW_OK;
}

int ptx_predict_with(cudw_file *f, const cudw_ptx *p, const char *section, uint64_t off, cudw_ptx_prediction *out)
{
    memset(out, 0, sizeof *out);
    if (!section)
        section = ".debug_line";
    int merc = !strncmp(section, ".nv.merc.", 9);
    const char *sname = merc ? ".nv.merc.nv_debug_line_sass" : ".nv_debug_line_sass";
    const cudw_section *ss = cudw_section_find(f, sname);
    if (!ss)
        return file_fail(f, CUDW_E_NOT_FOUND, NULL, 0, "line table",
                         "no %s section: the SASS-to-PTX rows stage 1 starts from", sname);
    out->line_sass = ss;
    uint64_t cur = 0;
    const cudw_line_table *st;
    int rc = cudw_line_table_next(f, ss, &cur, &st);
    if (rc == CUDW_DONE)
        return file_fail(f, CUDW_E_NOT_FOUND, ss, 0, "line table", "the section holds no table");
    if (rc < 0)
        return rc;
    const cudw_section *ls = cudw_section_find(f, section);
    cur = 0;
    if (ls && cudw_line_table_next(f, ls, &cur, &out->table) != CUDW_OK)
        out->table = NULL;
    const cudw_line_table *t = out->table;
    cudw_line_params prm = cudw_line_params_nvidia();
    cudw_line_header_in h = {0};
    char **dirs = NULL;
    size_t ndirs = 0, nfiles = 0;
    cudw_line_file *files = NULL;
    if (t) {
        prm.version = t->version;
        prm.min_inst_length = t->min_inst_length;
        prm.default_is_stmt = t->default_is_stmt;
        prm.line_base = t->line_base;
        prm.line_range = t->line_range;
        prm.opcode_base = t->opcode_base;
        h.dirs = t->dirs;
        h.ndirs = t->ndirs;
        h.files = t->files;
        h.nfiles = t->nfiles;
        h.has_str_base = t->has_str_base;
        h.str_base = t->str_base_raw;
        h.str_base_symbol = t->str_base_reloc ? t->str_base_reloc->sym_name : NULL;
    } else {
        if ((rc = cudw_ptx_header(p, &dirs, &ndirs, &files, &nfiles)))
            return file_fail(f, rc, NULL, 0, "PTX lines", "out of memory");
        h.dirs = (const char *const *)dirs;
        h.ndirs = ndirs;
        h.files = files;
        h.nfiles = nfiles;
    }
    /* sm_90 and later defer a same-line .loc; Mercury tables do not */
    ptx_dialect d = merc ? PTXD_MERCURY : cudw_header(f)->sm >= 90 ? PTXD_DELAYED : PTXD_IMMEDIATE;
    /* the generator needs the header's special opcodes (entry_repeat) */
    line_wrow *w = NULL;
    size_t nw = 0;
    int gen_rc = ptx_gen_run(f, p, st, d, off, &prm, &w, &nw);
    if (gen_rc == CUDW_OK)
        gen_rc = outputs(&prm, w, nw, out);
    free(w);
    if (gen_rc == CUDW_E_NOMEM)
        file_fail(f, gen_rc, ss, 0, "PTX lines", "out of memory");
    else if (gen_rc < 0 && out->unit.err.code) /* the rows' opcodes could not be chosen (a fuzzed table) */
        gen_rc = file_fail(f, gen_rc, ss, 0, "PTX lines", "encoding the predicted rows: %s", out->unit.err.detail);
    rc = gen_rc < 0 ? gen_rc : cudw_line_encode_ops(&prm, &h, out->ops, out->nops, &out->unit);
    for (size_t i = 0; i < ndirs; i++)
        free(dirs[i]);
    free(dirs);
    free(files);
    if (gen_rc < 0)
        return gen_rc;
    if (rc)
        return file_fail(f, rc, ss, 0, "PTX lines", "encoding the predicted rows: %s", out->unit.err.detail);
    return CUDW_OK;
}

static int same_op(const cudw_line_op *a, const cudw_line_op *b)
{
    return a->kind == b->kind && a->opcode == b->opcode && a->u == b->u && a->s == b->s && a->u2 == b->u2;
}

static int same_row(const cudw_line_row *a, const cudw_line_row *b)
{
    return a->address == b->address && a->file == b->file && a->line == b->line && a->context == b->context &&
           a->function_offset == b->function_offset && a->end_sequence == b->end_sequence;
}

/* The first opcode of t that is not pr's. */
static int first_op(const cudw_line_table *t, const cudw_ptx_prediction *pr, cudw_ptx_diff *out)
{
    uint64_t pos = t->program_offset;
    int rc;
    size_t k = 0;
    while ((rc = cudw_line_op_next(t, &pos, &out->own_op)) == CUDW_OK && k < pr->nops &&
           same_op(&out->own_op, &pr->ops[k]))
        k++;
    if (rc < 0)
        return rc;
    out->op = k;
    out->has_own_op = rc == CUDW_OK;
    if ((out->has_predicted_op = k < pr->nops))
        out->predicted_op = pr->ops[k];
    return CUDW_OK;
}

/* The first row of t that is not pr's. */
static int first_row(const cudw_line_table *t, const cudw_ptx_prediction *pr, cudw_ptx_diff *out)
{
    cudw_line_iter it;
    size_t k = 0;
    int rc;
    cudw_line_iter_init(t, &it, 0);
    while ((rc = cudw_line_next(&it, &out->own_row)) == CUDW_OK && k < pr->nrows &&
           same_row(&out->own_row, &pr->rows[k]))
        k++;
    cudw_line_iter_free(&it);
    if (rc < 0)
        return rc;
    out->has_own_row = rc == CUDW_OK;
    if ((out->has_predicted_row = k < pr->nrows))
        out->predicted_row = pr->rows[k];
    out->row = out->has_own_row || out->has_predicted_row ? k : SIZE_MAX;
    return CUDW_OK;
}

int cudw_ptx_compare(cudw_file *f, const cudw_ptx_prediction *pr, cudw_ptx_diff *out)
{
    (void)f; /* the table's errors are on its file, which is f */
    memset(out, 0, sizeof *out);
    out->row = SIZE_MAX;
    const cudw_line_table *t = pr->table;
    if (!t)
        return CUDW_OK;
    out->has_table = 1;
    const cudw_section *s = t->section;
    out->identical = s->data_size == pr->unit.size && !memcmp(s->data, pr->unit.data, pr->unit.size);
    if (out->identical)
        return CUDW_OK;
    int rc = first_op(t, pr, out);
    return rc ? rc : first_row(t, pr, out);
}
