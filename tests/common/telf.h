/* A tiny in-memory ELF64 builder for tests and fuzz targets: hand the
 * library exactly the bytes a test means. */
#ifndef CUDW_TELF_H
#define CUDW_TELF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsec {
    const char *name;
    uint32_t type;
    uint64_t flags;
    const void *data;
    size_t size;
    uint32_t link, info;
    uint64_t entsize;
} tsec;

/* Lay out an ET_REL EM_CUDA ELF64 with sections secs[0..n) (index i+1;
 * index 0 is the null section, the last is .shstrtab).  Returns malloc'd
 * bytes. */
static inline uint8_t *telf_build(const tsec *secs, size_t n, size_t *out_len)
{
    size_t shstr_len = 1;
    for (size_t i = 0; i < n; i++)
        shstr_len += strlen(secs[i].name) + 1;
    shstr_len += sizeof ".shstrtab";
    size_t off = 64;
    size_t *offs = calloc(n + 1, sizeof *offs);
    for (size_t i = 0; i < n; i++) {
        off = (off + 7) & ~(size_t)7;
        offs[i] = off;
        off += secs[i].size;
    }
    size_t shstr_off = off;
    off += shstr_len;
    off = (off + 7) & ~(size_t)7;
    size_t shoff = off, shnum = n + 2;
    size_t total = shoff + shnum * 64;
    uint8_t *b = calloc(1, total);
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 2; b[5] = 1; b[6] = 1; b[7] = 0x41; b[8] = 8;
#define W16(p, v) do { uint16_t _v = (uint16_t)(v); memcpy((p), &_v, 2); } while (0)
#define W32(p, v) do { uint32_t _v = (uint32_t)(v); memcpy((p), &_v, 4); } while (0)
#define W64(p, v) do { uint64_t _v = (uint64_t)(v); memcpy((p), &_v, 8); } while (0)
    W16(b + 16, 1);       /* ET_REL */
    W16(b + 18, 190);     /* EM_CUDA */
    W32(b + 20, 1);
    W64(b + 40, shoff);
    W32(b + 48, 0x5a04);  /* e_flags: sm_90 */
    W16(b + 52, 64);
    W16(b + 58, 64);
    W16(b + 60, shnum);
    W16(b + 62, shnum - 1);
    char *shstr = (char *)b + shstr_off;
    size_t pos = 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t *h = b + shoff + (i + 1) * 64;
        memcpy(b + offs[i], secs[i].data, secs[i].size);
        W32(h, pos);
        strcpy(shstr + pos, secs[i].name);
        pos += strlen(secs[i].name) + 1;
        W32(h + 4, secs[i].type ? secs[i].type : 1);
        W64(h + 8, secs[i].flags);
        W64(h + 24, offs[i]);
        W64(h + 32, secs[i].size);
        W32(h + 40, secs[i].link);
        W32(h + 44, secs[i].info);
        W64(h + 48, 1);
        W64(h + 56, secs[i].entsize);
    }
    uint8_t *h = b + shoff + (n + 1) * 64;
    W32(h, pos);
    strcpy(shstr + pos, ".shstrtab");
    W32(h + 4, 3);
    W64(h + 24, shstr_off);
    W64(h + 32, shstr_len);
    W64(h + 48, 1);
    free(offs);
    *out_len = total;
    return b;
}

#endif
