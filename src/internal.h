/* Internal layouts shared by the library's files; never installed. */
#ifndef CUDW_INTERNAL_H
#define CUDW_INTERNAL_H

#include "cudwarf.h"
#include "hmap.h"
#include "vec.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena: everything a handle builds lives here, freed by close ---- */
typedef struct arena_block arena_block;
typedef struct arena {
    arena_block *head;
} arena;

void *arena_alloc(arena *a, size_t size);          /* zeroed, 16-aligned; NULL on OOM */
void arena_free_all(arena *a);

/* ---- per-section state built on demand ---- */
typedef struct sec_state {
    cudw_reloc *relocs;      /* sorted by offset; NULL until built */
    size_t nrelocs;
    size_t hint;             /* where the last lookup landed: walks go forward */
    uint8_t relocs_built;
} sec_state;

/* What the handle has parsed, by (kind, section, offset): abbreviation
 * tables, line-table headers (cache.c). */
enum { CACHE_ABBREV = 1, CACHE_LINE = 2, CACHE_PTX = 3, CACHE_FRAME = 4, CACHE_COMPDIR = 5, CACHE_FUNCS = 6 };
typedef struct cache_entry {
    unsigned kind, section;
    uint64_t offset;
    void *value;
} cache_entry;

void *cache_get(cudw_file *f, unsigned kind, unsigned section, uint64_t offset);
int cache_put(cudw_file *f, unsigned kind, unsigned section, uint64_t offset, void *value);

struct cudw_file {
    char *name;
    const uint8_t *map;      /* the whole file */
    size_t map_size;
    int owns_map;            /* 1: we mmap'd it */
    void *elf;               /* libelf Elf*, or NULL */
    cudw_elf_header hdr;
    cudw_section *secs;
    unsigned nsecs;
    sec_state *state;
    cache_entry *cache;      /* in the order put */
    size_t cache_n, cache_cap;
    hmap cache_idx;
    arena arena;
    cudw_error err;
};

/* cudw_open / cudw_open_mem for any ELF (a host ELF carrying fatbins). */
int file_open_any(cudw_file **out, const char *path);
int file_open_mem_any(cudw_file **out, const void *data, size_t size, const char *name);

/* Fill h's derived fields (sm, layout, address size, ...) from its stored
 * osabi, abiversion and flags (elf/header.c). */
void header_decode(cudw_elf_header *h, uint8_t elf_class);

/* CUDW_OK for an ELF64 file; an ELF32 one (read, never written: strip,
 * remap and link lay out ELF64) gets CUDW_E_UNSUPPORTED naming what. */
int file_writable_class(cudw_file *f, const char *what);

/* The one place a cudw_error is filled in: every handle's failure path
 * (file, fatbin, input, link, symbolizer, line encoder, verify findings)
 * calls this.  section may be NULL ("" then: the file or blob itself);
 * what is a static string; returns code. */
#if defined(__GNUC__)
#define CUDW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CUDW_PRINTF(f, a)
#endif
int err_vset(cudw_error *e, int code, const char *section, uint64_t off, const char *what, const char *fmt,
             va_list ap) CUDW_PRINTF(6, 0);
int err_set(cudw_error *e, int code, const char *section, uint64_t off, const char *what, const char *fmt, ...)
    CUDW_PRINTF(6, 7);

/* Record an error on the handle and return code.  what is a static string. */
int file_fail(cudw_file *f, int code, const cudw_section *sec, uint64_t off,
              const char *what, const char *fmt, ...) CUDW_PRINTF(6, 7);

/* ---- little-endian loads; callers check bounds first ---- */
static inline uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | (unsigned)p[1] << 8); }
static inline uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ld64(const uint8_t *p) { return ld32(p) | (uint64_t)ld32(p + 4) << 32; }

/* ---- FNV-1a: the hash of byte keys (names, strings) in hmap.h indexes ---- */
#define CUDW_FNV0 0xcbf29ce484222325ull
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *s = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

/* ---- a * b wrapping as two's complement, where inputs are hostile ---- */
/* LEB128 with the one-byte case in line and the rest by cudw_uleb128_read /
 * cudw_sleb128_read: the call is most of the cost of a one-byte value
 * (bench/leb128.c, docs/leb128.md), and most values are one byte. */
static inline int uleb_read(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(*p & 0x80)) {
        *out = *p;
        *pp = p + 1;
        return CUDW_OK;
    }
    return cudw_uleb128_read(pp, end, out);
}

static inline int sleb_read(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(*p & 0x80)) {
        *out = (int64_t)(*p & 0x3f) - (int64_t)(*p & 0x40);
        *pp = p + 1;
        return CUDW_OK;
    }
    return cudw_sleb128_read(pp, end, out);
}

