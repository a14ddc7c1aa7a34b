/* The symbolizer: locations to source lines with inline call stacks, over
 * every image of an input (cudwarf.h explains the rules).
 *
 * An input with many images (a library holds thousands) answers a symbol
 * from the images that define it: the first lookup of such an input reads
 * every selected image's symbol table once, keeps the FUNC names and which
 * images have them, and releases the image; an image is indexed (index.c,
 * inline.c) only when a lookup needs it, and kept. */
#include "sym.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int symbolizer_fail(cudw_symbolizer *s, int code, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&s->err, code, NULL, 0, what, fmt, ap);
    va_end(ap);
    return code;
}

const cudw_error *cudw_symbolizer_error(const cudw_symbolizer *s) { return &s->err; }
size_t cudw_symbolizer_image_count(const cudw_symbolizer *s) { return s->nimages; }

const cudw_input_image *cudw_symbolizer_image(const cudw_symbolizer *s, size_t i)
{
    return i < s->nimages ? s->images[i].info : NULL;
}

int cudw_symbolizer_open(cudw_symbolizer **out, const char *path, const cudw_symbolizer_opts *opts)
{
    cudw_symbolizer *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return CUDW_E_NOMEM;
    pthread_mutex_init(&s->mu, NULL);
    cudw_symbolizer_opts none = {0};
    if (!opts)
        opts = &none;
    s->flags = opts->flags;
    int rc = cudw_input_open(&s->in, path);
    if (rc) {
        if (s->in)
            s->err = *cudw_input_error(s->in);
        return rc ? rc : CUDW_E_NOMEM;
    }
    if (opts->debug_file) {
        if ((rc = cudw_open(&s->companion, opts->debug_file))) {
            if (s->companion) /* said of the debug file, not of the input the caller will name */
                s->err = *cudw_last_error(s->companion);
            char why[sizeof s->err.detail];
            snprintf(why, sizeof why, "%s", s->err.detail);
            snprintf(s->err.detail, sizeof s->err.detail, "debug file %.100s: %.110s", opts->debug_file, why);
            return rc;
        }
    }
    size_t n = cudw_input_count(s->in), elves = 0;
    s->images = calloc(n ? n : 1, sizeof *s->images);
    if (!s->images)
        return symbolizer_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
    for (size_t i = 0; i < n; i++) {
        const cudw_input_image *im = cudw_input_peek(s->in, i);
        if (im->kind != CUDW_FATBIN_ELF)
            continue;
        elves++;
        if (opts->sm && !cudw_input_image_is(im, opts->sm, opts->variant))
            continue;
        sym_image *x = &s->images[s->nimages++];
        x->input = i;
        x->info = im;
        atomic_init(&x->state, 0);
    }
    if (!elves)
        return symbolizer_fail(s, CUDW_E_NOT_FOUND, "input", "no device ELF image in %s", path);
    if (!s->nimages) { /* the message every command gives */
        char sms[256];
        return symbolizer_fail(s, CUDW_E_NOT_FOUND, "", "no sm_%u%s image (it has %s)", opts->sm,
                               opts->variant == 'a' ? "a" : opts->variant == 'f' ? "f" : "",
                               cudw_input_sms(s->in, CUDW_FATBIN_ELF, sms, sizeof sms));
    }
    return CUDW_OK;
}

int cudw_symbolizer_open_file(cudw_symbolizer **out, cudw_file *f, unsigned flags)
{
    cudw_symbolizer *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return CUDW_E_NOMEM;
    pthread_mutex_init(&s->mu, NULL);
    s->flags = flags;
    s->given = f;
    s->given_info.label = cudw_file_name(f);
    s->given_info.tag = "";
    s->given_info.kind = CUDW_FATBIN_ELF;
    s->given_info.sm = cudw_header(f)->sm;
    s->given_info.container = (size_t)-1;
    s->images = calloc(1, sizeof *s->images);
    if (!s->images)
        return symbolizer_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
    s->nimages = 1;
    s->images[0].info = &s->given_info;
    atomic_init(&s->images[0].state, 0);
    return CUDW_OK;
}

void cudw_symbolizer_release(cudw_symbolizer *s, size_t i)
{
    if (!s || i >= s->nimages || s->nimages == 1 || s->given)
        return; /* one image: the names index may point into it */
    sym_image *x = &s->images[i];
    sym_index_free(x);
    cudw_image_close(x->img);
    size_t input = x->input;
    const cudw_input_image *info = x->info;
    memset(x, 0, sizeof *x);
    x->input = input;
    x->info = info;
    atomic_init(&x->state, 0);
}

