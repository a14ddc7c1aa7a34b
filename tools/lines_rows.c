/* cudwarf lines: what its forms share (lines.h) and the two JSON forms. */
#include "lines_out.h"

#include <stdlib.h>
#include <string.h>

void tinfo_free(tinfo *ti)
{
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
    ti->v[ti->n++] = (tfunc){off, name};
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

/* A table's header in JSON (the object stays open for its rows). */
static void json_header(cudw_file *f, const cudw_line_table *t, int sass, json *j)
{
    json_obj(j, NULL);
    line_header_json(f, t, LH_PATHS | (sass ? LH_PTX : 0), j);
}


/* JSON, the default: every row with everything it means (its symbol, path,
 * flags, inlined function), as reference readers and scripts take rows. */
int json_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, json *j)
{
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    json_memo sym = {0}, path = {0}, fn = {0}; /* escaped once, copied row after row */
    json_header(f, t, sass, j);
    json_arr(j, "rows");
    cudw_line_iter_init(t, &it, 0);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "address", r.address);
        json_str_memo(j, "symbol", r.symbol, &sym);
        if (r.symbol)
            json_u64(j, "offset", r.address - r.symbol_value);
        json_u64(j, "file", r.file);
        json_str_memo(j, "path", cudw_line_file_path(t, r.file), &path);
        json_u64(j, "line", r.line);
        json_u64(j, "column", r.column);
        json_bool(j, "is_stmt", r.is_stmt);
        json_bool(j, "end_sequence", r.end_sequence);
        json_u64(j, "context", r.context);
        json_str_memo(j, "function", r.context ? r.function : NULL, &fn);
        row_marks(j, &r);
        json_u64(j, "sequence", r.sequence);
        json_u64(j, "row", r.index);
        if (o->ptx && sass && !r.end_sequence)
            json_str(j, "ptx", ptx_text(f, t, &r));
        json_end_obj(j);
    }
    json_memo_free(&sym);
    json_memo_free(&path);
    json_memo_free(&fn);
    json_end_arr(j);
    json_end_obj(j);
    return rc < 0 ? -1 : 0;
}

/* JSON --compact: the inlined functions' names once per table, each
 * sequence's symbol once, and rows of the values that change (fields at
 * their default -- column 0, is_stmt true, not end of sequence, no
 * context -- left out; docs/json.md). */
int compact_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, tinfo *ti, json *j)
{
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    json_header(f, t, sass, j);
    json_arr(j, "sequences");
    cudw_line_iter_init(t, &it, 0);
    int open = 0;
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        if ((r.context || r.function_offset) && fn_add(ti, r.function_offset, r.function))
            return -2;
        if (!open) {
            json_obj(j, NULL);
            json_str(j, "symbol", r.symbol);
            json_u64(j, "symbol_value", r.symbol_value);
            json_arr(j, "rows");
            open = 1;
        }
        json_obj(j, NULL);
        json_u64(j, "address", r.address);
        json_u64(j, "file", r.file);
        json_u64(j, "line", r.line);
        if (r.column)
            json_u64(j, "column", r.column);
        if (r.is_stmt != (t->default_is_stmt != 0))
            json_bool(j, "is_stmt", r.is_stmt);
        if (r.end_sequence)
            json_bool(j, "end_sequence", 1);
        if (r.context)
            json_u64(j, "context", r.context);
        row_marks(j, &r);
        if (o->ptx && sass && !r.end_sequence)
            json_str(j, "ptx", ptx_text(f, t, &r));
        json_end_obj(j);
        if (r.end_sequence) {
            json_end_arr(j);
            json_end_obj(j);
            open = 0;
        }
    }
    if (open) { /* a table that ends without an end_sequence */
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_arr(j, "functions"); /* the inlined functions' names, in first use */
    for (size_t i = 0; i < ti->n; i++) {
        json_obj(j, NULL);
        json_u64(j, "offset", ti->v[i].off);
        json_str(j, "name", ti->v[i].name);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    return rc < 0 ? -1 : 0;
}
