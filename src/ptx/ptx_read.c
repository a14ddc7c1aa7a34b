/* PTX text: the directives ptxas's line generator reads (cudwarf/ptx.h).
 *
 * One pass over the lines, keeping only what the directives say:
 *
 *     .file N "path"[, mtime, size]        top level: a file entry
 *     .visible .entry NAME(...)            a function header; its body is
 *     {                                    from the "{" (the brace line) to
 *         .loc F L C[, function_name LABEL[+IMM], inlined_at F L C]
 *         ...                              the "}" that balances it
 *     }
 *     .section .debug_str                  labels and the .b8 bytes after
 *     { $L__info_string0: .b8 95,90,0 }    them: each label's offset
 *
 * Other sections (-G PTX carries .debug_info etc. as .b8/.b32 data) and
 * initialisers are skipped by their braces.  Braces in comments and string
 * literals do not count.  Nothing is kept per line: where a line is
 * (cudw_ptx_where_is) is a search over the functions and the .locs. */
#include "internal.h"
#include "ptx/ptx_handle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '.' || c == '%';
}

/* a cursor over one line */
typedef struct lx {
    const char *s, *b, *e; /* position, line start, line end */
} lx;

static void lx_ws(lx *x)
{
    while (x->s < x->e && is_blank(*x->s))
        x->s++;
}
static int lx_char(lx *x, char c)
{
    lx_ws(x);
    if (x->s < x->e && *x->s == c) {
        x->s++;
        return 1;
    }
    return 0;
}
static int lx_word(lx *x, const char *w)
{
    lx_ws(x);
    size_t n = strlen(w);
    if ((size_t)(x->e - x->s) >= n && !memcmp(x->s, w, n) && (x->s + n == x->e || !is_ident(x->s[n]))) {
        x->s += n;
        return 1;
    }
    return 0;
}
static int lx_num(lx *x, uint64_t *v)
{
    lx_ws(x);
    if (x->s == x->e || *x->s < '0' || *x->s > '9')
        return 0;
    uint64_t n = 0;
    while (x->s < x->e && *x->s >= '0' && *x->s <= '9') {
        unsigned d = (unsigned)(*x->s++ - '0');
        if (n > (UINT64_MAX - d) / 10)
            return 0;
        n = n * 10 + d;
    }
    *v = n;
    return 1;
}
static size_t lx_ident(lx *x, const char **at)
{
    lx_ws(x);
    *at = x->s;
    while (x->s < x->e && is_ident(*x->s))
        x->s++;
    return (size_t)(x->s - *at);
}
/* nothing but blanks and a // comment left */
static int lx_end(lx *x)
{
    lx_ws(x);
    return x->s == x->e || (x->e - x->s >= 2 && x->s[0] == '/' && x->s[1] == '/');
}
static uint64_t lx_col(const lx *x) { return (uint64_t)(x->s - x->b) + 1; }

static int fail_at(cudw_ptx *p, int code, uint64_t line, uint64_t col, const char *fmt, ...) CUDW_PRINTF(5, 6);
static int fail_at(cudw_ptx *p, int code, uint64_t line, uint64_t col, const char *fmt, ...)
{
    p->err.code = code;
    p->err.line = line;
    p->err.column = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err.text, sizeof p->err.text, fmt, ap);
    va_end(ap);
    return code;
}

static int warn_at(cudw_ptx *p, uint64_t line, uint64_t col, const char *fmt, ...) CUDW_PRINTF(4, 5);
static int warn_at(cudw_ptx *p, uint64_t line, uint64_t col, const char *fmt, ...)
{
    cudw_ptx_diag *w = vec_room(p->warns, &p->capwarns, p->nwarns, sizeof *w, 4);
    if (!w)
        return fail_at(p, CUDW_E_NOMEM, line, 0, "out of memory");
    p->warns = w;
    w = &p->warns[p->nwarns++];
    memset(w, 0, sizeof *w);
    w->line = line;
    w->column = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text, sizeof w->text, fmt, ap);
    va_end(ap);
    return CUDW_OK;
}

