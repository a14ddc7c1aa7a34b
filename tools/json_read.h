/* A small JSON reader for the CLI's inputs (line-encode): the whole text
 * is parsed into a tree of nodes; strings are unescaped in place. */
#ifndef CUDW_TOOLS_JSON_READ_H
#define CUDW_TOOLS_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

typedef struct jv {
    int type;
    const char *key;       /* member name inside an object */
    const char *str;       /* JV_STR */
    int64_t i;             /* JV_NUM (integers only) and JV_BOOL */
    uint64_t u;
    int neg;
    struct jv *child, *next;
    size_t count;
} jv;

typedef struct jdoc {
    char *text;            /* owned, modified in place */
    jv *nodes;
    size_t n, cap;
    char err[160];
    jv *root;
} jdoc;

/* Parse text (taken over: freed by jdoc_free).  0, or -1 with doc->err. */
int jdoc_parse(jdoc *doc, char *text, size_t len);
void jdoc_free(jdoc *doc);

const jv *jv_get(const jv *obj, const char *key);   /* NULL when absent */
uint64_t jv_u64(const jv *obj, const char *key, uint64_t dflt);
int64_t jv_i64(const jv *obj, const char *key, int64_t dflt);
const char *jv_str(const jv *obj, const char *key);  /* NULL when absent or not a string */

#endif
