/* The global symbols a link's objects define and reference, to pick the
 * members of libcudadevrt.a it needs (link_needs.c; link_inputs.c uses it). */
#ifndef CUDW_LINK_NEEDS_H
#define CUDW_LINK_NEEDS_H

#include "../internal.h"

typedef struct name_set {
    const char **v;
    size_t n, cap;
    hmap idx;
} name_set;

typedef struct link_needs {
    name_set defined, undefined;
} link_needs;

int needs_add(link_needs *ls, cudw_file *f);    /* f joins the link: 0, -1 out of memory */
int needs_pulls(link_needs *ls, cudw_file *f);  /* 1: f defines a reference nobody defines yet */
void needs_free(link_needs *ls);

#endif