static char *arena_str(arena *a, const char *s, size_t n)
{
    char *c = arena_alloc(a, n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

/* the label table entry of name, added (undefined) if new */
static int label_ref(cudw_ptx *p, const char *s, size_t n, uint32_t *out)
{
    uint64_t h = fnv1a(CUDW_FNV0, s, n);
    hmap_probe q = hmap_probe_at(&p->label_index, h);
    for (uint32_t r; (r = hmap_next(&q)) != HMAP_NONE;)
        if (p->labels[r].len == n && !memcmp(p->labels[r].name, s, n)) {
            *out = r;
            return CUDW_OK;
        }
    ptx_label *l = vec_room(p->labels, &p->caplabels, p->nlabels, sizeof *l, 16);
    if (!l)
        return CUDW_E_NOMEM;
    p->labels = l;
    l = &p->labels[p->nlabels];
    memset(l, 0, sizeof *l);
    if (!(l->name = arena_str(&p->mem, s, n)) || hmap_add(&p->label_index, h, (uint32_t)p->nlabels))
        return CUDW_E_NOMEM;
    l->len = n;
    *out = (uint32_t)p->nlabels++;
    return CUDW_OK;
}

static uint64_t key_hash(uint64_t f, uint64_t l, uint64_t c)
{
    uint64_t k[3] = {f, l, c};
    return fnv1a(CUDW_FNV0, k, sizeof k);
}

/* .file N "path"[, mtime, size] */
static int parse_file(cudw_ptx *p, lx *x, uint64_t ln)
{
    cudw_ptx_file fe = {0};
    fe.ptx_line = ln;
    if (!lx_num(x, &fe.number))
        return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".file: expected a file number");
    lx_ws(x);
    if (!lx_char(x, '"'))
        return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".file %llu: expected a quoted path",
                       (unsigned long long)fe.number);
    const char *q = x->s;
    while (x->s < x->e && *x->s != '"')
        x->s++;
    if (x->s == x->e)
        return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".file %llu: the path's closing quote is missing",
                       (unsigned long long)fe.number);
    if (!(fe.path = arena_str(&p->mem, q, (size_t)(x->s - q))))
        return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
    x->s++;
    if (lx_char(x, ',')) {
        if (!lx_num(x, &fe.mtime) || !lx_char(x, ',') || !lx_num(x, &fe.size))
            return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".file %llu: expected \", MTIME, SIZE\"",
                           (unsigned long long)fe.number);
        fe.has_stamp = 1;
    }
    if (!lx_end(x))
        return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".file %llu: unexpected text after the directive",
                       (unsigned long long)fe.number);
    for (size_t i = 0; i < p->nfiles; i++)
        if (p->files[i].number == fe.number)
            return fail_at(p, CUDW_E_BAD_FORM, ln, 1, ".file %llu: declared again (first on line %llu)",
                           (unsigned long long)fe.number, (unsigned long long)p->files[i].ptx_line);
    cudw_ptx_file *v = vec_room(p->files, &p->capfiles, p->nfiles, sizeof *v, 8);
    if (!v)
        return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
    p->files = v;
    p->files[p->nfiles++] = fe;
    return CUDW_OK;
}

