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

static uint64_t name_hash(const char *s) { return fnv1a(CUDW_FNV0, s, strlen(s)); }

/* 1 if name is in the set; with add, puts it there (0 after adding, -1 out of memory) */
static int set_has(name_set *s, const char *name, int add)
{
    uint64_t h = name_hash(name);
    hmap_probe p = hmap_probe_at(&s->idx, h);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (!strcmp(s->v[r], name))
            return 1;
    if (!add)
        return 0;
    const char **v = vec_room(s->v, &s->cap, s->n, sizeof *v, 256);
    if (!v)
        return -1;
    s->v = v;
    if (hmap_add(&s->idx, h, (uint32_t)s->n))
        return -1;
    v[s->n++] = name;
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
    name_set *sets[] = {&ls->defined, &ls->undefined};
    for (int i = 0; i < 2; i++) {
        free(sets[i]->v);
        hmap_free(&sets[i]->idx);
    }
    memset(ls, 0, sizeof *ls);
}
