/* cudwarf correlate's options, its HTML page (correlate_html.c) and its
 * records as text or JSON (correlate_print.c). */
#ifndef CUDW_TOOLS_CORRELATE_OUT_H
#define CUDW_TOOLS_CORRELATE_OUT_H

#include "cli.h"
#include "emit.h"

typedef struct corr_opts {
    const char *ptx_path, *function, *out;
    int demangle, json, html;
    size_t top;                 /* text: lines shown; 0 all */
    const char *prefix[16];     /* --prefix OLD=NEW */
    size_t nprefix;
} corr_opts;

/* One self-contained page for c (no network: data, CSS and script
 * inline).  EXIT_OK, or EXIT_BAD_INPUT after a message. */
int correlate_html(const corr_opts *o, cudw_correlation *c, obuf *out);

/* c's report (correlate_print.c): the text's, or its object of --json.
 * EXIT_OK, or EXIT_BAD_INPUT after a message. */
int correlate_print(const corr_opts *o, const cudw_correlation *c, emit *e);

/* The image's summary and its PTX texts (correlate_print.c): the text's
 * first lines, or --json's keys up to "instructions" into the open object
 * (the page's "summary"). */
void correlate_summary(emit *e, const cudw_correlation *c);

/* The page around the data (correlate_page.c): head, the data object, tail. */
void corr_page_head(obuf *out);
void corr_page_tail(obuf *out);

#endif
