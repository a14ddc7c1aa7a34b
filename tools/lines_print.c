/* cudwarf lines' two records, each printed once in two styles (emit.h):
 *
 *   the short form   text (the default): a table's files once, each
 *                    sequence's symbol once, rows of file number:line and
 *                    flags, an inlined function's name at its first row;
 *                    JSON --compact: the same, rows without their default
 *                    values, the inlined functions listed once a table
 *   the full form    text --long: every row on one line with all it means
 *                    (for grep); JSON (the default): every row an object
 *                    with all it means, as reference readers take rows
 *
 * Rows stream as they decode: memory stays one row (and a table's
 * function names), `| head` answers at once. */
#include "lines_out.h"

#include <stdlib.h>
#include <string.h>

/* tfunc.shown of a name -C leaves as it is (not a C++ name) */
static char as_is[1];

void tinfo_free(tinfo *ti)
{
    for (size_t i = 0; i < ti->n; i++)
        if (ti->v[i].shown != as_is)
            free(ti->v[i].shown);
    free(ti->v);
    keyidx_free(&ti->idx);
    memset(ti, 0, sizeof *ti);
}

size_t fn_number(const tinfo *ti, uint64_t off)
{
    size_t at = 0;
    uint32_t r = keyidx_find(&ti->idx, off, &at);
    return r == KEYIDX_NONE ? 0 : r + 1;
}

int fn_add(tinfo *ti, uint64_t off, const char *name)
{
    if (fn_number(ti, off))
        return 0;
    tfunc *v = keyidx_room(ti->v, &ti->cap, ti->n, sizeof *v, 16);
    if (!v)
        return -1;
    ti->v = v;
    if (keyidx_add(&ti->idx, off, (uint32_t)ti->n))
        return -1;
    ti->v[ti->n++] = (tfunc){off, name, NULL};
    return 0;
}

const char *ptx_text(cudw_file *f, const cudw_line_table *t, const cudw_line_row *r)
{
    const cudw_section *p = cudw_ptx_section_for(f, t, r->file);
    const char *text;
    if (!p || cudw_ptx_line(f, p, r->line, &text) != CUDW_OK)
        return NULL;
    return text;
}

const char *row_path(cudw_file *f, const cudw_line_table *t, int sass, uint64_t file)
{
    const char *path = cudw_line_file_path(t, file);
    if (!path && sass && !file) {
        const cudw_section *ps = cudw_ptx_section_for(f, t, file);
        path = ps ? ps->name : NULL;
    }
    return path;
}

/* The table's header: JSON the header dump --line --json gives (with the
 * files' paths); the text one line of it and, in the short form, the
 * files.  The JSON object stays open for the rows. */
static void head_print(emit *e, ltab *x, int files)
{
    const cudw_line_table *t = x->t;
    em_obj(e, NULL);
    if (e->j) {
        line_header_json(x->f, t, LH_PATHS | (x->sass ? LH_PTX : 0), e->j);
        return;
    }
    em_str(e, NULL, "", 0, t->section->name);
    em_u64(e, NULL, " table at 0x", EM_HEX, t->offset);
    em_u64(e, NULL, ": version ", EM_DEC, t->version);
    em_u64(e, NULL, ", ", EM_DEC, t->nfiles);
    em_text(e, t->nfiles == 1 ? " file" : " files");
    if (t->has_str_base) {
        em_u64(e, NULL, ", .debug_str base 0x", EM_HEX, t->str_base);
        if (t->str_base_reloc) {
            em_text(e, " (");
            reloc_out(t->str_base_reloc, e->o);
            em_text(e, ")");
        }
    }
    em_text(e, "\n");
    for (size_t i = 0; files && i < t->nfiles; i++) {
        em_u64(e, NULL, "  file ", EM_DEC, i + 1);
        em_str(e, NULL, ": ", 0, t->files[i].path);
        em_text(e, "\n");
    }
    if (files && x->ptx_only) { /* no file table: the rows count lines in the image's PTX text */
        em_str(e, NULL, "  file 0: ", 0, x->ptx_only);
        em_text(e, " (the PTX text)\n");
    }
}

/* Where row r was inlined, beside its row number (which counts ptxas's
 * repeated entry rows once, so is not for counting by eye): the short
 * form's file:line[:column], the full form's path:line[:column] */
static void site_print(emit *e, const ltab *x, const cudw_line_row *r)
{
    const cudw_line_row *s;
    if (!x->it || cudw_line_callsite(x->it, r, &s) != CUDW_OK)
        return;
    if (x->o->long_form)
        em_str_or(e, NULL, " (", row_path(x->f, x->t, x->sass, s->file), "<bad file>");
    else
        em_u64(e, NULL, " (", EM_DEC, s->file);
    em_u64(e, NULL, ":", EM_DEC, s->line);
    if (s->column)
        em_u64(e, NULL, ":", EM_DEC, s->column);
    em_text(e, ")");
}

/* The text's flags (S is_stmt, E end_sequence, M Mercury's 0x92) and the
 * row an inlined row was inlined at; JSON says them as fields. */
