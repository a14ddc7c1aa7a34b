/* Two device ELFs linked: the input is u32 length of the first, the first,
 * the second.  Linked plain and with --dedup-strings, each output streamed
 * whole and read back through every parser. */
#include "fuzz.h"

static int sink(void *ctx, const void *p, size_t n)
{
    struct { uint8_t *p; size_t n, cap; } *b = ctx;
    if (b->n + n > b->cap) {
        size_t c = (b->n + n) * 2;
        uint8_t *q = realloc(b->p, c);
        if (!q)
            return -1;
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    size_t n1 = (size_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24);
    if (n1 > size - 4)
        n1 = size - 4;
    cudw_file *in[2] = {NULL, NULL};
    if (cudw_open_mem(&in[0], data + 4, n1, "a") != CUDW_OK ||
        cudw_open_mem(&in[1], data + 4 + n1, size - 4 - n1, "b") != CUDW_OK)
        goto done;
    for (int dedup = 0; dedup < 2; dedup++) {
        cudw_link_opts o = {.dedup_strings = dedup};
        cudw_link *l;
        if (cudw_link_run(in, 2, &o, &l) != CUDW_OK) {
            if (!l)
                continue; /* out of memory */
            const cudw_error *err = cudw_link_error(l, NULL);
            if (err->code >= 0 || !err->what || cudw_link_write(l, sink, NULL) == CUDW_OK)
                abort(); /* an error must say what it was decoding; a failed link writes nothing */
            cudw_link_close(l);
            continue;
        }
        struct { uint8_t *p; size_t n, cap; } b = {0};
        if (cudw_link_write(l, sink, &b) != CUDW_OK || b.n != cudw_link_size(l))
            abort();
        cudw_link_close(l);
        cudw_file *out;
        if (cudw_open_mem(&out, b.p, b.n, "out") == CUDW_OK)
            exercise_file(out, fuzz_check_error);
        cudw_close(out);
        free(b.p);
    }
done:
    cudw_close(in[0]);
    cudw_close(in[1]);
    return 0;
}
