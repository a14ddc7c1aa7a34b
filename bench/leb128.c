/* Bulk LEB128: is a SIMD decoder worth having?  (issue 15; docs/leb128.md)
 *
 *   leb128 FILE [RUNS]    values/s of each decoder on FILE's LEB128 values
 *   leb128 --check [N]    the bulk decoders against the scalar one on N
 *                         random streams (odd lengths, overlong, overflow,
 *                         truncation): same values, same stop, same error
 *
 * The stream is DWARF-shaped: the unsigned LEB128 values a reader of FILE
 * decodes -- every DIE's abbreviation code, udata and block lengths, every
 * .debug_abbrev code/tag/attribute/form, every line-program operand and
 * extended-opcode length, every call-frame register and offset -- in the
 * order it meets them, encoded minimally back to back.  (A real reader never has them back to back: each value
 * says what the next bytes are.  That is the point of docs/leb128.md.)
 *
 * Decoders, each decoding the whole stream into an array:
 *   library  cudw_uleb128_read per value (a call, as the readers make for
 *            values longer than a byte)
 *   inline   the byte loop (tests/common/leb_ref.h), inlined
 *   sse2     16 bytes at a time: movemask finds the last byte of each
 *            value; 16 one-byte values are widened by unpacking; values of
 *            up to 8 bytes are gathered from one 8-byte load
 *   avx2     32 bytes at a time, BMI2 pext gathers the 7-bit groups
 *            (used when the CPU has AVX2 and BMI2)
 * Values of 9 bytes or more, and the last 16/32 bytes of the buffer, go to
 * the scalar decoder: the bulk ones never read past the end and fail
 * exactly where it fails. */
#include <cudwarf.h>

#include "leb_ref.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* Decodes up to n values from [*pp, end) into out: the number decoded;
 * *pp moves past them.  *err is CUDW_OK, or the scalar decoder's error at
 * the value that stopped it (*pp at that value). */
typedef size_t (*bulk_fn)(const uint8_t **pp, const uint8_t *end, uint64_t *out, size_t n, int *err);

static size_t dec_library(const uint8_t **pp, const uint8_t *end, uint64_t *out, size_t n, int *err)
{
    size_t k = 0;
    *err = CUDW_OK;
    for (; k < n; k++) {
        const uint8_t *p = *pp;
        if ((*err = cudw_uleb128_read(&p, end, &out[k])) != CUDW_OK)
            break;
        *pp = p;
    }
    return k;
}

/* the plain byte loop (tests/common/leb_ref.h), inlined */
static inline int uleb_one(const uint8_t **pp, const uint8_t *end, uint64_t *out) { return ref_uleb(pp, end, out); }

/* One value the scalar way inside a bulk decoder: 0 to go on, 1 to stop
 * (an error, in *err). */
static inline int scalar_one(const uint8_t **p, const uint8_t *end, uint64_t *out, size_t *k, int *err)
{
    if ((*err = uleb_one(p, end, &out[*k])) != CUDW_OK)
        return 1;
    ++*k;
    return 0;
}

static size_t dec_inline(const uint8_t **pp, const uint8_t *end, uint64_t *out, size_t n, int *err)
{
    size_t k = 0;
    *err = CUDW_OK;
    for (; k < n; k++)
        if ((*err = uleb_one(pp, end, &out[k])) != CUDW_OK)
            break;
    return k;
}

#ifdef HAVE_X86
/* The 7-bit groups of the len (1..8) bytes in w, as one value. */
static inline uint64_t gather7(uint64_t w, unsigned len)
{
    w &= len == 8 ? ~0ull : (1ull << (8 * len)) - 1;
    uint64_t v = w & 0x7f;
    v |= (w >> 1) & (0x7full << 7);
    v |= (w >> 2) & (0x7full << 14);
    v |= (w >> 3) & (0x7full << 21);
    v |= (w >> 4) & (0x7full << 28);
    v |= (w >> 5) & (0x7full << 35);
    v |= (w >> 6) & (0x7full << 42);
    v |= (w >> 7) & (0x7full << 49);
    return v;
}

