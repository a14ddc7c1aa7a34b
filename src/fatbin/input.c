/* The inputs users have: a cubin, a fatbin file, a host ELF carrying
 * fatbins in .nv_fatbin / __nv_relfatbin, or an "ar" archive of cubins and
 * host objects (a static library).  Each becomes a list of images; ELF
 * images inside fatbins are decompressed and opened only when asked for. */
#include "../internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct blob {
    const uint8_t *data;
    size_t size;
    cudw_fatbin *fb;
    const char *owner;        /* what image labels start with */
} blob;

#define NO_BLOB ((size_t)-1)  /* where[].blob of a cubin (bare, or an archive member) */

struct cudw_input {
    int type;
    char *path;
    cudw_file *host;          /* cubin or host ELF */
    const uint8_t *map;       /* fatbin files */
    size_t map_size;
    blob *blobs;              /* one per fatbin section (or the fatbin file) */
    size_t nblobs;
    cudw_input_image *images;
    size_t nimages;
    struct where {
        size_t blob, entry;   /* image i is entry .entry of blob .blob */
    } *where;
    size_t cap;               /* of images and where */
    struct member {
        cudw_file *elf;       /* an ELF member, opened; else NULL */
        char *owner;          /* "lib.a(member.o)\0member.o": label prefix, then the name */
    } *members;               /* archives */
    size_t nmembers;
    cudw_error err;
};

static int in_fail(cudw_input *in, int code, const char *section, uint64_t off, const char *what,
                   const char *detail)
{
    in->err.code = code;
    in->err.offset = off;
    in->err.what = what;
    snprintf(in->err.section, sizeof in->err.section, "%s", section ? section : "");
    snprintf(in->err.detail, sizeof in->err.detail, "%s", detail);
    return code;
}

static int add_blob(cudw_input *in, const uint8_t *data, size_t size, const char *section, const char *owner)
{
    blob *n = realloc(in->blobs, (in->nblobs + 1) * sizeof *n);
    if (!n)
        return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    in->blobs = n;
    blob *b = &in->blobs[in->nblobs++];
    b->data = data;
    b->size = size;
    b->owner = owner;
    int rc = cudw_fatbin_parse(data, size, owner, &b->fb);
    if (rc) {
        if (!b->fb)
            return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        in->err = *cudw_fatbin_error(b->fb);
        /* name the host section the fatbin sits in */
        snprintf(in->err.section, sizeof in->err.section, "%s", section ? section : "fatbin");
        return rc;
    }
    return CUDW_OK;
}

static cudw_input_image *new_image(cudw_input *in, size_t blob_index, size_t entry)
{
    if (in->nimages == in->cap) {
        size_t c = in->cap ? in->cap * 2 : 8;
        cudw_input_image *im = realloc(in->images, c * sizeof *im);
        if (im)
            in->images = im;
        struct where *w = im ? realloc(in->where, c * sizeof *w) : NULL;
        if (!w) {
            in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            return NULL;
        }
        in->where = w;
        in->cap = c;
    }
    cudw_input_image *im = &in->images[in->nimages];
    memset(im, 0, sizeof *im);
    in->where[in->nimages] = (struct where){blob_index, entry};
    in->nimages++;
    return im;
}

/* The images of blob b, labelled "OWNER[container.entry: KIND sm_N 'name']";
 * containers are numbered across the owner's fatbin sections. */
static int blob_images(cudw_input *in, size_t b)
{
    unsigned first = 0;
    for (size_t pb = 0; pb < b; pb++) {
        size_t c = cudw_fatbin_count(in->blobs[pb].fb);
        if (c && in->blobs[pb].owner == in->blobs[b].owner)
            first += cudw_fatbin_get(in->blobs[pb].fb, c - 1)->container + 1;
    }
    for (size_t i = 0; i < cudw_fatbin_count(in->blobs[b].fb); i++) {
        const cudw_fatbin_entry *e = cudw_fatbin_get(in->blobs[b].fb, i);
        cudw_input_image *im = new_image(in, b, i);
        if (!im)
            return CUDW_E_NOMEM;
        im->kind = e->kind;
        im->entry = e;
        char name[64] = "";
        if (e->name)
            snprintf(name, sizeof name, " '%.*s'", (int)(e->name_length < 48 ? e->name_length : 48), e->name);
        char kind[16];
        const char *kn = cudw_fatbin_kind_name(e->kind);
        if (kn)
            snprintf(kind, sizeof kind, "%s", kn);
        else
            snprintf(kind, sizeof kind, "kind %u", (unsigned)e->kind);
        snprintf(im->label, sizeof im->label, "%s[%u.%u: %s sm_%u%s%s]", in->blobs[b].owner, first + e->container,
                 e->index, kind, e->sm, cudw_fatbin_variant(e->flags), name);
    }
    return CUDW_OK;
}

