/* The inputs users have: a cubin, a fatbin file, a host ELF carrying
 * fatbins (discover.c finds them), or an "ar" archive of cubins and host
 * objects (a static library).  Each becomes a list of labelled images;
 * an image is decompressed and opened only when asked for, and given back
 * when done with, so memory follows one image, not the file. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
static int cubin_image(cudw_input *in, cudw_file *f, const char *label, const char *member)
{
    cudw_input_image *im = new_image(in);
    if (!im)
        return CUDW_E_NOMEM;
    input_where *w = &in->where[in->nimages - 1];
    im->label = label;
    im->kind = CUDW_FATBIN_ELF;
    im->sm = cudw_header(f)->sm;
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

/* A fatbin file or fatbin archive member: containers back to back. */
static int fatbin_blob(cudw_input *in, const uint8_t *data, size_t size, const char *owner, const char *member)
{
    cudw_fatbin *fb;
    int rc = cudw_fatbin_parse(data, size, owner, &fb);
    if (rc) {
        if (!fb)
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        in->err = *cudw_fatbin_error(fb);
        cudw_fatbin_close(fb);
        return rc;
    }
    size_t from = in->ncons;
    if ((rc = input_split_blob(in, fb, NULL)))
        return rc;
    for (size_t c = from; c < in->ncons; c++) {
        in->cons[c].pub.owner = owner;
        in->cons[c].pub.member = member;
    }
    return input_con_images(in, from);
}

/* Every member that is a cubin, a host ELF or a fatbin; other members
 * (host objects without device code, text) add nothing. */
static int archive_images(cudw_input *in)
{
    ar_member m;
    memset(&m, 0, sizeof m);
    uint64_t pos = 0;
    size_t index = 0;
    int r;
    while ((r = ar_next(in->map, in->map_size, &pos, &m)) == 0) {
        index++;
        /* a name the archive holds twice gets its position too */
        int dup = 0;
        for (size_t i = 0; i < in->nimages && !dup; i++)
            dup = in->images[i].member && !strcmp(in->images[i].member, m.name);
        char *member = input_strdup(in, m.name);
        size_t n = strlen(in->path) + strlen(m.name) + 32;
        char *owner = arena_alloc(&in->names, n);
        if (!member || !owner)
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        if (dup)
            snprintf(owner, n, "%s(%s@%zu)", in->path, m.name, index);
        else
            snprintf(owner, n, "%s(%s)", in->path, m.name);
        if (m.size >= 4 && ld32(m.data) == 0xBA55ED50u) {
            int rc = fatbin_blob(in, m.data, m.size, owner, member);
            if (rc)
                return rc;
            continue;
        }
        if (m.size < 4 || memcmp(m.data, "\x7f" "ELF", 4))
            continue;
        cudw_file *f;
        int rc = file_open_mem_any(&f, m.data, m.size, owner);
        cudw_file **nm = vec_room(in->members, &in->capmembers, in->nmembers, sizeof *nm, 16);
        if (!nm) {
            cudw_close(f);
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        }
        in->members = nm;
        in->members[in->nmembers++] = f;
        if (rc) {
            if (f)
                in->err = *cudw_last_error(f);
            else
                input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            return rc;
        }
        rc = cudw_header(f)->machine == 190 ? cubin_image(in, f, owner, member)
                                             : input_host_containers(in, f, owner, member);
        if (rc)
            return rc;
    }
    if (r < 0)
        return input_fail(in, CUDW_E_BAD_OFFSET, "archive", m.error_offset, "ar member header", "%s", m.error);
    if (!in->nimages)
        return input_fail(in, CUDW_E_NOT_FOUND, NULL, 0, "input",
                          "no CUDA device code in the archive: no member is a cubin, a fatbin or a host object with one");
    return CUDW_OK;
}

static int map_file(cudw_input *in, int fd, const struct stat *st)
{
    void *m = S_ISREG(st->st_mode) && st->st_size ? mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                                                   : MAP_FAILED;
    int e = errno;
    close(fd);
    if (m == MAP_FAILED)
        return input_fail(in, CUDW_E_IO, NULL, 0, "mmap", "%s", strerror(e));
    in->map = in->drop_base = m;
    in->map_size = in->drop_len = (size_t)st->st_size;
    return CUDW_OK;
}

