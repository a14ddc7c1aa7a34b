/* LEB128: whatever decodes re-encodes to a prefix-equal value; truncation
 * and overflow are reported, never read past the end; value, end and
 * error are the byte loop's (leb_ref.h) at every offset. */
#include "fuzz.h"
#include "leb_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        uint64_t u;
        const uint8_t *q = p;
        int rc = cudw_uleb128_read(&q, end, &u);
        {
            const uint8_t *qr = p;
            uint64_t ur = 0;
            if (ref_uleb(&qr, end, &ur) != rc || qr != q || (rc == CUDW_OK && ur != u))
                abort();
        }
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
        const uint8_t *q2 = p, *qr2 = p;
        int64_t sr = 0;
        int rs = cudw_sleb128_read(&q2, end, &s);
        if (ref_sleb(&qr2, end, &sr) != rs || qr2 != q2 || (rs == CUDW_OK && sr != s))
            abort();
        if (rs == CUDW_OK) {
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
