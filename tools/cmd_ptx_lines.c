/* cudwarf ptx-lines: what a PTX file's .locs say, per instruction line;
 * with --predict, the line section ptxas writes from them into a cubin;
 * and verify --ptx, the rows where the cubin differs from that. */
#include "cli.h"
#include "emit.h"

#include <stdio.h>
#include "lines_out.h"
#include "opts.h"

#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf ptx-lines [--json] [--sm=N] FILE.ptx|BINARY\n"
    "       cudwarf ptx-lines --predict CUBIN [--section NAME] [-o OUT] [--json]\n"
    "                         FILE.ptx|BINARY\n"
    "       cudwarf verify --ptx FILE.ptx CUBIN\n"
    "\n"
    "Read the .file and .loc directives of a PTX file as ptxas does (its stage\n"
    "1): for every instruction line, the source file, line and column of the\n"
    ".loc in effect, its inline chain (each function_name and inlined_at), and\n"
    "the PTX function.  Problems ptxas rejects (an inlined_at no earlier .loc\n"
    "matches, a malformed directive) are errors naming FILE.ptx:LINE:COLUMN;\n"
    "what it accepts but writes wrong (a file number no .file declares) is a\n"
    "warning on stderr.  Given a fatbin, host ELF or archive instead, it reads\n"
    "the PTX entry nvcc embedded.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "verify --ptx lists the rows where CUBIN's section differs from the\n"
    "prediction (both sections of an sm_100+ cubin).\n"
    "\n"
    "Exit status: 0 success (--predict, verify --ptx: the sections are\n"
    "identical), 1 bad input or a difference, 2 usage.\n";

void ptx_diag_report(const char *name, const cudw_ptx_diag *d, const char *kind)
{
    if (!d)
        eprintf("%s: %s: out of memory\n", progname, name);
    else if (d->line && d->column)
        eprintf("%s: %s:%llu:%llu: %s%s\n", progname, name, (unsigned long long)d->line,
                (unsigned long long)d->column, kind, d->text);
    else if (d->line)
        eprintf("%s: %s:%llu: %s%s\n", progname, name, (unsigned long long)d->line, kind, d->text);
    else /* no place in the text: the file's own trouble */
        eprintf("%s: %s: %s%s\n", progname, name, kind, d->text);
}

static void diag_print(const cudw_ptx *p, const cudw_ptx_diag *d, const char *kind)
{
    ptx_diag_report(cudw_ptx_name(p), d, kind);
}

/* A PTX entry of a fatbin, host ELF or archive, read in place: its
 * image stays loaded until ptx_done. */
static cudw_input *entry_in;
static cudw_image *entry_img;

static void ptx_done(cudw_ptx *p)
{
    cudw_ptx_close(p);
    cudw_image_close(entry_img);
    cudw_input_close(entry_in);
    entry_img = NULL;
    entry_in = NULL;
}

