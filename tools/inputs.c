/* Every command takes cubins, fatbins and host ELFs alike: this walks the
 * ELF images of an input and hands each to the command. */
#include "cli.h"

#include <string.h>

static void report_input(const cudw_input *in, const char *path)
{
    char buf[512];
    cudw_error_format(cudw_input_error(in), buf, sizeof buf);
    fprintf(stderr, "%s: %s: %s\n", progname, path, buf);
}

const char *debug_file;
static cudw_file *companion;

/* FUNC symbols of the companion, with their sizes, must be the file's. */
static int matches(cudw_file *dbg, cudw_file *f, char *why, size_t n)
{
    const cudw_section *ds = cudw_section_find(dbg, ".symtab"), *fs = cudw_section_find(f, ".symtab");
    if (!ds || !fs)
        return 1;
    size_t checked = 0;
    for (uint32_t i = 1; i < ds->data_size / 24; i++) {
        cudw_symbol a;
        if (cudw_symbol_get(dbg, ds->index, i, &a) != CUDW_OK || a.type != 2)
            continue;
        int found = 0;
        for (uint32_t j = 1; j < fs->data_size / 24 && !found; j++) {
            cudw_symbol b;
            if (cudw_symbol_get(f, fs->index, j, &b) == CUDW_OK && b.type == 2 && !strcmp(a.name, b.name)) {
                found = 1;
                if (a.size != b.size) {
                    snprintf(why, n, "function %s is 0x%llx bytes there, 0x%llx here", a.name,
                             (unsigned long long)a.size, (unsigned long long)b.size);
                    return 0;
                }
            }
        }
        if (!found) {
            snprintf(why, n, "it describes function %s, which this file does not have", a.name);
            return 0;
        }
        checked++;
    }
    return 1;
}

cudw_file *debug_companion(cudw_file *f, const char *label)
{
    if (!debug_file)
        return f;
    if (!companion && !(companion = open_or_report(debug_file)))
        return NULL;
    char why[400];
    if (!matches(companion, f, why, sizeof why)) {
        fprintf(stderr, "%s: %s: --debug-file %s does not belong to it: %s\n", progname, label, debug_file, why);
        return NULL;
    }
    return companion;
}

void debug_companion_close(void)
{
    cudw_close(companion);
    companion = NULL;
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
    size_t elves = 0, ptx = 0, nvvm = 0;
    for (size_t i = 0; i < cudw_input_count(in); i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        ptx += im->kind == CUDW_FATBIN_PTX;
        nvvm += im->kind == CUDW_FATBIN_NVVM;
        if (im->kind != CUDW_FATBIN_ELF)
            continue; /* PTX, LTO IR: nothing to decode here, and nothing to decompress */
        elves++;
        if (cudw_input_image_get(in, i, &im) != CUDW_OK) {
            report_input(in, im->label);
            rc = EXIT_BAD_INPUT;
            continue;
        }
        cudw_file *f = debug_companion(im->elf, im->label);
        int r = f ? fn(f, im->label, ctx) : EXIT_BAD_INPUT;
        if (r > rc)
            rc = r;
    }
    if (!elves) /* not an error: nothing in it has debug information to show */
        fprintf(stderr, "%s: %s: note: no device ELF image (%zu PTX, %zu LTO IR, %zu other entries)\n", progname, path,
                ptx, nvvm, cudw_input_count(in) - ptx - nvvm);
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
