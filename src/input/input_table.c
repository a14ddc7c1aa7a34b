/* The table an input builds (input.h): its containers and their
 * images, labelled; its error and names; the pages of its mapping given
 * back.  input.c (the kinds of input) and discover.c (containers in a host
 * ELF) both build through it, and it needs neither. */
#include "input.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int input_fail(cudw_input *in, int code, const char *section, uint64_t off, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&in->err, code, section, off, what, fmt, ap);
    va_end(ap);
    return code;
}

char *input_strdup(cudw_input *in, const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = arena_alloc(&in->names, n);
    if (!c) {
        input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        return NULL;
    }
    return memcpy(c, s, n);
}

/* A fault maps cached pages around it too: the kernel's fault-around
 * (64 KiB), and whole large folios of the page cache (up to 2 MiB, Linux
 * 6.x).  A range is widened to 2 MiB boundaries, or those pages would
 * stay; a page dropped that another thread still reads is read again.
 *
 * Ranges are gathered and given back 16 MiB at a time: a library holds
 * thousands of images of a few KiB each, and dropping the 2 MiB around
 * every one of them (then faulting it in again for the next) was most of
 * `cudwarf list`'s time on libcublasLt.  The mapping then holds at most
 * 16 MiB of pages beyond the images being read. */
#define FAULT_AROUND ((uintptr_t)2 << 20)
#define DROP_BATCH ((uintptr_t)16 << 20)

struct input_drops {
    pthread_mutex_t mu;
    uintptr_t lo, hi;         /* pending [lo, hi); lo == hi: none */
};

struct input_drops *input_drops_new(void)
{
    struct input_drops *d = calloc(1, sizeof *d);
    if (d)
        pthread_mutex_init(&d->mu, NULL);
    return d;
}

void input_drops_free(struct input_drops *d)
{
    if (!d)
        return;
    pthread_mutex_destroy(&d->mu);
    free(d);
}

static void drop_now(const cudw_input *in, uintptr_t a, uintptr_t b)
{
    uintptr_t base = (uintptr_t)in->drop_base;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), end = (base + in->drop_len + page - 1) & ~(page - 1);
    a &= ~(FAULT_AROUND - 1);
    b = (b + FAULT_AROUND - 1) & ~(FAULT_AROUND - 1);
    if (a < (base & ~(page - 1)))
        a = base & ~(page - 1);
    if (b > end)
        b = end;
    if (a < b)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

void input_drop(const cudw_input *in, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = a + n, base = (uintptr_t)in->drop_base;
    if (!in->drop_base || !n || a < base || b > base + in->drop_len)
        return;
    struct input_drops *d = in->drops;
    if (!d) {
        drop_now(in, a, b);
        return;
    }
    pthread_mutex_lock(&d->mu);
    if (d->lo == d->hi) {
        d->lo = a;
        d->hi = b;
    } else if (a <= d->hi + FAULT_AROUND && b + FAULT_AROUND >= d->lo) { /* next to what is pending */
        d->lo = a < d->lo ? a : d->lo;
        d->hi = b > d->hi ? b : d->hi;
    } else {
        drop_now(in, d->lo, d->hi);
        d->lo = a;
        d->hi = b;
    }
    if (d->hi - d->lo >= DROP_BATCH) {
        drop_now(in, d->lo, d->hi);
        d->lo = d->hi = 0;
    }
    pthread_mutex_unlock(&d->mu);
}

input_con *input_add_con(cudw_input *in, cudw_fatbin *fb, int owns_fb, size_t first, size_t count, uint64_t off,
                         uint64_t size)
{
    input_con *n = vec_room(in->cons, &in->capcons, in->ncons, sizeof *n, 16);
    if (!n) {
        input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        return NULL;
    }
    in->cons = n;
    input_con *k = &in->cons[in->ncons++];
    memset(k, 0, sizeof *k);
    k->fb = fb;
    k->owns_fb = owns_fb;
    k->fb_first = first;
    k->fb_count = count;
    k->fb_offset = off;
    k->pub.size = size;
    return k;
}

static cudw_input_image *new_image(cudw_input *in)
{
    cudw_input_image *im = vec_room(in->images, &in->capimages, in->nimages, sizeof *im, 16);
    if (im)
        in->images = im;
    input_where *w = im ? vec_room(in->where, &in->capwhere, in->nimages, sizeof *w, 16) : NULL;
    if (!w) {
        input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        return NULL;
    }
    in->where = w;
    memset(&in->where[in->nimages], 0, sizeof *in->where);
    in->where[in->nimages].con = NO_CON;
    im = &in->images[in->nimages++];
    memset(im, 0, sizeof *im);
    im->container = NO_CON;
    im->tag = "";
    return im;
}