/* Not PTX text: an ELF, a fatbin or an archive (by its first bytes). */
static int is_container(const char *path)
{
    unsigned char h[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    return n >= 4 && (!memcmp(h, "\x7f" "ELF", 4) || !memcmp(h, "\x50\xed\x55\xba", 4) ||
                      (n == 8 && !memcmp(h, "!<arch>\n", 8)));
}

/* The PTX entry of path that --sm selects (the first, with a note, when
 * several do), read; NULL after a message. */
static cudw_ptx *entry_or_report(const char *path)
{
    if (!(entry_in = open_input(path)))
        return NULL;
    size_t pick = (size_t)-1, count = 0;
    for (size_t i = 0, n = cudw_input_count(entry_in); i < n; i++) {
        const cudw_input_image *im = cudw_input_peek(entry_in, i);
        if (im->kind == CUDW_FATBIN_PTX && (!sel_sm || cudw_input_image_is(im, sel_sm, sel_variant)) && !count++)
            pick = i;
    }
    if (!count) {
        char sms[256];
        if (sel_sm && cudw_input_sms(entry_in, CUDW_FATBIN_PTX, sms, sizeof sms)[0])
            eprintf("%s: %s: no compute_%u%s PTX entry (it has %s)\n", progname, path, sel_sm,
                    sel_variant == 'a' ? "a" : sel_variant == 'f' ? "f" : "", sms);
        else if (cudw_input_type(entry_in) == CUDW_INPUT_CUBIN)
            eprintf("%s: %s: a cubin holds no PTX: give the .ptx file nvcc -ptx or -keep wrote, "
                    "or a fatbin or executable built with PTX\n", progname, path);
        else
            eprintf("%s: %s: no PTX entry in it (built without compute_N in -gencode): give the .ptx file "
                    "nvcc -ptx or -keep wrote\n", progname, path);
        ptx_done(NULL);
        return NULL;
    }
    if (count > 1)
        eprintf("%s: %s: note: %zu PTX entries; reading %s (--sm=N chooses)\n", progname, path, count,
                cudw_input_peek(entry_in, pick)->label);
    if (!(entry_img = load_or_report(entry_in, pick))) {
        ptx_done(NULL);
        return NULL;
    }
    cudw_ptx *p = NULL;
    if (cudw_ptx_read((const char *)entry_img->data, entry_img->size, entry_img->info->label, &p)) {
        if (p)
            diag_print(p, cudw_ptx_error(p), "");
        else
            eprintf("%s: %s: out of memory\n", progname, path);
        ptx_done(p);
        return NULL;
    }
    return p;
}

/* PTX opens with its .version directive, after comments at most (nvcc,
 * NVRTC and LLVM all write it first): without one in its first 64 KiB a
 * file is no PTX -- a .cu source, say -- and is refused, not read as PTX
 * without directives. */
static int looks_like_ptx(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 1; /* cudw_ptx_open says why */
    static char head[65537];
    size_t n = fread(head, 1, sizeof head - 1, fp);
    fclose(fp);
    head[n] = 0;
    return strstr(head, ".version") != NULL;
}

/* open FILE.ptx (or a binary's PTX entry); errors and warnings on stderr */
static cudw_ptx *ptx_or_report(const char *path)
{
    cudw_ptx *p = NULL;
    if (!is_container(path) && !looks_like_ptx(path)) {
        eprintf("%s: %s: not PTX (no .version directive): a CUDA source? `nvcc -ptx FILE.cu` writes its PTX\n",
                progname, path);
        return NULL;
    }
    if (is_container(path)) {
        if (!(p = entry_or_report(path)))
            return NULL;
        for (size_t i = 0; i < cudw_ptx_warning_count(p); i++)
            diag_print(p, cudw_ptx_warning_get(p, i), "warning: ");
        return p;
    }
    int rc = cudw_ptx_open(path, &p);
    if (rc) {
        if (!p)
            eprintf("%s: %s: out of memory\n", progname, path);
        else if (rc == CUDW_E_IO)
            eprintf("%s: %s: %s\n", progname, path, cudw_ptx_error(p)->text);
        else
            diag_print(p, cudw_ptx_error(p), "");
        ptx_done(p);
        return NULL;
    }
    for (size_t i = 0; i < cudw_ptx_warning_count(p); i++)
        diag_print(p, cudw_ptx_warning_get(p, i), "warning: ");
    return p;
}

static const char *file_path(const cudw_ptx *p, uint64_t n)
{
    const cudw_ptx_file *fe = cudw_ptx_file_find(p, n);
    return fe ? fe->path : NULL;
}

/* A PTX instruction line's source, through the emitter (emit.h): JSON its
 * innermost location and every frame; the text one line, the chain
 * innermost first ("FILE:LINE:COL (callee) inlined at ...") and the PTX
 * function last. */
static void insn_print(emit *m, const cudw_ptx *p, const cudw_ptx_insn *in)
{
    const cudw_ptx_func *fn = cudw_ptx_func_get(p, in->function);
    const cudw_ptx_loc *L = cudw_ptx_loc_get(p, in->loc);
    em_obj(m, NULL);
    em_num(m, "ptx_line", "", 7, (int64_t)in->line);
    em_text(m, "  ");
    em_str(m, "function", NULL, 0, fn->name);
    if (L) { /* the innermost location: JSON's alone, the text shows it as the first frame */
        em_u64(m, "file", NULL, 0, L->file);
        em_str(m, "path", NULL, 0, file_path(p, L->file));
        em_u64(m, "line", NULL, 0, L->line);
        em_u64(m, "column", NULL, 0, L->column);
    } else { /* no .loc in effect: the text says ??:0 */
        em_null(m, "file");
        em_null(m, "path");
        em_u64(m, "line", "??:", EM_DEC, 0);
        em_u64(m, "column", NULL, 0, 0);
    }
    em_arr(m, "frames"); /* innermost first, as addr2line --json */
    for (size_t k = in->loc; k;) {
        const cudw_ptx_loc *x = cudw_ptx_loc_get(p, k);
        const char *path = file_path(p, x->file), *name = x->inlined_at ? (x->name ? x->name : x->label) : fn->name;
        em_obj(m, NULL);
        em_text(m, k != in->loc ? " inlined at " : "");
        em_str(m, "function", NULL, 0, name);
        em_str(m, "path", path ? "" : NULL, 0, path);
        if (!path) /* a file number no .file declares */
            em_u64(m, NULL, "file", EM_DEC, x->file);
        em_u64(m, "line", ":", EM_DEC, x->line);
        em_u64(m, "column", ":", EM_DEC, x->column);
        if (x->inlined_at) {
            em_str(m, NULL, " (", 0, name);
            em_text(m, ")");
        }
        em_end_obj(m);
        k = x->inlined_at;
    }
    em_end_arr(m);
    em_str(m, NULL, "  ", 0, fn->name);
    em_text(m, "\n");
    em_end_obj(m);
}

/* rows in the `lines --json` schema (its printer); contexts numbered as
 * ptxas does */
static void rows_json(cudw_file *f, const cudw_ptx_prediction *pr, json *j)
{
    const cudw_line_table *t = pr->table;
    lopts o = {0};
    ltab x = {.f = f, .t = t, .o = &o};
    emit e = {j, NULL};
    json_arr(j, "rows");
    for (size_t i = 0; i < pr->nrows; i++) {
        cudw_line_row r = pr->rows[i]; /* a prediction's rows name their functions by offset */
        r.function = r.context && t ? cudw_line_function_name(t, r.function_offset) : NULL;
        row_full(&e, &x, &r);
    }
    json_end_arr(j);
    ltab_free(&x);
}

/* the section's bytes in f, or NULL */
static const cudw_section *own_section(cudw_file *f, const char *name, const uint8_t **data, size_t *size)
{
    const cudw_section *s = cudw_section_find(f, name);
    *data = s ? s->data : NULL;
    *size = s && s->data ? (size_t)s->data_size : 0;
    return s;
}

/* Predict one section of f into *pr (free it): 0 identical to f's, 1
 * different (or f has none), -1 failed (reported). */
static int predict(cudw_file *f, const char *cubin, const cudw_ptx *p, const char *section, cudw_ptx_prediction *pr)
{
    if (cudw_ptx_predict(f, p, section, pr) != CUDW_OK) {
        report(f, cubin);
        return -1;
    }
    const uint8_t *d;
    size_t n;
    if (!own_section(f, section, &d, &n))
        return 1;
    return !(n == pr->unit.size && !memcmp(d, pr->unit.data, n));
}

static int check_text(cudw_file *f, const char *cubin, const cudw_ptx *p)
{
    uint64_t line;
    if (cudw_ptx_matches(f, p, NULL, &line) != CUDW_OK) {
        report(f, cubin);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* an opcode as dump --line shows it, for the first difference */
static void op_text(const cudw_line_op *o, char *buf, size_t n)
{
    const char *name = o->kind == CUDW_LOP_SPECIAL ? "special" : cudw_line_op_name(o->opcode, o->kind == CUDW_LOP_EXTENDED);
    if (o->kind == CUDW_LOP_SPECIAL)
        snprintf(buf, n, "special %u", o->opcode);
    else if (o->kind == CUDW_LOP_EXTENDED && o->opcode == CUDW_LNE_INLINED_CALL)
        snprintf(buf, n, "%s (%llu, %llu)", name ? name : "?", (unsigned long long)o->u, (unsigned long long)o->u2);
    else if (o->kind == CUDW_LOP_STANDARD && o->opcode == CUDW_DW_LNS_advance_line)
        snprintf(buf, n, "%s %lld", name ? name : "?", (long long)o->s);
    else
        snprintf(buf, n, "%s %llu", name ? name : "?", (unsigned long long)o->u);
}

/* Where f's section parts from the prediction (cudw_ptx_compare): the
 * first opcode and the first row.  1 when the rows differ too. */
static int print_diff(const char *cubin, const char *section, const cudw_ptx_diff *d)
{
    char a[96] = "nothing", b[96] = "nothing";
    if (d->has_own_op)
        op_text(&d->own_op, a, sizeof a);
    if (d->has_predicted_op)
        op_text(&d->predicted_op, b, sizeof b);
    if (d->has_own_op || d->has_predicted_op)
        ob_printf(&out_stdout, "%s: %s opcode %zu%s: cubin %s, predicted %s\n", cubin, section, d->op,
                  d->has_own_op ? "" : " (past the cubin's last)", a, b);
    if (d->row == SIZE_MAX)
        return 0;
    const cudw_line_row *r = &d->own_row, *q = &d->predicted_row;
    ob_printf(&out_stdout, "%s: %s row %zu: cubin ", cubin, section, d->row + 1);
    if (d->has_own_row)
        ob_printf(&out_stdout, "0x%llx %llu:%llu ctx %llu (sequence %llu, %s+0x%llx)", (unsigned long long)r->address,
                  (unsigned long long)r->file, (unsigned long long)r->line, (unsigned long long)r->context,
                  (unsigned long long)r->sequence, r->symbol ? r->symbol : "?",
                  (unsigned long long)(r->address - r->symbol_value));
    else
        ob_puts(&out_stdout, "nothing");
    if (d->has_predicted_row)
        ob_printf(&out_stdout, ", predicted 0x%llx %llu:%llu ctx %llu\n", (unsigned long long)q->address,
                  (unsigned long long)q->file, (unsigned long long)q->line, (unsigned long long)q->context);
    else
        ob_puts(&out_stdout, ", predicted nothing\n");
    return 1;
}

/* One section of f against the prediction: 0 identical, 1 not, -1 failed. */
static int verify_section(cudw_file *f, const char *cubin, const cudw_ptx *p, const char *ptx, const char *section)
{
    cudw_ptx_prediction pr;
    cudw_ptx_diff d;
    if (cudw_ptx_predict(f, p, section, &pr) != CUDW_OK || cudw_ptx_compare(f, &pr, &d) != CUDW_OK) {
        report(f, cubin);
        cudw_ptx_prediction_free(&pr);
        return -1;
    }
    if (d.identical)
        ob_printf(&out_stdout, "%s: %s is what ptxas writes for %s (%zu rows)\n", cubin, section, ptx, pr.nrows);
    else {
        int rows_differ = !d.has_table || print_diff(cubin, section, &d);
        ob_printf(&out_stdout, "%s: %s differs from what ptxas writes for %s%s\n", cubin, section, ptx,
                  rows_differ ? "" : " (the rows agree; the opcodes that carry them do not)");
    }
    cudw_ptx_prediction_free(&pr);
    return !d.identical;
}

int ptx_verify(const char *ptx, const char *cubin)
{
    cudw_ptx *p = ptx_or_report(ptx);
    if (!p)
        return EXIT_BAD_INPUT;
    cudw_file *f = open_or_report(cubin);
    int rc = f ? check_text(f, cubin, p) : EXIT_BAD_INPUT;
    static const char *const secs[] = {".debug_line", ".nv.merc.debug_line"};
    size_t checked = 0;
    int differs = 0; /* every table is checked: a differing .debug_line says nothing of Mercury's */
    for (size_t s = 0; s < 2 && rc == EXIT_OK; s++) {
        if (!cudw_section_find(f, secs[s]))
            continue;
        int d = verify_section(f, cubin, p, ptx, secs[s]);
        if (d < 0)
            rc = EXIT_BAD_INPUT;
        checked++;
        differs |= d > 0;
    }
    if (rc == EXIT_OK && differs)
        rc = EXIT_BAD_INPUT;
    if (rc == EXIT_OK && !checked) {
        eprintf("%s: %s: no .debug_line to check\n", progname, cubin);
        rc = EXIT_BAD_INPUT;
    }
    cudw_close(f);
    ptx_done(p);
    return rc;
}

static const cli_opt table[] = {
    {"--predict", 0, "CUBIN", 2, "the line section ptxas writes into CUBIN (made by ptxas\n"
                                 "from FILE.ptx) from the .locs and CUBIN's\n"
                                 ".nv_debug_line_sass; FILE.ptx is first checked against\n"
                                 "CUBIN's .nv_debug_ptx_txt.  Prints the rows as `lines`\n"
                                 "does and says whether CUBIN's own section is identical"},
    {"--section", 0, "NAME", 3, ".debug_line (default) or .nv.merc.debug_line"},
    {NULL, 'o', "OUT", 4, "write the predicted section's bytes (written whole or\n"
                          "not at all); relocation sites as line-encode gives them"},
    {"--sm", 0, "=N", OPT_GLOBAL, "BINARY's compute_N PTX entry (default: the first, with a\n"
                                  "note when it has several)"},
    {"--json", 0, NULL, 1, "ptx-lines: [{ptx_line, function, file, path, line,\n"
                           "column, frames: [{function, path, line, column}]}];\n"
                           "--predict: rows in the schema of `lines --json`"},
    {"--output", 0, "OUT", 4, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

int cmd_ptx_lines(int argc, char **argv)
{
    const char *cubin = NULL, *section = NULL, *out = NULL, *ptx = NULL;
    int as_json = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "ptx-lines", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 19, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case 1: as_json = 1; break;
        case 2: cubin = a.value; break;
        case 3: section = a.value; break;
        case 4: out = a.value; break;
        case OPT_POS:
            if (ptx) {
                usage_error("ptx-lines", "one PTX file (%s and %s given)", ptx, a.value);
                return EXIT_USAGE;
            }
            ptx = a.value;
            break;
        }
    }
    if (!ptx) {
        usage_error("ptx-lines", "no PTX file given");
        return EXIT_USAGE;
    }
    if ((section || out) && !cubin) {
        usage_error("ptx-lines", "%s needs --predict CUBIN", section ? "--section" : "-o");
        return EXIT_USAGE;
    }
    cudw_ptx *p = ptx_or_report(ptx);
    if (!p)
        return EXIT_BAD_INPUT;
    json j;
    json_init(&j, &out_stdout);
    int rc = EXIT_OK;
    if (!cubin) {
        cudw_ptx_walk w = {0};
        cudw_ptx_insn in;
        if (as_json)
            json_arr(&j, NULL);
        else
            ob_printf(&out_stdout, "%s:\n\n%7s  %s\n", ptx, "PTX", "source (innermost first)  function");
        while (cudw_ptx_insn_next(p, &w, &in) == CUDW_OK)
            insn_print(&(emit){as_json ? &j : NULL, &out_stdout}, p, &in);
        if (as_json) {
            json_end_arr(&j);
            ob_putc(&out_stdout, '\n');
        }
        ptx_done(p);
        return EXIT_OK;
    }
    cudw_file *f = open_or_report(cubin);
    if (!f) {
        ptx_done(p);
        return EXIT_BAD_INPUT;
    }
    if (!section)
        section = ".debug_line";
    cudw_ptx_prediction pr;
    if ((rc = check_text(f, cubin, p)) == EXIT_OK) {
        int d = predict(f, cubin, p, section, &pr);
        if (d < 0) {
            rc = EXIT_BAD_INPUT;
        } else {
            const uint8_t *own;
            size_t n;
            int has = own_section(f, section, &own, &n) != NULL;
            if (out) {
                char err[256];
                if (write_file_atomic(out, pr.unit.data, pr.unit.size, err, sizeof err)) {
                    eprintf("%s: %s: %s\n", progname, out, err);
                    rc = EXIT_BAD_INPUT;
                }
            }
            if (as_json) {
                json_arr(&j, NULL);
                json_obj(&j, NULL);
                json_str(&j, "file", cubin);
                json_str(&j, "ptx", ptx);
                json_str(&j, "section", section);
                json_u64(&j, "size", pr.unit.size);
                if (has)
                    json_bool(&j, "identical", !d);
                else
                    json_null(&j, "identical");
                rows_json(f, &pr, &j);
                json_end_obj(&j);
                json_end_arr(&j);
                ob_putc(&out_stdout, '\n');
            } else if (!out) {
                ob_printf(&out_stdout, "%s: %s predicted from %s: %zu bytes, %zu rows: %s\n", cubin, section, ptx,
                          pr.unit.size, pr.nrows,
                          !has ? "the cubin has no such section" : d ? "differs from the cubin's" : "identical");
            }
            if (rc == EXIT_OK && has && d)
                rc = EXIT_BAD_INPUT;
            cudw_ptx_prediction_free(&pr);
        }
    }
    cudw_close(f);
    ptx_done(p);
    return rc;
}
