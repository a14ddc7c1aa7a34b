/* The input as .nv_debug_info_reg_sass and .nv_debug_info_reg_type: the
 * first two bytes say how long the reg_sass part is. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t n = (size_t)(data[0] | data[1] << 8) % (size - 1);
    tsec secs[] = {
        {.name = ".nv_debug_info_reg_sass", .data = data + 2, .size = n},
        {.name = ".nv_debug_info_reg_type", .data = data + 2 + n, .size = size - 2 - n},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 2, &len);
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        exercise_section(f, cudw_section_find(f, ".nv_debug_info_reg_sass"), fuzz_check_error);
        exercise_section(f, cudw_section_find(f, ".nv_debug_info_reg_type"), fuzz_check_error);
    }
    cudw_close(f);
    free(img);
    return 0;
}
