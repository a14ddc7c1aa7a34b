/* A small streaming JSON writer for the CLI: it tracks commas, the caller
 * tracks structure. */
#ifndef CUDW_TOOLS_JSON_H
#define CUDW_TOOLS_JSON_H

#include "out.h"

#include <stdint.h>

typedef struct json {
    obuf *out;
    int depth;
    unsigned char first[64];  /* per nesting level: nothing written yet */
} json;

void json_init(json *j, obuf *out);
void json_obj(json *j, const char *key);    /* key NULL inside arrays / at top */
void json_arr(json *j, const char *key);
/* Inside a top-level array whose "[" someone else prints (jobs.c). */
void json_enter_arr(json *j);
void json_end_obj(json *j);
void json_end_arr(json *j);
void json_str(json *j, const char *key, const char *v);
void json_strn(json *j, const char *key, const char *v, size_t n);
void json_u64(json *j, const char *key, uint64_t v);
void json_i64(json *j, const char *key, int64_t v);
void json_bool(json *j, const char *key, int v);
void json_null(json *j, const char *key);
void json_hex(json *j, const char *key, const uint8_t *p, size_t n); /* "90b1e4" */

#endif
