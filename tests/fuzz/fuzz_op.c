/* The input as a DW_OP expression (both address sizes), and as register
 * numbers for the NVIDIA naming. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise_expr(data, size, 8);
    exercise_expr(data, size, 4);
    char buf[16];
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t v;
        memcpy(&v, data + i, 8);
        size_t n = cudw_register_name(v, buf, sizeof buf);
        if (n && strlen(buf) >= sizeof buf)
            abort();
    }
    return 0;
}
