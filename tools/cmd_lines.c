/* cudwarf lines: the rows of every line table, in emission order, with
 * relocated addresses, joined file paths, inline contexts and (for
 * .nv_debug_line_sass) the PTX text. */
#include "jobs.h"
#include "lines_out.h"
#include "opts.h"

#include <stdatomic.h>

#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf lines [--json [--compact]] [--long] [--section NAME] [--ptx] FILE...\n"
    "\n"
    "Print the rows of every line table: .debug_line (SASS address -> source\n"
    "line), .nv_debug_line_sass (SASS address -> PTX line) and their Mercury\n"
    "twins, in the order the program emits them.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Each table shows its file table (file N: path) once, each sequence its\n"
    "symbol once, then one row a line: address (relocated), file:line[:column],\n"
    "flags (S is_stmt, E end of sequence, M the Mercury 0x92 flag), and for an\n"
    "inlined row the context (the 1-based row of the same sequence it was\n"
    "inlined at) with the inlined function's name, which is left out while it\n"
    "stays the same from row to row.\n";

static void table_header(const cudw_line_table *t, obuf *out)
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
    ob_putc(out, '\n');
}

/* The flags (S is_stmt, E end_sequence, M Mercury) and the row an inlined
 * row was inlined at, at d (at most 44 bytes); returns the end. */
static char *put_flags(char *d, const cudw_line_row *r)
{
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
    return d;
}

static void flags_out(const cudw_line_row *r, obuf *out) { ob_commit(out, put_flags(ob_room(out, 48), r)); }

/* line[:column] */
static void line_col(const cudw_line_row *r, obuf *out)
{
    ob_dec(out, r->line);
    if (r->column) {
        ob_putc(out, ':');
        ob_dec(out, r->column);
    }
}

/* --ptx: the PTX line a .nv_debug_line_sass row points at */
static void ptx_out(cudw_file *f, const cudw_line_table *t, const cudw_line_row *r, obuf *out)
{
    const char *txt = ptx_text(f, t, r);
    ob_puts(out, "  | ");
    ob_puts(out, txt ? txt : "<no such PTX line>");
}

/* The readable form: the file table once, each sequence's symbol once, and
 * rows of address, file number:line[:column], flags, and the inlined-call
 * context (the function's name when it changes from the row before). */
static int text_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, tinfo *ti, obuf *out)
{
    table_header(t, out);
    for (size_t i = 0; i < t->nfiles; i++) {
        ob_puts(out, "  file ");
        ob_dec(out, i + 1);
        ob_puts(out, ": ");
        ob_puts(out, t->files[i].path);
        ob_putc(out, '\n');
    }
    const char *ptx_only = NULL;
    if (sass && !t->nfiles) {
        const cudw_section *ps = cudw_ptx_section_for(f, t, 0);
        if ((ptx_only = ps ? ps->name : NULL)) {
            ob_puts(out, "  file 0: ");
            ob_puts(out, ptx_only);
            ob_putc(out, '\n');
        }
    }
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    cudw_line_iter_init(t, &it, 0);
    uint64_t seq = UINT64_MAX; /* the sequence whose header is out: rows are numbered with repeats
                                  not counted (lines.h), so a header per row 1 could come twice */
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        if (r.sequence != seq) {
            seq = r.sequence;
            ob_puts(out, " sequence ");
            ob_dec(out, r.sequence);
            ob_puts(out, ": ");
            ob_puts(out, r.symbol ? r.symbol : "(no symbol)");
            if (r.symbol_value) {
                ob_puts(out, " at 0x");
                ob_hex(out, r.symbol_value);
            }
            ob_putc(out, '\n');
        }
        /* the row in place: one room check, no calls */
        char *d = ob_room(out, 128);
        memcpy(d, "  0x", 4);
        if (r.address <= 0xffffffffu) {
            d = put_hex8(d + 4, (uint32_t)r.address);
        } else {
            ob_commit(out, d + 4);
            ob_hex_pad(out, r.address, 8);
            d = ob_room(out, 124);
        }
        memcpy(d, "  ", 2);
        d += 2;
        if (!r.end_sequence) {
            if (r.file > t->nfiles && !(ptx_only && !r.file)) {
                memcpy(d, "<bad file> ", 11);
                d += 11;
            }
            d = put_dec(d, r.file);
            *d++ = ':';
            d = put_dec(d, r.line);
            if (r.column) {
                *d++ = ':';
                d = put_dec(d, r.column);
            }
        }
        d = put_flags(d, &r);
        ob_commit(out, d);
        if (r.context) {
            ob_puts(out, ", function ");
            size_t k = fn_number(ti, r.function_offset);
            if (!k) { /* its first row names it */
                if (fn_add(ti, r.function_offset, r.function))
                    return -2;
                ob_dec(out, ti->n);
                ob_puts(out, ": ");
                if (r.function)
                    ob_puts(out, r.function);
                else
                    ob_printf(out, "<bad name offset 0x%llx>", (unsigned long long)r.function_offset);
            } else {
                ob_dec(out, k);
            }
        }
        if (o->ptx && sass && !r.end_sequence)
            ptx_out(f, t, &r, out);
        ob_putc(out, '\n');
    }
    ob_putc(out, '\n');
    return rc < 0 ? -1 : 0;
}

