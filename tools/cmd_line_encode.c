/* cudwarf line-encode: rows or opcodes (JSON) -> a line-number program
 * unit (rows encoded the way ptxas does, opcodes as given), plus the
 * relocation sites it needs. */
#include "cli.h"
#include "opts.h"
#include "json_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf line-encode [-o OUT] [--json] [--image LABEL] [--section NAME]\n"
    "                           [--table N] INPUT.json\n"
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
    "                 context?, function_offset?, merc_flag?}]: the opcodes\n"
    "               chosen as ptxas chooses them -- or\n"
    "  ops          the opcodes themselves, as `cudwarf dump --line --json` prints\n"
    "               them [{op, opcode, value?, size?, ...}], written in that order\n"
    "  directories  [\"dir\", ...] and files [{name, dir, mtime, size}], or\n"
    "  paths        [\"/full/path\", ...] (with optional mtimes, sizes): split and\n"
    "               de-duplicated the way ptxas does\n"
    "  str_base     the .debug_str base word (omit: no word); str_base_symbol\n"
    "  version, line_base, line_range, opcode_base, min_inst_length,\n"
    "  default_is_stmt, address_size: default to NVIDIA's (2, -5, 14, 10, 1, 1, 8)\n"
    "`cudwarf dump --line --json` writes a table with its ops, so a table\n"
    "round-trips byte for byte; `cudwarf lines --json` writes its rows.\n"
    "\n";

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
    if (jv_get(root, "rows") || jv_get(root, "ops"))
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
        const jv *first = root->type == JV_ARR ? root->child : root;
        const jv *secs = first ? jv_get(first, "sections") : NULL;
        const char *has = secs && secs->child ? jv_str(secs->child, "section") : NULL;
        snprintf(err, errlen, "no table object, and no %s%s%s in the input%s%s%s", image ? "image " : "",
                 image ? image : "", image ? " with that section" : section, has ? " (it has " : "",
                 has ? has : "", has ? ": --section names it)" : "");
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

static cudw_line_params params_of(const jv *t)
{
    cudw_line_params p = cudw_line_params_nvidia();
    p.version = (uint16_t)jv_u64(t, "version", p.version);
    p.addr_size = (uint8_t)jv_u64(t, "address_size", p.addr_size);
    p.min_inst_length = (uint8_t)jv_u64(t, "min_inst_length", p.min_inst_length);
    p.default_is_stmt = (uint8_t)jv_u64(t, "default_is_stmt", p.default_is_stmt);
    p.line_base = (int8_t)jv_i64(t, "line_base", p.line_base);
    p.line_range = (uint8_t)jv_u64(t, "line_range", p.line_range);
    p.opcode_base = (uint8_t)jv_u64(t, "opcode_base", p.opcode_base);
    return p;
}

/* The header's directories and files into the builder: full paths split
 * as ptxas splits them, or the entries as given. */
static int header_entries(cudw_line_builder *lb, const jv *t)
{
    uint64_t num;
    int brc = CUDW_OK;
    const jv *jp = jv_get(t, "paths");
    if (jp && jp->type == JV_ARR) {
        const jv *jm = jv_get(t, "mtimes"), *jsz = jv_get(t, "sizes");
        const jv *m = jm ? jm->child : NULL, *z = jsz ? jsz->child : NULL;
        for (const jv *c = jp->child; c && !brc; c = c->next) {
            brc = cudw_line_builder_path(lb, c->type == JV_STR ? c->str : "", m ? m->u : 0, z ? z->u : 0, &num);
            m = m ? m->next : NULL;
            z = z ? z->next : NULL;
        }
        return brc;
    }
    const jv *jd = jv_get(t, "directories"), *jf = jv_get(t, "files");
    for (const jv *c = jd ? jd->child : NULL; c && !brc; c = c->next)
        brc = cudw_line_builder_dir(lb, c->type == JV_STR ? c->str : "", &num);
    for (const jv *c = jf ? jf->child : NULL; c && !brc; c = c->next)
        brc = cudw_line_builder_file(lb, jv_str(c, "name") ? jv_str(c, "name") : "", jv_u64(c, "dir", 0),
                                     jv_u64(c, "mtime", 0), jv_u64(c, "size", 0), &num);
    if (jv_get(t, "str_base"))
        cudw_line_builder_str_base(lb, (uint32_t)jv_u64(t, "str_base", 0), jv_str(t, "str_base_symbol"));
    return brc;
}

/* One row of the input: seq is its sequence object (lines --json), or
 * NULL (a flat list, each row with its symbol). */
