/* The input as .debug_abbrev + .debug_info + .debug_str: the first two
 * bytes say how long the abbreviations are, the last quarter is strings. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t na = (size_t)(data[0] | data[1] << 8) % (size - 1);
    const uint8_t *ab = data + 2, *rest = ab + na;
    size_t nrest = size - 2 - na, ns = nrest / 4;
    tsec secs[] = {
        {.name = ".debug_abbrev", .data = ab, .size = na},
        {.name = ".debug_info", .data = rest, .size = nrest - ns},
        {.name = ".debug_str", .data = rest + nrest - ns, .size = ns},
        {.name = ".nv_debug_info_ptx", .data = rest, .size = nrest - ns},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 4, &len);
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK)
        exercise_file(f, fuzz_check_error);
    cudw_close(f);
    free(img);
    return 0;
}
