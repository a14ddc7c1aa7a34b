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

#endif
