/* The input as a file users hand a tool (cubin, fatbin, host ELF, archive):
 * container discovery (the walk of .nv_fatbin/__nv_relfatbin, the magic
 * scan of every other section, the .nvFatBinSegment wrappers), labels,
 * every image loaded and released, each ELF through every parser, the
 * symbolizer over the whole input, and the whole input rewritten with
 * every path remapped (containers packed again). */
#define _GNU_SOURCE 1 /* memfd_create */
#include "fuzz.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static int sink(void *ctx, const void *p, size_t n)
{
    (void)p;
    *(uint64_t *)ctx += n;
    return 0;
}

static int bump(void *p, const void *d, size_t n)
{
    uint8_t **at = p;
    memcpy(*at, d, n);
    *at += n;
    return 0;
}

/* cudw_input_rewrite's callback: every absolute path moved */
static int remap_all(void *ctx, const cudw_input_image *im, cudw_file *elf, uint8_t **out, size_t *n,
                     cudw_error *err)
{
    (void)ctx;
    static const char *const from[] = {"/"}, *const to[] = {"/fuzz/"};
    cudw_remap *r;
    if (cudw_remap_run(elf, from, to, 1, &r) != CUDW_OK) {
        *err = *cudw_last_error(elf);
        if (err->code >= 0 || !im->label)
            abort();
        return err->code;
    }
    *n = (size_t)cudw_remap_size(r);
    *out = malloc(*n ? *n : 1);
    uint8_t *at = *out;
    if (!*out || cudw_remap_write(r, bump, &at) != CUDW_OK || (size_t)(at - *out) != *n)
        abort();
    cudw_remap_close(r);
    return CUDW_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_input", 0);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cudw_input *in;
    if (cudw_input_open(&in, path) == CUDW_OK) {
        for (size_t i = 0; i < cudw_input_count(in) && i < 64; i++) {
            const cudw_input_image *p = cudw_input_peek(in, i);
            if (!p->label || !p->tag)
                abort();
            cudw_image *im;
            if (cudw_input_load(in, i, &im) == CUDW_OK && im->elf)
                exercise_file(im->elf, fuzz_check_error);
            else if (im && im->err.code >= 0 && p->kind == CUDW_FATBIN_ELF)
                abort(); /* a failed load says why */
            cudw_image_close(im);
        }
        for (size_t c = 0; c < cudw_input_container_count(in); c++) {
            const cudw_input_container *k = cudw_input_container_get(in, c);
            if (!k->found_by || k->first_image + k->nimages > cudw_input_count(in))
                abort();
        }
        uint64_t written = 0;
        cudw_error err;
        if (cudw_input_rewrite(in, remap_all, NULL, sink, &written, &err) != CUDW_OK && err.code >= 0)
            abort(); /* a failure says why */
    } else if (in && cudw_input_error(in)->code >= 0) {
        abort();
    }
    cudw_input_close(in);
    cudw_symbolizer *s;
    cudw_symbolizer_opts so = {CUDW_SYM_PTX | CUDW_SYM_DEMANGLE, 0, 0, NULL};
    if (cudw_symbolizer_open(&s, path, &so) == CUDW_OK) {
        cudw_sym_result r;
        cudw_sym_frame fr[4];
        cudw_symbolize(s, "kernel", (size_t)-1, 0x10, &r, fr, 4);
        /* every image correlated, then let go, as correlate walks a library;
         * a lookup after the release builds the image again */
        for (size_t i = 0; i < cudw_symbolizer_image_count(s); i++) {
            cudw_correlation *c = NULL;
            if (cudw_correlate(s, i, NULL, &c) == CUDW_OK && !c)
                abort();
            cudw_correlation_close(c);
            cudw_symbolizer_release(s, i);
        }
        cudw_symbolize(s, "kernel", (size_t)-1, 0x10, &r, fr, 4);
    }
    cudw_symbolizer_close(s);
    close(fd);
    return 0;
}
