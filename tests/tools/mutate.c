/* The mutation suite: corrupt real cubins and run every parser over each
 * mutant, in process.  A mutant must end cleanly: no crash or sanitizer
 * report (the process would die), no hang (an alarm kills it), and every
 * error must say what was being decoded, where (a section, or the file
 * for container errors) and at an offset inside it.
 *
 *   truncations: at every section's start and end, and at every byte of
 *     the ELF header, of each section header, of each unit header and
 *     line-table header;
 *   flips: --flips N random byte changes per file in its debug sections
 *     (fixed seed: the same mutants every run).
 *
 * usage: mutate [--flips N] [--seed S] FILE...
 * prints "ok mutate FILE: ..." per file, exit 1 on any bad mutant. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"

static const char *current = "";
static const uint8_t *cur_img; /* the mutant, for MUTATE_DUMP=PATH (a failing one is written there) */
static size_t cur_n;
static int bad;
static unsigned long errors;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL mutate: a mutant hung (10 s)\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

static void check(cudw_file *f, int rc)
{
    const cudw_error *e = cudw_last_error(f);
    errors++;
    if (rc >= 0 && e->code >= 0)
        return;
    if (e->code >= 0 || !e->what || !e->what[0] || !e->detail[0]) {
        fprintf(stderr, "FAIL %s: an error without a description (code %d)\n", current, e->code);
        bad++;
        return;
    }
    if (e->section[0]) {
        const cudw_section *s = NULL;
        for (unsigned i = 1; i < cudw_section_count(f) && !s; i++)
            if (!strcmp(cudw_section_get(f, i)->name, e->section))
                s = cudw_section_get(f, i);
        if (s && e->offset > s->size && strcmp(e->section, "<rows>")) {
            fprintf(stderr, "FAIL %s: error at %s+0x%llx, past the section's size 0x%llx\n", current, e->section,
                    (unsigned long long)e->offset, (unsigned long long)s->size);
            bad++;
            FILE *d = getenv("MUTATE_DUMP") ? fopen(getenv("MUTATE_DUMP"), "wb") : NULL;
            if (d) {
                fwrite(cur_img, 1, cur_n, d);
                fclose(d);
            }
        }
    }
}

static void run(const uint8_t *img, size_t n, const char *what)
{
    current = what;
    cur_img = img;
    cur_n = n;
    cudw_file *f;
    alarm(10);
    if (cudw_open_mem(&f, img, n, "mutant") == CUDW_OK)
        exercise_file(f, check);
    else if (f)
        check(f, -1);
    alarm(0);
    cudw_close(f);
}

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    unsigned long flips = 1000, seed = 12345;
    signal(SIGALRM, on_alarm);
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "--flips") && first + 1 < argc)
            flips = strtoul(argv[++first], NULL, 0);
        else if (!strcmp(argv[first], "--seed") && first + 1 < argc)
            seed = strtoul(argv[++first], NULL, 0);
        first++;
    }
    unsigned long total = 0;
    for (int a = first; a < argc; a++) {
        FILE *fp = fopen(argv[a], "rb");
        if (!fp) {
            fprintf(stderr, "FAIL mutate: cannot read %s\n", argv[a]);
            bad++;
            continue;
        }
        fseek(fp, 0, SEEK_END);
        size_t n = (size_t)ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *orig = malloc(n), *m = malloc(n);
        if (fread(orig, 1, n, fp) != n) {
            fclose(fp);
            continue;
        }
        fclose(fp);
        cudw_file *f;
        if (cudw_open_mem(&f, orig, n, argv[a]) != CUDW_OK) {
            fprintf(stderr, "FAIL mutate: %s does not open\n", argv[a]);
            bad++;
            cudw_close(f);
            continue;
        }
        /* truncation points */
        size_t cap = 4096, nt = 0;
        size_t *cuts = malloc(cap * sizeof *cuts);
#define CUT(x) do { if ((x) < n && nt < cap) cuts[nt++] = (x); } while (0)
        for (size_t k = 1; k < 64; k++)
            CUT(k);
        uint64_t shoff = cudw_header(f) ? 0 : 0;
        memcpy(&shoff, orig + 40, 8);
        for (unsigned i = 0; i < cudw_section_count(f); i++) {
            const cudw_section *s = cudw_section_get(f, i);
            CUT(shoff + 64 * (uint64_t)i);
            CUT(shoff + 64 * (uint64_t)i + 24);
            if (!s->data || !s->size)
                continue;
            CUT(s->offset);
            CUT(s->offset + s->size - 1);
            CUT(s->offset + s->size / 2);
            cudw_secclass c;
            if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
                continue;
            if (c.kind == CUDW_SEC_INFO) {
                uint64_t cur = 0;
                cudw_unit u;
                while (cudw_unit_next(f, s, &cur, &u) == CUDW_OK)
                    for (uint64_t k = 0; k < 12; k++)
                        CUT(s->offset + u.offset + k);
            } else if (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS) {
                uint64_t cur = 0;
                const cudw_line_table *t;
                while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK)
                    for (uint64_t k = t->offset; k <= t->program_offset + 2; k += k < t->offset + 16 ? 1 : 7)
                        CUT(s->offset + k);
            }
        }
        char what[512];
        for (size_t k = 0; k < nt; k++) {
            snprintf(what, sizeof what, "%s truncated at %zu", argv[a], cuts[k]);
            run(orig, cuts[k], what);
        }
        /* flips in debug sections */
        size_t ndbg = 0;
        const cudw_section *dbg[256];
        for (unsigned i = 1; i < cudw_section_count(f) && ndbg < 256; i++) {
            const cudw_section *s = cudw_section_get(f, i);
            cudw_secclass c;
            if (s->data && s->size && (cudw_classify_name(s->name, s->flags, &c) == CUDW_OK ||
                                       !strncmp(s->name, ".rel", 4) || !strncmp(s->name, ".nv.merc.rel", 12)))
                dbg[ndbg++] = s;
        }
        rng = seed ^ (n * 0x9e3779b97f4a7c15ull);
        for (unsigned long k = 0; k < flips && ndbg; k++) {
            memcpy(m, orig, n);
            int nflip = 1 + (int)(next() % 3);
            uint64_t where = 0;
            for (int q = 0; q < nflip; q++) {
                const cudw_section *s = dbg[next() % ndbg];
                where = s->offset + next() % s->size;
                uint8_t v = (uint8_t)(1 + next() % 255);
                /* sometimes a value that matters: 0, 0xff, a length-like byte */
                if (next() % 4 == 0)
                    v = (uint8_t)(m[where] ^ (next() % 2 ? 0xff : 0x80));
                m[where] ^= v;
            }
            snprintf(what, sizeof what, "%s flip %lu (last at %llu)", argv[a], k, (unsigned long long)where);
            run(m, n, what);
        }
        printf("%s mutate %s: %zu truncations, %lu flips\n", bad ? "FAIL" : "ok  ", argv[a], nt, ndbg ? flips : 0);
        total += nt + (ndbg ? flips : 0);
        cudw_close(f);
        free(cuts);
        free(orig);
        free(m);
    }
    printf("mutate: %lu mutants, %lu errors reported and checked, %d bad\n", total, errors, bad);
    return bad ? 1 : 0;
}
