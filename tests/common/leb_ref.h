/* The plain byte-at-a-time LEB128 decoders, as DWARF 5 (7.6) describes
 * them, with cudwarf's error rules (CUDW_E_TRUNCATED at the end of the
 * buffer, CUDW_E_LEB_OVERFLOW for bits past 64; *pp untouched on error):
 * the reference the library's decoders are held to (tests/unit/test_leb128.c,
 * tests/fuzz/fuzz_leb128.c) whatever tricks they use. */
#ifndef CUDW_LEB_REF_H
#define CUDW_LEB_REF_H

#include "cudwarf.h"

#include <stdint.h>

static inline int ref_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        uint8_t b = *p++;
        uint64_t bits = b & 0x7f;
        if (shift < 63 || (shift == 63 && bits <= 1))
            v |= bits << shift;
        else if (bits)
            return CUDW_E_LEB_OVERFLOW;
        if (!(b & 0x80)) {
            *out = v;
            *pp = p;
            return CUDW_OK;
        }
    }
    return CUDW_E_TRUNCATED;
}

static inline int ref_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        uint8_t b = *p++;
        uint64_t bits = b & 0x7f;
        if (shift < 63) {
            v |= bits << shift;
        } else if (shift == 63) { /* bit 63; the rest must repeat it */
            if (bits != 0 && bits != 0x7f)
                return CUDW_E_LEB_OVERFLOW;
            v |= bits << 63;
        } else if (bits != ((v >> 63) ? 0x7f : 0)) {
            return CUDW_E_LEB_OVERFLOW;
        }
        if (!(b & 0x80)) {
            if (shift + 7 < 64 && (b & 0x40))
                v |= ~(uint64_t)0 << (shift + 7);
            *out = (int64_t)v;
            *pp = p;
            return CUDW_OK;
        }
    }
    return CUDW_E_TRUNCATED;
}

#endif
