/* A line-number program built row by row (lines.h: cudw_line_builder), the
 * shape of gimli's write::LineProgram: directories and files added by name
 * or by path, rows appended in order, then encoded by the one encoder
 * (cudw_line_encode, line_write.c).  What the builder is given is copied:
 * the caller's strings and rows may go once a call returns. */
#include "internal.h"
#include "vec.h"

#include <stdlib.h>

struct cudw_line_builder {
    cudw_line_params p;
    char **dirs;              /* in the arena */
    size_t ndirs, capdirs;
    cudw_line_file *files;    /* names in the arena */
    size_t nfiles, capfiles;
    cudw_line_row *rows;      /* symbols in the arena */
    size_t nrows, caprows;
    const char *last_sym;     /* the copy of the last row's symbol: a sequence's rows share it */
    int has_str_base;
    uint32_t str_base;
    const char *str_base_symbol;
    arena mem;
    cudw_error err;
};

static int nomem(cudw_line_builder *b) { return err_set(&b->err, CUDW_E_NOMEM, "<rows>", 0, "line builder", "out of memory"); }

/* s[0..n) and a NUL, in the builder's arena */
static const char *copy(cudw_line_builder *b, const char *s, size_t n)
{
    char *c = s ? arena_alloc(&b->mem, n + 1) : NULL;
    if (c) {
        memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

int cudw_line_builder_open(cudw_line_builder **out, const cudw_line_params *p)
{
    cudw_line_builder *b = *out = calloc(1, sizeof *b);
    if (!b)
        return CUDW_E_NOMEM;
    b->p = p ? *p : cudw_line_params_nvidia();
    return CUDW_OK;
}

const cudw_error *cudw_line_builder_error(const cudw_line_builder *b) { return &b->err; }

static int dir_add(cudw_line_builder *b, const char *dir, size_t len, uint64_t *number)
{
    char **v = vec_room(b->dirs, &b->capdirs, b->ndirs, sizeof *v, 8);
    if (!v)
        return nomem(b);
    b->dirs = v;
    if (!(b->dirs[b->ndirs] = (char *)copy(b, dir, len)))
        return nomem(b);
    *number = ++b->ndirs;
    return CUDW_OK;
}

int cudw_line_builder_dir(cudw_line_builder *b, const char *dir, uint64_t *number)
{
    if (!dir)
        return err_set(&b->err, CUDW_E_ARG, "<rows>", 0, "line builder", "no directory name");
    return dir_add(b, dir, strlen(dir), number);
}

/* directories are few (one per source folder): found by a walk */
static int dir_number(cudw_line_builder *b, const char *dir, size_t len, uint64_t *number)
{
    for (size_t k = 0; k < b->ndirs; k++)
        if (strlen(b->dirs[k]) == len && !memcmp(b->dirs[k], dir, len)) {
            *number = k + 1;
            return CUDW_OK;
        }
    return dir_add(b, dir, len, number);
}

int cudw_line_builder_file(cudw_line_builder *b, const char *name, uint64_t dir, uint64_t mtime, uint64_t size,
                           uint64_t *number)
{
    /* the directory number is written as given: a table being copied may
     * name one it does not have, and the readers say so */
    if (!name)
        return err_set(&b->err, CUDW_E_ARG, "<rows>", b->nfiles + 1, "line builder", "no file name");
    cudw_line_file *v = vec_room(b->files, &b->capfiles, b->nfiles, sizeof *v, 8);
    if (!v)
        return nomem(b);
    b->files = v;
    const char *nm = copy(b, name, strlen(name));
    if (!nm)
        return nomem(b);
    b->files[b->nfiles] = (cudw_line_file){nm, nm, dir, mtime, size};
    *number = ++b->nfiles;
    return CUDW_OK;
}

int cudw_line_builder_path(cudw_line_builder *b, const char *path, uint64_t mtime, uint64_t size, uint64_t *number)
{
    if (!path)
        return err_set(&b->err, CUDW_E_ARG, "<rows>", b->nfiles + 1, "line builder", "no path");
    /* as cudw_line_header_from_paths: at the last '/'; none, or only a
     * leading one, is directory 0 */
    const char *slash = strrchr(path, '/');
    uint64_t dir = 0;
    if (slash && slash != path) {
        int rc = dir_number(b, path, (size_t)(slash - path), &dir);
        if (rc)
            return rc;
    }
    return cudw_line_builder_file(b, slash ? slash + 1 : path, dir, mtime, size, number);
}

void cudw_line_builder_str_base(cudw_line_builder *b, uint32_t base, const char *symbol)
{
    b->has_str_base = 1;
    b->str_base = base;
    b->str_base_symbol = symbol ? copy(b, symbol, strlen(symbol)) : NULL;
}

int cudw_line_builder_row(cudw_line_builder *b, const cudw_line_row *row)
{
    cudw_line_row *v = vec_room(b->rows, &b->caprows, b->nrows, sizeof *v, 256);
    if (!v)
        return nomem(b);
    b->rows = v;
    cudw_line_row r = *row;
    if (r.symbol && (!b->last_sym || strcmp(r.symbol, b->last_sym)) &&
        !(b->last_sym = copy(b, r.symbol, strlen(r.symbol))))
        return nomem(b);
    r.symbol = r.symbol ? b->last_sym : NULL;
    r.function = NULL; /* the encoder writes offsets; names are the caller's */
    b->rows[b->nrows++] = r;
    return CUDW_OK;
}

int cudw_line_builder_finish(cudw_line_builder *b, cudw_line_out *out)
{
    cudw_line_header_in h = {(const char *const *)b->dirs, b->ndirs, b->files, b->nfiles,
                             (uint8_t)b->has_str_base, b->str_base, b->str_base_symbol};
    int rc = cudw_line_encode(&b->p, &h, b->rows, b->nrows, out);
    if (rc)
        b->err = out->err;
    return rc;
}

void cudw_line_builder_close(cudw_line_builder *b)
{
    if (!b)
        return;
    free(b->dirs);
    free(b->files);
    free(b->rows);
    arena_free_all(&b->mem);
    free(b);
}
