/* The bounded reader every parser of the library reads through: the DWARF
 * sections, NVIDIA's, and the ELF symbol and relocation entries.  Two
 * readers take bytes directly, both bounded once: the line-row fast path
 * (line_read.c: an opcode is taken there only when all its bytes lie
 * before the table's end, everything else goes to the cursor's decoder),
 * and the PTX text index (ptx_txt.c: a memchr over NUL-separated lines,
 * which has no field to fail; through cur_str, verify of a CUB -G cubin
 * took 2.2% more instructions).  The ELF container itself is libelf's.
 *
 * A cursor reads one unit, [p, end), of one section.  Each read checks that
 * its bytes lie inside the unit; when they do not, it records one located
 * error on the file handle -- the section, the offset of the field that
 * failed, what the parser was decoding (c->what), the field and what it
 * needed -- and returns the code (CUDW_E_TRUNCATED, CUDW_E_LEB_OVERFLOW,
 * CUDW_E_UNSUPPORTED).
 *
 * After a failed read the cursor has not moved (and a fixed-size field
 * read reads as 0): c->p is still the start of
 * the field that failed, so cur_off() is the error's offset and a parser
 * that wants to resynchronise knows where it stopped.  After a successful
 * read c->p is just past the field.
 *
 * Fixed-size fields that may carry a relocation are read with cur_field:
 * when a relocation with a width sits on the field, the value is the
 * relocated one (symbol value + addend), never the stale bytes, and the
 * relocation is handed back.  cur_open (reloc.h) decodes the section's relocations
 * first, so a malformed relocation section is reported by the first read
 * that needs it and not as a silently unrelocated value. */
#ifndef CUDW_CURSOR_H
#define CUDW_CURSOR_H

#include "../internal.h"

/* the readers are the parsers' inner loops: always in line */
#if defined(__GNUC__)
#define CUR_INLINE static inline __attribute__((always_inline))
#else
#define CUR_INLINE static inline
#endif

typedef struct cur_t {
    const uint8_t *p;          /* the next byte */
    const uint8_t *end;        /* the end of the unit (or section) */
    const uint8_t *base;       /* the section's first byte: offsets are p - base */
    cudw_file *f;              /* where errors are recorded (may be NULL) */
    const cudw_section *sec;
    const char *what;          /* "CU header", "frame entry", ...: static */
    /* a field passed as NULL is named name_of(name_arg), looked up only
     * when an error is recorded (the hot readers pass form numbers) */
    const char *(*name_of)(uint32_t);
    uint32_t name_arg;
} cur_t;

/* A cursor over s from off to end (section offsets; end is clamped to
 * the section's bytes and off to end, so a cursor never reaches outside
 * them), without decoding relocations: for parsers that already did, or
 * read no relocated field. */
static inline cur_t cur_make(cudw_file *f, const cudw_section *s, uint64_t off, uint64_t end, const char *what)
{
    end = end < s->data_size ? end : s->data_size;
    off = off < end ? off : end;
    cur_t c = {s->data + off, s->data + end, s->data, f, s, what, NULL, 0};
    return c;
}

/* A cursor over bytes of no section (an expression block, a call-frame
 * program): bounds only.  Its errors are codes, recorded nowhere -- the
 * caller knows where the bytes are and says so. */
static inline cur_t cur_raw(const uint8_t *p, uint64_t n)
{
    cur_t c = {p, p + n, p, NULL, NULL, NULL, NULL, 0};
    return c;
}

static inline uint64_t cur_off(const cur_t *c) { return (uint64_t)(c->p - c->base); }
static inline uint64_t cur_left(const cur_t *c) { return (uint64_t)(c->end - c->p); }
static inline uint64_t cur_end(const cur_t *c) { return (uint64_t)(c->end - c->base); }

/* Record an error at the cursor (at: a section offset) and return code. */
int cur_fail(const cur_t *c, int code, const char *fmt, ...) CUDW_PRINTF(3, 4);
int cur_fail_at(const cur_t *c, uint64_t at, int code, const char *fmt, ...) CUDW_PRINTF(4, 5);

/* "FIELD needs N bytes, the unit ends at 0xEND" (CUDW_E_TRUNCATED) */
int cur_short(const cur_t *c, const char *field, uint64_t need);

CUR_INLINE int cur_need(const cur_t *c, uint64_t n, const char *field)
{
    return n <= cur_left(c) ? CUDW_OK : cur_short(c, field, n);
}

/* An n-byte little-endian field (n = 1, 2, 4, 8; another n reads its n
 * bytes, at most 8 of them into *v), not relocated. */
CUR_INLINE int cur_un(cur_t *c, unsigned n, const char *field, uint64_t *v)
{
    if (n > cur_left(c)) {
        *v = 0;
        return cur_short(c, field, n);
    }
    const uint8_t *p = c->p;
    switch (n) {
    case 1: *v = p[0]; break;
    case 2: *v = ld16(p); break;
    case 4: *v = ld32(p); break;
    case 8: *v = ld64(p); break;
    default: /* an odd width a hostile header gave: its bytes, never past them */
        *v = 0;
        for (unsigned i = 0; i < n && i < 8; i++)
            *v |= (uint64_t)p[i] << (8 * i);
        break;
    }
    c->p += n;
    return CUDW_OK;
}

