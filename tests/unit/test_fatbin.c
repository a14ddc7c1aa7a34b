/* Fatbin containers (src/input/fatbin.c) on blobs the test lays out
 * itself: the header fields, stored, zstd and LZ4 payloads decompressed
 * to the bytes that went in, two containers back to back with padding,
 * and one located error for each way a container can be malformed. */
#include "testutil.h"

#include <lz4.h>
#include <zstd.h>

typedef struct blob {
    uint8_t b[8192];
    size_t n;
} blob;

/* One entry: 64-byte header (+ the name padded to 8), then the payload
 * padded to 8.  comp: 0 stored, 1 zstd, 2 LZ4. */
static void entry(blob *x, uint16_t kind, uint32_t sm, const char *name, const void *data, size_t size, int comp)
{
    uint8_t packed[4096];
    size_t stored = size;
    const void *payload = data;
    uint64_t flags = 0x11; /* 64-bit, Linux */
    if (comp == 1) {
        stored = ZSTD_compress(packed, sizeof packed, data, size, 3);
        assert_false(ZSTD_isError(stored));
        payload = packed;
        flags |= 0x8000;
    } else if (comp == 2) {
        int k = LZ4_compress_default(data, (char *)packed, (int)size, (int)sizeof packed);
        assert_true(k > 0);
        stored = (size_t)k;
        payload = packed;
        flags |= 0x2000;
    }
    size_t nl = name ? strlen(name) : 0, hs = 64 + ((nl + 7) & ~(size_t)7);
    size_t padded = (stored + 7) & ~(size_t)7;
    uint8_t *h = x->b + x->n;
    memset(h, 0, hs + padded);
    W16(h, kind);
    W16(h + 2, 0x0101);
    W32(h + 4, hs);
    W64(h + 8, padded);
    W32(h + 16, comp ? stored : 0);
    W16(h + 24, kind == 2 ? 8 : 0);
    W16(h + 26, kind == 2 ? 1 : 9);
    W32(h + 28, sm);
    W32(h + 32, name ? 64 : 0);
    W32(h + 36, nl);
    W64(h + 40, flags);
    W64(h + 56, comp ? size : 0);
    if (name)
        memcpy(h + 64, name, nl);
    memcpy(h + hs, payload, stored);
    x->n += hs + padded;
}

static size_t container_begin(blob *x)
{
    size_t at = x->n;
    W32(x->b + at, 0xBA55ED50u);
    W16(x->b + at + 4, 1);
    W16(x->b + at + 6, 16);
    x->n += 16;
    return at;
}

static void container_end(blob *x, size_t at) { W64(x->b + at + 8, x->n - at - 16); }

static void expect(cudw_fatbin *fb, int code, uint64_t off)
{
    const cudw_error *e = cudw_fatbin_error(fb);
    assert_int_equal(e->code, code);
    assert_int_equal(e->offset, off);
    assert_true(e->what && e->what[0]);
    assert_true(e->detail[0]);
}

