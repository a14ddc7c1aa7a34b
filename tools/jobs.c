#define _GNU_SOURCE /* sched_getaffinity */
/* Per-image work on several threads, printed as one thread would print it.
 *
 * Job i runs on any worker, printing to its thread's out_stdout and
 * through eprintf.  Its output goes straight to stdout while every job
 * before it has been printed (it is the head); otherwise it is kept in
 * memory until its turn.  Workers take a job only while it is within
 * WINDOW of the head, so at most WINDOW jobs' outputs wait in memory.
 * Messages (stderr) of a job are printed when it is done, in job order.
 * The result is byte for byte what -j 1 prints. */
#include "jobs.h"
#include "cli.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned jobs_n = 1;
const char *jobs_sep, *jobs_open;

typedef struct text {
    char *p;
    size_t n, cap;
    int oom;
} text;

typedef struct slot {
    text out, err;
    int done, rc, started;
    size_t cost;
} slot;

typedef struct runner {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t n, take, emit, window;
    slot *slots;
    job_fn fn;
    job_cost_fn cost;
    void *ctx;
    size_t inflight;      /* cost of the jobs running */
    int worst;
} runner;

static int emitted_any; /* some job printed something: the next one gets jobs_sep first */
static _Thread_local runner *cur_runner;
static _Thread_local size_t cur_job;

static void text_add(text *t, const void *p, size_t n)
{
    if (t->oom)
        return;
    if (t->cap - t->n < n) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->n < n)
            cap *= 2;
        char *q = realloc(t->p, cap);
        if (!q) {
            t->oom = 1;
            return;
        }
        t->p = q;
        t->cap = cap;
    }
    memcpy(t->p + t->n, p, n);
    t->n += n;
}

static void text_free(text *t)
{
    free(t->p);
    memset(t, 0, sizeof *t);
}

/* Under the lock: the head job's first bytes get the separator. */
static void put_out(slot *s, const void *p, size_t n)
{
    if (!n)
        return;
    if (!s->started) {
        s->started = 1;
        if (emitted_any && jobs_sep)
            fputs(jobs_sep, stdout);
        else if (!emitted_any && jobs_open)
            fputs(jobs_open, stdout);
        emitted_any = 1;
    }
    fwrite(p, 1, n, stdout);
}

static void emit_done(runner *r)
{
    while (r->emit < r->take && r->slots[r->emit % r->window].done) {
        slot *s = &r->slots[r->emit % r->window];
        if (s->out.oom || s->err.oom) {
            fprintf(stderr, "%s: out of memory keeping the output of a job\n", progname);
            if (r->worst < EXIT_BAD_INPUT)
                r->worst = EXIT_BAD_INPUT;
        }
        put_out(s, s->out.p, s->out.n);
        if (s->err.n) {
            fflush(stdout);
            fwrite(s->err.p, 1, s->err.n, stderr);
        }
        if (s->rc > r->worst)
            r->worst = s->rc;
        text_free(&s->out);
        text_free(&s->err);
        r->emit++;
    }
    pthread_cond_broadcast(&r->cv);
}

static void job_sink(obuf *o, const void *p, size_t n)
{
    (void)o;
    runner *r = cur_runner;
    slot *s = &r->slots[cur_job % r->window];
    pthread_mutex_lock(&r->mu);
    if (r->emit == cur_job) { /* the head: what it kept, then this, straight out */
        put_out(s, s->out.p, s->out.n);
        s->out.n = 0;
        put_out(s, p, n);
    } else {
        text_add(&s->out, p, n);
    }
    pthread_mutex_unlock(&r->mu);
}

static void job_sink_direct(obuf *o, const void *p, size_t n)
{
    (void)o;
    put_out(cur_runner->slots, p, n);
}

static void job_err(const char *p, size_t n)
{
    runner *r = cur_runner;
    pthread_mutex_lock(&r->mu);
    text_add(&r->slots[cur_job % r->window].err, p, n);
    pthread_mutex_unlock(&r->mu);
}

static void *worker(void *arg)
{
    runner *r = arg;
    cur_runner = r;
    out_stdout.sink = job_sink;
    out_stdout.len = 0;
    err_sink = job_err;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        /* within the window, and within the memory budget unless alone */
        while (r->take < r->n &&
               (r->take >= r->emit + r->window ||
                (r->inflight && r->inflight + (r->cost ? r->cost(r->ctx, r->take) : 0) > JOBS_BUDGET)))
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->take >= r->n)
            break;
        size_t i = r->take++;
        slot *s = &r->slots[i % r->window];
        memset(s, 0, sizeof *s);
        s->cost = r->cost ? r->cost(r->ctx, i) : 0;
        r->inflight += s->cost;
        pthread_mutex_unlock(&r->mu);
        cur_job = i;
        int rc = r->fn(r->ctx, i);
        ob_flush(&out_stdout);
        pthread_mutex_lock(&r->mu);
        s->rc = rc;
        s->done = 1;
        r->inflight -= s->cost;
        emit_done(r);
    }
    pthread_mutex_unlock(&r->mu);
    err_sink = NULL;
    out_stdout.sink = NULL;
    return NULL;
}

int jobs_wrote(void) { return emitted_any; }
void jobs_reset(void) { emitted_any = 0; }

unsigned jobs_default(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int jobs_run(size_t n, job_fn fn, void *ctx) { return jobs_run_cost(n, fn, NULL, ctx); }

int jobs_run_cost(size_t n, job_fn fn, job_cost_fn cost, void *ctx)
{
    ob_flush(&out_stdout); /* what the command printed before comes first */
    unsigned threads = jobs_n ? jobs_n : 1;
    if (threads > n)
        threads = (unsigned)n;
    runner r = {.n = n, .fn = fn, .cost = cost, .ctx = ctx, .window = 4 * (size_t)(threads ? threads : 1)};
    if (threads <= 1) {
        /* one thread: straight out, separators as the workers put them */
        int worst = 0;
        for (size_t i = 0; i < n; i++) {
            void (*saved)(obuf *, const void *, size_t) = out_stdout.sink;
            slot s = {0};
            r.slots = &s;
            r.window = 1;
            r.emit = i;
            cur_runner = &r;
            cur_job = i;
            out_stdout.sink = job_sink_direct;
            int rc = fn(ctx, i);
            ob_flush(&out_stdout);
            out_stdout.sink = saved;
            if (rc > worst)
                worst = rc;
        }
        return worst;
    }
    r.slots = calloc(r.window, sizeof *r.slots);
    pthread_t *t = calloc(threads, sizeof *t);
    if (!r.slots || !t) {
        free(r.slots);
        free(t);
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    unsigned started = 0;
    for (; started < threads; started++)
        if (pthread_create(&t[started], NULL, worker, &r) != 0)
            break;
    if (!started) /* no thread to be had: do it here */
        worker(&r);
    for (unsigned k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    fflush(stdout);
    free(r.slots);
    free(t);
    return r.worst;
}
