/* What a read PTX holds: its directives, where a line is, its
 * instruction lines, the header ptxas builds from its .file directives,
 * and whether a cubin was made from it (cudwarf/ptx.h). */
#include "internal.h"
#include "ptx/ptx_handle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *name_copy(cudw_ptx *p, const char *s)
{
    char *c = arena_alloc(&p->mem, strlen(s) + 1);
    return c ? strcpy(c, s) : NULL;
}

const cudw_ptx_diag *cudw_ptx_error(const cudw_ptx *p) { return &p->err; }
const char *cudw_ptx_name(const cudw_ptx *p) { return p->name; }
size_t cudw_ptx_text_lines(const cudw_ptx *p) { return p->nlines; }
size_t cudw_ptx_file_count(const cudw_ptx *p) { return p->nfiles; }
size_t cudw_ptx_loc_count(const cudw_ptx *p) { return p->nlocs; }
size_t cudw_ptx_func_count(const cudw_ptx *p) { return p->nfuncs; }
size_t cudw_ptx_warning_count(const cudw_ptx *p) { return p->nwarns; }

const cudw_ptx_file *cudw_ptx_file_get(const cudw_ptx *p, size_t i) { return i < p->nfiles ? &p->files[i] : NULL; }
const cudw_ptx_loc *cudw_ptx_loc_get(const cudw_ptx *p, size_t index)
{
    return index && index <= p->nlocs ? &p->locs[index - 1] : NULL;
}
const cudw_ptx_func *cudw_ptx_func_get(const cudw_ptx *p, size_t i) { return i < p->nfuncs ? &p->funcs[i] : NULL; }
const cudw_ptx_diag *cudw_ptx_warning_get(const cudw_ptx *p, size_t i) { return i < p->nwarns ? &p->warns[i] : NULL; }

void cudw_ptx_where_is(const cudw_ptx *p, uint64_t line, cudw_ptx_where *out)
{
    memset(out, 0, sizeof *out);
    /* the last function whose "{" is at or before line */
    if (!p->nfuncs || p->funcs[0].brace_line > line)
        return;
    size_t fi = floor_index(p->funcs, p->nfuncs, sizeof *p->funcs, offsetof(cudw_ptx_func, brace_line), line);
    if (line > p->funcs[fi].end_line)
        return;
    out->function = fi;
    out->kind = line == p->funcs[fi].brace_line ? CUDW_PTX_BRACE : CUDW_PTX_BODY;
    /* the last .loc before line */
    size_t lo = p->nlocs && p->locs[0].ptx_line < line
                    ? floor_index(p->locs, p->nlocs, sizeof *p->locs, offsetof(cudw_ptx_loc, ptx_line), line - 1) + 1
                    : 0;
    if (lo && p->locs[lo - 1].function == fi)
        out->loc = lo;
}

/* an instruction line: not a label ("NAME:"), a brace, a directive or a comment */
static int is_insn(const char *s, size_t n)
{
    if (!n || s[0] == '.' || s[0] == '{' || s[0] == '}' || (n >= 2 && s[0] == '/' && (s[1] == '/' || s[1] == '*')))
        return 0;
    size_t i = 0;
    while (i < n && s[i] != ':' && s[i] != ' ' && s[i] != '\t' && s[i] != ';')
        i++;
    if (i < n && s[i] == ':') { /* a label, unless something follows it */
        size_t j = i + 1;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
            j++;
        return j < n && !(n - j >= 2 && s[j] == '/' && s[j + 1] == '/');
    }
    return 1;
}

