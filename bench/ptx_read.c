/* The PTX reader alone (issue: PTX stage 1): read a PTX file's .file and
 * .loc directives, functions and .debug_str labels, and walk every
 * instruction line with its .loc; nothing printed.  The file is mapped
 * once and read anew each run; prints the best of N runs in MB/s.
 *
 * usage: ptx_read FILE.ptx [RUNS]   (built by bench/run.py) */
#include <cudwarf.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptx_read FILE.ptx [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        perror(argv[1]);
        return 1;
    }
    size_t n = (size_t)st.st_size;
    const char *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    double best = 1e30;
    size_t locs = 0, insns = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        cudw_ptx *p;
        if (cudw_ptx_read(m, n, argv[1], &p) != CUDW_OK) {
            fprintf(stderr, "%s: %s\n", argv[1], p ? cudw_ptx_error(p)->text : "out of memory");
            return 1;
        }
        cudw_ptx_walk w = {0};
        cudw_ptx_insn in;
        insns = 0;
        while (cudw_ptx_insn_next(p, &w, &in) == CUDW_OK)
            insns += in.loc != 0;
        locs = cudw_ptx_loc_count(p);
        cudw_ptx_close(p);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    printf("%s: %.1f MB, %zu .locs, %zu instruction lines with a .loc: %.4f s, %.0f MB/s\n", argv[1], n / 1e6, locs,
           insns, best, n / 1e6 / best);
    return 0;
}