void cudw_symbolizer_close(cudw_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nimages; i++) {
        sym_index_free(&s->images[i]);
        cudw_image_close(s->images[i].img);
    }
    free(s->images);
    free(s->gnames);
    free(s->anames);
    free(s->aliases);
    hmap_free(&s->atab);
    hmap_free(&s->gtab);
    arena_free_all(&s->mem);
    cudw_close(s->companion);
    cudw_input_close(s->in);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The companion must describe the image: its functions, with their
 * sizes (looked up through an index of the image's functions). */
int cudw_companion_matches(cudw_file *dbg, cudw_file *f, char *why, size_t n)
{
    const cudw_section *ds = cudw_section_find(dbg, ".symtab");
    if (!ds || !ds->data)
        return 1;
    sym_image tmp = {0};
    tmp.f = f;
    if (sym_funcs_load(&tmp, 0)) {
        snprintf(why, n, "%s", tmp.err.detail);
        sym_index_free(&tmp);
        return 0;
    }
    int ok = 1;
    cudw_symbol a;
    for (uint32_t i = 1; ok && i < cudw_symbol_count(dbg, ds->index); i++) {
        if (cudw_symbol_get(dbg, ds->index, i, &a) != CUDW_OK || a.type != 2 || !a.name[0])
            continue;
        const sym_func *fn = sym_func_named(&tmp, a.name, strlen(a.name));
        if (!fn || strcmp(fn->name, a.name)) {
            snprintf(why, n, "it describes function %s, which the image does not have", a.name);
            ok = 0;
        } else if (fn->size != a.size) {
            snprintf(why, n, "function %s is 0x%llx bytes there, 0x%llx here", a.name, (unsigned long long)a.size,
                     (unsigned long long)fn->size);
            ok = 0;
        }
    }
    sym_index_free(&tmp);
    return ok;
}

/* The companion's section of each of the image's, by name: callers
 * number sections as the cubin they loaded does (strip keeps its
 * indexes; the companion has its own). */
static int map_sections(sym_image *x, cudw_file *image, cudw_file *dbg)
{
    unsigned n = cudw_section_count(image);
    x->sec_map = arena_alloc(&x->mem, (n ? n : 1) * sizeof *x->sec_map);
    if (!x->sec_map)
        return CUDW_E_NOMEM;
    x->nsec_map = n;
    for (unsigned i = 0; i < n; i++) {
        const cudw_section *m = i ? cudw_section_find(dbg, cudw_section_get(image, i)->name) : NULL;
        x->sec_map[i] = m ? m->index : UINT_MAX;
    }
    return CUDW_OK;
}

unsigned sym_section_of(const sym_image *img, unsigned section)
{
    if (!img->sec_map)
        return section;
    return section < img->nsec_map ? img->sec_map[section] : UINT_MAX;
}

unsigned sym_section_back(const sym_image *img, unsigned shndx)
{
    for (unsigned i = 0; img->sec_map && i < img->nsec_map; i++) /* a few dozen sections: a look, not a table */
        if (img->sec_map[i] == shndx)
            return i;
    return shndx;
}

/* Index image x (under the lock). */
static int build_image(cudw_symbolizer *s, sym_image *x)
{
    int st = atomic_load_explicit(&x->state, memory_order_acquire);
    if (st)
        return st > 0 ? CUDW_OK : x->err.code;
    int rc = s->given ? CUDW_OK : cudw_input_load(s->in, x->input, &x->img);
    if (rc) {
        if (x->img)
            x->err = x->img->err;
        else
            x->err.code = CUDW_E_NOMEM;
    } else {
        x->f = s->given ? s->given : x->img->elf;
        if (s->companion) {
            char why[300];
            if (!cudw_companion_matches(s->companion, x->f, why, sizeof why)) {
                x->err.code = rc = CUDW_E_ARG;
                x->err.what = "debug file";
                snprintf(x->err.detail, sizeof x->err.detail, "%.60s does not belong to the image: %.120s",
                         cudw_file_name(s->companion), why);
            } else {
                rc = map_sections(x, x->f, s->companion);
                x->f = s->companion;
            }
        }
        if (!rc)
            rc = sym_index_build(x, s->flags);
        if (!rc) /* the inline trees read the index: built after it */
            rc = sym_inline_build(x, s->flags);
        if (rc > 0)
            rc = CUDW_OK;
    }
    if (rc && !x->err.code)
        x->err.code = rc;
    if (rc && !x->err.what)
        x->err.what = "image";
    atomic_store_explicit(&x->state, rc ? -1 : 1, memory_order_release);
    return rc;
}

int sym_ensure_image(cudw_symbolizer *s, sym_image *x)
{
    int st = atomic_load_explicit(&x->state, memory_order_acquire);
    if (st > 0)
        return CUDW_OK;
    pthread_mutex_lock(&s->mu);
    int rc = build_image(s, x);
    pthread_mutex_unlock(&s->mu);
    if (rc) {
        s->err = x->err;
        return rc;
    }
    return CUDW_OK;
}

int cudw_symbolizer_prepare(cudw_symbolizer *s)
{
    for (size_t i = 0; i < s->nimages; i++) {
        int rc = sym_ensure_image(s, &s->images[i]);
        if (rc)
            return rc;
    }
    return CUDW_OK;
}

/* ---- which images define a name ---- */

static int gadd(cudw_symbolizer *s, size_t *cap, const char *name, uint32_t image)
{
    gname *g = vec_room(s->gnames, cap, s->ngnames, sizeof *g, 1024);
    if (!g)
        return CUDW_E_NOMEM;
    s->gnames = g;
    size_t n = strlen(name) + 1;
    char *copy = arena_alloc(&s->mem, n);
    if (!copy)
        return CUDW_E_NOMEM;
    s->gnames[s->ngnames++] = (gname){memcpy(copy, name, n), image, 0};
    return CUDW_OK;
}

static int build_names(cudw_symbolizer *s)
{
    size_t cap = 0;
    for (size_t i = 0; i < s->nimages; i++) {
        sym_image *x = &s->images[i];
        cudw_image *im;
        int rc = cudw_input_load(s->in, x->input, &im);
        if (rc) { /* its error comes when a lookup needs the image */
            cudw_image_close(im);
            continue;
        }
        const cudw_section *st = cudw_section_find(im->elf, ".symtab");
        for (uint32_t k = 1; st && k < cudw_symbol_count(im->elf, st->index); k++) {
            cudw_symbol sy;
            if (cudw_symbol_get(im->elf, st->index, k, &sy) != CUDW_OK || sy.type != 2 || !sy.name[0] || !sy.shndx)
                continue;
            const char *nm = placed_callee(sy.name);
            if (gadd(s, &cap, sy.name, (uint32_t)i) || (nm && gadd(s, &cap, nm, (uint32_t)i))) {
                cudw_image_close(im);
                return symbolizer_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
            }
        }
        cudw_image_close(im);
    }
    if (hmap_reserve(&s->gtab, s->ngnames))
        return symbolizer_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
    /* chains keep image order: insert from the last entry back */
    for (size_t k = s->ngnames; k-- > 0;) {
        const char *nm = s->gnames[k].name;
        uint64_t h = sym_hash(nm, strlen(nm));
        hmap_probe p = hmap_probe_at(&s->gtab, h);
        uint32_t r;
        while ((r = hmap_next(&p)) != HMAP_NONE && strcmp(s->gnames[r].name, nm))
            ;
        if (r == HMAP_NONE) {
            hmap_add(&s->gtab, h, (uint32_t)k); /* reserved: cannot fail */
        } else if (s->gnames[r].image != s->gnames[k].image) { /* an image once in a chain */
            s->gnames[k].next = r + 1;
            hmap_replace(&s->gtab, &p, (uint32_t)k);
        }
    }
    return CUDW_OK;
}

/* The first entry for name, or NULL. */
const gname *sym_gfind(const cudw_symbolizer *s, const char *name, size_t len)
{
    hmap_probe p = hmap_probe_at(&s->gtab, sym_hash(name, len));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
        const char *o = s->gnames[r].name;
        if (!strncmp(o, name, len) && !o[len])
            return &s->gnames[r];
    }
    return NULL;
}

int sym_ensure_names(cudw_symbolizer *s)
{
    if (atomic_load_explicit(&s->names_ready, memory_order_acquire))
        return CUDW_OK;
    pthread_mutex_lock(&s->mu);
    int rc = CUDW_OK;
    if (!atomic_load_explicit(&s->names_ready, memory_order_relaxed)) {
        rc = build_names(s);
        if (!rc)
            atomic_store_explicit(&s->names_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}
