/* Every command takes cubins, fatbins and host ELFs alike: this walks the
 * ELF images of an input and hands each to the command. */
#include "cli.h"

static void report_input(const cudw_input *in, const char *path)
{
    char buf[512];
    cudw_error_format(cudw_input_error(in), buf, sizeof buf);
    fprintf(stderr, "%s: %s: %s\n", progname, path, buf);
}

int for_each_elf(const char *path, image_fn fn, void *ctx)
{
    cudw_input *in;
    if (cudw_input_open(&in, path) != CUDW_OK) {
        if (!in)
            fprintf(stderr, "%s: %s: out of memory\n", progname, path);
        else
            report_input(in, path);
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < cudw_input_count(in); i++) {
        const cudw_input_image *im;
        if (cudw_input_image_get(in, i, &im) != CUDW_OK) {
            report_input(in, im->label);
            rc = EXIT_BAD_INPUT;
            continue;
        }
        if (im->kind != CUDW_FATBIN_ELF)
            continue;
        int r = fn(im->elf, im->label, ctx);
        if (r > rc)
            rc = r;
    }
    cudw_input_close(in);
    return rc;
}

size_t count_elf_images(const char *path)
{
    cudw_input *in;
    size_t n = 0;
    if (cudw_input_open(&in, path) == CUDW_OK)
        for (size_t i = 0; i < cudw_input_count(in); i++)
            n += cudw_input_peek(in, i)->kind == CUDW_FATBIN_ELF;
    cudw_input_close(in);
    return n;
}