int cudw_input_open(cudw_input **out, const char *path)
{
    cudw_input *in = calloc(1, sizeof *in);
    *out = in;
    if (!in)
        return CUDW_E_NOMEM;
    if ((in->drops = calloc(1, sizeof *in->drops)))
        pthread_mutex_init(&in->drops->mu, NULL);
    if (!(in->path = strdup(path)))
        return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    uint8_t head[20] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return input_fail(in, CUDW_E_IO, NULL, 0, "open", "%s", strerror(errno));
    ssize_t got = read(fd, head, sizeof head);
    struct stat st;
    if (got < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return input_fail(in, CUDW_E_IO, NULL, 0, "read", "%s", strerror(e));
    }
    int archive = got >= 8 && ar_is_archive(head, (size_t)got);
    if (got >= 8 && !memcmp(head, "!<thin>\n", 8)) {
        close(fd);
        return input_fail(in, CUDW_E_UNSUPPORTED, NULL, 0, "input", "a thin archive (its members live outside it)");
    }
    if (archive || (got >= 4 && ld32(head) == 0xBA55ED50u)) {
        in->type = archive ? CUDW_INPUT_ARCHIVE : CUDW_INPUT_FATBIN;
        int rc = map_file(in, fd, &st);
        if (rc)
            return rc;
        return archive ? archive_images(in) : fatbin_blob(in, in->map, in->map_size, in->path, NULL);
    }
    close(fd);
    int rc = file_open_any(&in->host, path);
    if (rc) {
        if (in->host)
            in->err = *cudw_last_error(in->host);
        else
            input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        if (rc == CUDW_E_NOT_ELF && st.st_size > 0)
            snprintf(in->err.detail, sizeof in->err.detail, "neither an ELF file nor a fatbin (no \\x7fELF, no 0xba55ed50)");
        return rc;
    }
    if (cudw_header(in->host)->machine == 190) {
        in->type = CUDW_INPUT_CUBIN;
        return cubin_image(in, in->host, in->path, NULL);
    }
    in->type = CUDW_INPUT_HOST;
    in->drop_base = in->host->map;
    in->drop_len = in->host->map_size;
    return input_host_containers(in, in->host, in->path, NULL);
}

int cudw_input_type(const cudw_input *in) { return in->type; }
const cudw_error *cudw_input_error(const cudw_input *in) { return &in->err; }
size_t cudw_input_count(const cudw_input *in) { return in->nimages; }
size_t cudw_input_container_count(const cudw_input *in) { return in->ncons; }

const cudw_input_image *cudw_input_peek(const cudw_input *in, size_t i)
{
    return i < in->nimages ? &in->images[i] : NULL;
}

const cudw_input_container *cudw_input_container_get(const cudw_input *in, size_t i)
{
    return i < in->ncons ? &in->cons[i].pub : NULL;
}

const cudw_fatbin *cudw_input_fatbin(const cudw_input *in) { return in->ncons ? in->cons[0].fb : NULL; }

/* What cudw_image_free needs beyond the public part. */
typedef struct image_impl {
    cudw_image pub;
    const cudw_input *in;
    uint8_t *owned;           /* the decompressed buffer */
    const uint8_t *payload;   /* stored bytes in our mapping, for input_drop */
    size_t payload_size;
} image_impl;

