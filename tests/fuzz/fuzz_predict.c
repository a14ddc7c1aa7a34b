/* Stage 1 (src/stage1) on any PTX and any SASS-to-PTX rows: the input is
 *
 *     [arch: 1 byte][PTX length: u32 LE][PTX text][.nv_debug_line_sass bytes]
 *
 * arch % 3 picks sm_75 (no deferral), sm_90 (rule 7's deferral) or sm_100
 * (the Mercury table too).  The same line program stands as the Mercury
 * twin.  Properties: every failure is an error that says what; a predicted
 * table decodes again to exactly the rows the generator wrote (addresses,
 * lines, contexts, names) -- what `verify --ptx` relies on. */
#include "fuzz.h"

static const uint8_t sm_of[3] = {75, 90, 100};

/* The rows of the one table in data, read as a .debug_line section. */
static size_t decode_unit(const uint8_t *data, size_t size, cudw_line_row **out)
{
    tsec s[] = {{.name = ".debug_line", .data = data, .size = size}};
    size_t len;
    uint8_t *img = telf_build(s, 1, &len);
    size_t n = fuzz_line_rows(img, len, out);
    free(img);
    return n;
}

static void check(cudw_file *f, const cudw_ptx *p, const char *section)
{
    cudw_ptx_prediction pr;
    int rc = cudw_ptx_predict(f, p, section, &pr);
    if (rc) {
        fuzz_check_error(f, rc);
        cudw_ptx_prediction_free(&pr);
        return;
    }
    cudw_line_row *d;
    size_t n = decode_unit(pr.unit.data, pr.unit.size, &d);
    if (n != pr.nrows)
        abort();
    for (size_t i = 0; i < n; i++) {
        const cudw_line_row *a = &pr.rows[i], *b = &d[i];
        if (a->address != b->address || a->end_sequence != b->end_sequence)
            abort();
        if (!a->end_sequence && (a->line != b->line || a->context != b->context ||
                                 (a->context && a->function_offset != b->function_offset)))
            abort();
    }
    free(d);
    cudw_ptx_prediction_free(&pr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    uint32_t plen;
    memcpy(&plen, data + 1, 4);
    if (plen > size - 5)
        return 0;
    uint8_t sm = sm_of[data[0] % 3];
    const uint8_t *sass = data + 5 + plen;
    size_t nsass = size - 5 - plen;
    cudw_ptx *p = NULL;
    if (cudw_ptx_read((const char *)data + 5, plen, "fuzz.ptx", &p) != CUDW_OK) {
        cudw_ptx_close(p);
        return 0;
    }
    tsec secs[] = {
        {.name = ".nv_debug_line_sass", .data = sass, .size = nsass},
        {.name = ".nv.merc.nv_debug_line_sass", .data = sass, .size = nsass},
    };
    size_t len;
    uint8_t *img = telf_build(secs, sm >= 100 ? 2 : 1, &len);
    img[49] = sm; /* e_flags: the SM in bits 8..15 */
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        check(f, p, ".debug_line");
        if (sm >= 100)
            check(f, p, ".nv.merc.debug_line");
    }
    cudw_close(f);
    free(img);
    cudw_ptx_close(p);
    return 0;
}
