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

#endif
