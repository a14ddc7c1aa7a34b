/* Where functions start: the FUNC symbols of a symbol table by (section,
 * value), built on first use and cached on the handle.  The line decoder
 * asks it whether a repeated row is at a function's entry; the PTX stage-1
 * generator takes the entries of a kernel's section from it. */
#include "internal.h"

static int fs_cmp(const void *a, const void *b)
{
    const func_start *x = a, *y = b;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

const func_starts *func_starts_of(cudw_file *f, unsigned symtab)
{
    func_starts *fs = cache_get(f, CACHE_FUNCS, symtab, 0);
    if (fs)
        return fs;
    size_t nsym = cudw_symbol_count(f, symtab), n = 0;
    if (!(fs = arena_alloc(&f->arena, sizeof *fs)) || (nsym && !(fs->v = arena_alloc(&f->arena, nsym * sizeof *fs->v))))
        return NULL;
    cudw_error saved = f->err; /* a bad symbol is the symbol table's error, not the caller's */
    cudw_symbol s;
    for (size_t i = 1; i < nsym; i++)
        if (cudw_symbol_get(f, symtab, (uint32_t)i, &s) == CUDW_OK && s.type == 2 /* STT_FUNC */)
            fs->v[n++] = (func_start){s.shndx, s.value};
    f->err = saved;
    fs->n = n;
    if (n > 1)
        qsort(fs->v, n, sizeof *fs->v, fs_cmp);
    if (cache_put(f, CACHE_FUNCS, symtab, 0, fs))
        return NULL;
    return fs;
}

const func_start *func_starts_in(const func_starts *fs, uint32_t shndx, size_t *n)
{
    *n = 0;
    if (!fs->n) /* no functions: v may be NULL (a symbol table of no entries) */
        return fs->v;
    size_t lo = 0, hi = fs->n;
    while (lo < hi) { /* the first of section shndx */
        size_t mid = lo + (hi - lo) / 2;
        if (fs->v[mid].shndx < shndx)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < fs->n && fs->v[end].shndx == shndx)
        end++;
    *n = end - lo;
    return fs->v + lo;
}

size_t func_start_find(const func_start *v, size_t n, uint64_t value)
{
    size_t i = n ? floor_index(v, n, sizeof *v, offsetof(func_start, value), value) : 0;
    return n && v[i].value == value ? i : SIZE_MAX;
}