/* .loc F L C[, function_name LABEL[+IMM], inlined_at F L C] */
static int parse_loc(cudw_ptx *p, lx *x, uint64_t ln)
{
    cudw_ptx_loc L = {0};
    L.ptx_line = ln;
    L.function = p->nfuncs - 1;
    if (!lx_num(x, &L.file) || !lx_num(x, &L.line) || !lx_num(x, &L.column))
        return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".loc: expected FILE LINE COLUMN");
    uint32_t label = UINT32_MAX;
    if (lx_char(x, ',')) {
        const char *id;
        uint64_t f, l, c;
        if (!lx_word(x, "function_name"))
            return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".loc: expected function_name after ','");
        uint64_t col = lx_col(x) + 1;
        size_t n = lx_ident(x, &id);
        if (!n)
            return fail_at(p, CUDW_E_BAD_FORM, ln, col, ".loc: function_name: expected a label");
        if (label_ref(p, id, n, &label))
            return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
        if (lx_char(x, '+') && !lx_num(x, &L.label_imm))
            return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".loc: function_name %s+: expected a number",
                           p->labels[label].name);
        if (!lx_char(x, ',') || !lx_word(x, "inlined_at"))
            return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".loc: expected \", inlined_at FILE LINE COLUMN\"");
        col = lx_col(x) + 1;
        if (!lx_num(x, &f) || !lx_num(x, &l) || !lx_num(x, &c))
            return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".loc: inlined_at: expected FILE LINE COLUMN");
        /* the most recent .loc F L C (any function, this one included) */
        hmap_probe q = hmap_probe_at(&p->key_index, key_hash(f, l, c));
        for (uint32_t r; (r = hmap_next(&q)) != HMAP_NONE;) {
            const cudw_ptx_loc *o = &p->locs[r];
            if (o->file == f && o->line == l && o->column == c) {
                L.inlined_at = (size_t)r + 1;
                break;
            }
        }
        if (!L.inlined_at)
            return fail_at(p, CUDW_E_BAD_OFFSET, ln, col,
                           ".loc: inlined_at %llu %llu %llu: no earlier .loc %llu %llu %llu to be inlined at",
                           (unsigned long long)f, (unsigned long long)l, (unsigned long long)c,
                           (unsigned long long)f, (unsigned long long)l, (unsigned long long)c);
    }
    if (!lx_end(x))
        return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(x), ".loc: unexpected text after the directive");
    cudw_ptx_loc *v = vec_room(p->locs, &p->caplocs, p->nlocs, sizeof *v, 64);
    uint32_t *lv = vec_room(p->loc_label, &p->caploclabel, p->nlocs, sizeof *lv, 64);
    if (lv)
        p->loc_label = lv;
    if (!v || !lv || p->nlocs >= HMAP_NONE - 1)
        return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
    p->locs = v;
    p->loc_label[p->nlocs] = label;
    p->locs[p->nlocs] = L;
    /* this .loc is now the one its F L C names */
    uint64_t h = key_hash(L.file, L.line, L.column);
    hmap_probe q = hmap_probe_at(&p->key_index, h);
    for (uint32_t r; (r = hmap_next(&q)) != HMAP_NONE;) {
        const cudw_ptx_loc *o = &p->locs[r];
        if (o->file == L.file && o->line == L.line && o->column == L.column) {
            hmap_replace(&p->key_index, &q, (uint32_t)p->nlocs);
            goto added;
        }
    }
    if (hmap_add(&p->key_index, h, (uint32_t)p->nlocs))
        return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
added:;
    cudw_ptx_func *fn = &p->funcs[p->nfuncs - 1];
    if (!fn->first_loc)
        fn->first_loc = p->nlocs + 1;
    fn->nlocs++;
    p->nlocs++;
    return CUDW_OK;
}

/* Count braces in x's code (not in comments or strings) into *depth;
 * *first_open / *semi: the line's first '{' / ';' at depth 0, if asked. */
static void count_braces(cudw_ptx *p, const lx *x0, int64_t *depth, const char **first_open, const char **semi)
{
    lx x = *x0;
    for (const char *s = x.s; s < x.e; s++) {
        if (p->in_comment) {
            if (s + 1 < x.e && s[0] == '*' && s[1] == '/') {
                p->in_comment = 0;
                s++;
            }
            continue;
        }
        char c = *s;
        if (c == '/' && s + 1 < x.e && s[1] == '/')
            break;
        if (c == '/' && s + 1 < x.e && s[1] == '*') {
            p->in_comment = 1;
            s++;
        } else if (c == '"') {
            for (s++; s < x.e && *s != '"'; s++)
                if (*s == '\\' && s + 1 < x.e)
                    s++;
            if (s == x.e)
                break;
        } else if (c == '{') {
            if (first_open && !*first_open && *depth == 0)
                *first_open = s;
            ++*depth;
        } else if (c == '}') {
            --*depth;
        } else if (c == ';' && semi && !*semi && *depth == 0) {
            *semi = s;
        }
    }
}

/* a function header: [.visible|.extern|.weak|.common]* (.entry|.func) ... */
static int func_header(lx *x, int *entry, const char **name, size_t *nlen)
{
    lx y = *x;
    while (lx_word(&y, ".visible") || lx_word(&y, ".extern") || lx_word(&y, ".weak") || lx_word(&y, ".common"))
        ;
    if (lx_word(&y, ".entry"))
        *entry = 1;
    else if (lx_word(&y, ".func"))
        *entry = 0;
    else
        return 0;
    lx_ws(&y);
    if (!*entry && y.s < y.e && *y.s == '(') { /* .func (.param .b32 retval) NAME(...) */
        int d = 0;
        for (; y.s < y.e; y.s++) {
            d += *y.s == '(' ? 1 : *y.s == ')' ? -1 : 0;
            if (!d) {
                y.s++;
                break;
            }
        }
    }
    *nlen = lx_ident(&y, name);
    *x = y;
    return 1;
}

/* A line of the .debug_str section: `LABEL:` defines a function_name
 * label at the bytes' offset, `.b8 ...` adds bytes (names are read from
 * them).  x is left after the label. */
