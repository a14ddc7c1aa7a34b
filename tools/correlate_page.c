/* The page around correlate --html's data: tools/page/correlate.html with
 * its style (correlate.css) and script (correlate.js) inline (no network,
 * no fonts).  correlate_html.c writes corr_page_head, the data object,
 * corr_page_tail; the template's @STYLE@, @DATA@ and @SCRIPT@ mark where.
 *
 * Rows are 16 px high, so a block of rows not yet rendered is an empty
 * div of the right height: the panes scroll over the whole image at once
 * and only what comes near the view (or what a highlight needs) becomes
 * DOM.  Stable attributes for scripts and tests: data-src="PATH:LINE",
 * data-ptx="LINE" (data-t: which PTX text), data-pc="0xADDR"
 * (data-section: which code section); highlighted rows have class "hl",
 * the clicked one "sel".  URL fragment #click=src:PATH:LINE,
 * #click=ptx:T:LINE or #click=pc:SECTION:0xADDR clicks that row once the
 * page is up; then <html data-cudwarf-ready="1">. */

#include "correlate_out.h"

#include <string.h>

/* the files of tools/page, embedded by scripts/embed.sh (the Makefile) */
extern const char page_correlate_html[], page_correlate_css[], page_correlate_js[];

/* The template from `from` up to `marker`, then `with`; where it goes on. */
static const char *up_to(obuf *out, const char *from, const char *marker, const char *with)
{
    const char *m = strstr(from, marker);
    if (!m) /* the template lost its marker: the rest as it is */
        m = from + strlen(from);
    ob_write(out, from, (size_t)(m - from));
    if (with)
        ob_puts(out, with);
    return *m ? m + strlen(marker) : m;
}

void corr_page_head(obuf *out)
{
    const char *p = up_to(out, page_correlate_html, "@STYLE@", page_correlate_css);
    up_to(out, p, "@DATA@", NULL);
}

void corr_page_tail(obuf *out)
{
    const char *p = strstr(page_correlate_html, "@DATA@");
    p = up_to(out, p ? p + 6 : "", "@SCRIPT@", page_correlate_js);
    ob_puts(out, p);
}