/* A whole cubin (the input, or an archive member) as one image. */
int input_cubin_image(cudw_input *in, cudw_file *f, const char *label, const char *member)
{
    cudw_input_image *im = new_image(in);
    if (!im)
        return CUDW_E_NOMEM;
    input_where *w = &in->where[in->nimages - 1];
    im->label = label;
    im->kind = CUDW_FATBIN_ELF;
    im->sm = cudw_header(f)->sm;
    im->variant = cudw_header(f)->variant;
    im->member = member;
    w->shared = f;
    w->bytes = f->map;
    w->size = f->map_size;
    return CUDW_OK;
}

int input_con_images(cudw_input *in, size_t from)
{
    for (size_t c = from; c < in->ncons; c++) {
        input_con *k = &in->cons[c];
        k->pub.first_image = in->nimages;
        k->pub.nimages = k->fb_count;
        for (size_t i = 0; i < k->fb_count; i++) {
            const cudw_fatbin_entry *e = cudw_fatbin_get(k->fb, k->fb_first + i);
            cudw_input_image *im = new_image(in);
            if (!im)
                return CUDW_E_NOMEM;
            in->where[in->nimages - 1].con = c;
            in->where[in->nimages - 1].entry = k->fb_first + i;
            im->kind = e->kind;
            im->entry = e;
            im->sm = e->sm;
            im->variant = cudw_fatbin_variant(e->flags)[0];
            im->container = c;
            im->offset = k->pub.section_offset + (e->offset - k->fb_offset);
            im->member = k->pub.member;
            char tag[192], kind[16], name[64] = "";
            if (k->pub.section)
                snprintf(tag, sizeof tag, "%s#%u.%zu", k->pub.section, k->pub.ordinal, i);
            else
                snprintf(tag, sizeof tag, "%u.%zu", k->pub.ordinal, i);
            if (e->name)
                snprintf(name, sizeof name, " '%.*s'", (int)(e->name_length < 48 ? e->name_length : 48), e->name);
            if (cudw_fatbin_kind_name(e->kind))
                snprintf(kind, sizeof kind, "%s", cudw_fatbin_kind_name(e->kind));
            else
                snprintf(kind, sizeof kind, "kind %u", (unsigned)e->kind);
            size_t n = strlen(k->pub.owner) + strlen(tag) + strlen(kind) + strlen(name) + 32;
            char *label = arena_alloc(&in->names, n);
            if (!label)
                return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            snprintf(label, n, "%s[%s: %s sm_%u%s%s]", k->pub.owner, tag, kind, e->sm, cudw_fatbin_variant(e->flags),
                     name);
            im->label = label;
            im->tag = label + strlen(k->pub.owner) + 1;
            /* the tag ends where ':' starts: copy it apart */
            char *t = arena_alloc(&in->names, strlen(tag) + 1);
            if (!t)
                return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            im->tag = memcpy(t, tag, strlen(tag) + 1);
        }
    }
    return CUDW_OK;
}

int input_split_blob(cudw_input *in, cudw_fatbin *fb, const cudw_section *s)
{
    const fatbin_con *cons;
    size_t n = fatbin_containers(fb, &cons);
    size_t e = 0;
    if (!n)
        cudw_fatbin_close(fb);
    for (unsigned c = 0; c < n; c++) {
        size_t first = e;
        while (e < cudw_fatbin_count(fb) && cudw_fatbin_get(fb, e)->container == c)
            e++;
        input_con *k = input_add_con(in, fb, c == 0, first, e - first, cons[c].offset, cons[c].size);
        if (!k) {
            if (c == 0)
                cudw_fatbin_close(fb);
            return CUDW_E_NOMEM;
        }
        k->pub.ordinal = c;
        k->pub.section = s ? s->name : NULL;
        k->pub.section_index = s ? s->index : 0;
        k->pub.section_offset = cons[c].offset;
        k->pub.file_offset = (s ? s->offset : 0) + cons[c].offset;
        k->pub.found_by = CUDW_FOUND_SECTION;
    }
    return CUDW_OK;
}

char *cudw_input_sms(const cudw_input *in, int kind, char *buf, size_t n)
{
    size_t len = 0, nseen = 0;
    unsigned seen[64]; /* sm << 8 | variant of each listed: the images repeat a few SMs */
    if (n)
        buf[0] = 0;
    for (size_t i = 0; i < in->nimages && len < n && nseen < 64; i++) {
        const cudw_input_image *im = &in->images[i];
        unsigned key = im->sm << 8 | (uint8_t)im->variant;
        size_t j = 0;
        while (j < nseen && seen[j] != key)
            j++;
        if (im->kind != kind || j < nseen)
            continue;
        seen[nseen++] = key;
        len += (size_t)snprintf(buf + len, n - len, "%s%s_%u%s", len ? ", " : "",
                                kind == CUDW_FATBIN_PTX ? "compute" : "sm", im->sm,
                                im->variant == 'a' ? "a" : im->variant == 'f' ? "f" : "");
    }
    return buf;
}
