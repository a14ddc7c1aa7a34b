/* cudwarf lines: the rows of every line table, in emission order, with
 * relocated addresses, joined file paths, inline contexts and (for
 * .nv_debug_line_sass) the PTX text. */
#include "cli.h"
#include "jobs.h"

#include <stdatomic.h>

#include <string.h>

static const char help[] =
    "usage: cudwarf lines [--json] [--section NAME] [--ptx] FILE...\n"
    "\n"
    "Print the rows of every line table: .debug_line (SASS address -> source\n"
    "line), .nv_debug_line_sass (SASS address -> PTX line) and their Mercury\n"
    "twins, in the order the program emits them.\n"
    "\n"
    "  --section NAME   only that section\n"
    "  --ptx            with .nv_debug_line_sass rows, the PTX line's text\n"
    "  --hidden         with --json, also the address advances no row follows\n"
    "                   (\"hidden\": true; what line-encode needs to reproduce ptxas)\n"
    "  --json           JSON (schema: docs/json.md)\n"
    "\n"
    "Columns: address (relocated), symbol+offset, file:line, flags (S is_stmt,\n"
    "E end of sequence, M the Mercury 0x92 flag), and for inlined rows the\n"
    "context (the 1-based row of the same sequence it was inlined at) and the\n"
    "inlined function's name.\n";

typedef struct lopts {
    int json, ptx, hidden;
    const char *section;
} lopts;

int is_line_section(const cudw_section *s, const char *only)
{
    cudw_secclass c;
    if (only && strcmp(only, s->name) != 0)
        return 0;
    return cudw_classify_name(s->name, s->flags, &c) == CUDW_OK &&
           (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS);
}

/* Every opcode of every table (rows cannot fail where the opcodes
 * decode): 0, or -1 with the error on the handle. */
static int walk(cudw_file *f, const cudw_section *s, int ptx)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
        uint64_t pos = t->program_offset;
        cudw_line_op op;
        while ((rc = cudw_line_op_next(t, &pos, &op)) == CUDW_OK)
            ;
        if (rc < 0)
            return -1;
        if (ptx) {
            const cudw_section *p = cudw_ptx_section_for(f, t, 1);
            uint64_t n;
            if (p && cudw_ptx_line_count(f, p, &n) < 0)
                return -1;
        }
    }
    return rc < 0 ? -1 : 0;
}

static const char *ptx_text(cudw_file *f, const cudw_line_table *t, const cudw_line_row *r)
{
    const cudw_section *p = cudw_ptx_section_for(f, t, r->file);
    const char *text;
    if (!p || cudw_ptx_line(f, p, r->line, &text) != CUDW_OK)
        return NULL;
    return text;
}

static void text_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, obuf *out)
{
    ob_printf(out, "%s table at 0x%llx: version %u, %zu files", t->section->name, (unsigned long long)t->offset,
              t->version, t->nfiles);
    if (t->has_str_base) {
        ob_printf(out, ", .debug_str base 0x%llx", (unsigned long long)t->str_base);
        if (t->str_base_reloc) {
            ob_puts(out, " (");
            reloc_out(t->str_base_reloc, out);
            ob_putc(out, ')');
        }
    }
    ob_puts(out, "\n");
    cudw_line_iter it;
    cudw_line_row r;
    cudw_line_iter_init(t, &it, 0);
    while (cudw_line_next(&it, &r) == CUDW_OK) {
        ob_puts(out, "  0x");
        ob_hex_pad(out, r.address, 8);
        ob_puts(out, "  ");
        if (r.symbol) {
            ob_puts(out, r.symbol);
            ob_puts(out, "+0x");
            ob_hex(out, r.address - r.symbol_value);
            ob_puts(out, "  ");
        }
        const char *path = cudw_line_file_path(t, r.file);
        if (!path && sass && !r.file) {
            /* whole-program cubins name no PTX file: the one PTX text section
             * is it (addr2line --ptx names it the same way) */
            const cudw_section *ps = cudw_ptx_section_for(f, t, r.file);
            path = ps ? ps->name : NULL;
        }
        ob_puts(out, path ? path : r.file ? "<bad file>" : "");
        ob_putc(out, ':');
        ob_dec(out, r.line);
        if (r.column) {
            ob_putc(out, ':');
            ob_dec(out, r.column);
        }
        if (r.is_stmt || r.end_sequence || r.merc_flag) {
            ob_putc(out, ' ');
            if (r.is_stmt)
                ob_putc(out, 'S');
            if (r.end_sequence)
                ob_putc(out, 'E');
            if (r.merc_flag)
                ob_putc(out, 'M');
        }
        if (r.context) {
            ob_puts(out, "  inlined at row ");
            ob_dec(out, r.context);
            ob_puts(out, ": ");
            ob_puts(out, r.function ? r.function : "<bad name offset>");
        }
        if (o->ptx && sass && !r.end_sequence) {
            const char *txt = ptx_text(f, t, &r);
            ob_puts(out, "  | ");
            ob_puts(out, txt ? txt : "<no such PTX line>");
        }
        ob_putc(out, '\n');
    }
    ob_putc(out, '\n');
}

