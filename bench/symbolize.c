/* Symbolizer throughput, library alone: bench/symbolize FILE LOCATIONS [N]
 *
 * LOCATIONS holds SYMBOL+0xOFF lines (bench/symbolize.py writes them from
 * the file's rows).  Prints the cold index build (open + first lookup),
 * then N warm lookups (default 1,000,000, the locations in turn) on one
 * thread and on two threads sharing the symbolizer, as lookups per second,
 * and a checksum of the frames so the work cannot be skipped. */
#include <cudwarf.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct work {
    cudw_symbolizer *s;
    cudw_sym_query *q;
    size_t nq, n, from;
    unsigned long long sum;
} work;

static void *run(void *p)
{
    work *w = p;
    cudw_sym_frame fr[CUDW_MAX_INLINE_DEPTH];
    cudw_sym_result r;
    for (size_t i = 0; i < w->n; i++) {
        const cudw_sym_query *q = &w->q[(w->from + i) % w->nq];
        if (cudw_symbolize(w->s, q->symbol, (size_t)-1, q->offset, &r, fr, CUDW_MAX_INLINE_DEPTH) != CUDW_OK)
            return NULL;
        w->sum += r.nframes + (r.found ? fr[0].line : 0);
    }
    return w;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE LOCATIONS [N]\n", argv[0]);
        return 2;
    }
    size_t n = argc > 3 ? strtoull(argv[3], NULL, 10) : 1000000;
    FILE *in = fopen(argv[2], "r");
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    size_t cap = 1024, nq = 0;
    cudw_sym_query *q = malloc(cap * sizeof *q);
    char line[8192];
    while (q && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = 0;
        const char *sym;
        size_t len;
        uint64_t off;
        if (cudw_location_parse(line, &sym, &len, &off) != CUDW_OK)
            continue;
        if (nq == cap && !(q = realloc(q, (cap *= 2) * sizeof *q)))
            break;
        char *name = strndup(sym, len);
        q[nq++] = (cudw_sym_query){name, off};
    }
    fclose(in);
    if (!q || !nq) {
        fprintf(stderr, "%s: no locations\n", argv[2]);
        return 1;
    }
    double t0 = now();
    cudw_symbolizer *s;
    if (cudw_symbolizer_open(&s, argv[1], NULL) != CUDW_OK || cudw_symbolizer_prepare(s) != CUDW_OK) {
        char msg[512];
        cudw_error_format(cudw_symbolizer_error(s), msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", argv[1], msg);
        return 1;
    }
    double cold = now() - t0;
    work one = {s, q, nq, n, 0, 0};
    t0 = now();
    if (!run(&one))
        return 1;
    double t1 = now() - t0;
    work two[2] = {{s, q, nq, n / 2, 0, 0}, {s, q, nq, n - n / 2, nq / 2, 0}};
    pthread_t th[2];
    t0 = now();
    for (int k = 0; k < 2; k++)
        pthread_create(&th[k], NULL, run, &two[k]);
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    double t2 = now() - t0;
    printf("locations %zu\ncold_ms %.2f\nwarm_1_thread_per_s %.0f\nwarm_2_threads_per_s %.0f\nchecksum %llu %llu\n", nq,
           cold * 1e3, (double)n / t1, (double)n / t2, one.sum, two[0].sum + two[1].sum);
    cudw_symbolizer_close(s);
    return 0;
}