/* The grep-friendly form (--long): every row on one line with everything
 * it means -- address, symbol+offset, path:line, flags, the inlined
 * function. */
static int long_table(cudw_file *f, const cudw_line_table *t, const lopts *o, int sass, obuf *out)
{
    table_header(t, out);
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    cudw_line_iter_init(t, &it, 0);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        ob_puts(out, "  0x");
        ob_hex_pad(out, r.address, 8);
        ob_puts(out, "  ");
        if (r.symbol) {
            ob_puts(out, r.symbol);
            ob_puts(out, "+0x");
            ob_hex(out, r.address - r.symbol_value);
            ob_puts(out, "  ");
        }
        const char *path = row_path(f, t, sass, r.file);
        ob_puts(out, path ? path : r.file ? "<bad file>" : "");
        ob_putc(out, ':');
        line_col(&r, out);
        flags_out(&r, out);
        if (r.context) {
            ob_puts(out, ": ");
            ob_puts(out, r.function ? r.function : "<bad name offset>");
        }
        if (o->ptx && sass && !r.end_sequence)
            ptx_out(f, t, &r, out);
        ob_putc(out, '\n');
    }
    ob_putc(out, '\n');
    return rc < 0 ? -1 : 0;
}

/* The first pass: every table's program decodes, and with --ptx, the PTX
 * sections they name can be indexed. */
static int check_tables(cudw_file *f, const lopts *o)
{
    unsigned n = cudw_section_count(f);
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (!is_line_section(s, o->section))
            continue;
        cudw_secclass c;
        cudw_classify_name(s->name, s->flags, &c);
        uint64_t cur = 0;
        const cudw_line_table *t;
        int r;
        while ((r = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
            if (cudw_line_table_check(t) != CUDW_OK)
                return -1;
            if (o->ptx && c.kind == CUDW_SEC_NV_LINE_SASS) { /* the PTX text's line index */
                const cudw_section *p = cudw_ptx_section_for(f, t, 1);
                uint64_t lines;
                if (p && cudw_ptx_line_count(f, p, &lines) < 0)
                    return -1;
            }
        }
        if (r < 0)
            return -1;
    }
    return 0;
}

/* Images that have the --section asked for: none in an input is an error. */
static atomic_int matched;
static atomic_int images, bare; /* images seen, and those without a line table (not shown in text) */