static size_t dec_sse2(const uint8_t **pp, const uint8_t *end, uint64_t *out, size_t n, int *err)
{
    const uint8_t *p = *pp;
    size_t k = 0;
    *err = CUDW_OK;
    const __m128i zero = _mm_setzero_si128();
    while (k < n) {
        if (end - p < 16) { /* the tail: one by one, bounds-checked */
            if (scalar_one(&p, end, out, &k, err))
                break;
            continue;
        }
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned cont = (unsigned)_mm_movemask_epi8(v);
        if (cont == 0 && n - k >= 16) { /* 16 one-byte values */
            __m128i w16lo = _mm_unpacklo_epi8(v, zero), w16hi = _mm_unpackhi_epi8(v, zero);
            __m128i w[4] = {_mm_unpacklo_epi16(w16lo, zero), _mm_unpackhi_epi16(w16lo, zero),
                            _mm_unpacklo_epi16(w16hi, zero), _mm_unpackhi_epi16(w16hi, zero)};
            for (int i = 0; i < 4; i++) {
                _mm_storeu_si128((__m128i *)(void *)&out[k + 4 * i], _mm_unpacklo_epi32(w[i], zero));
                _mm_storeu_si128((__m128i *)(void *)&out[k + 4 * i + 2], _mm_unpackhi_epi32(w[i], zero));
            }
            k += 16;
            p += 16;
            continue;
        }
        unsigned term = ~cont & 0xffff, start = 0;
        if (!term) { /* no value ends in these 16 bytes: overlong or overflowing */
            if (scalar_one(&p, end, out, &k, err))
                break;
            continue;
        }
        while (term && k < n) {
            unsigned t = (unsigned)__builtin_ctz(term), len = t - start + 1;
            if (len > 8 || start + 8 > 16) /* long, or its 8-byte load would leave the window */
                break;
            uint64_t w;
            memcpy(&w, p + start, 8);
            out[k++] = gather7(w, len);
            term &= term - 1;
            start = t + 1;
        }
        p += start;
        if (k < n && term && scalar_one(&p, end, out, &k, err)) /* the value that stopped the window */
            break;
    }
    *pp = p;
    return k;
}

__attribute__((target("avx2,bmi2"))) static size_t dec_avx2(const uint8_t **pp, const uint8_t *end, uint64_t *out,
                                                             size_t n, int *err)
{
    const uint8_t *p = *pp;
    size_t k = 0;
    *err = CUDW_OK;
    while (k < n) {
        if (end - p < 32) {
            if (scalar_one(&p, end, out, &k, err))
                break;
            continue;
        }
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        uint32_t cont = (uint32_t)_mm256_movemask_epi8(v);
        if (cont == 0 && n - k >= 32) { /* 32 one-byte values */
            for (int i = 0; i < 32; i += 4) {
                int four;
                memcpy(&four, p + i, 4);
                __m128i b4 = _mm_cvtsi32_si128(four);
                _mm256_storeu_si256((__m256i *)(void *)&out[k + i], _mm256_cvtepu8_epi64(b4));
            }
            k += 32;
            p += 32;
            continue;
        }
        uint32_t term = ~cont;
        unsigned start = 0;
        if (!term) {
            if (scalar_one(&p, end, out, &k, err))
                break;
            continue;
        }
        while (term && k < n) {
            unsigned t = (unsigned)__builtin_ctz(term), len = t - start + 1;
            if (len > 8 || start + 8 > 32)
                break;
            uint64_t w;
            memcpy(&w, p + start, 8);
            out[k++] = _pext_u64(w, 0x7f7f7f7f7f7f7f7full >> (8 * (8 - len)));
            term &= term - 1;
            start = t + 1;
        }
        p += start;
        if (k < n && term && scalar_one(&p, end, out, &k, err))
            break;
    }
    *pp = p;
    return k;
}
#endif

typedef struct decoder {
    const char *name;
    bulk_fn fn;
} decoder;

static size_t decoders(decoder *d)
{
    size_t n = 0;
    d[n++] = (decoder){"library (cudw_uleb128_read)", dec_library};
    d[n++] = (decoder){"byte loop, inlined", dec_inline};
#ifdef HAVE_X86
    d[n++] = (decoder){"sse2 bulk", dec_sse2};
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))
        d[n++] = (decoder){"avx2+bmi2 bulk", dec_avx2};
#endif
    return n;
}

/* ---- the stream ---- */

typedef struct vec {
    uint64_t *v;
    size_t n, cap;
} vec;

static void push(vec *s, uint64_t x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1 << 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    s->v[s->n++] = x;
}

/* how many values came from .debug_abbrev, .debug_info, line programs,
 * call-frame programs */
static size_t from_abbrev, from_info, from_line, from_frame;