static void json_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, json *j)
{
    cudw_line_iter it;
    cudw_line_row r;
    json_obj(j, NULL);
    json_u64(j, "offset", t->offset);
    json_u64(j, "unit_length", t->unit_length);
    json_u64(j, "version", t->version);
    json_u64(j, "header_length", t->header_length);
    json_u64(j, "min_inst_length", t->min_inst_length);
    json_bool(j, "default_is_stmt", t->default_is_stmt);
    json_i64(j, "line_base", t->line_base);
    json_u64(j, "line_range", t->line_range);
    json_u64(j, "opcode_base", t->opcode_base);
    json_arr(j, "directories");
    for (size_t i = 0; i < t->ndirs; i++)
        json_str(j, NULL, t->dirs[i]);
    json_end_arr(j);
    if (sass) { /* the PTX text its rows' line numbers count in (file 0: the only one) */
        const cudw_section *ps = cudw_ptx_section_for(f, t, 0);
        json_str(j, "ptx_section", ps ? ps->name : NULL);
    }
    json_arr(j, "files");
    for (size_t i = 0; i < t->nfiles; i++) {
        json_obj(j, NULL);
        json_str(j, "name", t->files[i].name);
        json_u64(j, "dir", t->files[i].dir);
        json_u64(j, "mtime", t->files[i].mtime);
        json_u64(j, "size", t->files[i].size);
        json_str(j, "path", t->files[i].path);
        json_end_obj(j);
    }
    json_end_arr(j);
    if (t->has_str_base) {
        json_u64(j, "str_base", t->str_base_raw);
        if (t->str_base_raw != t->str_base)
            json_u64(j, "str_base_relocated", t->str_base);
        if (t->str_base_reloc) {
            json_str(j, "str_base_symbol", t->str_base_reloc->sym_name);
            json_i64(j, "str_base_addend", t->str_base_reloc->addend);
        }
    }
    json_arr(j, "rows");
    cudw_line_iter_init(t, &it, o->hidden ? CUDW_LINE_HIDDEN : 0);
    while (cudw_line_next(&it, &r) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "address", r.address);
        json_str(j, "symbol", r.symbol);
        if (r.symbol)
            json_u64(j, "offset", r.address - r.symbol_value);
        json_u64(j, "file", r.file);
        json_str(j, "path", cudw_line_file_path(t, r.file));
        json_u64(j, "line", r.line);
        json_u64(j, "column", r.column);
        json_bool(j, "is_stmt", r.is_stmt);
        json_bool(j, "end_sequence", r.end_sequence);
        json_u64(j, "context", r.context);
        json_str(j, "function", r.context ? r.function : NULL);
        if (r.context || r.function_offset)
            json_u64(j, "function_offset", r.function_offset);
        if (r.hidden)
            json_bool(j, "hidden", 1);
        if (r.merc_flag)
            json_u64(j, "merc_flag", r.merc_flag);
        json_u64(j, "sequence", r.sequence);
        json_u64(j, "row", r.index);
        if (o->ptx && sass && !r.end_sequence)
            json_str(j, "ptx", ptx_text(f, t, &r));
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

/* Images that have the --section asked for: none in an input is an error. */
static atomic_int matched;

static int one(cudw_file *f, const char *path, void *vctx, json *j)
{
    const lopts *o = vctx;
    unsigned n = cudw_section_count(f);
    if (o->section) {
        int has = 0;
        for (unsigned i = 1; i < n && !has; i++)
            has = is_line_section(cudw_section_get(f, i), o->section);
        if (!has)
            return EXIT_OK; /* nothing of this image to show */
        atomic_fetch_add(&matched, 1);
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (is_line_section(s, o->section) && walk(f, s, o->ptx) < 0) {
            report(f, path);
            return EXIT_BAD_INPUT;
        }
    }
    if (o->json) {
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_arr(j, "sections");
    } else {
        ob_printf(&out_stdout, "%s:\n\n", path);
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (!is_line_section(s, o->section))
            continue;
        cudw_secclass c;
        cudw_classify_name(s->name, s->flags, &c);
        int sass = c.kind == CUDW_SEC_NV_LINE_SASS;
        if (o->json) {
            json_obj(j, NULL);
            json_str(j, "section", s->name);
            json_u64(j, "index", s->index);
            json_arr(j, "tables");
        }
        uint64_t cur = 0;
        const cudw_line_table *t;
        while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK)
            o->json ? json_table(f, t, o, sass, j) : text_table(f, t, o, sass, &out_stdout);
        if (o->json) {
            json_end_arr(j);
            json_end_obj(j);
        }
    }
    if (o->json) {
        json_end_arr(j);
        json_end_obj(j);
    }
    return EXIT_OK;
}

int cmd_lines(int argc, char **argv)
{
    lopts o = {0};
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json"))
            o.json = 1;
        else if (!strcmp(a, "--ptx"))
            o.ptx = 1;
        else if (!strcmp(a, "--hidden"))
            o.hidden = 1;
        else if (!strcmp(a, "--section")) { /* (main splits --section=NAME) */
            if (++i < argc)
                o.section = argv[i];
            else {
                usage_error("lines", "--section needs a name");
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ob_puts(&out_stdout, help);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            usage_error("lines", "unknown option '%s'", a);
            return EXIT_USAGE;
        } else {
            nfiles++;
        }
    }
    if (!nfiles) {
        usage_error("lines", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    if (o.json)
        image_array_begin(&j);
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--section")) {
            i++;
            continue;
        }
        if (a[0] == '-' && a[1])
            continue;
        int before = atomic_load(&matched), r = for_each_elf(a, one, &o, &j);
        if (r == EXIT_OK && o.section && atomic_load(&matched) == before) {
            eprintf("%s: %s: no line section %s in any image\n", progname, a, o.section);
            r = EXIT_BAD_INPUT;
        }
        if (r != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    }
    if (o.json)
        image_array_end(&j, rc);
    return rc;
}
