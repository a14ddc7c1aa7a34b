/* The symbolizer over a container of several images: what an image
 * answers does not change when it is let go (cudw_symbolizer_release) and
 * built again, and a symbolizer of one image keeps it.  Inputs: the
 * committed fatbin (three ELF images, sm_75, sm_90, sm_100) and a cubin;
 * run from the checkout's root, as tests/run.sh does. */
#include "testutil.h"

#include <stdio.h>

#define FATBIN "tests/fixtures/inline_G_speed.fatbin"
#define CUBIN "tests/fixtures/tiny_sm90_G.cubin"

/* Every answer of image i for the function's first 0x200 bytes, as text */
static void answers(cudw_symbolizer *s, size_t i, const char *fn, char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (uint64_t off = 0; off < 0x200; off += 0x10) {
        cudw_sym_frame fr[CUDW_MAX_INLINE_DEPTH];
        cudw_sym_result r;
        int rc = cudw_symbolize(s, fn, strlen(fn), off, &r, fr, CUDW_MAX_INLINE_DEPTH);
        assert_int_equal(rc, CUDW_OK);
        assert_true(r.image == i || r.other_images);
        for (size_t f = 0; f < (r.found ? r.nframes : 0) && k + 300 < n; f++)
            k += (size_t)snprintf(out + k, n - k, "%llx %s %s:%llu;", (unsigned long long)off,
                                  fr[f].function ? fr[f].function : "?", fr[f].file ? fr[f].file : "?",
                                  (unsigned long long)fr[f].line);
    }
}

static void release_then_same_answers(void **state)
{
    (void)state;
    cudw_symbolizer *s = NULL;
    assert_int_equal(cudw_symbolizer_open(&s, FATBIN, NULL), CUDW_OK);
    assert_true(cudw_symbolizer_image_count(s) >= 2);
    static char before[1 << 16], after[1 << 16];
    answers(s, 0, "_Z11blur_kernelPKfPfi", before, sizeof before);
    assert_true(strlen(before) > 100); /* rows with frames: a -G image */
    for (size_t i = 0; i < cudw_symbolizer_image_count(s); i++)
        cudw_symbolizer_release(s, i);
    answers(s, 0, "_Z11blur_kernelPKfPfi", after, sizeof after);
    assert_string_equal(before, after);
    cudw_symbolizer_release(s, 99); /* out of range: nothing */
    cudw_symbolizer_close(s);
}

static void one_image_kept(void **state)
{
    (void)state;
    cudw_symbolizer *s = NULL;
    assert_int_equal(cudw_symbolizer_open(&s, CUBIN, NULL), CUDW_OK);
    static char before[1 << 16], after[1 << 16];
    answers(s, 0, "_Z11tiny_kernelPii", before, sizeof before);
    const char *m; /* the names index of a one-image symbolizer points into the image */
    assert_int_equal(cudw_symbolizer_resolve(s, "tiny_kernel", 11, &m), CUDW_OK);
    cudw_symbolizer_release(s, 0);
    assert_int_equal(cudw_symbolizer_resolve(s, "tiny_kernel", 11, &m), CUDW_OK);
    assert_string_equal(m, "_Z11tiny_kernelPii");
    answers(s, 0, "_Z11tiny_kernelPii", after, sizeof after);
    assert_string_equal(before, after);
    cudw_symbolizer_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(release_then_same_answers),
        cmocka_unit_test(one_image_kept),
    };
    return run_group("symbolizer", tests);
}
