/* cudwarf correlate --html: one self-contained page, three linked panes.
 *
 * The page is the data (one JSON object in a <script type=
 * "application/json">, through json.h's html mode: no string in it can end
 * the script or read as a URL), the style and the script
 * (correlate_page.c), and nothing from the network.  The data, version 2
 * (a new shape, a new number):
 *
 *   version:  2
 *   summary:  {image, sm, code_bytes, ..., ptx_instructions_by,
 *              ptx: [{source, name, section, lines}]}
 *             correlate --json's image object up to "instructions",
 *             written by its printer (correlate_summary): same keys
 *   ptx_text: [[text]]                    summary.ptx[t]'s lines, from 1
 *   files:    [{path, text: [lines] | null}]  source, read here (null:
 *                                         not found; line numbers only)
 *
 * The rest is the library's instructions and source-line costs (--json's
 * "instructions" and "source_lines") in the page's own compact form,
 * numbers into tables, for images of tens of thousands of instructions:
 *
 *   funcs:    [name]                      function names (demangled)
 *   chains:   [[file, line, func, ...]]   an instruction's frames,
 *                                         innermost first (into files, funcs)
 *   sections: [name]                      code sections, in order
 *   insn:     [section, pc, ptx, ptx_line, chain, ...]  5 per instruction:
 *             ptx into ptx_text (-1 and ptx_line 0: none), chain -1: no row
 *   words:    ["0x.. 0x..", ...]          the instruction words
 *   syms:     [[instruction, symbol]]     where each function starts
 *   cost:     [[file, line, sass_bytes, sass_bytes_inclusive,
 *               sass_instructions, ptx_instructions], ...]  lines with a path
 *
 * The script renders blocks of rows when they scroll near the view (and
 * the blocks a highlight needs), so the page opens at once on big images. */
#include "correlate_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- names to numbers ---- */

typedef struct strtab {
    const char **v;
    size_t n;
} strtab;

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort and make unique (NULLs dropped). */
static void strtab_seal(strtab *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i])
            t->v[k++] = t->v[i];
    qsort(t->v, k, sizeof *t->v, str_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || strcmp(t->v[u - 1], t->v[i]))
            t->v[u++] = t->v[i];
    t->n = u;
}

static long strtab_find(const strtab *t, const char *s)
{
    if (!s)
        return -1;
    const char **hit = bsearch(&s, t->v, t->n, sizeof *t->v, str_cmp);
    return hit ? hit - t->v : -1;
}

/* ---- source files ---- */

/* path read from disk (under --prefix), or NULL; *size its bytes */
static char *read_source(const corr_opts *o, const char *path, size_t *size)
{
    char buf[4096];
    const char *use = path;
    for (size_t i = 0; i < o->nprefix; i++) {
        const char *eq = strchr(o->prefix[i], '=');
        size_t ol = (size_t)(eq - o->prefix[i]);
        if (!strncmp(path, o->prefix[i], ol) && (path[ol] == '/' || !path[ol] || o->prefix[i][ol - 1] == '/')) {
            snprintf(buf, sizeof buf, "%s%s", eq + 1, path + ol);
            use = buf;
            break;
        }
    }
    FILE *f = fopen(use, "rb");
    struct stat st;
    if (!f)
        return NULL;
    char *data = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (16 << 20) &&
        (data = malloc((size_t)st.st_size + 1))) {
        *size = fread(data, 1, (size_t)st.st_size, f);
        data[*size] = 0;
    }
    fclose(f);
    return data;
}

/* data's lines as "text": an array of strings (no line ends) */
static void text_lines(json *j, const char *data, size_t size)
{
    json_arr(j, "text");
    size_t pos = 0;
    while (pos < size) {
        const char *e = memchr(data + pos, '\n', size - pos);
        size_t end = e ? (size_t)(e - data) : size;
        size_t n = end - pos;
        if (n && data[pos + n - 1] == '\r')
            n--;
        json_strn(j, NULL, data + pos, n);
        pos = end + 1;
    }
    json_end_arr(j);
}

/* ---- the data ---- */

