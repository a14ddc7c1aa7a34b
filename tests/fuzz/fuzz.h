/* Shared by the fuzz targets: the libFuzzer entry point, and a no-op
 * error callback (the mutation suite checks errors; fuzzers look for
 * crashes and sanitizer reports). */
#ifndef CUDW_FUZZ_H
#define CUDW_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cudwarf.h"
#include "exercise.h"
#include "telf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An error must say what it was decoding: abort() otherwise, so fuzzers
 * report it like a crash. */
static inline void fuzz_check_error(cudw_file *f, int rc)
{
    const cudw_error *e = cudw_last_error(f);
    if (rc < 0 && (e->code >= 0 || !e->what || !e->what[0]))
        abort();
}

/* The rows of the first table of the .debug_line section
 * of the ELF img: a malloc'd array in *out, its length returned. */
static inline size_t fuzz_line_rows(const uint8_t *img, size_t len, cudw_line_row **out)
{
    cudw_file *f;
    size_t n = 0, cap = 0;
    *out = NULL;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        const cudw_line_table *t;
        uint64_t cur = 0;
        if (cudw_line_table_next(f, cudw_section_find(f, ".debug_line"), &cur, &t) == CUDW_OK) {
            cudw_line_iter it;
            cudw_line_row r;
            cudw_line_iter_init(t, &it, 0);
            while (cudw_line_next(&it, &r) == CUDW_OK) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 256;
                    cudw_line_row *v = realloc(*out, cap * sizeof *v);
                    if (!v)
                        abort();
                    *out = v;
                }
                (*out)[n++] = r;
            }
            cudw_line_iter_free(&it);
        }
    }
    cudw_close(f);
    return n;
}

#endif
