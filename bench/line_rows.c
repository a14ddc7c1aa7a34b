/* The line decoder alone, as a profiler uses the library: every row of
 * every line section (.debug_line, .nv_debug_line_sass, the Mercury
 * twins) with relocated addresses, file paths and each inlined row's
 * call site and function name resolved; nothing printed.  Prints the row
 * counts and the best of N runs (the file opened anew each run, so table
 * parsing and relocation lookup are in the time).
 *
 * usage: line_rows FILE [RUNS]   (built by bench/run.py) */
#include <cudwarf.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Returns rows, or -1 after printing the error. */
static long long walk(const char *path, long long *inlined, unsigned long long *check)
{
    cudw_file *f;
    if (cudw_open(&f, path) != CUDW_OK) {
        fprintf(stderr, "%s: cannot open\n", path);
        cudw_close(f);
        return -1;
    }
    long long rows = 0;
    int rc = CUDW_DONE;
    for (unsigned i = 1; i < cudw_section_count(f) && rc >= 0; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK ||
            (c.kind != CUDW_SEC_LINE && c.kind != CUDW_SEC_NV_LINE_SASS))
            continue;
        uint64_t cur = 0;
        const cudw_line_table *t;
        while ((rc = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
            cudw_line_iter it;
            cudw_line_row r;
            cudw_line_iter_init(t, &it, CUDW_LINE_KEEP_SEQUENCE);
            while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
                const char *p = cudw_line_file_path(t, r.file);
                *check += r.address + r.line + (p ? (unsigned char)p[0] : 0);
                if (r.context) {
                    const cudw_line_row *site;
                    if (cudw_line_callsite(&it, &r, &site) == CUDW_OK)
                        *check += site->line;
                    *check += r.function ? (unsigned char)r.function[0] : 0;
                    ++*inlined;
                }
                rows++;
            }
            cudw_line_iter_free(&it);
            if (rc < 0)
                break;
        }
    }
    if (rc < 0) {
        char msg[512];
        cudw_error_format(cudw_last_error(f), msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", path, msg);
        rows = -1;
    }
    cudw_close(f);
    return rows;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]);
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    double best = 1e9;
    long long rows = 0, inlined = 0;
    unsigned long long check = 0;
    for (int k = 0; k < (runs > 0 ? runs : 1); k++) {
        inlined = 0;
        check = 0;
        double t0 = now();
        rows = walk(argv[1], &inlined, &check);
        double dt = now() - t0;
        if (rows < 0)
            return 1;
        if (dt < best)
            best = dt;
    }
    printf("%lld rows, %lld inlined, best %.2f ms (checksum %llx)\n", rows, inlined, best * 1e3, check);
    return 0;
}