static void entries(void **state)
{
    (void)state;
    tsec s[] = {{.name = ".debug_str", .data = "abc\0", .size = 4}};
    size_t elf_len;
    uint8_t *elf = telf_build(s, 1, &elf_len);
    static const char ptx[] = "//\n.version 9.0\n.target sm_90\n.address_size 64\n";
    blob x = {0};
    size_t c = container_begin(&x);
    entry(&x, 2, 90, "app.cu", elf, elf_len, 0);
    entry(&x, 1, 90, NULL, ptx, sizeof ptx, 1);
    container_end(&x, c);
    x.n += 8; /* zeros between containers, as in host sections */
    c = container_begin(&x);
    entry(&x, 2, 100, NULL, elf, elf_len, 2);
    container_end(&x, c);
    cudw_fatbin *fb;
    assert_int_equal(cudw_fatbin_parse(x.b, x.n, "test.fatbin", &fb), CUDW_OK);
    assert_int_equal(cudw_fatbin_count(fb), 3);
    const cudw_fatbin_entry *e = cudw_fatbin_get(fb, 0);
    assert_int_equal(e->kind, CUDW_FATBIN_ELF);
    assert_int_equal(e->sm, 90);
    assert_int_equal(e->major, 1);
    assert_int_equal(e->minor, 8);
    assert_string_equal(e->name, "app.cu");
    assert_int_equal(e->container, 0);
    const uint8_t *d;
    size_t n;
    assert_int_equal(cudw_fatbin_image(fb, 0, &d, &n), CUDW_OK);
    assert_int_equal(n, elf_len); /* the padding is not the image's */
    assert_memory_equal(d, elf, elf_len);
    e = cudw_fatbin_get(fb, 1);
    assert_int_equal(e->kind, CUDW_FATBIN_PTX);
    assert_int_equal(e->decompressed_size, sizeof ptx);
    assert_int_equal(cudw_fatbin_image(fb, 1, &d, &n), CUDW_OK);
    assert_int_equal(n, sizeof ptx - 1); /* the text, without its NUL */
    assert_memory_equal(d, ptx, n);
    e = cudw_fatbin_get(fb, 2);
    assert_int_equal(e->container, 1);
    assert_int_equal(e->sm, 100);
    assert_int_equal(cudw_fatbin_image(fb, 2, &d, &n), CUDW_OK);
    assert_int_equal(n, elf_len);
    assert_memory_equal(d, elf, elf_len);
    assert_int_equal(cudw_fatbin_image(fb, 3, &d, &n), CUDW_E_ARG);
    cudw_fatbin_close(fb);
    free(elf);
}

static void malformed(void **state)
{
    (void)state;
    static const char text[] = "PTX text that compresses, PTX text that compresses, PTX text that compresses.";
    blob x = {0};
    size_t c = container_begin(&x);
    entry(&x, 1, 90, NULL, text, sizeof text, 1);
    container_end(&x, c);
    cudw_fatbin *fb;

    /* a container that claims more bytes than the blob has */
    blob y = x;
    W64(y.b + 8, y.n);
    assert_true(cudw_fatbin_parse(y.b, y.n, "t", &fb) < 0);
    expect(fb, cudw_fatbin_error(fb)->code, 8); /* its size field */
    cudw_fatbin_close(fb);

    /* an entry whose header size runs past its container */
    y = x;
    W32(y.b + 16 + 4, 4096);
    assert_true(cudw_fatbin_parse(y.b, y.n, "t", &fb) < 0);
    assert_true(cudw_fatbin_error(fb)->offset >= 16);
    cudw_fatbin_close(fb);

    /* a zstd payload with a byte flipped: parsing succeeds, loading the
     * image fails at the payload's offset */
    y = x;
    y.b[16 + 64 + 6] ^= 0xff;
    assert_int_equal(cudw_fatbin_parse(y.b, y.n, "t", &fb), CUDW_OK);
    const uint8_t *d = NULL;
    size_t n = 0;
    int rc = cudw_fatbin_image(fb, 0, &d, &n);
    if (rc == CUDW_OK) /* a flip zstd's checks miss must at least not lengthen the text */
        assert_true(n <= sizeof text);
    else
        expect(fb, rc, 16 + 64); /* at the payload */
    cudw_fatbin_close(fb);

    /* a decompressed size that disagrees with the frame */
    y = x;
    W64(y.b + 16 + 56, sizeof text + 5);
    assert_int_equal(cudw_fatbin_parse(y.b, y.n, "t", &fb), CUDW_OK);
    assert_true(cudw_fatbin_image(fb, 0, &d, &n) < 0);
    expect(fb, cudw_fatbin_error(fb)->code, 16 + 56); /* the size field the frame contradicts */
    cudw_fatbin_close(fb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(entries), cmocka_unit_test(malformed)};
    return run_group("fatbin", tests);
}