static void emit_files(const corr_opts *o, const strtab *files, json *j)
{
    json_arr(j, "files");
    for (size_t i = 0; i < files->n; i++) {
        json_obj(j, NULL);
        json_str(j, "path", files->v[i]);
        size_t size = 0;
        char *data = read_source(o, files->v[i], &size);
        if (data)
            text_lines(j, data, size);
        else
            json_null(j, "text");
        free(data);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static const char *shown_name(const corr_opts *o, const cudw_sym_frame *f)
{
    (void)o;
    return f->function_demangled ? f->function_demangled : f->function;
}

static void emit_funcs(const strtab *funcs, json *j)
{
    json_arr(j, "funcs");
    for (size_t i = 0; i < funcs->n; i++)
        json_str(j, NULL, funcs->v[i]);
    json_end_arr(j);
}

static void emit_chains(const corr_opts *o, cudw_correlation *c, const strtab *files, const strtab *funcs,
                        long *chain_of, json *j)
{
    json_arr(j, "chains");
    const cudw_sym_frame *last = NULL;
    long nchains = 0;
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        size_t nf;
        const cudw_sym_frame *f = cudw_corr_frames(c, i, &nf);
        if (!nf) {
            chain_of[i] = -1;
            continue;
        }
        if (f == last) { /* instructions with the same frames share them */
            chain_of[i] = nchains - 1;
            continue;
        }
        last = f;
        chain_of[i] = nchains++;
        json_arr(j, NULL);
        for (size_t k = 0; k < nf; k++) {
            json_i64(j, NULL, strtab_find(files, f[k].file));
            json_u64(j, NULL, f[k].line);
            json_i64(j, NULL, strtab_find(funcs, shown_name(o, &f[k])));
        }
        json_end_arr(j);
    }
    json_end_arr(j);
}

/* The PTX texts' lines; their descriptors are the summary's "ptx" */
static void emit_ptx_text(cudw_correlation *c, json *j)
{
    json_arr(j, "ptx_text");
    for (size_t i = 0, n = cudw_corr_ptx_count(c); i < n; i++) {
        json_arr(j, NULL);
        for (uint64_t l = 1, nl = cudw_corr_ptx_get(c, i)->lines; l <= nl; l++) {
            const char *t;
            size_t len;
            if (cudw_corr_ptx_line(c, i, l, &t, &len) == CUDW_OK)
                json_strn(j, NULL, t, len);
            else
                json_strn(j, NULL, "", 0);
        }
        json_end_arr(j);
    }
    json_end_arr(j);
}

/* sections by first appearance (instructions come in section order) */
static void emit_sections(cudw_correlation *c, json *j)
{
    json_arr(j, "sections");
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        if (!i || in->section != cudw_corr_insn_get(c, i - 1)->section)
            json_str(j, NULL, in->section_name);
    }
    json_end_arr(j);
}

static void emit_insn(cudw_correlation *c, const long *chain_of, json *j)
{
    json_arr(j, "insn");
    long nsec = -1;
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        if (!i || in->section != cudw_corr_insn_get(c, i - 1)->section)
            nsec++;
        json_i64(j, NULL, nsec);
        json_u64(j, NULL, in->pc);
        json_i64(j, NULL, in->ptx_line && in->ptx != CUDW_CORR_NO_TEXT ? (int64_t)in->ptx : -1);
        json_u64(j, NULL, in->ptx_line);
        json_i64(j, NULL, chain_of[i]);
    }
    json_end_arr(j);
}

/* An instruction's bytes as one string of 64-bit little-endian words */
static void insn_words(json *j, const cudw_corr_insn *in)
{
    char *d = json_sep(j, NULL, 1);
    *d++ = '"';
    ob_commit(j->out, d);
    for (uint32_t w = 0; in->bytes && w + 8 <= in->size; w += 8) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | in->bytes[w + (uint32_t)b];
        d = ob_room(j->out, 19);
        if (w)
            *d++ = ' ';
        memcpy(d, "0x", 2);
        d = put_hex8(put_hex8(d + 2, (uint32_t)(v >> 32)), (uint32_t)v);
        ob_commit(j->out, d);
    }
    ob_putc(j->out, '"');
}