static int debug_str_line(cudw_ptx *p, lx *x, uint64_t ln)
{
    const char *id;
    lx y = *x;
    size_t n = lx_ident(&y, &id);
    if (n && lx_char(&y, ':')) {
        uint32_t r;
        if (label_ref(p, id, n, &r))
            return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
        p->labels[r].defined = 1;
        p->labels[r].offset = p->nstr;
        *x = y;
        lx_ws(x);
    }
    y = *x;
    if (!lx_word(&y, ".b8"))
        return CUDW_OK;
    for (;;) {
        uint64_t v;
        if (!lx_num(&y, &v) || v > 255)
            return fail_at(p, CUDW_E_BAD_FORM, ln, lx_col(&y), ".debug_str: expected a byte value");
        uint8_t *bv = vec_room(p->str, &p->capstr, p->nstr, 1, 256);
        if (!bv)
            return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
        p->str = bv;
        p->str[p->nstr++] = (uint8_t)v;
        if (!lx_char(&y, ','))
            break;
    }
    lx_char(&y, ';');
    return CUDW_OK;
}

/* What the end of the text leaves open: a comment, a function's body
 * (body), a section's or initialiser's braces (braces, opened on line
 * open_line). */
static int unclosed(cudw_ptx *p, int body, int braces, uint64_t open_line)
{
    if (p->in_comment)
        return fail_at(p, CUDW_E_TRUNCATED, p->nlines, 0, "a /* comment is not closed at the end of the text");
    if (body)
        return fail_at(p, CUDW_E_TRUNCATED, p->funcs[p->nfuncs - 1].brace_line, 0,
                       "the body of %s is not closed at the end of the text", p->funcs[p->nfuncs - 1].name);
    if (braces)
        return fail_at(p, CUDW_E_TRUNCATED, open_line, 0, "a '{' is not closed at the end of the text");
    return CUDW_OK;
}

/* A function whose body opens on line ln. */
static int add_func(cudw_ptx *p, cudw_ptx_func *pend, uint64_t ln)
{
    cudw_ptx_func *v = vec_room(p->funcs, &p->capfuncs, p->nfuncs, sizeof *v, 8);
    if (!v)
        return CUDW_E_NOMEM;
    p->funcs = v;
    pend->brace_line = ln;
    p->funcs[p->nfuncs++] = *pend;
    return CUDW_OK;
}

static int parse_text(cudw_ptx *p)
{
    enum { OUT, HEADER, BODY, SECTION, SKIP } st = OUT;
    int64_t depth = 0;
    int debug_str = 0;
    const char *s = p->data, *end = p->data + p->size;
    uint64_t ln = 0, open_line = 0;
    cudw_ptx_func pend = {0};
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e)
            e = end;
        ln++;
        lx x = {s, s, e};
        s = e < end ? e + 1 : end;
        lx_ws(&x);
        if (p->in_comment) {
            int64_t d = 0;
            count_braces(p, &x, &d, NULL, NULL);
            if (!p->in_comment) /* the comment closed: the rest still counts */
                depth += d;
            continue;
        }
        if (x.s == x.e)
            continue;
        if (st == BODY) {
            if (x.s[0] == '.' && lx_word(&x, ".loc")) {
                int rc = parse_loc(p, &x, ln);
                if (rc)
                    return rc;
                continue;
            }
            count_braces(p, &x, &depth, NULL, NULL);
            if (depth <= 0) {
                p->funcs[p->nfuncs - 1].end_line = ln;
                st = OUT;
                depth = 0;
            }
            continue;
        }
        if (st == SECTION || st == SKIP) {
            int rc = debug_str && st == SECTION ? debug_str_line(p, &x, ln) : CUDW_OK;
            if (rc)
                return rc;
            count_braces(p, &x, &depth, NULL, NULL);
            if (depth > 0 && !open_line)
                open_line = ln;
            if (depth <= 0 && open_line) {
                st = OUT;
                depth = 0;
                debug_str = 0;
                open_line = 0;
            }
            continue;
        }
        if (st == OUT && x.s[0] == '.' && lx_word(&x, ".file")) {
            int rc = parse_file(p, &x, ln);
            if (rc)
                return rc;
            continue;
        }
        if (st == OUT && x.s[0] == '.' && lx_word(&x, ".section")) {
            const char *id;
            size_t n = lx_ident(&x, &id);
            debug_str = n == 10 && !memcmp(id, ".debug_str", 10);
            st = SECTION;
            depth = 0;
            open_line = 0;
            const char *open = NULL;
            count_braces(p, &x, &depth, &open, NULL);
            if (open)
                open_line = ln;
            if (open && depth <= 0)
                st = OUT;
            continue;
        }
        int entry;
        const char *name;
        size_t nlen;
        if (st == OUT && func_header(&(lx){x.s, x.b, x.e}, &entry, &name, &nlen)) {
            memset(&pend, 0, sizeof pend);
            pend.entry = (uint8_t)entry;
            pend.header_line = ln;
            if (!(pend.name = arena_str(&p->mem, name, nlen)))
                return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
            st = HEADER;
        }
        const char *open = NULL, *semi = NULL;
        int64_t d = 0;
        count_braces(p, &x, &d, &open, &semi);
        if (st == HEADER && semi && (!open || semi < open)) { /* a declaration */
            st = OUT;
            continue;
        }
        if (st == HEADER && open) {
            if (add_func(p, &pend, ln))
                return fail_at(p, CUDW_E_NOMEM, ln, 0, "out of memory");
            depth = d;
            st = BODY;
            if (depth <= 0) { /* the body closes on its line */
                p->funcs[p->nfuncs - 1].end_line = ln;
                st = OUT;
                depth = 0;
            }
            continue;
        }
        if (st == OUT && d > 0) { /* an initialiser's braces */
            depth = d;
            open_line = ln;
            st = SKIP;
        }
    }
    p->nlines = ln;
    return unclosed(p, st == BODY, st == SECTION || st == SKIP, open_line);
}