CUR_INLINE int cur_u8(cur_t *c, const char *field, uint8_t *v)
{
    if (c->p >= c->end) {
        *v = 0;
        return cur_short(c, field, 1);
    }
    *v = *c->p++;
    return CUDW_OK;
}

CUR_INLINE int cur_u16(cur_t *c, const char *field, uint16_t *v)
{
    if (cur_left(c) < 2) {
        *v = 0;
        return cur_short(c, field, 2);
    }
    *v = ld16(c->p);
    c->p += 2;
    return CUDW_OK;
}

CUR_INLINE int cur_u32(cur_t *c, const char *field, uint32_t *v)
{
    if (cur_left(c) < 4) {
        *v = 0;
        return cur_short(c, field, 4);
    }
    *v = ld32(c->p);
    c->p += 4;
    return CUDW_OK;
}

/* An n-byte field (n = 1, 2, 4, 8) with the relocation on it applied when
 * it has a width (*rel: that relocation, or NULL; may be NULL).  The
 * relocation writes its width of the field, from the low end. */
CUR_INLINE int cur_field(cur_t *c, unsigned n, const char *field, uint64_t *v, const cudw_reloc **rel)
{
    uint64_t at = cur_off(c);
    int rc = cur_un(c, n, field, v);
    const cudw_reloc *r = NULL;
    if (!rc && n >= 4 && c->f) { /* no relocation writes fewer than 4 bytes */
        r = cudw_reloc_at(c->f, c->sec->index, at);
        if (r && !r->width)
            r = NULL;
        if (r) {
            unsigned w = r->width < n ? r->width : n;
            uint64_t mask = w >= 8 ? ~0ull : (1ull << (8 * w)) - 1;
            *v = (*v & ~mask) | (r->value & mask);
        }
    }
    if (rel)
        *rel = r;
    return rc;
}

/* The relocation at the cursor, with a width or not (NULL: none). */
static inline const cudw_reloc *cur_reloc(const cur_t *c)
{
    return c->f ? cudw_reloc_at(c->f, c->sec->index, cur_off(c)) : NULL;
}

/* LEB128, the one-byte case in line (most values are one byte). */
int cur_leb_fail(const cur_t *c, const char *field, int rc);
CUR_INLINE int cur_uleb(cur_t *c, const char *field, uint64_t *v)
{
    const uint8_t *p = c->p;
    int rc = uleb_read(&p, c->end, v);
    if (rc)
        return cur_leb_fail(c, field, rc);
    c->p = p;
    return CUDW_OK;
}

CUR_INLINE int cur_sleb(cur_t *c, const char *field, int64_t *v)
{
    const uint8_t *p = c->p;
    int rc = sleb_read(&p, c->end, v);
    if (rc)
        return cur_leb_fail(c, field, rc);
    c->p = p;
    return CUDW_OK;
}

/* A NUL-terminated string inside the unit; *s points into the section. */
int cur_str_fail(const cur_t *c, const char *field);
CUR_INLINE int cur_str(cur_t *c, const char *field, const char **s)
{
    const uint8_t *z = memchr(c->p, 0, cur_left(c));
    if (!z)
        return cur_str_fail(c, field);
    *s = (const char *)c->p;
    c->p = z + 1;
    return CUDW_OK;
}

CUR_INLINE int cur_skip(cur_t *c, uint64_t n, const char *field)
{
    if (n > cur_left(c))
        return cur_short(c, field, n);
    c->p += n;
    return CUDW_OK;
}

/* A fixed-layout record of n bytes (an ELF symbol, a relocation entry)
 * taken whole: one bounds check, *rec its first byte for the record's
 * field loads, the cursor past it. */
CUR_INLINE int cur_record(cur_t *c, uint64_t n, const char *field, const uint8_t **rec)
{
    if (n > cur_left(c)) {
        *rec = NULL;
        return cur_short(c, field, n);
    }
    *rec = c->p;
    c->p += n;
    return CUDW_OK;
}

int cur_record_fail(cudw_file *f, const cudw_section *s, uint64_t off, uint64_t n, const char *what,
                    const char *field);

/* The same for the record at off of s, without a cursor to keep: the
 * cursor is made only to report a record that does not fit (the tables
 * of symbols and relocations are read a record at a time, at random). */
CUR_INLINE int cur_record_at(cudw_file *f, const cudw_section *s, uint64_t off, uint64_t n, const char *what,
                             const char *field, const uint8_t **rec)
{
    if (s->data && off <= s->data_size && n <= s->data_size - off) {
        *rec = s->data + off;
        return CUDW_OK;
    }
    *rec = NULL;
    return cur_record_fail(f, s, off, n, what, field);
}

/* The initial length of a unit: u32, or with allow64 0xffffffff then u64
 * (64-bit DWARF; *is64 = 1).  The reserved values 0xfffffff0-0xfffffffe,
 * and 64-bit DWARF without allow64, are CUDW_E_UNSUPPORTED; a length past
 * the cursor's end is CUDW_E_TRUNCATED.  On success the cursor is past the
 * length field and its end is the unit's end. */
int cur_unit_length(cur_t *c, int allow64, uint64_t *len, int *is64);

#endif