static void emit_words(cudw_correlation *c, json *j)
{
    json_arr(j, "words");
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++)
        insn_words(j, cudw_corr_insn_get(c, i));
    json_end_arr(j);
}

static void emit_syms(cudw_correlation *c, json *j)
{
    json_arr(j, "syms");
    const char *sym = NULL;
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        if (in->func && (in->func != sym || !in->func_offset)) {
            char buf[2048];
            size_t need = cudw_demangle(in->func, buf, sizeof buf);
            json_arr(j, NULL);
            json_u64(j, NULL, i);
            json_str(j, NULL, need && need < sizeof buf ? buf : in->func);
            json_end_arr(j);
        }
        sym = in->func;
    }
    json_end_arr(j);
}

static void emit_costs(cudw_correlation *c, const strtab *files, json *j)
{
    json_arr(j, "cost");
    for (size_t i = 0, n = cudw_corr_line_count(c); i < n; i++) {
        const cudw_corr_cost *k = cudw_corr_line_get(c, i);
        long fi = strtab_find(files, k->name);
        if (fi < 0)
            continue;
        json_arr(j, NULL);
        json_i64(j, NULL, fi);
        const uint64_t v[] = {k->line, k->sass_bytes, k->sass_bytes_inclusive, k->sass_instructions,
                              k->ptx_instructions};
        for (size_t x = 0; x < sizeof v / sizeof *v; x++)
            json_u64(j, NULL, v[x]);
        json_end_arr(j);
    }
    json_end_arr(j);
}

/* The files and function names the frames and costs name, each once */
static int collect_names(const corr_opts *o, cudw_correlation *c, strtab *files, strtab *funcs)
{
    size_t ni = cudw_corr_insn_count(c), nl = cudw_corr_line_count(c), nframes = 0;
    for (size_t i = 0; i < ni; i++) {
        size_t nf;
        cudw_corr_frames(c, i, &nf);
        nframes += nf;
    }
    files->v = malloc((nl + nframes + 1) * sizeof(char *));
    funcs->v = malloc((nframes + 1) * sizeof(char *));
    if (!files->v || !funcs->v)
        return -1;
    for (size_t i = 0; i < nl; i++)
        files->v[files->n++] = cudw_corr_line_get(c, i)->name;
    for (size_t i = 0; i < ni; i++) {
        size_t nf;
        const cudw_sym_frame *f = cudw_corr_frames(c, i, &nf);
        for (size_t k = 0; k < nf; k++) {
            files->v[files->n++] = f[k].file;
            funcs->v[funcs->n++] = shown_name(o, &f[k]);
        }
    }
    strtab_seal(files);
    strtab_seal(funcs);
    return 0;
}

/* The data object (the shape at the top) */
static void emit_data(const corr_opts *o, cudw_correlation *c, const strtab *files, const strtab *funcs,
                      long *chain_of, obuf *out)
{
    json j;
    json_init_html(&j, out);
    emit e = {&j, out};
    json_obj(&j, NULL);
    json_u64(&j, "version", 2);
    em_obj(&e, "summary");
    correlate_summary(&e, c);
    em_end_obj(&e);
    emit_ptx_text(c, &j);
    emit_files(o, files, &j);
    emit_funcs(funcs, &j);
    emit_chains(o, c, files, funcs, chain_of, &j);
    emit_sections(c, &j);
    emit_insn(c, chain_of, &j);
    emit_words(c, &j);
    emit_syms(c, &j);
    emit_costs(c, files, &j);
    json_end_obj(&j);
}

int correlate_html(const corr_opts *o, cudw_correlation *c, obuf *out)
{
    strtab files = {0}, funcs = {0};
    long *chain_of = malloc((cudw_corr_insn_count(c) + 1) * sizeof *chain_of);
    int rc = EXIT_OK;
    if (!chain_of || collect_names(o, c, &files, &funcs)) {
        eprintf("%s: out of memory\n", progname);
        rc = EXIT_BAD_INPUT;
    } else {
        corr_page_head(out);
        emit_data(o, c, &files, &funcs, chain_of, out);
        corr_page_tail(out);
    }
    free(files.v);
    free(funcs.v);
    free(chain_of);
    return rc;
}
