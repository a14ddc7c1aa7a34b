/* Where an image's bytes go: each section's file bytes by class, and
 * whatever no section holds as headers.
 *
 *   0 ............................................................. size
 *   [ELF header][sections, in file order, with alignment gaps][shdrs]
 *                ^ each counted once, by class     ^ gaps, tables: headers
 *
 * Sections are swept in offset order and a byte is counted for the first
 * section that covers it, so overlapping sections (hand-made files; real
 * cubins have none) do not make the classes add up to more than the file. */
#include "../internal.h"

#include <stdlib.h>

#define SHT_SYMTAB_ 2u
#define SHT_STRTAB_ 3u
#define SHT_RELA_ 4u
#define SHT_NOBITS_ 8u
#define SHT_REL_ 9u
#define SHT_DYNSYM_ 11u
#define SHF_EXECINSTR_ 0x4u
/* Shared memory (.nv.shared.*, .nv_debug.shared): no file bytes, however
 * its header reads -- its sh_offset is the next section's (sm_100 -rdc) or
 * past the end of the file. */
#define SHT_CUDA_SHARED_ 0x7000000au
/* Uninitialized globals (.nv.global, type 0x70000007 in -rdc cubins;
 * NOBITS in others): no file bytes either.  Its sh_offset is the next
 * section's: in shared.rdc.cubin for sm_100 (-lineinfo) .nv.global (0x908
 * bytes) sits at 0x3880 over .nv.constant0 and the first Mercury capsule,
 * whose 472 bytes size used to count as data. */
#define SHT_CUDA_GLOBAL_ 0x70000007u

static const char *const class_names[CUDW_SIZE_NCLASSES] = {
    "code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations", "other", "headers",
};

const char *cudw_size_class_name(int c) { return c >= 0 && c < CUDW_SIZE_NCLASSES ? class_names[c] : NULL; }

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

int cudw_section_size_class(const cudw_section *s)
{
    const char *n = s->name ? s->name : "";
    cudw_secclass c;
    if (cudw_classify_name(n, s->flags, &c) == CUDW_OK)
        return c.family == CUDW_FAMILY_NV ? CUDW_SIZE_NV_DEBUG : CUDW_SIZE_DEBUG;
    if (s->type == SHT_SYMTAB_ || s->type == SHT_STRTAB_ || s->type == SHT_DYNSYM_ ||
        s->type == CUDW_SHT_MERC_SYMTAB)
        return CUDW_SIZE_SYMBOLS;
    if (s->type == SHT_REL_ || s->type == SHT_RELA_ || s->type == CUDW_SHT_MERC_RELA)
        return CUDW_SIZE_RELOCS;
    if (starts(n, ".text") || starts(n, ".nv.capmerc.text") || (s->flags & SHF_EXECINSTR_))
        return CUDW_SIZE_CODE;
    if (starts(n, ".nv.constant") || starts(n, ".nv.global") || starts(n, ".nv.shared") ||
        starts(n, ".nv.local"))
        return CUDW_SIZE_DATA;
    if (starts(n, ".nv.") || starts(n, ".note"))
        return CUDW_SIZE_METADATA;
    return CUDW_SIZE_OTHER;
}

typedef struct span {
    uint64_t start, end;
    unsigned index;
    int cls;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int cudw_image_sizes(cudw_file *f, uint64_t bytes[CUDW_SIZE_NCLASSES])
{
    memset(bytes, 0, CUDW_SIZE_NCLASSES * sizeof *bytes);
    uint64_t size = cudw_header(f)->size;
    unsigned n = cudw_section_count(f);
    span *sp = n ? malloc(n * sizeof *sp) : NULL;
    if (n && !sp)
        return file_fail(f, CUDW_E_NOMEM, NULL, 0, "section sizes", "out of memory");
    size_t k = 0;
    uint64_t covered = 0;
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (s->type == SHT_NOBITS_ || s->type == SHT_CUDA_SHARED_ || s->type == SHT_CUDA_GLOBAL_ || !s->size ||
            s->offset >= size)
            continue;
        uint64_t end = s->size > size - s->offset ? size : s->offset + s->size;
        sp[k++] = (span){s->offset, end, i, cudw_section_size_class(s)};
    }
    if (k)
        qsort(sp, k, sizeof *sp, by_start);
    uint64_t cur = 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t from = sp[i].start > cur ? sp[i].start : cur;
        if (sp[i].end > from) {
            bytes[sp[i].cls] += sp[i].end - from;
            covered += sp[i].end - from;
            cur = sp[i].end;
        }
    }
    free(sp);
    bytes[CUDW_SIZE_HEADERS] = size - covered;
    return CUDW_OK;
}

int cudw_code_next(const cudw_file *f, unsigned *cursor, cudw_code_section *out)
{
    unsigned n = cudw_section_count(f);
    for (unsigned i = *cursor ? *cursor : 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        static const char capsule[] = ".nv.capmerc.text.";
        int cap = s->name && !strncmp(s->name, capsule, sizeof capsule - 1);
        if (!s->name || (!cap && strncmp(s->name, ".text.", 6) != 0))
            continue;
        *out = (cudw_code_section){i, s->name + (cap ? sizeof capsule - 1 : 6), cap, s->data,
                                   s->data ? s->data_size : 0};
        *cursor = i + 1;
        return CUDW_OK;
    }
    *cursor = n;
    return CUDW_DONE;
}

int cudw_has_code(const cudw_file *f)
{
    unsigned cur = 0;
    cudw_code_section cs;
    while (cudw_code_next(f, &cur, &cs) == CUDW_OK)
        if (cs.size)
            return 1;
    return 0;
}
