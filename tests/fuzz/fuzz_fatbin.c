/* The input as a fatbin blob: containers, entries, decompression (zstd,
 * LZ4) and the embedded images through every parser. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cudw_fatbin *fb;
    if (cudw_fatbin_parse(data, size, "fuzz", &fb) == CUDW_OK) {
        for (size_t i = 0; i < cudw_fatbin_count(fb); i++) {
            const uint8_t *img;
            size_t n;
            if (cudw_fatbin_image(fb, i, &img, &n) != CUDW_OK)
                continue;
            if (cudw_fatbin_get(fb, i)->kind != CUDW_FATBIN_ELF)
                continue;
            cudw_file *f;
            if (cudw_open_mem(&f, img, n, "fuzz") == CUDW_OK)
                exercise_file(f, fuzz_check_error);
            cudw_close(f);
        }
    } else if (fb && cudw_fatbin_error(fb)->code >= 0) {
        abort();
    }
    cudw_fatbin_close(fb);
    return 0;
}