static inline int64_t mul_wrap(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* ptxas names a __noinline__ callee laid out in its kernel's section
 * "$<kernel>$<callee>": the callee's own name, its last part (NULL for
 * any other name). */
static inline const char *placed_callee(const char *name)
{
    if (name[0] != '$')
        return NULL;
    const char *last = strrchr(name + 1, '$');
    return last && last[1] ? last + 1 : NULL;
}

/* ---- in n structs of elem bytes that ascend by the uint64_t at byte off
 * of each (an offset map, fragments): the last one whose key is <= x; 0
 * when none is or n is 0 (the caller tells those apart) ---- */
static inline size_t floor_index(const void *v, size_t n, size_t elem, size_t off, uint64_t x)
{
    const uint8_t *b = (const uint8_t *)v;
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, b + mid * elem + off, sizeof k);
        if (k <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- where functions start (elf/func_starts.c) ---- */
typedef struct func_start {
    uint32_t shndx;
    uint64_t value;
} func_start;
typedef struct func_starts {
    size_t n;
    func_start *v; /* by (shndx, value) */
} func_starts;
/* The FUNC symbols of symbol table symtab, cached; NULL out of memory. */
const func_starts *func_starts_of(cudw_file *f, unsigned symtab);
/* Those in section shndx (*n of them, ascending by value). */
const func_start *func_starts_in(const func_starts *fs, uint32_t shndx, size_t *n);
/* The index of value in v[0..n), or SIZE_MAX. */
size_t func_start_find(const func_start *v, size_t n, uint64_t value);

/* The special opcode of a line-program row that advances the address by
 * daddr units and the line by dline under p (line_ops.c), or -1 where
 * the row takes more than one opcode (an advance of zero, or out of range). */
int line_special_op(const cudw_line_params *p, int64_t dline, uint64_t daddr);

/* ---- line programs as opcodes (dwarf/line_ops.c) ----
 * The writers' two layers (LLVM MC's): rows -> opcode records
 * (line_rows_to_ops), then opcode records -> bytes (cudw_line_encode_ops,
 * line_write.c).  A row as the first layer sees it: what the table says
 * (the public row's fields) and, for stage 1 (src/ptx), how ptxas wrote it. */
typedef struct line_wrow {
    uint64_t address;
    const char *symbol;   /* the sequence's set_address symbol, or NULL */
    uint64_t symbol_value;
    unsigned symtab;
    uint64_t file, line;
    uint8_t is_stmt, end_sequence, merc_flag;
    uint8_t hidden;       /* 1: a lone advance_pc; 2: a 0x90 the next replaces before any row */
    uint8_t file_again;   /* a set_file naming the file in effect comes first */
    uint8_t ctx_first;    /* its 0x90 before its set_file (after a set_file to pre_file, if not 0) */
    uint8_t file_first;   /* its set_file before the 0x92 0 closing the entry row before it */
    uint8_t kept;         /* stage 1's mark: a dead 0x90 written although the next row carries it */
    uint64_t context, function_offset;
    uint64_t pre_file;
    uint64_t index;       /* stage 1: the row number ptxas counts */
} line_wrow;

typedef struct lop_vec {
    cudw_line_op *v;
    size_t n, cap;
    int oom;
} lop_vec;

/* The opcodes of rows[0..n) (a sequence ends at each end_sequence row),
 * appended to *o.  CUDW_OK, CUDW_E_NOMEM, or CUDW_E_ARG (a sequence going
 * back, an address a replaced 0x90 cannot reach) with what on *err. */
int line_rows_to_ops(const cudw_line_params *p, const line_wrow *rows, size_t n, lop_vec *o, cudw_error *err);
/* Both layers: rows[0..n) encoded as cudw_line_encode does (line_ops.c). */
/* CUDW_OK, or CUDW_E_ARG on out for parameters no table can have (line_write.c). */
int line_params_check(const cudw_line_params *p, cudw_line_out *out);
int line_encode_wrows(const cudw_line_params *p, const cudw_line_header_in *h, const line_wrow *rows, size_t n,
                      cudw_line_out *out);

/* ---- 1 when x is in v[0..n), which ascends ---- */
static inline int u64_sorted_has(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

/* ---- growable output buffer (wbuf.c) ---- */
typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    int oom;      /* an allocation failed: contents are incomplete */
} wbuf;

void wb_put(wbuf *b, const void *src, size_t n);
static inline void wb_byte(wbuf *b, uint8_t v) { wb_put(b, &v, 1); }
void wb_uleb(wbuf *b, uint64_t v);
void wb_sleb(wbuf *b, int64_t v);
void wb_le(wbuf *b, uint64_t v, unsigned n);             /* n <= 8 bytes, little-endian */
void wb_patch_le(wbuf *b, size_t at, uint64_t v, unsigned n);
void wb_free(wbuf *b);
void wb_reserve(wbuf *b, size_t n);   /* room for n more bytes, exactly */

/* ---- ELF output (elf/write.c) ---- */
typedef struct ew_frag {
    const uint8_t *p;
    size_t n;
    long input;               /* >= 0: p is unchanged bytes of this input file ... */
    uint64_t file_off;        /* ... at this offset, for cudw_copy_fn */
} ew_frag;

typedef struct ew_sec {
    const char *name;
    uint32_t type, link, info;
    uint64_t flags, align, entsize;
    uint64_t size;            /* SHT_NOBITS: sh_size; otherwise computed from the fragments */
    const ew_frag *frags;
    size_t nfrags;
    int alias;                /* >= 0: shares the bytes of secs[alias] (same content) */
    uint64_t offset;          /* set by ew_layout */
    uint32_t name_off;
} ew_sec;

typedef struct ew_file {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t flags;
    ew_sec *secs;             /* secs[i] is section i + 1 */
    size_t nsecs;
    wbuf shstr;
    uint32_t shstr_name;
    uint64_t shstr_off, shoff, total;
} ew_file;

int ew_layout(ew_file *e);
int ew_emit(const ew_file *e, cudw_write_fn fn, cudw_copy_fn copy, void *ctx);
void ew_free(ew_file *e);

/* The relocations aimed at a section, one at a time in file order, without
 * building (or keeping) the sorted array cudw_relocs caches: the linker's
 * way through relocation sections of a million entries.  When another
 * reader already built that array, it is walked instead (sorted order),
 * not decoded again. */
typedef struct reloc_iter {
    cudw_file *f;
    unsigned target, sec;
    uint64_t pos;
    const cudw_reloc *cached; /* the built array (when use_cache) */
    size_t k, n;
    int use_cache;
} reloc_iter;
void reloc_iter_init(reloc_iter *it, cudw_file *f, unsigned target);
int reloc_iter_next(reloc_iter *it, cudw_reloc *out);

/* cudw_frame_next without checking the entry's call frame instructions:
 * for walks that need only the headers (the CIE index, the linker's CIE
 * pointers), which would otherwise decode every program twice. */
int frame_next_headers(cudw_file *f, const cudw_section *s, uint8_t asz, uint64_t *cursor, cudw_cfa_entry *e);

/* The offset of the CIE cudw_frame_cie would return, without parsing it. */
int frame_cie_offset(cudw_file *f, const cudw_section *s, uint8_t asz, const cudw_cfa_entry *fde, uint64_t *out,
                     int *guessed);

/* Section lookup with a twin fallback: the Mercury twin of base for a
 * Mercury reader, else the bare one. */
const cudw_section *section_companion(const cudw_file *f, const cudw_section *from,
                                           const char *bare_name);

/* ---- fatbin containers (input/fatbin.c) ---- */
/* Entry e's image: decompressed into *owned (the caller frees it), or the
 * payload itself (*owned NULL).  Pure: safe from any thread. */
int fatbin_entry_load(const cudw_fatbin_entry *e, uint8_t **owned, const uint8_t **data, size_t *size,
                      cudw_error *err);
/* The size of the fully valid container at p, 0 when it is not one. */
size_t fatbin_container_check(const uint8_t *p, size_t avail);
/* The containers a parsed blob holds, in order: where they are in the blob. */
typedef struct fatbin_con {
    uint64_t offset, size;
} fatbin_con;
size_t fatbin_containers(const cudw_fatbin *fb, const fatbin_con **cons);

/* ---- "ar" archives (input/archive.c) ---- */
typedef struct ar_member {
    char name[256];                 /* "cuda_device_runtime.o" */
    const uint8_t *data;            /* the member's bytes, inside the archive */
    size_t size;
    const uint8_t *long_names;      /* GNU "//" table, once seen (zero it first) */
    size_t long_names_size;
    uint64_t error_offset;          /* on -1: where, and what */
    char error[96];
} ar_member;
int ar_is_archive(const uint8_t *p, size_t n);
/* The next ordinary member at or after *pos (start at 0): 0, 1 after the
 * last, -1 on a malformed header (m->error, m->error_offset). */
int ar_next(const uint8_t *p, size_t n, uint64_t *pos, ar_member *m);

#endif
