/* LEB128: whatever decodes re-encodes to a prefix-equal value; truncation
 * and overflow are reported, never read past the end. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        uint64_t u;
        const uint8_t *q = p;
        int rc = cudw_uleb128_read(&q, end, &u);
        if (rc == CUDW_OK) {
            uint8_t buf[10];
            size_t n = cudw_uleb128_write(u, buf, sizeof buf);
            const uint8_t *r = buf;
            uint64_t v;
            if (cudw_uleb128_read(&r, buf + n, &v) != CUDW_OK || v != u || q <= p)
                abort();
        } else if (q != p) {
            abort(); /* not advanced on error */
        }
        int64_t s;
        const uint8_t *q2 = p;
        if (cudw_sleb128_read(&q2, end, &s) == CUDW_OK) {
            uint8_t buf[10];
            size_t n = cudw_sleb128_write(s, buf, sizeof buf);
            const uint8_t *r = buf;
            int64_t v;
            if (cudw_sleb128_read(&r, buf + n, &v) != CUDW_OK || v != s)
                abort();
        }
        p++;
    }
    return 0;
}
