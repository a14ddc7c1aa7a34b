/* LEB128, both directions.
 *
 *   byte:  [c|v v v v v v v]   c = 1: more bytes follow
 *   value: v0 | v1 << 7 | v2 << 14 | ...  (signed: sign-extend from bit 6
 *                                          of the last byte)
 *
 * The decoders are on every hot path (DIE attributes, line programs), so
 * the one-byte case returns at once. */
#include "internal.h"

int cudw_uleb128_read(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(*p & 0x80)) {
        *out = *p;
        *pp = p + 1;
        return CUDW_OK;
    }
    uint64_t v = 0;
    unsigned shift = 0;
    while (p < end) {
        uint8_t b = *p++;
        uint64_t bits = b & 0x7f;
        if (shift < 64) {
            /* At shift 63 only one bit of the byte fits. */
            if (shift == 63 && bits > 1)
                return CUDW_E_LEB_OVERFLOW;
            v |= bits << shift;
        } else if (bits) {
            return CUDW_E_LEB_OVERFLOW;
        }
        shift += 7;
        if (!(b & 0x80)) {
            *out = v;
            *pp = p;
            return CUDW_OK;
        }
    }
    return CUDW_E_TRUNCATED;
}

int cudw_sleb128_read(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(*p & 0x80)) {
        /* bit 6 is the sign */
        *out = (int64_t)(*p & 0x3f) - (int64_t)(*p & 0x40);
        *pp = p + 1;
        return CUDW_OK;
    }
    uint64_t v = 0;
    unsigned shift = 0;
    while (p < end) {
        uint8_t b = *p++;
        uint64_t bits = b & 0x7f;
        if (shift < 63) {
            v |= bits << shift;
        } else if (shift == 63) {
            /* bit 0 is bit 63 of the value; the rest must repeat it */
            if (bits != 0 && bits != 0x7f)
                return CUDW_E_LEB_OVERFLOW;
            v |= bits << 63;
        } else {
            uint64_t sign = (v >> 63) ? 0x7f : 0;
            if (bits != sign)
                return CUDW_E_LEB_OVERFLOW;
        }
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= ~(uint64_t)0 << shift;
            *out = (int64_t)v;
            *pp = p;
            return CUDW_OK;
        }
    }
    return CUDW_E_TRUNCATED;
}

size_t cudw_uleb128_write(uint64_t v, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v)
            b |= 0x80;
        if (buf && n < cap)
            buf[n] = b;
        n++;
    } while (v);
    return n;
}

size_t cudw_sleb128_write(int64_t sv, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    uint64_t v = (uint64_t)sv;
    int neg = sv < 0;
    for (;;) {
        uint8_t b = v & 0x7f;
        /* arithmetic shift by hand: >> on a negative signed value is
         * implementation-defined */
        v = (v >> 7) | (neg ? ~(~(uint64_t)0 >> 7) : 0);
        int done = (v == 0 && !(b & 0x40)) || (v == ~(uint64_t)0 && (b & 0x40));
        if (!done)
            b |= 0x80;
        if (buf && n < cap)
            buf[n] = b;
        n++;
        if (done)
            return n;
    }
}
