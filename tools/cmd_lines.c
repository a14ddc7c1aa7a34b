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
    "usage: cudwarf lines [--json [--compact]] [--long] [--ptx] [-C]\n"
    "                     [--section NAME] FILE...\n"
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
    "inlined row where it was inlined: the row of the same sequence (1-based;\n"
    "ptxas's repeated entry row counts once) and that row's place, \"inlined at\n"
    "row 13 (1:36)\", with the inlined function's name, which is left out\n"
    "while it stays the same from row to row.\n";

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
            emit e = {o->json ? j : NULL, &out_stdout};
            bad = lines_table(f, t, o, sass, &e);
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

enum { L_JSON = 1, L_PTX, L_HIDDEN, L_LONG, L_COMPACT, L_SECTION, L_DEMANGLE };
static const cli_opt table[] = {
    {"--section", 0, "NAME", L_SECTION, "only that section"},
    {"--long", 0, NULL, L_LONG, "every row on one line with all it means: address,\n"
                                "symbol+offset, path:line, flags, inlined function (for grep)"},
    {"--ptx", 0, NULL, L_PTX, "with .nv_debug_line_sass rows, the PTX line's text"},
    {"--json", 0, NULL, L_JSON, "JSON, every row with all it means (schema: docs/json.md)"},
    {"--compact", 0, NULL, L_COMPACT, "with --json, each sequence's symbol and each inlined\n"
                                      "function's name once, rows without their default values"},
    {"--demangle", 'C', NULL, L_DEMANGLE, "demangle the inlined functions' names (JSON: the\n"
                                          "linkage name beside, as addr2line --json -C)"},
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
        case L_DEMANGLE: o.demangle = 1; break;
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
        eprintf("%s: %s: note: %d of %d images %s no line tables (not shown)\n", progname, what, nb, ni,
                nb == 1 ? "has" : "have");
    return rc;
}
