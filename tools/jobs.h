/* Running per-image work on several threads (-j N), printed in input
 * order: see jobs.c. */
#ifndef CUDW_TOOLS_JOBS_H
#define CUDW_TOOLS_JOBS_H

#include <stddef.h>

/* Threads to use (-j N; 1 runs everything on the calling thread). */
extern unsigned jobs_n;
/* Printed between the outputs of two jobs that print something (",": the
 * elements of a JSON array; "\n": blank lines between images); NULL: none.
 * Holds across jobs_run calls, so a command's inputs share it. */
extern const char *jobs_sep;
/* Printed before the first output of all jobs ("[": a JSON array opened
 * only when something goes in it, so an input that fails prints nothing). */
extern const char *jobs_open;

/* 1 once any job has printed something; jobs_reset starts a new count
 * (a JSON array of its own). */
int jobs_wrote(void);
void jobs_reset(void);

/* The cores this process may run on. */
unsigned jobs_default(void);

/* Job i of n: print with out_stdout and eprintf; return an exit code. */
typedef int (*job_fn)(void *ctx, size_t i);

/* Run fn(ctx, 0..n-1) on jobs_n threads; their output appears as if run
 * one after the other.  Returns the highest exit code. */
int jobs_run(size_t n, job_fn fn, void *ctx);

/* The same, starting job i only while the costs (bytes of memory it will
 * hold, as cost(ctx, i) estimates) of the jobs running stay within
 * JOBS_BUDGET, or when no other job runs: -j N does not multiply the
 * memory a library's largest images take. */
#define JOBS_BUDGET ((size_t)160 << 20)
typedef size_t (*job_cost_fn)(void *ctx, size_t i);
int jobs_run_cost(size_t n, job_fn fn, job_cost_fn cost, void *ctx);

#endif
