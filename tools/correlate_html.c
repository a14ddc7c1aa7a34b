/* cudwarf correlate --html: one self-contained page, three linked panes.
 *
 * The page is the data (one JSON object in a <script type=
 * "application/json">), the style and the script (correlate_page.c), and
 * nothing from the network.  The data, compact because the CUB program
 * has tens of thousands of instructions:
 *
 *   files:  [{path, text: [lines] | null}]       source, read here when found
 *   funcs:  [name]                                 function names (demangled)
 *   chains: [[file, line, func, file, line, func, ...]]  innermost first
 *   ptx:    [{name, section, source, lines: [text]}]
 *   sections: [name]
 *   insn:   [section, pc, ptx, ptx_line, chain, ...]  5 per instruction
 *                                                  (-1: none)
 *   words:  ["0x.. 0x..", ...]                      the instruction words
 *   syms:   [[instruction, symbol]]                 where each function starts
 *   cost:   [[file, line, bytes, bytes_incl, insns, ptx_insns], ...]
 *
 * The script renders blocks of rows when they scroll near the view (and
 * the blocks a highlight needs), so the page opens at once on big images. */
#include "correlate_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* A JSON string that is safe inside <script>: "<" is \u003c, and a URL in a
 * source comment does not look like a reference to the network. */
static void hs_strn(obuf *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    ob_putc(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '/' && i && s[i - 1] == '/') { /* "//" as "/\/": no "http://" in the page's bytes */
            ob_write(o, "\\/", 2);
        } else if (ch == '"' || ch == '\\') {
            ob_putc(o, '\\');
            ob_putc(o, (char)ch);
        } else if (ch < 0x20 || ch == '<' || ch == 0x7f) {
            char e[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
            ob_write(o, e, 6);
        } else {
            ob_putc(o, (char)ch);
        }
    }
    ob_putc(o, '"');
}

static void hs_str(obuf *o, const char *s)
{
    if (s)
        hs_strn(o, s, strlen(s));
    else
        ob_puts(o, "null");
}

static void hs_num(obuf *o, int64_t v) { ob_sdec(o, v); }

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

static void text_lines(obuf *o, const char *data, size_t size)
{
    ob_putc(o, '[');
    size_t pos = 0;
    int first = 1;
    while (pos < size) {
        const char *e = memchr(data + pos, '\n', size - pos);
        size_t end = e ? (size_t)(e - data) : size;
        size_t n = end - pos;
        if (n && data[pos + n - 1] == '\r')
            n--;
        if (!first)
            ob_putc(o, ',');
        first = 0;
        hs_strn(o, data + pos, n);
        pos = end + 1;
    }
    ob_putc(o, ']');
}

/* ---- the data ---- */

static void emit_files(const corr_opts *o, const strtab *files, obuf *out, size_t *missing)
{
    ob_puts(out, "\"files\":[");
    for (size_t i = 0; i < files->n; i++) {
        if (i)
            ob_putc(out, ',');
        ob_puts(out, "{\"path\":");
        hs_str(out, files->v[i]);
        ob_puts(out, ",\"text\":");
        size_t size = 0;
        char *data = read_source(o, files->v[i], &size);
        if (data)
            text_lines(out, data, size);
        else
            ob_puts(out, "null");
        *missing += !data;
        free(data);
        ob_putc(out, '}');
    }
    ob_puts(out, "],\n");
}

static const char *shown_name(const corr_opts *o, const cudw_sym_frame *f)
{
    (void)o;
    return f->function_demangled ? f->function_demangled : f->function;
}

static int emit_chains(const corr_opts *o, cudw_correlation *c, const strtab *files, const strtab *funcs,
                       long *chain_of, obuf *out)
{
    ob_puts(out, "\"chains\":[");
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
        ob_puts(out, nchains > 1 ? ",[" : "[");
        for (size_t k = 0; k < nf; k++) {
            if (k)
                ob_putc(out, ',');
            hs_num(out, strtab_find(files, f[k].file));
            ob_putc(out, ',');
            hs_num(out, (int64_t)f[k].line);
            ob_putc(out, ',');
            hs_num(out, strtab_find(funcs, shown_name(o, &f[k])));
        }
        ob_putc(out, ']');
    }
    ob_puts(out, "],\n");
    return 0;
}

static void emit_ptx(cudw_correlation *c, obuf *out)
{
    ob_puts(out, "\"ptx\":[");
    for (size_t i = 0, n = cudw_corr_ptx_count(c); i < n; i++) {
        const cudw_corr_ptx *p = cudw_corr_ptx_get(c, i);
        ob_puts(out, i ? ",{\"name\":" : "{\"name\":");
        hs_str(out, p->name);
        ob_puts(out, ",\"section\":");
        hs_str(out, p->section->name);
        ob_puts(out, ",\"source\":");
        hs_str(out, p->from == CUDW_PTX_FROM_FILE ? "file" : p->from == CUDW_PTX_FROM_FATBIN ? "fatbin" : "section");
        ob_puts(out, ",\"lines\":[");
        for (uint64_t l = 1; l <= p->lines; l++) {
            const char *t;
            size_t len;
            if (l > 1)
                ob_putc(out, ',');
            if (cudw_corr_ptx_line(c, i, l, &t, &len) == CUDW_OK)
                hs_strn(out, t, len);
            else
                ob_puts(out, "\"\"");
        }
        ob_puts(out, "]}");
    }
    ob_puts(out, "],\n");
}