static void collect(cudw_file *f, vec *vals)
{
    for (unsigned i = 1; i < cudw_section_count(f); i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
            continue;
        if (c.kind == CUDW_SEC_ABBREV) {
            for (uint64_t off = 0; off < s->data_size;) {
                const cudw_abbrev_table *t;
                if (cudw_abbrev_table_get(f, s, off, &t) != CUDW_OK)
                    break;
                for (size_t e = 0; e < t->count; e++) {
                    push(vals, t->entries[e].code);
                    push(vals, t->entries[e].tag);
                    for (uint32_t a = 0; a < t->entries[e].nattrs; a++) {
                        push(vals, t->entries[e].attrs[a].name);
                        push(vals, t->entries[e].attrs[a].form);
                    }
                }
                off = t->end;
            }
            from_abbrev = vals->n - from_info - from_line - from_frame;
        } else if (c.kind == CUDW_SEC_INFO) {
            size_t before = vals->n;
            uint64_t cur = 0;
            cudw_unit u;
            while (cudw_unit_next(f, s, &cur, &u) == CUDW_OK) {
                cudw_die_iter it;
                cudw_die d;
                cudw_die_iter_init(&u, &it);
                while (cudw_die_next(&it, &d) == CUDW_OK) {
                    push(vals, d.code);
                    cudw_attr_iter ai;
                    cudw_attr a;
                    cudw_attr_iter_init(&d, &ai);
                    while (cudw_attr_next(&ai, &a) == CUDW_OK) {
                        if (a.form == 0x0f || a.form == 0x15) /* udata, ref_udata */
                            push(vals, a.u);
                        else if (a.form == 0x09 || a.form == 0x18) /* block, exprloc: length */
                            push(vals, a.block_len);
                    }
                    cudw_die_iter_resume(&it, &ai);
                }
            }
            from_info += vals->n - before;
        } else if (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS) {
            size_t before = vals->n;
            uint64_t cur = 0;
            const cudw_line_table *t;
            while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK) {
                uint64_t pos = t->program_offset;
                cudw_line_op o;
                while (cudw_line_op_next(t, &pos, &o) == CUDW_OK) {
                    if (o.kind == CUDW_LOP_STANDARD && (o.opcode == 2 || o.opcode == 4 || o.opcode == 5))
                        push(vals, o.opcode == 2 ? o.addr_adv / (t->min_inst_length ? t->min_inst_length : 1)
                                                 : o.u);
                    else if (o.kind == CUDW_LOP_EXTENDED) {
                        push(vals, o.ext_len);
                        if (o.opcode == CUDW_LNE_INLINED_CALL) {
                            push(vals, o.u);
                            push(vals, o.u2);
                        } else if (o.opcode == CUDW_LNE_SET_FUNCTION) {
                            push(vals, o.u);
                        }
                    }
                }
            }
            from_line += vals->n - before;
        } else if (c.kind == CUDW_SEC_FRAME) {
            size_t before = vals->n;
            uint64_t cur = 0;
            cudw_cfa_entry e;
            while (cudw_frame_next(f, s, 8, &cur, &e) == CUDW_OK) {
                uint64_t pos = 0;
                cudw_cfa_op op;
                while (cudw_cfa_op_next(e.instructions, e.instructions_length, 8, &pos, &op) == CUDW_OK) {
                    switch (op.op) { /* the unsigned LEB128 operands */
                    case 0x05: case 0x09: case 0x0c: case 0x14:
                        push(vals, op.reg);
                        push(vals, op.u);
                        break;
                    case 0x06: case 0x07: case 0x08: case 0x0d:
                        push(vals, op.reg);
                        break;
                    case 0x80: case 0x0e:
                        push(vals, op.u);
                        break;
                    default:
                        break;
                    }
                }
            }
            from_frame += vals->n - before;
        }
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- --check: random streams, every decoder against the library's ---- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t random_stream(uint8_t *b, size_t cap)
{
    size_t n = 0;
    while (n + 16 < cap) {
        unsigned kind = (unsigned)(rnd() % 100);
        if (kind < 60) { /* one byte */
            b[n++] = (uint8_t)(rnd() & 0x7f);
        } else if (kind < 90) { /* 2..9 bytes */
            n += cudw_uleb128_write(rnd() >> (rnd() % 64), b + n, cap - n);
        } else if (kind < 95) { /* overlong: padded with 0x80s */
            unsigned pad = 1 + (unsigned)(rnd() % 12);
            for (unsigned i = 0; i < pad; i++)
                b[n++] = (uint8_t)(0x80 | (i == 0 ? rnd() & 0x7f : 0));
            b[n++] = 0;
        } else if (kind < 98) { /* 10 bytes, possibly past 64 bits */
            for (int i = 0; i < 9; i++)
                b[n++] = (uint8_t)(0x80 | (rnd() & 0x7f));
            b[n++] = (uint8_t)(rnd() % 3);
        } else { /* a long run of continuation bytes */
            unsigned run = 1 + (unsigned)(rnd() % 40);
            for (unsigned i = 0; i < run && n + 1 < cap; i++)
                b[n++] = (uint8_t)(0x80 | (rnd() & 1));
        }
    }
    if (rnd() % 2) /* end on a cut value */
        b[n++] = 0x80 | (uint8_t)rnd();
    return n;
}

static int check(long rounds)
{
    decoder d[4];
    size_t nd = decoders(d);
    static uint8_t buf[4096];
    static uint64_t ref[4096], got[4096];
    for (long r = 0; r < rounds; r++) {
        size_t len = random_stream(buf, 64 + (size_t)(rnd() % (sizeof buf - 64)));
        uint8_t *copy = malloc(len ? len : 1); /* exactly len bytes: ASan sees any read past them */
        memcpy(copy, buf, len);
        size_t want = 1 + (size_t)(rnd() % 4096);
        const uint8_t *p0 = copy;
        int e0;
        size_t n0 = dec_library(&p0, copy + len, ref, want, &e0);
        for (size_t i = 1; i < nd; i++) {
            const uint8_t *p = copy;
            int e;
            size_t n = d[i].fn(&p, copy + len, got, want, &e);
            if (n != n0 || p != p0 || e != e0 || memcmp(got, ref, n * sizeof *ref)) {
                fprintf(stderr, "FAIL %s: round %ld: %zu values, stop %td, error %d; library %zu, %td, %d\n",
                        d[i].name, r, n, p - copy, e, n0, p0 - copy, e0);
                free(copy);
                return 1;
            }
        }
        free(copy);
    }
    printf("ok   bulk LEB128 decoders (");
    for (size_t i = 1; i < nd; i++)
        printf("%s%s", d[i].name, i + 1 < nd ? ", " : "");
    printf(") = cudw_uleb128_read on %ld random streams\n", rounds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--check"))
        return check(argc > 2 ? atol(argv[2]) : 20000);
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [RUNS] | --check [N]\n", argv[0]);
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 20;
    cudw_file *f;
    if (cudw_open(&f, argv[1]) != CUDW_OK) {
        char msg[512];
        cudw_error_format(cudw_last_error(f), msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", argv[1], msg);
        cudw_close(f);
        return 1;
    }
    vec vals = {0};
    collect(f, &vals);
    cudw_close(f);
    size_t cap = vals.n * 10 + 1, len = 0, hist[11] = {0};
    uint8_t *stream = malloc(cap);
    uint64_t *out = malloc((vals.n + 1) * sizeof *out);
    if (!stream || !out)
        return 1;
    for (size_t i = 0; i < vals.n; i++) {
        size_t k = cudw_uleb128_write(vals.v[i], stream + len, cap - len);
        hist[k <= 10 ? k : 10]++;
        len += k;
    }
    printf("%s: %zu LEB128 values (.debug_abbrev %zu, .debug_info %zu, line programs %zu, call frames %zu) in "
           "%zu bytes\n  (1 byte: %.1f%%, 2: %.1f%%, 3: %.1f%%, 4+: %.1f%%)\n",
           argv[1], vals.n, from_abbrev, from_info, from_line, from_frame, len, 100.0 * (double)hist[1] / (double)vals.n, 100.0 * (double)hist[2] / (double)vals.n,
           100.0 * (double)hist[3] / (double)vals.n,
           100.0 * (double)(vals.n - hist[1] - hist[2] - hist[3]) / (double)vals.n);
    decoder d[4];
    size_t nd = decoders(d);
    double base = 0;
    for (size_t i = 0; i < nd; i++) {
        double best = 1e9;
        for (int r = 0; r < runs; r++) {
            const uint8_t *p = stream;
            int e;
            double t0 = now();
            size_t n = d[i].fn(&p, stream + len, out, vals.n, &e);
            double dt = now() - t0;
            if (n != vals.n || e != CUDW_OK || memcmp(out, vals.v, n * sizeof *out)) {
                fprintf(stderr, "%s: wrong result\n", d[i].name);
                return 1;
            }
            if (dt < best)
                best = dt;
        }
        double rate = (double)vals.n / best;
        if (i == 0)
            base = rate;
        printf("  %-28s %8.1f M values/s  %6.2f ns/value  %5.2fx\n", d[i].name, rate / 1e6, 1e9 / rate,
               rate / base);
    }
    free(stream);
    free(out);
    free(vals.v);
    return 0;
}
