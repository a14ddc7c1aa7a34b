/* cudwarf line-encode: rows (JSON) -> a line-number program unit, encoded
 * the way ptxas does, plus the relocation sites it needs. */
#include "cli.h"
#include "opts.h"
#include "json_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf line-encode [-o OUT] [--json] [--image LABEL] [--section NAME] [--table N]\n"
    "                           INPUT.json\n"
    "\n"
    "Encode line-table rows into one DWARF line-number program unit (header and\n"
    "program) exactly as ptxas would, and list the relocation sites the unit\n"
    "needs (DW_LNE_set_address operands, the .debug_str base word).\n"
    "\n"
    "INPUT.json ('-' for standard input) is a table object, or what `cudwarf\n"
    "lines --json` prints (an array, one object per image), from which --image\n"
    "(default: the first image with the section), --section (default\n"
    ".debug_line) and --table (default 0) pick one.  A table object has:\n"
    "  rows         [{address, symbol?, offset?, file, line, is_stmt?, end_sequence?,\n"
    "                 context?, function_offset?, merc_flag?, hidden?, file_again?,\n"
    "                 ctx_first?, file_first?}]\n"
    "  directories  [\"dir\", ...] and files [{name, dir, mtime, size}], or\n"
    "  paths        [\"/full/path\", ...] (with optional mtimes, sizes): split and\n"
    "               de-duplicated the way ptxas does\n"
    "  str_base     the .debug_str base word (omit: no word); str_base_symbol\n"
    "  version, line_base, line_range, opcode_base, min_inst_length,\n"
    "  default_is_stmt, address_size: default to NVIDIA's (2, -5, 14, 10, 1, 1, 8)\n"
    "`cudwarf lines --json --hidden` writes exactly this, so a table round-trips.\n"
    "\n"
    "  -o OUT     write the unit to OUT (written whole or not at all); default:\n"
    "             nothing is written, only the sites are listed\n"
    "  --json     list the sites as JSON: [{size, relocations: [{offset, symbol,\n"
    "             addend, width}]}]\n";

static int read_all(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    int bad = !b || ferror(f);
    if (f != stdin)
        fclose(f);
    if (bad) {
        free(b);
        snprintf(err, errlen, "cannot read");
        return -1;
    }
    *out = b;
    *len = n;
    return 0;
}

/* The section object named section in one image's document, or NULL. */
static const jv *section_of(const jv *doc, const char *section)
{
    const jv *secs = jv_get(doc, "sections");
    for (const jv *s = secs ? secs->child : NULL; s; s = s->next) {
        const char *name = jv_str(s, "section");
        if (name && !strcmp(name, section))
            return s;
    }
    return NULL;
}

static const jv *pick_table(const jv *root, const char *image, const char *section, uint64_t index, char *err,
                            size_t errlen)
{
    if (jv_get(root, "rows"))
        return root;
    /* an image's document, or the array of them lines --json prints */
    const jv *s = NULL;
    if (root->type == JV_ARR) {
        for (const jv *d = root->child; d && !s; d = d->next) {
            const char *label = jv_str(d, "file");
            if (!image || (label && !strcmp(label, image)))
                s = section_of(d, section);
        }
    } else {
        s = section_of(root, section);
    }
    if (!s) {
        snprintf(err, errlen, "no table object, and no %s%s%s in the input", image ? "image " : "",
                 image ? image : "", image ? " with that section" : section);
        return NULL;
    }
    const jv *tabs = jv_get(s, "tables");
    uint64_t k = 0;
    for (const jv *t = tabs ? tabs->child : NULL; t; t = t->next, k++)
        if (k == index)
            return t;
    snprintf(err, errlen, "%s has no table %llu", section, (unsigned long long)index);
    return NULL;
}

