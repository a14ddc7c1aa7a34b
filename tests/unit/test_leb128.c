/* LEB128: known encodings (DWARF 5 standard, figures 22 and 23), round
 * trips on edge values, truncation, overflow and "no room", and the
 * decoders against the plain reference (leb_ref.h) at every offset. */
#include "testutil.h"
#include "leb_ref.h"

static void known_vectors(void **state)
{
    (void)state;
    static const struct { uint64_t v; uint8_t b[4]; size_t n; } u[] = {
        {2, {2}, 1}, {127, {127}, 1}, {128, {0x80, 1}, 2}, {129, {0x81, 1}, 2},
        {130, {0x82, 1}, 2}, {12857, {0xb9, 0x64}, 2},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        const uint8_t *p = u[i].b;
        uint64_t v;
        assert_int_equal(cudw_uleb128_read(&p, u[i].b + u[i].n, &v), CUDW_OK);
        assert_int_equal(v, u[i].v);
        assert_ptr_equal(p, u[i].b + u[i].n);
        uint8_t out[10];
        assert_int_equal(cudw_uleb128_write(u[i].v, out, sizeof out), u[i].n);
        assert_memory_equal(out, u[i].b, u[i].n);
    }
    static const struct { int64_t v; uint8_t b[4]; size_t n; } s[] = {
        {2, {2}, 1}, {-2, {0x7e}, 1}, {127, {0xff, 0}, 2}, {-127, {0x81, 0x7f}, 2},
        {128, {0x80, 1}, 2}, {-128, {0x80, 0x7f}, 2}, {129, {0x81, 1}, 2}, {-129, {0xff, 0x7e}, 2},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        const uint8_t *p = s[i].b;
        int64_t v;
        assert_int_equal(cudw_sleb128_read(&p, s[i].b + s[i].n, &v), CUDW_OK);
        assert_int_equal(v, s[i].v);
        uint8_t out[10];
        assert_int_equal(cudw_sleb128_write(s[i].v, out, sizeof out), s[i].n);
        assert_memory_equal(out, s[i].b, s[i].n);
    }
}

static void round_trips(void **state)
{
    (void)state;
    uint64_t uv[] = {0, 1, 63, 64, 127, 128, 0x3fff, 0x4000, 0xffffffffull, 1ull << 62,
                     (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
    for (size_t i = 0; i < sizeof uv / sizeof uv[0]; i++) {
        uint8_t buf[10];
        size_t n = cudw_uleb128_write(uv[i], buf, sizeof buf);
        const uint8_t *p = buf;
        uint64_t v;
        assert_int_equal(cudw_uleb128_read(&p, buf + n, &v), CUDW_OK);
        assert_int_equal(v, uv[i]);
        assert_int_equal((size_t)(p - buf), n);
    }
    assert_int_equal(cudw_uleb128_write(UINT64_MAX, NULL, 0), 10);
    int64_t sv[] = {0, -1, 63, -64, 64, -65, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof sv / sizeof sv[0]; i++) {
        uint8_t buf[10];
        size_t n = cudw_sleb128_write(sv[i], buf, sizeof buf);
        const uint8_t *p = buf;
        int64_t v;
        assert_int_equal(cudw_sleb128_read(&p, buf + n, &v), CUDW_OK);
        assert_int_equal(v, sv[i]);
        assert_int_equal((size_t)(p - buf), n);
    }
    assert_int_equal(cudw_sleb128_write(INT64_MIN, NULL, 0), 10);
}

static void errors(void **state)
{
    (void)state;
    uint64_t v;
    int64_t s;
    const uint8_t trunc[] = {0x80, 0x80};
    const uint8_t *p = trunc;
    assert_int_equal(cudw_uleb128_read(&p, trunc + 2, &v), CUDW_E_TRUNCATED);
    assert_ptr_equal(p, trunc); /* not advanced on error */
    p = trunc;
    assert_int_equal(cudw_sleb128_read(&p, trunc + 2, &s), CUDW_E_TRUNCATED);
    p = trunc;
    assert_int_equal(cudw_uleb128_read(&p, trunc, &v), CUDW_E_TRUNCATED); /* empty */

    /* 2^64: ten bytes whose last carries bit 64 */
    const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02};
    p = big;
    assert_int_equal(cudw_uleb128_read(&p, big + 10, &v), CUDW_E_LEB_OVERFLOW);
    /* UINT64_MAX is fine, with redundant zero padding too */
    const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00};
    p = max;
    assert_int_equal(cudw_uleb128_read(&p, max + 11, &v), CUDW_OK);
    assert_true(v == UINT64_MAX);
    /* a nonzero 11th byte overflows */
    const uint8_t over11[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x01};
    p = over11;
    assert_int_equal(cudw_uleb128_read(&p, over11 + 11, &v), CUDW_E_LEB_OVERFLOW);
    /* signed: 2^63 does not fit; -2^63 does */
    const uint8_t s_over[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    p = s_over;
    assert_int_equal(cudw_sleb128_read(&p, s_over + 10, &s), CUDW_E_LEB_OVERFLOW);
    const uint8_t s_min[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f};
    p = s_min;
    assert_int_equal(cudw_sleb128_read(&p, s_min + 10, &s), CUDW_OK);
    assert_true(s == INT64_MIN);
    /* encode into a short buffer: length reported, nothing written past cap */
    uint8_t small[2] = {0xaa, 0xaa};
    assert_int_equal(cudw_uleb128_write(300000, small, 1), 3);
    assert_int_equal(small[1], 0xaa);
}

/* Every offset of random buffers (one-byte runs, 2..10-byte values,
 * overlong encodings, continuation runs, cut ends), each in an allocation
 * of exactly its size: value, end and error as the reference has them
 * (and as any faster decoder must: docs/leb128.md). */
static void decoders_match_reference(void **state)
{
    (void)state;
    uint64_t rng = 0xda3e39cb94b95bdbull;
    for (int round = 0; round < 3000; round++) {
        size_t len = 0;
        uint8_t tmp[64];
        size_t want = 1 + (size_t)(round % 48);
        while (len < want) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            unsigned k = (unsigned)(rng % 10);
            uint8_t b = (uint8_t)(rng >> 16);
            tmp[len++] = k < 4 ? (uint8_t)(b & 0x7f) : k < 8 ? (uint8_t)(b | 0x80) : k == 8 ? 0x80 : 0xff;
        }
        uint8_t *buf = malloc(len);
        memcpy(buf, tmp, len);
        for (size_t at = 0; at < len; at++) {
            const uint8_t *p = buf + at, *q = buf + at;
            uint64_t u = 1, ur = 2;
            int rc = cudw_uleb128_read(&p, buf + len, &u), rr = ref_uleb(&q, buf + len, &ur);
            assert_int_equal(rc, rr);
            assert_ptr_equal(p, q);
            if (rc == CUDW_OK)
                assert_int_equal(u, ur);
            p = q = buf + at;
            int64_t sv = 1, sr = 2;
            rc = cudw_sleb128_read(&p, buf + len, &sv);
            rr = ref_sleb(&q, buf + len, &sr);
            assert_int_equal(rc, rr);
            assert_ptr_equal(p, q);
            if (rc == CUDW_OK)
                assert_int_equal(sv, sr);
        }
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_vectors),
        cmocka_unit_test(round_trips),
        cmocka_unit_test(errors),
        cmocka_unit_test(decoders_match_reference),
    };
    return run_group("leb128", tests);
}
