/* Which members of libcudadevrt.a a link takes: as nvlink does for that
 * one library (and every Unix linker for all), a member joins the link
 * when it defines a global symbol that the objects taken so far reference
 * and nobody defines; the archive is rescanned until no member is added.
 * Weak references pull nothing in.  (nvlink links every member of other
 * libraries: link_inputs.c.)  The names point into the inputs' string
 * tables, which stay mapped while the inputs are open. */
#include "link_needs.h"

#include <stdlib.h>
#include <string.h>

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

/* 1 if name is in the set; with add, puts it there (0 after adding, -1 out of memory) */
static int set_has(name_set *s, const char *name, int add)
{
    if (add && (s->n + 1) * 2 > s->cap) {
        size_t c = s->cap ? s->cap * 2 : 256;
        const char **t = calloc(c, sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) {
                size_t h = (size_t)name_hash(s->slot[i]) & (c - 1);
                while (t[h])
                    h = (h + 1) & (c - 1);
                t[h] = s->slot[i];
            }
        free(s->slot);
        s->slot = t;
        s->cap = c;
    }
    if (!s->cap)
        return 0;
    size_t h = (size_t)name_hash(name) & (s->cap - 1);
    for (; s->slot[h]; h = (h + 1) & (s->cap - 1))
        if (!strcmp(s->slot[h], name))
            return 1;
    if (add) {
        s->slot[h] = name;
        s->n++;
    }
    return 0;
}

/* fn on each global or weak symbol of f (no sections, no files), until it
 * returns non-zero; that value, or 0 */
static int each_global(cudw_file *f, link_needs *ls, int (*fn)(link_needs *, const cudw_symbol *))
{
    const cudw_section *s = cudw_section_find(f, ".symtab");
    cudw_symbol y;
    int r = 0;
    for (uint32_t i = 1; s && !r && i < s->data_size / 24 && cudw_symbol_get(f, s->index, i, &y) == CUDW_OK; i++)
        if (y.bind != 0 && y.type != 3 && y.type != 4 && y.name[0])
            r = fn(ls, &y);
    return r;
}

static int record(link_needs *ls, const cudw_symbol *y)
{
    if (y->shndx)
        return set_has(&ls->defined, y->name, 1) < 0 ? -1 : 0;
    return y->bind == 1 && set_has(&ls->undefined, y->name, 1) < 0 ? -1 : 0;
}

static int resolves(link_needs *ls, const cudw_symbol *y)
{
    return y->shndx && set_has(&ls->undefined, y->name, 0) && !set_has(&ls->defined, y->name, 0);
}

int needs_add(link_needs *ls, cudw_file *f) { return each_global(f, ls, record); }
int needs_pulls(link_needs *ls, cudw_file *f) { return each_global(f, ls, resolves); }

void needs_free(link_needs *ls)
{
    free(ls->defined.slot);
    free(ls->undefined.slot);
    memset(ls, 0, sizeof *ls);
}