int cmd_line_encode(int argc, char **argv)
{
    const char *in = NULL, *outpath = NULL, *section = ".debug_line", *image = NULL;
    uint64_t table = 0;
    int as_json = 0;
    static const cli_opt opts[] = {{"--output", 'o', 1, 1}, {"--section", 0, 1, 2}, {"--table", 0, 1, 3},
                                   {"--image", 0, 1, 4}, {"--json", 0, 0, 5}, {0}};
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "line-encode", opts)) != OPT_END;) {
        char *end;
        switch (id) {
        case OPT_HELP: ob_puts(&out_stdout, help); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case 1: outpath = a.value; break;
        case 2: section = a.value; break;
        case 3:
            table = strtoull(a.value, &end, 0);
            if (end == a.value || *end) {
                usage_error("line-encode", "--table %s: expected a number", a.value);
                return EXIT_USAGE;
            }
            break;
        case 4: image = a.value; break;
        case 5: as_json = 1; break;
        case OPT_POS:
            if (in) {
                usage_error("line-encode", "one input at a time");
                return EXIT_USAGE;
            }
            in = a.value;
            break;
        }
    }
    if (!in) {
        usage_error("line-encode", "no input (a JSON file, or - for standard input)");
        return EXIT_USAGE;
    }
    char err[256], *text;
    size_t len;
    if (read_all(in, &text, &len, err, sizeof err)) {
        eprintf("%s: %s: %s\n", progname, in, err);
        return EXIT_BAD_INPUT;
    }
    jdoc doc;
    if (jdoc_parse(&doc, text, len)) {
        eprintf("%s: %s: JSON: %s\n", progname, in, doc.err);
        jdoc_free(&doc);
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_BAD_INPUT;
    const jv *t = pick_table(doc.root, image, section, table, err, sizeof err);
    cudw_line_builder *lb = NULL;
    cudw_line_out out = {0};
    if (!t) {
        eprintf("%s: %s: %s\n", progname, in, err);
        goto done;
    }
    cudw_line_params p = cudw_line_params_nvidia();
    p.version = (uint16_t)jv_u64(t, "version", p.version);
    p.addr_size = (uint8_t)jv_u64(t, "address_size", p.addr_size);
    p.min_inst_length = (uint8_t)jv_u64(t, "min_inst_length", p.min_inst_length);
    p.default_is_stmt = (uint8_t)jv_u64(t, "default_is_stmt", p.default_is_stmt);
    p.line_base = (int8_t)jv_i64(t, "line_base", p.line_base);
    p.line_range = (uint8_t)jv_u64(t, "line_range", p.line_range);
    p.opcode_base = (uint8_t)jv_u64(t, "opcode_base", p.opcode_base);
    if (cudw_line_builder_open(&lb, &p) != CUDW_OK)
        goto oom;
    uint64_t num;
    int brc = CUDW_OK;
    const jv *jp = jv_get(t, "paths");
    if (jp && jp->type == JV_ARR) {
        /* full paths, split as ptxas splits them; mtimes and sizes beside */
        const jv *jm = jv_get(t, "mtimes"), *jsz = jv_get(t, "sizes");
        const jv *m = jm ? jm->child : NULL, *z = jsz ? jsz->child : NULL;
        for (const jv *c = jp->child; c && !brc; c = c->next) {
            brc = cudw_line_builder_path(lb, c->type == JV_STR ? c->str : "", m ? m->u : 0, z ? z->u : 0, &num);
            m = m ? m->next : NULL;
            z = z ? z->next : NULL;
        }
    } else {
        const jv *jd = jv_get(t, "directories"), *jf = jv_get(t, "files");
        for (const jv *c = jd ? jd->child : NULL; c && !brc; c = c->next)
            brc = cudw_line_builder_dir(lb, c->type == JV_STR ? c->str : "", &num);
        for (const jv *c = jf ? jf->child : NULL; c && !brc; c = c->next)
            brc = cudw_line_builder_file(lb, jv_str(c, "name") ? jv_str(c, "name") : "", jv_u64(c, "dir", 0),
                                         jv_u64(c, "mtime", 0), jv_u64(c, "size", 0), &num);
    }
    if (jv_get(t, "str_base"))
        cudw_line_builder_str_base(lb, (uint32_t)jv_u64(t, "str_base", 0), jv_str(t, "str_base_symbol"));
    /* rows: flat ("rows", each with its symbol), or as lines --json prints
     * them ("sequences", the symbol once each) */
    const jv *jr = jv_get(t, "rows"), *js = jv_get(t, "sequences");
    if (jr && jr->type == JV_ARR)
        js = NULL;
    else if (!js || js->type != JV_ARR) {
        eprintf("%s: %s: the table has no \"rows\" or \"sequences\" array\n", progname, in);
        goto done;
    }
    const jv *seq = js ? js->child : NULL;
    const jv *c = js ? NULL : jr->child;
    while (!brc) {
        while (!c && seq) { /* the next sequence's rows */
            const jv *sr = jv_get(seq, "rows");
            c = sr && sr->type == JV_ARR ? sr->child : NULL;
            if (!c)
                seq = seq->next;
        }
        if (!c)
            break;
        cudw_line_row r = {0};
        r.address = jv_u64(c, "address", 0);
        if (seq) {
            r.symbol = jv_str(seq, "symbol");
            r.symbol_value = jv_u64(seq, "symbol_value", 0);
        } else {
            r.symbol = jv_str(c, "symbol");
            if (r.symbol)
                r.symbol_value = r.address - jv_u64(c, "offset", r.address);
        }
        r.file = jv_u64(c, "file", 1);
        r.line = jv_u64(c, "line", 1);
        r.is_stmt = (uint8_t)jv_u64(c, "is_stmt", p.default_is_stmt);
        r.end_sequence = (uint8_t)jv_u64(c, "end_sequence", 0);
        r.hidden = (uint8_t)jv_u64(c, "hidden", 0);
        r.context = jv_u64(c, "context", 0);
        r.function_offset = jv_u64(c, "function_offset", 0);
        r.merc_flag = (uint8_t)jv_u64(c, "merc_flag", 0);
        r.file_again = (uint8_t)jv_u64(c, "file_again", 0);
        r.ctx_first = (uint8_t)jv_u64(c, "ctx_first", 0);
        r.file_first = (uint8_t)jv_u64(c, "file_first", 0);
        brc = cudw_line_builder_row(lb, &r);
        if (!(c = c->next) && seq)
            seq = seq->next;
    }
    if (brc == CUDW_E_NOMEM)
        goto oom;
    if (brc || cudw_line_builder_finish(lb, &out) != CUDW_OK) {
        const cudw_error *e = cudw_line_builder_error(lb);
        eprintf("%s: %s: %s %llu: %s\n", progname, in, e->what, (unsigned long long)e->offset, e->detail);
        goto done;
    }
    if (outpath && write_file_atomic(outpath, out.data, out.size, err, sizeof err)) {
        eprintf("%s: %s\n", progname, err);
        goto done;
    }
    json j;
    json_init(&j, &out_stdout);
    if (as_json) {
        json_arr(&j, NULL); /* every command's JSON is an array (docs/cli.md) */
        json_obj(&j, NULL);
        json_u64(&j, "size", out.size);
        json_arr(&j, "relocations");
    }
    for (size_t k = 0; k < out.nsites; k++) {
        const cudw_reloc_site *s = &out.sites[k];
        if (as_json) {
            json_obj(&j, NULL);
            json_u64(&j, "offset", s->offset);
            json_str(&j, "symbol", s->symbol);
            json_i64(&j, "addend", s->addend);
            json_u64(&j, "width", s->width);
            json_end_obj(&j);
        } else {
            ob_printf(&out_stdout, "0x%llx\t%s%+lld\t%u bytes\n", (unsigned long long)s->offset, s->symbol,
                      (long long)s->addend, s->width);
        }
    }
    if (as_json) {
        json_end_arr(&j);
        json_end_obj(&j);
        json_end_arr(&j);
        ob_putc(&out_stdout, '\n');
    }
    rc = EXIT_OK;
    goto done;
oom:
    eprintf("%s: out of memory\n", progname);
done:
    cudw_line_out_free(&out);
    cudw_line_builder_close(lb);
    jdoc_free(&doc);
    return rc;
}