static inline void flags_print(emit *e, const ltab *x, const cudw_line_row *r)
{
    if (e->j)
        return;
    char *d = ob_room(e->o, 48);
    if (r->is_stmt || r->end_sequence || r->merc_flag) {
        *d++ = ' ';
        if (r->is_stmt)
            *d++ = 'S';
        if (r->end_sequence)
            *d++ = 'E';
        if (r->merc_flag)
            *d++ = 'M';
    }
    if (r->context) {
        memcpy(d, "  inlined at row ", 17);
        d = put_dec(d + 17, r->context);
    }
    ob_commit(e->o, d);
    if (r->context)
        site_print(e, x, r);
}

/* --ptx: the PTX line a .nv_debug_line_sass row points at */
static inline void ptx_print(emit *e, const ltab *x, const cudw_line_row *r)
{
    if (x->o->ptx && x->sass && !r->end_sequence)
        em_str_or(e, "ptx", "  | ", ptx_text(x->f, x->t, r), "<no such PTX line>");
}

/* The name an inlined function is shown by: -C demangled, once per
 * function (kept beside its number in x->fn; as_is marks a name that
 * stays as it is) */

static const char *fn_shown(ltab *x, uint64_t off, const char *name)
{
    if (!x->o->demangle || !name)
        return name;
    size_t k = fn_number(&x->fn, off);
    if (!k && fn_add(&x->fn, off, name))
        return name;
    tfunc *t = &x->fn.v[(k ? k : x->fn.n) - 1];
    if (!t->shown) {
        char buf[4096];
        size_t need = cudw_demangle(name, buf, sizeof buf);
        t->shown = need && need < sizeof buf ? strdup(buf) : NULL;
        if (!t->shown) /* not a C++ name (or no memory): asked once, shown as it is */
            t->shown = as_is;
    }
    return t->shown != as_is ? t->shown : name;
}

/* JSON: the function's name (with -C demangled, the linkage name beside
 * it, as addr2line --json -C); text: label, then the name or missing */
static void fn_print(emit *e, ltab *x, const char *label, uint64_t off, const char *name, const char *missing)
{
    const char *shown = fn_shown(x, off, name);
    em_str_memo(e, "function", NULL, shown, NULL, &x->func);
    if (shown != name)
        em_str(e, "linkage_name", NULL, 0, name);
    if (label)
        em_str_or(e, NULL, label, shown, missing);
}

/* ---- the full form: --long, --json ---- */

void row_full(emit *style, ltab *x, const cudw_line_row *r)
{
    emit m = *style, *e = &m; /* as row_short's */
    em_obj(e, NULL);
    em_u64(e, "address", "  0x", EM_HEX8, r->address);
    em_text(e, "  ");
    em_str_memo(e, "symbol", NULL, r->symbol, NULL, &x->sym);
    if (r->symbol) {
        em_str_or(e, NULL, "", r->symbol, "");
        em_u64(e, "offset", "+0x", EM_HEX, r->address - r->symbol_value);
        em_text(e, "  ");
    }
    em_u64(e, "file", NULL, 0, r->file);
    /* JSON: the file table's path; the text names a whole-program
     * .nv_debug_line_sass table's file 0 by its PTX text, as addr2line --ptx */
    const char *path = !x->t ? NULL : e->j ? cudw_line_file_path(x->t, r->file) : row_path(x->f, x->t, x->sass, r->file);
    em_str_memo(e, "path", "", path, r->file ? "<bad file>" : "", &x->path);
    em_u64(e, "line", ":", EM_DEC, r->line);
    em_u64(e, "column", NULL, 0, r->column);
    if (r->column)
        em_u64(e, NULL, ":", EM_DEC, r->column);
    em_bool(e, "is_stmt", r->is_stmt);
    em_bool(e, "end_sequence", r->end_sequence);
    em_u64(e, "context", NULL, 0, r->context);
    flags_print(e, x, r);
    fn_print(e, x, r->context ? ": " : NULL, r->function_offset, r->context ? r->function : NULL, "<bad name offset>");
    row_marks(e, r);
    em_u64(e, "sequence", NULL, 0, r->sequence);
    em_u64(e, "row", NULL, 0, r->index);
    ptx_print(e, x, r);
    em_text(e, "\n");
    em_end_obj(e);
}

static int table_full(emit *e, ltab *x)
{
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    head_print(e, x, 0);
    em_arr(e, "rows");
    cudw_line_iter_init(x->t, &it, e->j ? 0 : CUDW_LINE_KEEP_SEQUENCE);
    x->it = e->j ? NULL : &it;
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK)
        row_full(e, x, &r);
    cudw_line_iter_free(&it);
    em_end_arr(e);
    em_end_obj(e);
    return rc < 0 ? -1 : 0;
}

/* ---- the short form: the text's default, --json --compact ---- */

/* A sequence's symbol, once: the text's line before its rows, JSON's
 * object around them (closed at the row that ends it) */
