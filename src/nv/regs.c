/* NVIDIA register operands (DW_OP_regx/bregx, CFA rules, reg_sass).
 *
 * Three encodings share one number (formats.md 5):
 *   - an ASCII name packed big-endian, right-aligned:
 *       "%rd1" -> 0x25726431, "%r4" -> 0x00257234   (PTX virtual register)
 *       "R5"   -> 0x5235                             (SASS name)
 *   - class << 24 | n (SASS register by class):
 *       2 P, 4 half of R, 5 R, 9 UP, 10 half of UR, 11 UR, ...
 *   - a plain number below the register count: R n. */
#include "../internal.h"

#include <stdio.h>

static int printable(uint8_t c) { return c > 0x20 && c < 0x7f; }

/* The packed name's bytes, most significant first; length 0 if not one. */
static size_t unpack(uint64_t reg, char out[9])
{
    size_t n = 0;
    int started = 0;
    for (int sh = 56; sh >= 0; sh -= 8) {
        uint8_t c = (uint8_t)(reg >> sh);
        if (!started && c == 0)
            continue;
        started = 1;
        if (!printable(c))
            return 0;
        out[n++] = (char)c;
    }
    out[n] = 0;
    if (n < 2)
        return 0;
    /* PTX names start with %, SASS names with a register letter */
    if (out[0] != '%' && out[0] != 'R' && out[0] != 'P' && out[0] != 'U')
        return 0;
    return n;
}

int cudw_register_is_packed(uint64_t reg)
{
    char tmp[9];
    return unpack(reg, tmp) != 0;
}

/* "R" and a number below 1000, without snprintf: the names of a frame
 * dump's every rule (snprintf was a tenth of `dump --frames`). */
static size_t r_name(unsigned i, char *buf, size_t n)
{
    char t[5] = {'R'};
    size_t k = 1;
    if (i >= 100)
        t[k++] = (char)('0' + i / 100);
    if (i >= 10)
        t[k++] = (char)('0' + i / 10 % 10);
    t[k++] = (char)('0' + i % 10);
    if (n) {
        size_t c = k < n ? k : n - 1;
        memcpy(buf, t, c);
        buf[c] = 0;
    }
    return k;
}

size_t cudw_register_name(uint64_t reg, char *buf, size_t n)
{
    char tmp[9];
    int len;
    if (reg < 255) /* a SASS general register by its number */
        return r_name((unsigned)reg, buf, n);
    if ((reg >> 24) == 5 && (reg & 0xffffff) < 255)
        return r_name((unsigned)(reg & 0xffffff), buf, n);
    if (unpack(reg, tmp)) {
        len = snprintf(buf, n, "%s", tmp);
    } else if (reg <= 0xffffffffu && (reg >> 24) >= 1 && (reg >> 24) <= 12) {
        unsigned cls = (unsigned)(reg >> 24), i = (unsigned)(reg & 0xffffff);
        switch (cls) {
        case 1: len = snprintf(buf, n, "CC%u", i); break;
        case 2: len = i == 7 ? snprintf(buf, n, "PT") : snprintf(buf, n, "P%u", i); break;
        case 3: len = snprintf(buf, n, "ADDR%u", i); break;
        case 4: len = snprintf(buf, n, "R%u.%s", i / 2, i & 1 ? "hi" : "lo"); break;
        case 5: len = i == 255 ? snprintf(buf, n, "RZ") : snprintf(buf, n, "R%u", i); break;
        case 6: len = snprintf(buf, n, "LOCAL%u", i); break;
        case 7: len = snprintf(buf, n, "LOCALREG%u", i); break;
        case 9: len = i == 7 ? snprintf(buf, n, "UPT") : snprintf(buf, n, "UP%u", i); break;
        case 10: len = snprintf(buf, n, "UR%u.%s", i / 2, i & 1 ? "hi" : "lo"); break;
        case 11: len = i == 255 ? snprintf(buf, n, "URZ") : snprintf(buf, n, "UR%u", i); break;
        case 12: len = snprintf(buf, n, "SPILL%u", i); break;
        default: len = snprintf(buf, n, "class%u:%u", cls, i); break;
        }
    } else if (reg < 256) {
        len = reg == 255 ? snprintf(buf, n, "RZ") : snprintf(buf, n, "R%u", (unsigned)reg);
    } else {
        len = snprintf(buf, n, "reg%llu", (unsigned long long)reg);
    }
    return len < 0 ? 0 : (size_t)len;
}
