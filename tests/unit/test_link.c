/* The debug linker's handle (cudw_link_run): its error is kept on the
 * handle, naming the input it concerns; a failed link writes nothing; a
 * link of hand-made objects gives the concatenated .debug_str. */
#include "testutil.h"

typedef struct sink {
    uint8_t *p;
    size_t n, calls;
} sink;

static int to_sink(void *ctx, const void *p, size_t n)
{
    sink *s = ctx;
    s->calls++;
    uint8_t *q = realloc(s->p, s->n + n);
    if (!q)
        return CUDW_E_NOMEM;
    memcpy(q + s->n, p, n);
    s->p = q;
    s->n += n;
    return CUDW_OK;
}

/* an ET_REL sm_<sm> object whose .debug_str is str (n bytes) */
static cudw_file *object(uint8_t **img, unsigned sm, const char *str, size_t n)
{
    tsec secs[] = {{".debug_str", 1, 0x30, str, n, 0, 0, 1}};
    size_t len;
    *img = telf_build(secs, 1, &len);
    W32(*img + 48, sm << 8 | 4); /* e_flags: the SM in bits 8-15 */
    return topen(*img, len);
}

static void no_inputs(void **state)
{
    (void)state;
    cudw_link *L = NULL;
    assert_int_equal(cudw_link_run(NULL, 0, NULL, &L), CUDW_E_ARG);
    assert_non_null(L);
    int input = 7;
    const cudw_error *e = cudw_link_error(L, &input);
    assert_int_equal(e->code, CUDW_E_ARG);
    assert_string_equal(e->what, "link");
    assert_int_equal(input, -1);
    sink s = {0};
    assert_int_not_equal(cudw_link_write(L, to_sink, &s), CUDW_OK);
    assert_int_equal(s.calls, 0);
    cudw_link_close(L);
}

static void mixed_sms_name_the_input(void **state)
{
    (void)state;
    uint8_t *a, *b;
    cudw_file *in[2] = {object(&a, 90, "x\0", 2), object(&b, 80, "y\0", 2)};
    cudw_link *L = NULL;
    assert_int_equal(cudw_link_run(in, 2, NULL, &L), CUDW_E_UNSUPPORTED);
    int input = -1;
    const cudw_error *e = cudw_link_error(L, &input);
    assert_int_equal(input, 1);
    assert_non_null(strstr(e->detail, "sm_80"));
    cudw_link_close(L);
    cudw_close(in[0]);
    cudw_close(in[1]);
    free(a);
    free(b);
}

static void strings_concatenate(void **state)
{
    (void)state;
    uint8_t *a, *b;
    cudw_file *in[2] = {object(&a, 90, "one\0", 4), object(&b, 90, "two\0three\0", 10)};
    cudw_link *L = NULL;
    assert_int_equal(cudw_link_run(in, 2, NULL, &L), CUDW_OK);
    assert_int_equal(cudw_link_error(L, NULL)->code, CUDW_OK);
    sink s = {0};
    assert_int_equal(cudw_link_write(L, to_sink, &s), CUDW_OK);
    assert_int_equal(s.n, cudw_link_size(L));
    cudw_file *out = topen(s.p, s.n);
    const cudw_section *str = cudw_section_find(out, ".debug_str");
    assert_non_null(str);
    assert_int_equal(str->data_size, 14);
    assert_memory_equal(str->data, "one\0two\0three\0", 14);
    cudw_close(out);
    free(s.p);
    cudw_link_close(L);
    cudw_close(in[0]);
    cudw_close(in[1]);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_inputs),
        cmocka_unit_test(mixed_sms_name_the_input),
        cmocka_unit_test(strings_concatenate),
    };
    return run_group("link", tests);
}
