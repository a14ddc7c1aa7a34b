/* Every command takes cubins, fatbins and host ELFs alike: this walks the
 * ELF images of an input and hands each to the command. */
#include "cli.h"
#include "jobs.h"

#include <stdlib.h>

#include <string.h>

static void report_input(const cudw_input *in, const char *path)
{
    char buf[512];
    cudw_error_format(cudw_input_error(in), buf, sizeof buf);
    eprintf("%s: %s: %s\n", progname, path, buf);
}

const char *debug_file;
static cudw_file *companion;

cudw_file *debug_companion(cudw_file *f, const char *label)
{
    if (!debug_file)
        return f;
    if (!companion && !(companion = open_or_report(debug_file)))
        return NULL;
    char why[400];
    if (!cudw_companion_matches(companion, f, why, sizeof why)) {
        eprintf("%s: %s: --debug-file %s does not belong to it: %s\n", progname, label, debug_file, why);
        return NULL;
    }
    return companion;
}

void debug_companion_close(void)
{
    cudw_close(companion);
    companion = NULL;
}

unsigned sel_sm;
char sel_variant;

int image_selected(const cudw_input_image *im)
{
    return !sel_sm || cudw_input_image_is(im, sel_sm, sel_variant);
}

cudw_input *open_input(const char *path)
{
    cudw_input *in;
    if (cudw_input_open(&in, path) != CUDW_OK) {
        if (!in)
            eprintf("%s: %s: out of memory\n", progname, path);
        else
            report_input(in, path);
        cudw_input_close(in);
        return NULL;
    }
    return in;
}