static int one(cudw_file *f, const char *path, void *vctx, json *j)
{
    const lopts *o = vctx;
    unsigned n = cudw_section_count(f);
    atomic_fetch_add(&images, 1);
    if (!o->json && !o->section) { /* nothing to show: counted, said once at the end */
        int has = 0;
        for (unsigned i = 1; i < n && !has; i++)
            has = is_line_section(cudw_section_get(f, i), NULL);
        if (!has) {
            atomic_fetch_add(&bare, 1);
            return EXIT_OK;
        }
    }
    if (o->section) {
        int has = 0;
        for (unsigned i = 1; i < n && !has; i++)
            has = is_line_section(cudw_section_get(f, i), o->section);
        if (!has)
            return EXIT_OK; /* nothing of this image to show */
        atomic_fetch_add(&matched, 1);
    }
    /* Check every table first (cudw_line_table_check: a fifth of the
     * time of decoding the rows), then print as the rows decode: a
     * malformed table gives its error and nothing else (no partial
     * output), and the text streams (`| head` answers at once, memory
     * stays one row). */
    if (check_tables(f, o) < 0) {
        report(f, path);
        return EXIT_BAD_INPUT;
    }
    image_open(j, o->json, path, "");
    int bad = 0;
    for (unsigned i = 1; i < n && !bad; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (!is_line_section(s, o->section))
            continue;
        cudw_secclass c;
        cudw_classify_name(s->name, s->flags, &c);
        int sass = c.kind == CUDW_SEC_NV_LINE_SASS;
        if (o->json)
            section_json_open(j, s, "tables");
        uint64_t cur = 0;
        const cudw_line_table *t;
        int r;
        while (!bad && (r = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
            tinfo ti = {0};
            bad = o->json && o->compact ? compact_table(f, t, o, sass, &ti, j)
                  : o->json ? json_table(f, t, o, sass, j)
                  : o->long_form ? long_table(f, t, o, sass, &out_stdout)
                                 : text_table(f, t, o, sass, &ti, &out_stdout);
            tinfo_free(&ti);
        }
        if (!bad && r < 0)
            bad = -1;
        if (o->json && !bad) {
            json_end_arr(j);
            json_end_obj(j);
        }
    }
    if (bad) { /* out of memory, or what the first pass let through */
        if (bad == -2)
            eprintf("%s: %s: out of memory\n", progname, path);
        else
            report(f, path);
        return EXIT_BAD_INPUT;
    }
    image_close(j, o->json);
    return EXIT_OK;
}

enum { L_JSON = 1, L_PTX, L_HIDDEN, L_LONG, L_COMPACT, L_SECTION };
static const cli_opt table[] = {
    {"--section", 0, "NAME", L_SECTION, "only that section"},
    {"--long", 0, NULL, L_LONG, "every row on one line with all it means: address,\n"
                                "symbol+offset, path:line, flags, inlined function (for grep)"},
    {"--ptx", 0, NULL, L_PTX, "with .nv_debug_line_sass rows, the PTX line's text"},
    {"--json", 0, NULL, L_JSON, "JSON, every row with all it means (schema: docs/json.md)"},
    {"--compact", 0, NULL, L_COMPACT, "with --json, each sequence's symbol and each inlined\n"
                                      "function's name once, rows without their default values"},
    {"--hidden", 0, NULL, L_HIDDEN, OPT_UNLISTED}, /* gone: parsed only to say what replaced it */
    {0}};

int cmd_lines(int argc, char **argv)
{
    lopts o = {0};
    int nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "lines", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 19, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case L_JSON: o.json = 1; break;
        case L_PTX: o.ptx = 1; break;
        case L_HIDDEN: /* gone with ABI 6: rows are only rows */
            usage_error("lines", "--hidden is gone: rows say what a table means; the opcodes that wrote it "
                        "are `cudwarf dump --line --json` (what line-encode re-encodes byte for byte)");
            return EXIT_USAGE;
        case L_LONG: o.long_form = 1; break;
        case L_COMPACT: o.compact = 1; break;
        case L_SECTION: o.section = a.value; break;
        }
    }
    if (!nfiles) {
        usage_error("lines", "no input file");
        return EXIT_USAGE;
    }
    if (o.compact && !o.json) {
        usage_error("lines", "--compact is a form of --json");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    int rc = run_images(argv, nfiles, &(image_run){one, &o, &j, o.json, o.section, "line", &matched});
    int nb = atomic_load(&bare), ni = atomic_load(&images);
    const char *what = nfiles == 1 ? argv[0] : "the inputs";
    if (nb && nb == ni) /* the one line a file without line tables gets */
        ob_printf(&out_stdout, "%s: no line tables in %s%d image%s (built without -lineinfo or -G)\n", what,
                  ni > 1 ? "its " : "", ni, ni == 1 ? "" : "s");
    else if (nb)
        eprintf("%s: %s: note: %d of %d images have no line tables (not shown)\n", progname, what, nb, ni);
    return rc;
}
