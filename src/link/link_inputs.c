/* The inputs of a link as nvlink takes them: each path opened (cubins,
 * fatbins, host objects, archives), the device ELF images of the chosen
 * SM kept in order.
 *
 *   - an object or fatbin gives its images of the SM (every ELF image when
 *     no SM is given, which must then all be of one SM and variant);
 *     sm_90 is not sm_90a, nor the reverse;
 *   - an archive gives the images of all its members, as nvlink takes
 *     them (measured: members that define nothing the link references are
 *     linked too), of the SM of the inputs before it when none is given;
 *   - libcudadevrt.a, which nvlink knows by name and links only for
 *     dynamic parallelism, gives the members that resolve a reference
 *     (link_needs.c), rescanned until none is added. */
#include "link_needs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cudw_link_inputs {
    cudw_input **in;          /* per path, kept open: the images live in them */
    size_t npaths;
    cudw_file **elf;          /* what cudw_link_run takes */
    const char **label;
    size_t *path;             /* which path each image came from */
    char *variant;            /* 'a', 'f' or 0 per image */
    size_t n;
    cudw_error err;
    const char *err_label;    /* the path or image the error is about, or NULL */
};

static int li_fail(cudw_link_inputs *li, const char *label, int code, const char *fmt, ...) CUDW_PRINTF(4, 5);
static int li_fail(cudw_link_inputs *li, const char *label, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&li->err, code, NULL, 0, "link input", fmt, ap);
    va_end(ap);
    li->err_label = label;
    return code;
}

/* The input's own error, about label. */
static int li_input_fail(cudw_link_inputs *li, cudw_input *in, const char *label)
{
    li->err = *cudw_input_error(in);
    li->err_label = label;
    return li->err.code ? li->err.code : CUDW_E_BAD_ELF;
}

static unsigned sm_of(cudw_file *f) { return cudw_header(f)->sm; }

static const char *vstr(int variant) { return variant == 'a' ? "a" : variant == 'f' ? "f" : ""; }

/* 'a', 'f' or 0: the variant an image was built for, as its fatbin entry
 * says (a bare cubin's ELF header does not tell sm_90 from sm_90a). */
static char variant_of(const cudw_input_image *x)
{
    return x->entry ? cudw_fatbin_variant(x->entry->flags)[0] : 0;
}

static int is_devrt(const char *path)
{
    const char *base = strrchr(path, '/');
    return !strcmp(base ? base + 1 : path, "libcudadevrt.a");
}

/* The images of path p of SM sm and variant v (every ELF image when sm is
 * 0), loaded, into cand[]. */
static int candidates(cudw_link_inputs *li, size_t p, unsigned sm, char v, const cudw_input_image **cand, size_t *n)
{
    cudw_input *in = li->in[p];
    *n = 0;
    for (size_t i = 0; i < cudw_input_count(in); i++) {
        const cudw_input_image *x = cudw_input_peek(in, i);
        if (x->kind != CUDW_FATBIN_ELF || (sm && x->entry && x->entry->sm != sm))
            continue;
        if (sm && x->entry && variant_of(x) != v)
            continue; /* sm_90 is not sm_90a, nor the reverse */
        if (cudw_input_image_get(in, i, &x) != CUDW_OK)
            return li_input_fail(li, in, x->label);
        if (sm && sm_of(x->elf) != sm)
            continue;
        cand[(*n)++] = x;
    }
    return CUDW_OK;
}

/* ls NULL: no libcudadevrt.a among the inputs, no symbols to record */
static int take(cudw_link_inputs *li, link_needs *ls, size_t p, const cudw_input_image *x)
{
    li->elf[li->n] = x->elf;
    li->label[li->n] = x->label;
    li->path[li->n] = p;
    li->variant[li->n++] = variant_of(x);
    if (ls && needs_add(ls, x->elf))
        return li_fail(li, NULL, CUDW_E_NOMEM, "out of memory");
    return CUDW_OK;
}

static int archive(cudw_link_inputs *li, const char *path, size_t p, unsigned sm, char v, link_needs *ls,
                   const cudw_input_image **cand)
{
    size_t n;
    int rc;
    if (!sm && li->n) {
        sm = sm_of(li->elf[0]);
        v = li->variant[0];
    }
    int devrt = is_devrt(path);
    if (!sm && devrt)
        return li_fail(li, path, CUDW_E_ARG, "libcudadevrt.a before any object: name the SM to pick its members (cudwarf link --arch)");
    if ((rc = candidates(li, p, sm, v, cand, &n)))
        return rc;
    if (!devrt) {
        /* nvlink links every member of a library, needed or not */
        for (size_t c = 0; c < n; c++)
            if ((rc = take(li, ls, p, cand[c])))
                return rc;
        return CUDW_OK;
    }
    for (int added = 1; added;) {
        added = 0;
        for (size_t c = 0; c < n; c++)
            if (cand[c] && needs_pulls(ls, cand[c]->elf)) {
                if ((rc = take(li, ls, p, cand[c])))
                    return rc;
                cand[c] = NULL;
                added = 1;
            }
    }
    return CUDW_OK;
}

