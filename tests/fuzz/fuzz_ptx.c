/* The PTX reader: any text reads or fails with a located error (never a
 * crash, a hang or a read past the end); what it returns hangs together:
 * an inlined_at names an earlier .loc, a function's .locs lie in its body,
 * every instruction line's .loc and where_is agree. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cudw_ptx *p = NULL;
    int rc = cudw_ptx_read((const char *)data, size, "fuzz.ptx", &p);
    if (!p)
        return 0;
    if (rc) {
        if (rc > 0 || !cudw_ptx_error(p)->text[0])
            abort(); /* an error says what */
        cudw_ptx_close(p);
        return 0;
    }
    size_t nl = cudw_ptx_loc_count(p), nf = cudw_ptx_func_count(p);
    for (size_t i = 1; i <= nl; i++) {
        const cudw_ptx_loc *L = cudw_ptx_loc_get(p, i);
        if (L->inlined_at >= i || L->function >= nf)
            abort();
        const cudw_ptx_func *fn = cudw_ptx_func_get(p, L->function);
        if (L->ptx_line <= fn->brace_line || L->ptx_line > fn->end_line)
            abort();
    }
    cudw_ptx_walk w = {0};
    cudw_ptx_insn in;
    uint64_t last = 0;
    while (cudw_ptx_insn_next(p, &w, &in) == CUDW_OK) {
        cudw_ptx_where wh;
        cudw_ptx_where_is(p, in.line, &wh);
        if (in.line <= last || wh.kind != CUDW_PTX_BODY || wh.function != in.function || wh.loc != in.loc ||
            in.text + in.len > (const char *)data + size)
            abort();
        last = in.line;
    }
    char **dirs = NULL;
    cudw_line_file *files = NULL;
    size_t ndirs = 0, nfiles = 0;
    if (cudw_ptx_header(p, &dirs, &ndirs, &files, &nfiles) == CUDW_OK) {
        for (size_t i = 0; i < ndirs; i++)
            free(dirs[i]);
        free(dirs);
        free(files);
    }
    cudw_ptx_close(p);
    return 0;
}