int cudw_ptx_insn_next(const cudw_ptx *p, cudw_ptx_walk *w, cudw_ptx_insn *out)
{
    while (w->pos < p->size) {
        const char *s = p->data + w->pos, *end = p->data + p->size;
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e)
            e = end;
        w->pos = (uint64_t)(e - p->data) + (e < end);
        uint64_t ln = ++w->line;
        while (w->function < p->nfuncs && p->funcs[w->function].end_line < ln)
            w->function++;
        if (w->function == p->nfuncs)
            return CUDW_DONE;
        const cudw_ptx_func *fn = &p->funcs[w->function];
        while (w->loc < p->nlocs && p->locs[w->loc].ptx_line < ln)
            w->loc++;
        if (ln <= fn->brace_line || ln >= fn->end_line)
            continue;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        size_t n = (size_t)(e - s);
        if (n && s[n - 1] == '\r')
            n--;
        if (!is_insn(s, n))
            continue;
        out->line = ln;
        out->text = s;
        out->len = n;
        out->function = w->function;
        out->loc = w->loc && p->locs[w->loc - 1].function == w->function ? w->loc : 0;
        return CUDW_OK;
    }
    return CUDW_DONE;
}

int cudw_ptx_header(const cudw_ptx *p, char ***dirs, size_t *ndirs, cudw_line_file **files, size_t *nfiles)
{
    size_t n = p->nfiles;
    const char **paths = malloc((n ? n : 1) * sizeof *paths);
    uint64_t *mt = malloc((n ? n : 1) * sizeof *mt), *sz = malloc((n ? n : 1) * sizeof *sz);
    int rc = CUDW_E_NOMEM;
    if (paths && mt && sz) {
        for (size_t i = 0; i < n; i++) {
            const cudw_ptx_file *fe = &p->files[i];
            struct stat st;
            paths[i] = fe->path;
            mt[i] = sz[i] = 0;
            if (fe->has_stamp) {
                mt[i] = fe->mtime;
                sz[i] = fe->size;
            } else if (stat(fe->path, &st) == 0) { /* what ptxas does without them */
                mt[i] = (uint64_t)st.st_mtime;
                sz[i] = (uint64_t)st.st_size;
            }
        }
        rc = cudw_line_header_from_paths(paths, mt, sz, n, dirs, ndirs, files);
        if (!rc)
            *nfiles = n;
    }
    free(paths);
    free(mt);
    free(sz);
    return rc;
}

/* A PTX line as ptxas keeps it in .nv_debug_ptx_txt: leading blanks
 * dropped; directives it consumes and whole-line comments emptied. */
static void stored_form(const char *s, size_t n, const char **out, size_t *on)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    static const char *const emptied[] = {".loc", ".file", "//", ".b8", ".b16", ".b32", ".b64"};
    for (size_t i = 0; i < sizeof emptied / sizeof *emptied; i++) {
        size_t k = strlen(emptied[i]);
        if (n >= k && !memcmp(s, emptied[i], k) && (k == 2 || n == k || s[k] == ' ' || s[k] == '\t')) {
            n = 0;
            break;
        }
    }
    *out = s;
    *on = n;
}

/* The same words with the same blanks between: a run of blanks is one
 * (nvcc collapses them in the PTX entries it puts in fatbins), and blanks
 * at the ends and comments after the code do not count. */
static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* n without a trailing "//" comment (nvcc drops those in fatbin entries) */
static size_t code_part(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '/' && s[i + 1] == '/')
            return i;
    return n;
}

static int same_words(const char *a, size_t an, const char *b, size_t bn)
{
    an = code_part(a, an);
    bn = code_part(b, bn);
    size_t i = 0, j = 0;
    for (;;) {
        while (i < an && is_blank(a[i]) && (i + 1 == an || is_blank(a[i + 1]) || !i))
            i++;
        while (j < bn && is_blank(b[j]) && (j + 1 == bn || is_blank(b[j + 1]) || !j))
            j++;
        if (i == an || j == bn)
            break;
        if (is_blank(a[i]) != is_blank(b[j]) || (!is_blank(a[i]) && a[i] != b[j]))
            return 0;
        i++;
        j++;
    }
    while (i < an && is_blank(a[i]))
        i++;
    while (j < bn && is_blank(b[j]))
        j++;
    return i == an && j == bn;
}

