/* The hash index (src/hmap.c): against a linear scan, with keys chosen to
 * collide (equal hashes, equal tags, wrapped probe runs), through growth,
 * reservation and replacement. */
#include "testutil.h"

#include "hmap.h"

/* a deterministic generator: the test's keys are the same every run */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint32_t find(const hmap *m, const uint64_t *keys, uint64_t (*hash)(uint64_t), uint64_t k)
{
    hmap_probe p = hmap_probe_at(m, hash(k));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (keys[r] == k)
            return r;
    return HMAP_NONE;
}

static uint32_t scan(const uint64_t *keys, size_t n, uint64_t k)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i] == k)
            return (uint32_t)i;
    return HMAP_NONE;
}

static uint64_t h_self(uint64_t k) { return k; }
static uint64_t h_few(uint64_t k) { return k % 7; } /* most keys share a hash */
static uint64_t h_one(uint64_t k) { (void)k; return 42; }

static void empty_finds_nothing(void **state)
{
    (void)state;
    hmap m = {0};
    hmap_probe p = hmap_probe_at(&m, 1);
    assert_int_equal(hmap_next(&p), HMAP_NONE);
    hmap_free(&m);
    assert_null(m.s);
}

/* n keys added under each hash; every key and some absent ones looked up */
static void run(uint64_t (*hash)(uint64_t), size_t n)
{
    uint64_t *keys = malloc(n * sizeof *keys), s = 0x1234567;
    hmap m = {0};
    size_t added = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = rng(&s) % (4 * n); /* some repeat: added once */
        if (find(&m, keys, hash, k) != scan(keys, added, k))
            fail_msg("lookup of %llu before adding disagrees with the scan", (unsigned long long)k);
        if (find(&m, keys, hash, k) != HMAP_NONE)
            continue;
        keys[added] = k;
        assert_int_equal(hmap_add(&m, hash(k), (uint32_t)added), 0);
        added++;
        assert_int_equal(m.n, added);
        assert_true(m.cap >= 2 * m.n);
    }
    for (uint64_t k = 0; k < 4 * n; k++)
        assert_int_equal(find(&m, keys, hash, k), scan(keys, added, k));
    free(keys);
    hmap_free(&m);
}

static void agrees_with_a_scan(void **state)
{
    (void)state;
    run(h_self, 5000);
    run(h_few, 600);
    run(h_one, 200);
}

static void reserve_then_add_does_not_grow(void **state)
{
    (void)state;
    hmap m = {0};
    assert_int_equal(hmap_reserve(&m, 1000), 0);
    size_t cap = m.cap;
    assert_true(cap >= 2000);
    const hmap_slot *s = m.s;
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(hmap_add(&m, i * 0x10000ull, i), 0);
    assert_int_equal(m.cap, cap);
    assert_ptr_equal(m.s, s);
    assert_int_equal(hmap_add(&m, 5, HMAP_NONE), -1); /* not a position */
    assert_int_equal(m.n, 1000);
    hmap_free(&m);
}

/* the symbolizer's chains: the slot of a key takes a new head */
static void replace_moves_the_key(void **state)
{
    (void)state;
    hmap m = {0};
    uint64_t keys[3] = {9, 9 + 7, 9};
    assert_int_equal(hmap_add(&m, h_few(keys[0]), 0), 0);
    assert_int_equal(hmap_add(&m, h_few(keys[1]), 1), 0);
    hmap_probe p = hmap_probe_at(&m, h_few(9));
    uint32_t r;
    while ((r = hmap_next(&p)) != HMAP_NONE && keys[r] != 9)
        ;
    assert_int_equal(r, 0);
    hmap_replace(&m, &p, 2);
    assert_int_equal(m.n, 2);
    p = hmap_probe_at(&m, h_few(9));
    int seen[3] = {0};
    while ((r = hmap_next(&p)) != HMAP_NONE)
        seen[r]++;
    assert_int_equal(seen[0], 0);
    assert_int_equal(seen[1], 1);
    assert_int_equal(seen[2], 1);
    hmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_finds_nothing),
        cmocka_unit_test(agrees_with_a_scan),
        cmocka_unit_test(reserve_then_add_does_not_grow),
        cmocka_unit_test(replace_moves_the_key),
    };
    return run_group("hmap", tests);
}