int cudw_input_load(const cudw_input *in, size_t i, cudw_image **out)
{
    image_impl *x = calloc(1, sizeof *x);
    *out = x ? &x->pub : NULL;
    if (!x)
        return CUDW_E_NOMEM;
    cudw_image *im = &x->pub;
    x->in = in;
    if (i >= in->nimages) {
        im->err.code = CUDW_E_ARG;
        im->err.what = "input";
        snprintf(im->err.detail, sizeof im->err.detail, "no image %zu (the input has %zu)", i, in->nimages);
        return CUDW_E_ARG;
    }
    const input_where *w = &in->where[i];
    im->info = &in->images[i];
    if (w->con == NO_CON) {
        im->data = w->bytes;
        im->size = w->size;
    } else {
        const cudw_fatbin_entry *e = cudw_fatbin_get(in->cons[w->con].fb, w->entry);
        x->payload = e->header; /* from the header: it was read too */
        x->payload_size = (size_t)(e->payload - e->header) + (size_t)e->stored_size;
        int rc = fatbin_entry_load(e, &x->owned, &im->data, &im->size, &im->err);
        if (rc)
            return rc;
        if (x->owned) { /* the compressed bytes are done with */
            input_drop(in, x->payload, x->payload_size);
            x->payload = NULL;
        }
    }
    if (im->info->kind != CUDW_FATBIN_ELF)
        return CUDW_OK;
    int rc = cudw_open_mem(&im->elf, im->data, im->size, im->info->label);
    if (rc) {
        if (im->elf)
            im->err = *cudw_last_error(im->elf);
        else
            im->err.code = rc;
        return rc;
    }
    return CUDW_OK;
}

void cudw_image_free(cudw_image *im)
{
    if (!im)
        return;
    image_impl *x = (image_impl *)im;
    cudw_close(im->elf);
    free(x->owned);
    if (x->payload)
        input_drop(x->in, x->payload, x->payload_size);
    free(x);
}

int cudw_input_image_get(cudw_input *in, size_t i, const cudw_input_image **out)
{
    if (i >= in->nimages)
        return input_fail(in, CUDW_E_ARG, NULL, 0, "input", "no image %zu (the input has %zu)", i, in->nimages);
    cudw_input_image *info = &in->images[i];
    input_where *w = &in->where[i];
    *out = info;
    if (w->shared) { /* a cubin: the handle opened with the input */
        info->elf = w->shared;
        info->data = w->bytes;
        info->size = w->size;
        return CUDW_OK;
    }
    if (!w->got) {
        cudw_image *im;
        int rc = cudw_input_load(in, i, &im);
        if (rc) {
            if (im)
                in->err = im->err;
            else
                input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            cudw_image_free(im);
            return rc;
        }
        w->got = im;
    }
    info->elf = w->got->elf;
    info->data = w->got->data;
    info->size = w->got->size;
    return CUDW_OK;
}

void cudw_input_image_release(cudw_input *in, size_t i)
{
    if (i >= in->nimages || !in->where[i].got)
        return;
    cudw_image_free(in->where[i].got);
    in->where[i].got = NULL;
    in->images[i].elf = NULL;
    in->images[i].data = NULL;
    in->images[i].size = 0;
}

int cudw_sm_parse(const char *text, unsigned *sm, char *variant)
{
    const char *p = text;
    if (!strncmp(p, "sm_", 3))
        p += 3;
    else if (!strncmp(p, "compute_", 8))
        p += 8;
    char *end;
    if (*p < '0' || *p > '9')
        return CUDW_E_ARG;
    unsigned long v = strtoul(p, &end, 10);
    if (!v || v > 999 || (*end && ((*end != 'a' && *end != 'f') || end[1])))
        return CUDW_E_ARG;
    *sm = (unsigned)v;
    *variant = *end;
    return CUDW_OK;
}

int cudw_input_image_is(const cudw_input_image *im, unsigned sm, char variant)
{
    if (im->sm != sm)
        return 0;
    return !im->entry || im->variant == variant;
}

void cudw_input_close(cudw_input *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nimages; i++)
        cudw_image_free(in->where[i].got);
    for (size_t i = 0; i < in->nmembers; i++)
        cudw_close(in->members[i]);
    free(in->members);
    for (size_t c = 0; c < in->ncons; c++)
        if (in->cons[c].owns_fb)
            cudw_fatbin_close(in->cons[c].fb);
    free(in->cons);
    free(in->images);
    free(in->where);
    cudw_close(in->host);
    if (in->map)
        munmap((void *)(uintptr_t)in->map, in->map_size);
    arena_free_all(&in->names);
    if (in->drops)
        pthread_mutex_destroy(&in->drops->mu);
    free(in->drops);
    free(in->path);
    free(in);
}