static void emit_insns(cudw_correlation *c, const long *chain_of, obuf *out)
{
    /* sections by first appearance (instructions come in section order) */
    ob_puts(out, "\"sections\":[");
    unsigned last = 0;
    long nsec = -1;
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        if (!i || in->section != last) {
            if (i)
                ob_putc(out, ',');
            hs_str(out, in->section_name);
            last = in->section;
        }
    }
    ob_puts(out, "],\n\"insn\":[");
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        if (!i || in->section != last) {
            nsec++;
            last = in->section;
        }
        if (i)
            ob_putc(out, ',');
        hs_num(out, nsec);
        ob_putc(out, ',');
        hs_num(out, (int64_t)in->pc);
        ob_putc(out, ',');
        hs_num(out, in->ptx_line && in->ptx != CUDW_CORR_NO_TEXT ? (int64_t)in->ptx : -1);
        ob_putc(out, ',');
        hs_num(out, (int64_t)in->ptx_line);
        ob_putc(out, ',');
        hs_num(out, chain_of[i]);
    }
    ob_puts(out, "],\n\"words\":[");
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        ob_puts(out, i ? ",\"" : "\"");
        for (uint32_t w = 0; in->bytes && w + 8 <= in->size; w += 8) {
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--)
                v = v << 8 | in->bytes[w + (uint32_t)b];
            if (w)
                ob_putc(out, ' ');
            ob_puts(out, "0x");
            ob_hex_pad(out, v, 16);
        }
        ob_putc(out, '"');
    }
    ob_puts(out, "],\n\"syms\":[");
    const char *sym = NULL;
    int first = 1;
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++) {
        const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
        if (in->func && (in->func != sym || !in->func_offset)) {
            ob_puts(out, first ? "[" : ",[");
            first = 0;
            hs_num(out, (int64_t)i);
            ob_putc(out, ',');
            char buf[2048];
            size_t need = cudw_demangle(in->func, buf, sizeof buf);
            hs_str(out, need && need < sizeof buf ? buf : in->func);
            ob_putc(out, ']');
        }
        sym = in->func;
    }
    ob_puts(out, "],\n");
}

static void emit_costs(cudw_correlation *c, const strtab *files, obuf *out)
{
    ob_puts(out, "\"cost\":[");
    int first = 1;
    for (size_t i = 0, n = cudw_corr_line_count(c); i < n; i++) {
        const cudw_corr_cost *k = cudw_corr_line_get(c, i);
        long fi = strtab_find(files, k->name);
        if (fi < 0)
            continue;
        ob_puts(out, first ? "[" : ",[");
        first = 0;
        hs_num(out, fi);
        const uint64_t v[] = {k->line, k->sass_bytes, k->sass_bytes_inclusive, k->sass_instructions,
                              k->ptx_instructions};
        for (size_t x = 0; x < sizeof v / sizeof *v; x++) {
            ob_putc(out, ',');
            hs_num(out, (int64_t)v[x]);
        }
        ob_putc(out, ']');
    }
    ob_puts(out, "],\n");
}

static void emit_summary(cudw_correlation *c, size_t missing, size_t nfiles, obuf *out)
{
    const cudw_corr_summary *s = cudw_corr_summary_get(c);
    ob_puts(out, "\"image\":");
    hs_str(out, s->image);
    ob_printf(out, ",\"sm\":%u,\"code_bytes\":%llu,\"sass_bytes\":%llu,\"capsule_bytes\":%llu,"
                   "\"instructions\":%llu,\"with_line\":%llu,\"with_ptx\":%llu,\"disagree\":%llu,"
                   "\"sources_missing\":%zu,\"sources\":%zu,\n",
              s->sm, (unsigned long long)s->code_bytes, (unsigned long long)s->sass_bytes,
              (unsigned long long)s->capsule_bytes, (unsigned long long)s->instructions,
              (unsigned long long)s->with_line, (unsigned long long)s->with_ptx, (unsigned long long)s->disagree,
              missing, nfiles);
}

int correlate_html(const corr_opts *o, cudw_correlation *c, obuf *out)
{
    size_t ni = cudw_corr_insn_count(c), nl = cudw_corr_line_count(c), nframes = 0;
    for (size_t i = 0; i < ni; i++) {
        size_t nf;
        cudw_corr_frames(c, i, &nf);
        nframes += nf;
    }
    strtab files = {malloc((nl + nframes + 1) * sizeof(char *)), 0};
    strtab funcs = {malloc((nframes + 1) * sizeof(char *)), 0};
    long *chain_of = malloc((ni + 1) * sizeof *chain_of);
    if (!files.v || !funcs.v || !chain_of) {
        free(files.v);
        free(funcs.v);
        free(chain_of);
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < nl; i++)
        files.v[files.n++] = cudw_corr_line_get(c, i)->name;
    for (size_t i = 0; i < ni; i++) {
        size_t nf;
        const cudw_sym_frame *f = cudw_corr_frames(c, i, &nf);
        for (size_t k = 0; k < nf; k++) {
            files.v[files.n++] = f[k].file;
            funcs.v[funcs.n++] = shown_name(o, &f[k]);
        }
    }
    strtab_seal(&files);
    strtab_seal(&funcs);
    corr_page_head(out);
    ob_putc(out, '{');
    size_t missing = 0;
    emit_files(o, &files, out, &missing);
    emit_summary(c, missing, files.n, out);
    ob_puts(out, "\"funcs\":[");
    for (size_t i = 0; i < funcs.n; i++) {
        if (i)
            ob_putc(out, ',');
        hs_str(out, funcs.v[i]);
    }
    ob_puts(out, "],\n");
    emit_chains(o, c, &files, &funcs, chain_of, out);
    emit_ptx(c, out);
    emit_insns(c, chain_of, out);
    emit_costs(c, &files, out);
    ob_puts(out, "\"version\":1}");
    corr_page_tail(out);
    free(files.v);
    free(funcs.v);
    free(chain_of);
    return EXIT_OK;
}