int cudw_ptx_matches(cudw_file *f, const cudw_ptx *p, const cudw_section *sec, uint64_t *line)
{
    *line = 0;
    if (!sec) { /* the one the SASS rows name (.nv_debug_ptx_txt.HASH in -rdc objects) */
        const cudw_section *ss = cudw_section_find(f, ".nv_debug_line_sass");
        const cudw_line_table *t;
        uint64_t cur = 0;
        if (ss && cudw_line_table_next(f, ss, &cur, &t) == CUDW_OK)
            sec = cudw_ptx_section_for(f, t, t->nfiles ? 1 : 0);
        if (!sec)
            sec = cudw_section_find(f, ".nv_debug_ptx_txt");
    }
    if (!sec)
        return file_fail(f, CUDW_E_NOT_FOUND, NULL, 0, "PTX text", "no .nv_debug_ptx_txt section to check %s against",
                         p->name);
    uint64_t count;
    int rc = cudw_ptx_line_count(f, sec, &count);
    if (rc < 0)
        return rc;
    const char *s = p->data, *end = p->data + p->size;
    uint64_t ln = 0;
    while (s < end || ln < count) {
        ln++;
        const char *e = s < end ? memchr(s, '\n', (size_t)(end - s)) : NULL;
        if (!e)
            e = end;
        const char *a;
        size_t an;
        stored_form(s, (size_t)(e - s), &a, &an);
        int have = s < end;
        s = e < end ? e + 1 : end;
        const char *t = NULL;
        if (ln > count || cudw_ptx_line(f, sec, ln, &t) != CUDW_OK || !have) {
            if (!have && t && !*t)
                continue; /* a trailing empty line */
            /* ptxas ends the text with the last line it keeps: lines it
             * empties after it (blank, comments, LLVM's trailing .file
             * directives) are not there (docs/ptx-lines.md) */
            size_t kept = an;
            while (kept && is_blank(a[kept - 1]))
                kept--;
            if (have && ln > count && !kept)
                continue;
            *line = ln;
            return file_fail(f, CUDW_E_NOT_FOUND, sec, 0, "PTX text",
                             "%s has %s lines than the PTX this cubin was made from (line %llu)", p->name,
                             have ? "more" : "fewer", (unsigned long long)ln);
        }
        stored_form(t, strlen(t), &t, &(size_t){0});
        if (!same_words(a, an, t, strlen(t))) {
            *line = ln;
            return file_fail(f, CUDW_E_NOT_FOUND, sec, 0, "PTX text",
                             "%s line %llu is not the line this cubin was made from: \"%.60s\"", p->name,
                             (unsigned long long)ln, t);
        }
    }
    return CUDW_OK;
}

int cudw_ptx_open(const char *path, cudw_ptx **out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : S_ISREG(st.st_mode) ? errno : EISDIR;
        if (fd >= 0)
            close(fd);
        cudw_ptx *p = calloc(1, sizeof *p);
        *out = p;
        if (!p || !(p->name = name_copy(p, path)))
            return CUDW_E_NOMEM;
        p->err.code = CUDW_E_IO;
        snprintf(p->err.text, sizeof p->err.text, "%s", strerror(e));
        return CUDW_E_IO;
    }
    void *m = NULL;
    if (st.st_size > 0) {
        m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            cudw_ptx *p = calloc(1, sizeof *p);
            *out = p;
            if (!p || !(p->name = name_copy(p, path)))
                return CUDW_E_NOMEM;
            p->err.code = CUDW_E_IO;
            snprintf(p->err.text, sizeof p->err.text, "mmap: %s", strerror(e));
            return CUDW_E_IO;
        }
        madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
    }
    close(fd);
    int rc = cudw_ptx_read(m ? m : "", m ? (size_t)st.st_size : 0, path, out);
    if (*out) {
        (*out)->map = m;
        (*out)->map_size = m ? (size_t)st.st_size : 0;
    } else if (m) {
        munmap(m, (size_t)st.st_size);
    }
    return rc;
}

void cudw_ptx_close(cudw_ptx *p)
{
    if (!p)
        return;
    if (p->map)
        munmap(p->map, p->map_size);
    free(p->files);
    free(p->locs);
    free(p->loc_label);
    free(p->funcs);
    free(p->warns);
    free(p->labels);
    free(p->str);
    hmap_free(&p->key_index);
    hmap_free(&p->label_index);
    arena_free_all(&p->mem);
    free(p);
}