/* here, not with the other queries: finish() warns through it, and the
 * reader depends on nothing of ptx_query.c */
const cudw_ptx_file *cudw_ptx_file_find(const cudw_ptx *p, uint64_t number)
{
    if (number && number <= p->nfiles && p->files[number - 1].number == number)
        return &p->files[number - 1]; /* the usual 1..n */
    for (size_t i = 0; i < p->nfiles; i++)
        if (p->files[i].number == number)
            return &p->files[i];
    return NULL;
}

/* after the text: label offsets into the .locs, and what ptxas accepts
 * but writes wrong (file numbers no .file declares, gaps) */
static int finish(cudw_ptx *p)
{
    for (size_t i = 0; i < p->nlocs; i++) {
        cudw_ptx_loc *L = &p->locs[i];
        uint32_t r = p->loc_label[i];
        if (r != UINT32_MAX) {
            ptx_label *l = &p->labels[r];
            L->label = l->name;
            L->function_offset = l->offset + L->label_imm;
            if (L->function_offset < p->nstr && memchr(p->str + L->function_offset, 0, p->nstr - L->function_offset))
                L->name = (const char *)p->str + L->function_offset;
            if (!l->defined && !l->warned) {
                l->warned = 1;
                if (warn_at(p, L->ptx_line, 0, "function_name %s: no such label in the .debug_str section", l->name))
                    return p->err.code;
            }
        }
        if (!cudw_ptx_file_find(p, L->file) && (!i || p->locs[i - 1].file != L->file) &&
            warn_at(p, L->ptx_line, 0,
                    ".loc names file %llu, which no .file declares: ptxas copies the number, "
                    "the table gets a file entry that is not there",
                    (unsigned long long)L->file))
            return p->err.code;
    }
    for (size_t i = 0; i < p->nfiles; i++)
        if (p->files[i].number != i + 1 &&
            warn_at(p, p->files[i].ptx_line, 0,
                    ".file %llu is entry %zu of the table ptxas writes: .loc numbers are copied, "
                    "so they name other files",
                    (unsigned long long)p->files[i].number, i + 1))
            return p->err.code;
    free(p->loc_label);
    p->loc_label = NULL;
    hmap_free(&p->key_index);
    return CUDW_OK;
}

int cudw_ptx_read(const char *data, size_t size, const char *name, cudw_ptx **out)
{
    cudw_ptx *p = calloc(1, sizeof *p);
    *out = p;
    if (!p)
        return CUDW_E_NOMEM;
    p->data = data;
    p->size = size;
    if (!(p->name = arena_str(&p->mem, name ? name : "<ptx>", strlen(name ? name : "<ptx>"))))
        return fail_at(p, CUDW_E_NOMEM, 0, 0, "out of memory");
    int rc = parse_text(p);
    if (!rc)
        rc = finish(p);
    hmap_free(&p->label_index);
    return rc;
}