static void sequence_print(emit *e, const cudw_line_row *r)
{
    em_obj(e, NULL);
    em_u64(e, NULL, " sequence ", EM_DEC, r->sequence);
    em_str_or(e, "symbol", ": ", r->symbol, "(no symbol)");
    em_u64(e, "symbol_value", r->symbol_value ? " at 0x" : NULL, EM_HEX, r->symbol_value);
    em_text(e, "\n");
    em_arr(e, "rows");
}

/* The inlined function a row names: the text numbers an inlined row's and
 * names it at its first row; JSON lists every function a row names (its
 * function_offset) after the rows.  fn: its number; *first: named here. */
static int function_number(emit *e, ltab *x, const cudw_line_row *r, size_t *fn, int *first)
{
    *fn = 0;
    *first = 0;
    if (!r->context && !(e->j && r->function_offset))
        return 0;
    if ((*fn = fn_number(&x->fn, r->function_offset)))
        return 0;
    if (fn_add(&x->fn, r->function_offset, r->function))
        return -1;
    *fn = x->fn.n;
    *first = 1;
    return 0;
}

static void row_short(emit *style, ltab *x, const cudw_line_row *r, size_t fn, int first)
{
    emit m = *style, *e = &m; /* a local: the bytes written cannot change it, so it is not read again */
    em_obj(e, NULL);
    em_u64(e, "address", "  0x", EM_HEX8, r->address);
    em_text(e, "  ");
    em_u64(e, "file", NULL, 0, r->file);
    em_u64(e, "line", NULL, 0, r->line);
    if (r->column)
        em_u64(e, "column", NULL, 0, r->column);
    if (!r->end_sequence) { /* the text's place: file number:line[:column] */
        if (r->file > x->t->nfiles && !(x->ptx_only && !r->file))
            em_text(e, "<bad file> ");
        em_u64(e, NULL, "", EM_DEC, r->file);
        em_u64(e, NULL, ":", EM_DEC, r->line);
        if (r->column)
            em_u64(e, NULL, ":", EM_DEC, r->column);
    }
    if (r->is_stmt != (x->t->default_is_stmt != 0))
        em_bool(e, "is_stmt", r->is_stmt);
    if (r->end_sequence)
        em_bool(e, "end_sequence", 1);
    if (r->context)
        em_u64(e, "context", NULL, 0, r->context);
    flags_print(e, x, r);
    row_marks(e, r);
    if (r->context) {
        em_u64(e, NULL, ", function ", EM_DEC, fn);
        if (first && r->function)
            em_str_or(e, NULL, ": ", fn_shown(x, r->function_offset, r->function), "");
        else if (first)
            em_u64(e, NULL, ": <bad name offset 0x", EM_HEX, r->function_offset);
        if (first && !r->function)
            em_text(e, ">");
    }
    ptx_print(e, x, r);
    em_text(e, "\n");
    em_end_obj(e);
}

/* JSON's list of the inlined functions the rows name, in first use */
static void functions_print(emit *e, ltab *x)
{
    em_arr(e, "functions");
    for (size_t i = 0; i < x->fn.n; i++) {
        const tfunc *t = &x->fn.v[i];
        const char *shown = fn_shown(x, t->off, t->name);
        em_obj(e, NULL);
        em_u64(e, "offset", NULL, 0, t->off);
        em_str(e, "name", NULL, 0, shown);
        if (shown != t->name)
            em_str(e, "linkage_name", NULL, 0, t->name);
        em_end_obj(e);
    }
    em_end_arr(e);
}

static int table_short(emit *e, ltab *x)
{
    cudw_line_iter it;
    cudw_line_row r;
    int rc, open = 0;
    head_print(e, x, 1);
    em_arr(e, "sequences");
    cudw_line_iter_init(x->t, &it, e->j ? 0 : CUDW_LINE_KEEP_SEQUENCE);
    x->it = e->j ? NULL : &it;
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        size_t fn;
        int first;
        if (function_number(e, x, &r, &fn, &first)) {
            cudw_line_iter_free(&it);
            return -2;
        }
        if (!open) /* the first row, or the one after an end of sequence */
            sequence_print(e, &r);
        open = !r.end_sequence;
        row_short(e, x, &r, fn, first);
        if (!open) {
            em_end_arr(e);
            em_end_obj(e);
        }
    }
    cudw_line_iter_free(&it);
    if (open) { /* a table that ends without an end_sequence */
        em_end_arr(e);
        em_end_obj(e);
    }
    em_end_arr(e);
    functions_print(e, x);
    em_end_obj(e);
    return rc < 0 ? -1 : 0;
}

void ltab_free(ltab *x)
{
    tinfo_free(&x->fn);
    json_memo_free(&x->sym);
    json_memo_free(&x->path);
    json_memo_free(&x->func);
}

int lines_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, emit *e)
{
    ltab x = {.f = f, .t = t, .o = o, .sass = sass};
    if (sass && !t->nfiles) {
        const cudw_section *ps = cudw_ptx_section_for(f, t, 0);
        x.ptx_only = ps ? ps->name : NULL;
    }
    int full = e->j ? !o->compact : o->long_form;
    int rc = full ? table_full(e, &x) : table_short(e, &x);
    em_text(e, "\n");
    ltab_free(&x);
    return rc;
}
