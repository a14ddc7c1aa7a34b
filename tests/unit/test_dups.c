/* Identical copies (cudw_dup_hash, cudw_dup_sets): equal bytes hash
 * equal, one changed byte or one more byte hashes apart, and the sets come
 * out most wasteful first with their copies in the caller's order. */
#include "testutil.h"

static void hash_tells_bytes_apart(void **state)
{
    (void)state;
    uint8_t a[64], b[64];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)(i * 37 + 11);
    for (size_t n = 0; n <= sizeof a; n++) {
        uint64_t h1[2], h2[2];
        memcpy(b, a, sizeof a);
        cudw_dup_hash(a, n, h1);
        cudw_dup_hash(b, n, h2);
        assert_memory_equal(h1, h2, sizeof h1);
        for (size_t k = 0; k < n; k++) { /* every byte counts, the tail too */
            b[k] ^= 1;
            cudw_dup_hash(b, n, h2);
            assert_true(h1[0] != h2[0] || h1[1] != h2[1]);
            b[k] ^= 1;
        }
        if (n < sizeof a) { /* a zero byte more is other bytes */
            uint8_t z[65] = {0};
            memcpy(z, a, n);
            cudw_dup_hash(z, n + 1, h2);
            assert_true(h1[0] != h2[0] || h1[1] != h2[1]);
        }
    }
}

static void sets_most_wasteful_first(void **state)
{
    (void)state;
    /* content x (100 bytes) three times, y (500 bytes) twice, z once */
    const char *what[] = {"x", "y", "z", "x", "y", "x"};
    const uint64_t size[] = {100, 500, 7, 100, 500, 100};
    cudw_dup d[6];
    for (size_t i = 0; i < 6; i++) {
        cudw_dup_hash(what[i], 1, d[i].hash);
        d[i].size = size[i];
        d[i].item = 5 - i; /* the caller's numbers need not be positions */
    }
    cudw_dup_set *s;
    uint64_t wasted;
    long n = cudw_dup_sets(d, 6, &s, &wasted);
    assert_int_equal(n, 2);
    assert_int_equal(wasted, 500 + 2 * 100);
    assert_int_equal(s[0].count, 2); /* y: 500 wasted */
    assert_int_equal(s[0].wasted, 500);
    assert_int_equal(d[s[0].start].item, 1);
    assert_int_equal(d[s[0].start + 1].item, 4);
    assert_int_equal(s[1].count, 3); /* x: 200 */
    assert_int_equal(s[1].wasted, 200);
    assert_int_equal(d[s[1].start].item, 0);
    assert_int_equal(d[s[1].start + 1].item, 2);
    assert_int_equal(d[s[1].start + 2].item, 5);
    free(s);
    /* same bytes, another size: not a copy */
    d[0].size = 1, d[1].size = 2;
    memcpy(d[1].hash, d[0].hash, sizeof d[0].hash);
    assert_int_equal(cudw_dup_sets(d, 2, &s, &wasted), 0);
    assert_int_equal(wasted, 0);
    free(s);
    assert_int_equal(cudw_dup_sets(NULL, 0, &s, &wasted), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_tells_bytes_apart),
        cmocka_unit_test(sets_most_wasteful_first),
    };
    return run_group("dups", tests);
}