int select_images(cudw_input *in, const char *path, int quiet_none, size_t **out, size_t *count)
{
    size_t n = cudw_input_count(in), k = 0, elves = 0, ptx = 0, nvvm = 0;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx) {
        eprintf("%s: %s: out of memory\n", progname, path);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < n; i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        ptx += im->kind == CUDW_FATBIN_PTX;
        nvvm += im->kind == CUDW_FATBIN_NVVM;
        if (im->kind != CUDW_FATBIN_ELF)
            continue; /* PTX, LTO IR: nothing to decode here, and nothing to decompress */
        elves++;
        if (image_selected(im))
            idx[k++] = i;
    }
    *out = idx;
    *count = k;
    if (!n) {
        free(idx);
        *out = NULL;
        eprintf("%s: %s: no CUDA device code: not a cubin (e_machine 190), and no fatbin container in any section\n",
                progname, path);
        return EXIT_BAD_INPUT;
    }
    if (!elves) { /* not an error: nothing in it has debug information to show */
        if (!quiet_none)
            eprintf("%s: %s: note: no device ELF image (%zu PTX, %zu LTO IR, %zu other entries)\n", progname, path,
                    ptx, nvvm, n - ptx - nvvm);
        return EXIT_OK;
    }
    if (!k) {
        char sms[256];
        eprintf("%s: %s: no sm_%u%s image (it has %s)\n", progname, path, sel_sm,
                sel_variant == 'a' ? "a" : sel_variant == 'f' ? "f" : "",
                cudw_input_sms(in, CUDW_FATBIN_ELF, sms, sizeof sms));
        free(idx);
        *out = NULL;
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

void image_array_begin(json *j)
{
    ob_flush(&out_stdout);
    json_enter_arr(j);
    jobs_open = "[";
    jobs_sep = ",";
}

void image_array_end(json *j, int rc)
{
    if (jobs_wrote())
        ob_puts(&out_stdout, "]\n");
    else if (rc == EXIT_OK)
        ob_puts(&out_stdout, "[]\n");
    j->depth--;
}

int run_images(char **paths, int n, const image_run *r)
{
    if (r->json)
        image_array_begin(r->j);
    int rc = EXIT_OK;
    for (int i = 0; i < n; i++) {
        int before = r->matched ? atomic_load(r->matched) : 0, x = for_each_elf(paths[i], r->fn, r->ctx, r->j);
        if (x == EXIT_OK && r->section && r->matched && atomic_load(r->matched) == before) {
            eprintf("%s: %s: no %s section %s in any image\n", progname, paths[i], r->kind, r->section);
            x = EXIT_BAD_INPUT;
        }
        if (x != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    }
    if (r->json)
        image_array_end(r->j, rc);
    return rc;
}

void image_open(json *j, int as_json, const char *path, const char *lead)
{
    if (as_json) {
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_arr(j, "sections");
    } else {
        ob_printf(&out_stdout, "%s%s:\n\n", lead, path);
    }
}

void image_close(json *j, int as_json)
{
    if (as_json) {
        json_end_arr(j);
        json_end_obj(j);
    }
}

void section_json_open(json *j, const cudw_section *s, const char *key)
{
    json_obj(j, NULL);
    json_str(j, "section", s->name);
    json_u64(j, "index", s->index);
    if (key)
        json_arr(j, key);
}

size_t image_cost(const cudw_input_image *im)
{
    const cudw_fatbin_entry *e = im->entry;
    if (!e)
        return 0; /* a cubin: its bytes are the file's */
    size_t n = (size_t)(e->flags & (CUDW_FATBIN_ZSTD | CUDW_FATBIN_LZ4) ? e->decompressed_size : e->payload_size);
    /* the decompressed bytes, and for an ELF what the parsers build beside
     * them (verify of a 33 MB cubin: 4 MB) */
    return im->kind == CUDW_FATBIN_ELF ? n + n / 4 : n;
}

size_t image_set_cost(void *set, size_t k)
{
    const image_set *s = set;
    return image_cost(cudw_input_peek(s->in, s->idx[k]));
}

cudw_image *load_or_report(const cudw_input *in, size_t i)
{
    cudw_image *im;
    if (cudw_input_load(in, i, &im) == CUDW_OK)
        return im;
    char buf[512];
    if (im)
        cudw_error_format(&im->err, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "out of memory");
    eprintf("%s: %s: %s\n", progname, cudw_input_peek(in, i)->label, buf);
    cudw_image_close(im);
    return NULL;
}

typedef struct walk {
    image_set set;
    image_fn fn;
    void *ctx;
    const json *tmpl;
} walk;

static int elf_job(void *p, size_t k)
{
    walk *w = p;
    cudw_image *im = load_or_report(w->set.in, w->set.idx[k]);
    if (!im)
        return EXIT_BAD_INPUT;
    json j;
    if (w->tmpl) {
        j = *w->tmpl;
        j.out = &out_stdout; /* this thread's */
        j.first[j.depth] = 1; /* jobs.c puts the comma */
    } else {
        json_init(&j, &out_stdout);
    }
    cudw_file *f = debug_companion(im->elf, im->info->label);
    int r = f ? w->fn(f, im->info->label, w->ctx, &j) : EXIT_BAD_INPUT;
    cudw_image_close(im);
    return r;
}

int for_each_elf(const char *path, image_fn fn, void *ctx, json *tmpl)
{
    cudw_input *in = open_input(path);
    if (!in)
        return EXIT_BAD_INPUT;
    size_t *idx, n;
    int rc = select_images(in, path, 0, &idx, &n);
    if (rc || !n) {
        free(idx);
        cudw_input_close(in);
        return rc;
    }
    walk w = {{in, idx}, fn, ctx, tmpl};
    unsigned saved = jobs_n;
    if (debug_file) /* one companion handle, shared: one thread */
        jobs_n = 1;
    rc = jobs_run_cost(n, elf_job, image_set_cost, &w);
    jobs_n = saved;
    if (tmpl && jobs_wrote())
        tmpl->first[tmpl->depth] = 0;
    free(idx);
    cudw_input_close(in);
    return rc;
}

size_t count_elf_images(const char *path)
{
    cudw_input *in;
    size_t n = 0;
    if (cudw_input_open(&in, path) == CUDW_OK)
        for (size_t i = 0; i < cudw_input_count(in); i++)
            n += cudw_input_peek(in, i)->kind == CUDW_FATBIN_ELF && image_selected(cudw_input_peek(in, i));
    cudw_input_close(in);
    return n;
}