/* The fatbin sections of a host ELF, as blobs; their images. */
static int host_blobs(cudw_input *in, cudw_file *host, const char *owner)
{
    size_t from = in->nblobs;
    for (unsigned i = 1; i < cudw_section_count(host); i++) {
        const cudw_section *s = cudw_section_get(host, i);
        if (strcmp(s->name, ".nv_fatbin") && strcmp(s->name, "__nv_relfatbin"))
            continue;
        if (!s->data)
            return in_fail(in, CUDW_E_BAD_OFFSET, s->name, 0, "section", "no bytes in the file");
        int rc = add_blob(in, s->data, s->data_size, s->name, owner);
        if (rc)
            return rc;
    }
    for (size_t b = from; b < in->nblobs; b++) {
        int rc = blob_images(in, b);
        if (rc)
            return rc;
    }
    return CUDW_OK;
}

/* Every member that is a cubin, a host ELF with fatbins, or a fatbin;
 * other members (host-only objects, text) are passed over. */
static int archive_images(cudw_input *in)
{
    ar_member m;
    memset(&m, 0, sizeof m);
    uint64_t pos = 0;
    int r;
    while ((r = ar_next(in->map, in->map_size, &pos, &m)) == 0) {
        size_t pl = strlen(in->path), nl = strlen(m.name);
        struct member *nm = realloc(in->members, (in->nmembers + 1) * sizeof *nm);
        if (nm)
            in->members = nm;
        char *own = nm ? malloc(pl + 2 * nl + 4) : NULL;
        if (!own)
            return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        snprintf(own, pl + nl + 3, "%s(%s)", in->path, m.name);
        const char *member = memcpy(own + pl + nl + 3, m.name, nl + 1);
        size_t first_image = in->nimages;
        in->members[in->nmembers++] = (struct member){NULL, own};
        if (m.size >= 4 && ld32(m.data) == 0xBA55ED50u) {
            int rc = add_blob(in, m.data, m.size, NULL, own);
            if (!rc)
                rc = blob_images(in, in->nblobs - 1);
            if (rc)
                return rc;
            for (size_t k = first_image; k < in->nimages; k++)
                in->images[k].member = member;
            continue;
        }
        if (m.size < 4 || memcmp(m.data, "\x7f" "ELF", 4))
            continue;
        cudw_file *f;
        int rc = cudw_open_mem(&f, m.data, m.size, own);
        in->members[in->nmembers - 1].elf = f;
        if (rc) {
            if (f)
                in->err = *cudw_last_error(f);
            else
                in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            return rc;
        }
        if (cudw_header(f)->machine == 190) {
            cudw_input_image *im = new_image(in, NO_BLOB, 0);
            if (!im)
                return CUDW_E_NOMEM;
            snprintf(im->label, sizeof im->label, "%s", own);
            im->kind = CUDW_FATBIN_ELF;
            im->elf = f;
        } else if ((rc = host_blobs(in, f, own))) {
            return rc;
        }
        for (size_t k = first_image; k < in->nimages; k++)
            in->images[k].member = member;
    }
    if (r < 0) {
        char d[160];
        snprintf(d, sizeof d, "%s", m.error);
        return in_fail(in, CUDW_E_BAD_OFFSET, "archive", m.error_offset, "ar member header", d);
    }
    if (!in->nimages)
        return in_fail(in, CUDW_E_NOT_FOUND, NULL, 0, "input",
                       "no CUDA device code in the archive: no member is a cubin, a fatbin or a host object with one");
    return CUDW_OK;
}