static cudw_line_row row_of(const jv *c, const jv *seq, const cudw_line_params *p)
{
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
    r.is_stmt = (uint8_t)jv_u64(c, "is_stmt", p->default_is_stmt);
    r.end_sequence = (uint8_t)jv_u64(c, "end_sequence", 0);
    r.context = jv_u64(c, "context", 0);
    r.function_offset = jv_u64(c, "function_offset", 0);
    r.merc_flag = (uint8_t)jv_u64(c, "merc_flag", 0);
    return r;
}

/* Rows: flat ("rows", each with its symbol), or as lines --json prints
 * them ("sequences", the symbol once each), through the row builder *lbp
 * (the caller closes it after using out: the sites name its symbols). */
static int encode_rows(const jv *t, const cudw_line_params *p, const char *in, cudw_line_out *out,
                       cudw_line_builder **lbp)
{
    cudw_line_builder *lb = NULL;
    if (cudw_line_builder_open(lbp, p) != CUDW_OK) {
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    lb = *lbp;
    int brc = header_entries(lb, t), rc = EXIT_BAD_INPUT;
    const jv *jr = jv_get(t, "rows"), *js = jv_get(t, "sequences");
    if (jr && jr->type == JV_ARR) {
        js = NULL;
    } else if (!js || js->type != JV_ARR) {
        eprintf("%s: %s: the table has no \"rows\", \"sequences\" or \"ops\" array\n", progname, in);
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
        cudw_line_row r = row_of(c, seq, p);
        brc = cudw_line_builder_row(lb, &r);
        if (!(c = c->next) && seq)
            seq = seq->next;
    }
    if (brc || cudw_line_builder_finish(lb, out) != CUDW_OK) {
        const cudw_error *e = cudw_line_builder_error(lb);
        eprintf("%s: %s: %s %llu: %s\n", progname, in, e->what, (unsigned long long)e->offset, e->detail);
        goto done;
    }
    rc = EXIT_OK;
done:
    return rc;
}

/* hex digits into bytes: the count, or -1 */
static long unhex(const char *h, uint8_t *out, size_t cap)
{
    size_t n = h ? strlen(h) : 0;
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return (long)(n / 2);
}

/* One opcode object of dump --line --json; raw: room for its operand bytes. */
static int op_of(const jv *c, cudw_line_op *o, uint8_t *raw, size_t cap)
{
    const char *name = jv_str(c, "op");
    memset(o, 0, sizeof *o);
    o->opcode = (uint8_t)jv_u64(c, "opcode", 0);
    o->size = jv_u64(c, "size", 0);
    if (!name)
        return -1;
    if (!strcmp(name, "special")) {
        o->kind = CUDW_LOP_SPECIAL;
    } else if (!strncmp(name, "DW_LNS_", 7)) {
        o->kind = CUDW_LOP_STANDARD;
        o->u = jv_u64(c, "value", 0);
        o->s = jv_i64(c, "value", 0);
    } else {
        o->kind = CUDW_LOP_EXTENDED;
        o->ext_len = jv_u64(c, "length", 0);
        o->u = jv_u64(c, o->opcode == CUDW_LNE_INLINED_CALL ? "context" :
                      o->opcode == CUDW_LNE_SET_FUNCTION ? "function_offset" : "value", 0);
        o->u2 = jv_u64(c, "function_offset", 0);
        o->symbol = jv_str(c, "symbol");
        o->symbol_value = o->u - (uint64_t)jv_i64(c, "addend", 0);
        long n = jv_get(c, "operands") ? unhex(jv_str(c, "operands"), raw, cap) : 0;
        if (n < 0)
            return -1;
        if (n) {
            o->raw = raw;
            o->raw_len = (uint64_t)n;
        }
    }
    return 0;
}

static int fill_header(const jv *t, cudw_line_header_in *h, const char **dirs, cudw_line_file *files)
{
    const jv *jd = jv_get(t, "directories"), *jf = jv_get(t, "files");
    for (const jv *c = jd ? jd->child : NULL; c; c = c->next)
        dirs[h->ndirs++] = c->type == JV_STR ? c->str : "";
    for (const jv *c = jf ? jf->child : NULL; c; c = c->next)
        files[h->nfiles++] = (cudw_line_file){.name = jv_str(c, "name") ? jv_str(c, "name") : "",
                                              .dir = jv_u64(c, "dir", 0), .mtime = jv_u64(c, "mtime", 0),
                                              .size = jv_u64(c, "size", 0)};
    h->dirs = dirs;
    h->files = files;
    h->has_str_base = jv_get(t, "str_base") != NULL;
    h->str_base = (uint32_t)jv_u64(t, "str_base", 0);
    h->str_base_symbol = jv_str(t, "str_base_symbol");
    return 0;
}

static size_t count(const jv *a)
{
    size_t n = 0;
    for (const jv *c = a ? a->child : NULL; c; c = c->next)
        n++;
    return n;
}

/* Opcodes, written as given (cudw_line_encode_ops). */
static int encode_ops(const jv *t, const cudw_line_params *p, const char *in, cudw_line_out *out)
{
    const jv *jo = jv_get(t, "ops");
    size_t n = count(jo), nd = count(jv_get(t, "directories")), nf = count(jv_get(t, "files"));
    size_t nraw = 0; /* the operand bytes the input gives, hex */
    for (const jv *c = jo->child; c; c = c->next)
        nraw += jv_str(c, "operands") ? strlen(jv_str(c, "operands")) / 2 : 0;
    cudw_line_op *ops = calloc(n ? n : 1, sizeof *ops);
    uint8_t *raw = malloc(nraw ? nraw : 1);
    const char **dirs = calloc(nd ? nd : 1, sizeof *dirs);
    cudw_line_file *files = calloc(nf ? nf : 1, sizeof *files);
    cudw_line_header_in h = {0};
    int rc = EXIT_BAD_INPUT;
    if (!ops || !raw || !dirs || !files) {
        eprintf("%s: out of memory\n", progname);
        goto done;
    }
    fill_header(t, &h, dirs, files);
    size_t k = 0, at = 0;
    for (const jv *c = jo->child; c; c = c->next, at += (size_t)ops[k].raw_len, k++)
        if (op_of(c, &ops[k], raw + at, nraw - at)) {
            eprintf("%s: %s: ops[%zu]: not an opcode of dump --line --json\n", progname, in, k);
            goto done;
        }
    if (cudw_line_encode_ops(p, &h, ops, n, out) != CUDW_OK) {
        eprintf("%s: %s: %s %llu: %s\n", progname, in, out->err.what, (unsigned long long)out->err.offset,
                out->err.detail);
        goto done;
    }
    rc = EXIT_OK;
done:
    free(ops);
    free(raw);
    free(dirs);
    free(files);
    return rc;
}

/* The unit to OUT (whole or not at all) and its relocation sites. */
static int write_out(const cudw_line_out *out, const char *outpath, int as_json)
{
    char err[256];
    if (outpath && write_file_atomic(outpath, out->data, out->size, err, sizeof err)) {
        eprintf("%s: %s\n", progname, err);
        return EXIT_BAD_INPUT;
    }
    json j;
    json_init(&j, &out_stdout);
    if (as_json) {
        json_arr(&j, NULL); /* every command's JSON is an array (docs/cli.md) */
        json_obj(&j, NULL);
        json_u64(&j, "size", out->size);
        json_arr(&j, "relocations");
    }
    for (size_t k = 0; k < out->nsites; k++) {
        const cudw_reloc_site *s = &out->sites[k];
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
    return EXIT_OK;
}

/* --image, --section and --table pick a table of `lines --json`'s output:
 * the prose above the list says how (their defaults with it) */
static const cli_opt opts[] = {
    {NULL, 'o', "OUT", 1, "write the unit to OUT (written whole or not at all); default:\n"
                          "nothing is written, only the sites are listed"},
    {"--json", 0, NULL, 5, "list the sites as JSON: [{size, relocations: [{offset, symbol,\n"
                           "addend, width}]}]"},
    {"--image", 0, "LABEL", 4, OPT_UNLISTED},
    {"--section", 0, "NAME", 2, OPT_UNLISTED},
    {"--table", 0, "N", 3, OPT_UNLISTED},
    {"--output", 0, "OUT", 1, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

int cmd_line_encode(int argc, char **argv)
{
    const char *in = NULL, *outpath = NULL, *section = ".debug_line", *image = NULL;
    uint64_t table = 0;
    int as_json = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "line-encode", opts)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, opts, 13, NULL); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case 1: outpath = a.value; break;
        case 2: section = a.value; break;
        case 3:
            if (opt_number(a.value, 1, UINT64_MAX, &table)) {
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
    cudw_line_out out = {0};
    cudw_line_builder *lb = NULL;
    if (!t) {
        eprintf("%s: %s: %s\n", progname, in, err);
        goto done;
    }
    cudw_line_params p = params_of(t);
    rc = jv_get(t, "ops") ? encode_ops(t, &p, in, &out) : encode_rows(t, &p, in, &out, &lb);
    if (rc == EXIT_OK)
        rc = write_out(&out, outpath, as_json);
done:
    cudw_line_out_free(&out);
    cudw_line_builder_close(lb);
    jdoc_free(&doc);
    return rc;
}
