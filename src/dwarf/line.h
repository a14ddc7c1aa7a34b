/* What the line-table reader keeps per table beyond the public header
 * (line_header.c builds it, line_read.c decodes with it). */
#ifndef CUDW_DWARF_LINE_H
#define CUDW_DWARF_LINE_H

#include "../internal.h"

typedef struct line_impl {
    cudw_line_table pub;
    /* Special opcode op advances the address by sp_addr[op] and the line
     * by sp_line[op] (op >= opcode_base): a division per row, paid once. */
    uint16_t sp_addr[256];
    int16_t sp_line[256];
    uint8_t short_std;  /* bit n: standard opcode n takes one ULEB (2, 4, 5) */
} line_impl;

/* ULEB128 of up to 3 bytes in line, longer ones (and errors) by the
 * general decoder: operands of line programs are short. */
static inline int uleb_in(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    ptrdiff_t n = end - p;
    if (n >= 1 && !(p[0] & 0x80)) {
        *v = p[0];
        *pp = p + 1;
        return CUDW_OK;
    }
    if (n >= 2 && !(p[1] & 0x80)) {
        *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return CUDW_OK;
    }
    if (n >= 3 && !(p[2] & 0x80)) {
        *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
        *pp = p + 3;
        return CUDW_OK;
    }
    return cudw_uleb128_read(pp, end, v);
}

#endif