static int collect(cudw_link_inputs *li, const char *const *paths, unsigned sm, char v)
{
    size_t total = 0;
    link_needs needs = {0}, *ls = NULL;
    int rc;
    for (size_t p = 0; p < li->npaths; p++) {
        if (is_devrt(paths[p]))
            ls = &needs;
        if (cudw_input_open(&li->in[p], paths[p]) != CUDW_OK)
            return li->in[p] ? li_input_fail(li, li->in[p], paths[p])
                             : li_fail(li, paths[p], CUDW_E_NOMEM, "out of memory");
        total += cudw_input_count(li->in[p]);
    }
    total = total ? total : 1;
    const cudw_input_image **cand = calloc(total, sizeof *cand);
    li->elf = calloc(total, sizeof *li->elf);
    li->label = calloc(total, sizeof *li->label);
    li->path = calloc(total, sizeof *li->path);
    li->variant = calloc(total, 1);
    if (!cand || !li->elf || !li->label || !li->path || !li->variant) {
        rc = li_fail(li, NULL, CUDW_E_NOMEM, "out of memory");
        goto out;
    }
    for (size_t p = 0; p < li->npaths; p++) {
        size_t n;
        if (cudw_input_type(li->in[p]) == CUDW_INPUT_ARCHIVE) {
            if ((rc = archive(li, paths[p], p, sm, v, ls, cand)))
                goto out;
            continue;
        }
        if ((rc = candidates(li, p, sm, v, cand, &n)))
            goto out;
        if (!n) {
            rc = sm ? li_fail(li, paths[p], CUDW_E_NOT_FOUND, "no sm_%u%s device ELF in it", sm, vstr(v))
                    : li_fail(li, paths[p], CUDW_E_NOT_FOUND, "no device ELF in it (PTX only?)");
            goto out;
        }
        for (size_t c = 0; c < n; c++)
            if ((rc = take(li, ls, p, cand[c])))
                goto out;
    }
    for (size_t k = 1; !sm && k < li->n; k++)
        if (sm_of(li->elf[k]) != sm_of(li->elf[0]) || li->variant[k] != li->variant[0]) {
            rc = li_fail(li, li->label[k], CUDW_E_ARG,
                         "sm_%u%s code, where the first input's (%.120s) is sm_%u%s: choose one (--arch)",
                         sm_of(li->elf[k]), vstr(li->variant[k]), li->label[0], sm_of(li->elf[0]),
                         vstr(li->variant[0]));
            goto out;
        }
    rc = li->n ? CUDW_OK : li_fail(li, NULL, CUDW_E_NOT_FOUND, "no object to link (the archives' members are not needed)");
out:
    free(cand);
    needs_free(&needs);
    return rc;
}

int cudw_link_inputs_open(const char *const *paths, size_t n, unsigned sm, char variant, cudw_link_inputs **out)
{
    cudw_link_inputs *li = calloc(1, sizeof *li);
    *out = li;
    if (!li)
        return CUDW_E_NOMEM;
    li->npaths = n;
    if (!(li->in = calloc(n ? n : 1, sizeof *li->in)))
        return li_fail(li, NULL, CUDW_E_NOMEM, "out of memory");
    return collect(li, paths, sm, variant);
}

size_t cudw_link_inputs_count(const cudw_link_inputs *li) { return li->n; }
cudw_file *const *cudw_link_inputs_files(const cudw_link_inputs *li) { return li->elf; }
const char *cudw_link_inputs_label(const cudw_link_inputs *li, size_t i) { return i < li->n ? li->label[i] : NULL; }
size_t cudw_link_inputs_path(const cudw_link_inputs *li, size_t i) { return i < li->n ? li->path[i] : (size_t)-1; }
char cudw_link_inputs_variant(const cudw_link_inputs *li, size_t i) { return i < li->n ? li->variant[i] : 0; }
cudw_input *cudw_link_inputs_input(const cudw_link_inputs *li, size_t p) { return p < li->npaths ? li->in[p] : NULL; }

const cudw_error *cudw_link_inputs_error(const cudw_link_inputs *li, const char **about)
{
    if (about)
        *about = li->err_label;
    return &li->err;
}

void cudw_link_inputs_close(cudw_link_inputs *li)
{
    if (!li)
        return;
    for (size_t p = 0; li->in && p < li->npaths; p++)
        cudw_input_close(li->in[p]);
    free(li->in);
    free(li->elf);
    free(li->label);
    free(li->path);
    free(li->variant);
    free(li);
}