int cudw_input_open(cudw_input **out, const char *path)
{
    cudw_input *in = calloc(1, sizeof *in);
    *out = in;
    if (!in)
        return CUDW_E_NOMEM;
    in->path = strdup(path);
    if (!in->path)
        return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    uint8_t head[20] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return in_fail(in, CUDW_E_IO, NULL, 0, "open", strerror(errno));
    ssize_t got = read(fd, head, sizeof head);
    struct stat st;
    if (got < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return in_fail(in, CUDW_E_IO, NULL, 0, "read", strerror(e));
    }
    int archive = got >= 8 && ar_is_archive(head, (size_t)got);
    if (got >= 8 && !memcmp(head, "!<thin>\n", 8)) {
        close(fd);
        return in_fail(in, CUDW_E_UNSUPPORTED, NULL, 0, "input", "a thin archive (its members live outside it)");
    }
    if (archive || (got >= 4 && ld32(head) == 0xBA55ED50u)) {
        in->type = archive ? CUDW_INPUT_ARCHIVE : CUDW_INPUT_FATBIN;
        void *m = S_ISREG(st.st_mode) && st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                                                     : MAP_FAILED;
        int e = errno;
        close(fd);
        if (m == MAP_FAILED)
            return in_fail(in, CUDW_E_IO, NULL, 0, "mmap", strerror(e));
        in->map = m;
        in->map_size = (size_t)st.st_size;
        if (archive)
            return archive_images(in);
        int rc = add_blob(in, in->map, in->map_size, NULL, in->path);
        return rc ? rc : blob_images(in, 0);
    }
    close(fd);
    int rc = cudw_open(&in->host, path);
    if (rc) {
        if (in->host)
            in->err = *cudw_last_error(in->host);
        else
            in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        if (rc == CUDW_E_NOT_ELF && st.st_size > 0)
            snprintf(in->err.detail, sizeof in->err.detail, "neither an ELF file nor a fatbin (no \\x7fELF, no 0xba55ed50)");
        return rc;
    }
    if (cudw_header(in->host)->machine == 190) {
        in->type = CUDW_INPUT_CUBIN;
        cudw_input_image *im = new_image(in, NO_BLOB, 0);
        if (!im)
            return CUDW_E_NOMEM;
        snprintf(im->label, sizeof im->label, "%s", path);
        im->kind = CUDW_FATBIN_ELF;
        im->elf = in->host;
        return CUDW_OK;
    }
    in->type = CUDW_INPUT_HOST;
    if ((rc = host_blobs(in, in->host, in->path)))
        return rc;
    if (!in->nblobs)
        return in_fail(in, CUDW_E_NOT_FOUND, NULL, 0, "input",
                       "no CUDA device code: not a cubin (e_machine 190), no .nv_fatbin or __nv_relfatbin section");
    return CUDW_OK;
}

int cudw_input_type(const cudw_input *in) { return in->type; }
const cudw_error *cudw_input_error(const cudw_input *in) { return &in->err; }
size_t cudw_input_count(const cudw_input *in) { return in->nimages; }

const cudw_input_image *cudw_input_peek(const cudw_input *in, size_t i)
{
    return i < in->nimages ? &in->images[i] : NULL;
}

const cudw_fatbin *cudw_input_fatbin(const cudw_input *in) { return in->nblobs ? in->blobs[0].fb : NULL; }

int cudw_input_image_get(cudw_input *in, size_t i, const cudw_input_image **out)
{
    if (i >= in->nimages)
        return in_fail(in, CUDW_E_ARG, NULL, 0, "input", "no such image");
    cudw_input_image *im = &in->images[i];
    *out = im;
    if (in->where[i].blob == NO_BLOB) {
        im->data = im->elf->map;
        im->size = im->elf->map_size;
        return CUDW_OK;
    }
    if (im->data)
        return CUDW_OK;
    cudw_fatbin *fb = in->blobs[in->where[i].blob].fb;
    int rc = cudw_fatbin_image(fb, in->where[i].entry, &im->data, &im->size);
    if (rc) {
        in->err = *cudw_fatbin_error(fb);
        im->data = NULL;
        return rc;
    }
    if (im->kind == CUDW_FATBIN_ELF) {
        rc = cudw_open_mem(&im->elf, im->data, im->size, im->label);
        if (rc) {
            if (im->elf)
                in->err = *cudw_last_error(im->elf);
            cudw_close(im->elf);
            im->elf = NULL;
            im->data = NULL;
            return rc;
        }
    }
    return CUDW_OK;
}

void cudw_input_close(cudw_input *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nimages; i++)
        if (in->images[i].elf && in->where[i].blob != NO_BLOB)
            cudw_close(in->images[i].elf);
    for (size_t i = 0; i < in->nmembers; i++) {
        cudw_close(in->members[i].elf);
        free(in->members[i].owner);
    }
    free(in->members);
    for (size_t b = 0; b < in->nblobs; b++)
        cudw_fatbin_close(in->blobs[b].fb);
    free(in->blobs);
    free(in->images);
    free(in->where);
    cudw_close(in->host);
    if (in->map)
        munmap((void *)(uintptr_t)in->map, in->map_size);
    free(in->path);
    free(in);
}
