/* The input handle's layout, shared by input.c (open, images, loading)
 * and discover.c (finding the containers of a host ELF). */
#ifndef CUDW_FATBIN_INPUT_H
#define CUDW_FATBIN_INPUT_H

#include "../internal.h"

/* One fatbin container: a range of a parsed blob.  The blob is a whole
 * .nv_fatbin / __nv_relfatbin section or fatbin file (containers back to
 * back), or just this container when a scan or a wrapper found it. */
typedef struct input_con {
    cudw_input_container pub;
    cudw_fatbin *fb;          /* the blob's entries */
    int owns_fb;              /* the last container of a blob frees it */
    size_t fb_first, fb_count;    /* its entries in fb */
    uint64_t fb_offset;       /* where it starts in the blob */
} input_con;

/* Where image i comes from. */
typedef struct input_where {
    size_t con;               /* container index, or NO_CON for a cubin */
    size_t entry;             /* index in the container's fb */
    const uint8_t *bytes;     /* a cubin's bytes */
    size_t size;
    cudw_file *shared;        /* a cubin's handle, opened with the input */
    cudw_image *got;          /* cudw_input_image_get's, until released */
} input_where;

#define NO_CON ((size_t)-1)

struct cudw_input {
    int type;
    char *path;
    cudw_file *host;          /* cubin or host ELF */
    const uint8_t *map;       /* fatbin files and archives: our mapping */
    size_t map_size;
    const uint8_t *drop_base; /* the mapping whose pages cudw_image_close returns */
    size_t drop_len;
    struct input_drops *drops;/* ranges given back, gathered (input_drop) */
    input_con *cons;
    size_t ncons, capcons;
    cudw_input_image *images;
    input_where *where;       /* per image, beside it (images is public) */
    size_t nimages, capimages, capwhere;
    cudw_file **members;      /* archive members opened as ELF */
    size_t nmembers, capmembers;
    arena names;              /* labels, tags, owners */
    cudw_error err;
};

int input_fail(cudw_input *in, int code, const char *section, uint64_t off, const char *what, const char *fmt, ...) CUDW_PRINTF(6, 7);
char *input_strdup(cudw_input *in, const char *s);

/* Append a container: the part [off, off + size) of fb, entries
 * [first, first + count).  The caller fills pub's place fields. */
input_con *input_add_con(cudw_input *in, cudw_fatbin *fb, int owns_fb, size_t first, size_t count, uint64_t off,
                         uint64_t size);

/* The containers of parsed blob fb (a section s, or a file when s is
 * NULL), each numbered in it; fb is theirs. */
int input_split_blob(cudw_input *in, cudw_fatbin *fb, const cudw_section *s);

/* The containers of host ELF h (a whole input, or an archive member):
 * walked, scanned and followed (discover.c), sorted by place, numbered
 * per section; then their images.  owner/member label them. */
int input_host_containers(cudw_input *in, cudw_file *h, const char *owner, const char *member);
/* A whole cubin f (the input, or an archive member) as one image. */
int input_cubin_image(cudw_input *in, cudw_file *f, const char *label, const char *member);
/* The images of containers [from, ncons), labelled. */
int input_con_images(cudw_input *in, size_t from);

/* Give the pages under [p, p + n) of our mapping back (MADV_DONTNEED):
 * they are file bytes, read again if touched. */
void input_drop(const cudw_input *in, const void *p, size_t n);
/* The gathering of dropped ranges (NULL out of memory: pages are then
 * dropped one range at a time), and its end. */
struct input_drops *input_drops_new(void);
void input_drops_free(struct input_drops *d);

#endif
