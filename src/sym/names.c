/* Function names as people type them (cudw_symbolizer_resolve): a mangled
 * name, the demangled signature with or without its return type, the name
 * without its parameters ("scale<double>", "ns::forces"), or the short name
 * ("forces", "scale").
 *
 * Every function name of the selected images is demangled once, on the
 * first name no image defines, into keys of three tiers:
 *
 *   tier 1  "void scale<double>(double*, int)" and "scale<double>(double*, int)"
 *           (spaces dropped: "forces(float4 *,int)" matches too)
 *   tier 2  "scale<double>"                        the name, no parameters
 *   tier 3  "scale", "ns::scale"                   no template arguments
 *
 * A lookup tries the tiers in order; the first with a match decides: one
 * function is the answer, several are an error listing them.  No match is
 * an error listing the nearest short names (edit distance). */
#include "sym.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct alias {
    const char *key;       /* in the symbolizer's arena */
    uint32_t len;
    uint32_t name;         /* index in s->anames */
    uint8_t tier;
} alias;

/* key without its spaces into out (room for len + 1) */
static size_t squeeze(const char *key, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (key[i] != ' ')
            out[n++] = key[i];
    out[n] = 0;
    return n;
}

static int alias_add(cudw_symbolizer *s, size_t *cap, const char *key, size_t len, uint32_t name, uint8_t tier)
{
    if (!len)
        return CUDW_OK;
    char *k = arena_alloc(&s->mem, len + 1);
    if (!k)
        return CUDW_E_NOMEM;
    len = tier == 1 ? squeeze(key, len, k) : (memcpy(k, key, len), k[len] = 0, len);
    alias *a = vec_room(s->aliases, cap, s->naliases, sizeof *a, 1024);
    if (!a)
        return CUDW_E_NOMEM;
    s->aliases = a;
    s->aliases[s->naliases++] = (alias){k, (uint32_t)len, name, tier};
    return CUDW_OK;
}

/* Where the parameter list of demangled name d starts (its first '(' outside
 * template arguments), or n. */
static size_t params_at(const char *d, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == '<')
            depth++;
        else if (d[i] == '>' && depth)
            depth--;
        else if (d[i] == '(' && !depth && i)
            return i;
    }
    return n;
}

/* Where the name of d[0, end) starts: after a return type ("void ",
 * "unsigned int "), the last space outside template arguments. */
static size_t name_at(const char *d, size_t end)
{
    int depth = 0;
    size_t at = 0;
    for (size_t i = 0; i < end; i++) {
        if (d[i] == '<')
            depth++;
        else if (d[i] == '>' && depth)
            depth--;
        else if (d[i] == ' ' && !depth)
            at = i + 1;
    }
    return at;
}

/* name[0, n) less template arguments at the end of each component, into
 * out: "ns::scale<double>" -> "ns::scale"; *base: where the last
 * component starts. */
static size_t strip_templates(const char *name, size_t n, char *out, size_t *base)
{
    size_t k = 0;
    int depth = 0;
    *base = 0;
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '<')
            depth++;
        else if (name[i] == '>' && depth)
            depth--;
        else if (!depth) {
            if (name[i] == ':' && i + 1 < n && name[i + 1] == ':')
                *base = k + 2;
            out[k++] = name[i];
        }
    }
    out[k] = 0;
    return k;
}

static int keys_of(cudw_symbolizer *s, size_t *cap, const char *mangled, uint32_t name)
{
    char d[1024], t[1024];
    size_t n = cudw_demangle(mangled, d, sizeof d);
    if (!n || n >= sizeof d) { /* extern "C", or too long to be typed */
        n = strlen(mangled);
        if (n >= sizeof d)
            return CUDW_OK;
        memcpy(d, mangled, n + 1);
    }
    size_t p = params_at(d, n), at = name_at(d, p), base;
    size_t tn = strip_templates(d + at, p - at, t, &base);
    int rc = alias_add(s, cap, d, n, name, 1);
    if (!rc && at)
        rc = alias_add(s, cap, d + at, n - at, name, 1);
    if (!rc && p < n)
        rc = alias_add(s, cap, d + at, p - at, name, 2);
    if (!rc)
        rc = alias_add(s, cap, t + base, tn - base, name, 3);
    if (!rc && base)
        rc = alias_add(s, cap, t, tn, name, 3);
    return rc;
}

/* The distinct function names of the selected images, into s->anames
 * (the names table or image 0's index is built: ensure_aliases). */
static int collect_names(cudw_symbolizer *s)
{
    if (s->nimages > 1) {
        s->anames = malloc((s->ngnames ? s->ngnames : 1) * sizeof *s->anames);
        if (!s->anames)
            return CUDW_E_NOMEM;
        for (size_t k = 0; k < s->ngnames; k++) /* each name once: its chain's head */
            if (sym_gfind(s, s->gnames[k].name, strlen(s->gnames[k].name)) == &s->gnames[k])
                s->anames[s->nanames++] = s->gnames[k].name;
        return CUDW_OK;
    }
    if (!s->nimages)
        return CUDW_OK;
    const sym_image *x = &s->images[0];
    s->anames = malloc((x->nnames ? x->nnames : 1) * sizeof *s->anames);
    if (!s->anames)
        return CUDW_E_NOMEM;
    for (size_t k = 0; k < x->nnames; k++)
        s->anames[s->nanames++] = x->names[k].key; /* NUL-terminated: symbol names and their callee tails */
    return CUDW_OK;
}

static int build_aliases(cudw_symbolizer *s)
{
    int rc = collect_names(s);
    size_t cap = 0;
    for (size_t k = 0; !rc && k < s->nanames; k++)
        rc = keys_of(s, &cap, s->anames[k], (uint32_t)k);
    if (!rc && hmap_reserve(&s->atab, s->naliases))
        rc = CUDW_E_NOMEM;
    for (size_t k = 0; !rc && k < s->naliases; k++)
        hmap_add(&s->atab, fnv1a(CUDW_FNV0, s->aliases[k].key, s->aliases[k].len) + s->aliases[k].tier, (uint32_t)k);
    return rc;
}

static int ensure_aliases(cudw_symbolizer *s)
{
    if (atomic_load_explicit(&s->aliases_ready, memory_order_acquire))
        return CUDW_OK;
    /* what collect_names reads, built first: each takes the lock itself */
    int pre = s->nimages > 1 ? sym_ensure_names(s) : s->nimages ? sym_ensure_image(s, &s->images[0]) : CUDW_OK;
    if (pre)
        return pre;
    pthread_mutex_lock(&s->mu);
    int rc = CUDW_OK;
    if (!atomic_load_explicit(&s->aliases_ready, memory_order_relaxed)) {
        rc = build_aliases(s);
        if (!rc)
            atomic_store_explicit(&s->aliases_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&s->mu);
    return rc == CUDW_E_NOMEM ? symbolizer_fail(s, rc, "symbolizer", "out of memory") : rc;
}

/* The distinct names (s->anames indexes) tier's key q names, at most max
 * into out; returns how many there are. */
static size_t tier_matches(const cudw_symbolizer *s, const char *q, size_t n, uint8_t tier, uint32_t *out,
                           size_t max)
{
    size_t found = 0;
    hmap_probe p = hmap_probe_at(&s->atab, fnv1a(CUDW_FNV0, q, n) + tier);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
        const alias *a = &s->aliases[r];
        if (a->tier != tier || a->len != n || memcmp(a->key, q, n))
            continue;
        int seen = 0;
        for (size_t i = 0; i < found && i < max && !seen; i++)
            seen = out[i] == a->name || !strcmp(s->anames[out[i]], s->anames[a->name]);
        if (seen)
            continue;
        if (found < max)
            out[found] = a->name;
        found++;
    }
    return found;
}

/* Levenshtein distance of a and b, at most cap (+1 when over). */
static size_t distance(const char *a, size_t n, const char *b, size_t m, size_t cap)
{
    if (n > 64 || m > 64)
        return cap + 1;
    size_t row[65];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j], v = diag + (a[i - 1] != b[j - 1]);
            v = up + 1 < v ? up + 1 : v;
            v = row[j - 1] + 1 < v ? row[j - 1] + 1 : v;
            row[j] = v;
            diag = up;
            best = v < best ? v : best;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[m];
}

/* "nearest: forces, force_sum" into buf from the tier-2 and tier-3 keys. */
static void nearest(const cudw_symbolizer *s, const char *q, size_t n, char *buf, size_t size)
{
    enum { K = 4 };
    const alias *best[K] = {0};
    size_t dist[K], cap = n / 2 + 2;
    for (size_t i = 0; i < K; i++)
        dist[i] = cap + 1;
    for (size_t k = 0; k < s->naliases; k++) {
        const alias *a = &s->aliases[k];
        if (a->tier == 1)
            continue;
        size_t d = distance(q, n, a->key, a->len, cap);
        int dup = 0;
        for (size_t i = 0; i < K && best[i] && !dup; i++)
            dup = best[i]->len == a->len && !memcmp(best[i]->key, a->key, a->len);
        if (dup || d >= dist[K - 1])
            continue;
        size_t i = K - 1;
        for (; i > 0 && dist[i - 1] > d; i--) {
            dist[i] = dist[i - 1];
            best[i] = best[i - 1];
        }
        dist[i] = d;
        best[i] = a;
    }
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < K && best[i] && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "; nearest: ", best[i]->key);
}

enum { MAX_HITS = 8 };

/* The first tier with a match: how many names it matches (hit: up to
 * MAX_HITS of them); 0 when none does.  No message: what a lookup needs. */
static size_t match(const cudw_symbolizer *s, const char *name, size_t len, uint32_t *hit)
{
    char q[1024];
    if (len >= sizeof q)
        return 0;
    for (uint8_t tier = 1; tier <= 3; tier++) {
        size_t n = tier == 1 ? squeeze(name, len, q) : (memcpy(q, name, len), q[len] = 0, len);
        size_t found = tier_matches(s, q, n, tier, hit, MAX_HITS);
        if (found)
            return found;
    }
    return 0;
}

int sym_resolve_quiet(cudw_symbolizer *s, const char *name, size_t len, const char **mangled)
{
    *mangled = NULL;
    int rc = ensure_aliases(s);
    if (rc)
        return rc;
    uint32_t hit[MAX_HITS];
    size_t found = match(s, name, len, hit);
    if (found == 1)
        *mangled = s->anames[hit[0]];
    return found == 1 ? CUDW_OK : found ? CUDW_E_ARG : CUDW_E_NOT_FOUND;
}

int cudw_symbolizer_resolve(cudw_symbolizer *s, const char *name, size_t len, const char **mangled)
{
    if (len == (size_t)-1)
        len = strlen(name);
    *mangled = NULL;
    int rc = ensure_aliases(s);
    if (rc)
        return rc;
    uint32_t hit[MAX_HITS];
    size_t found = match(s, name, len, hit);
    if (found == 1) {
        *mangled = s->anames[hit[0]];
        return CUDW_OK;
    }
    if (found) { /* the message: every name it matches, demangled */
        char list[768];
        size_t at = 0;
        for (size_t i = 0; i < found && i < MAX_HITS && at < sizeof list; i++) {
            char d[256];
            if (!cudw_demangle(s->anames[hit[i]], d, sizeof d))
                snprintf(d, sizeof d, "%s", s->anames[hit[i]]);
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s (%s)", i ? ", " : "", d, s->anames[hit[i]]);
        }
        return symbolizer_fail(s, CUDW_E_ARG, "function", "%.*s names %zu functions: %s%s; name one", (int)len, name,
                               found, list, found > MAX_HITS ? ", ..." : "");
    }
    char near[512];
    nearest(s, name, len, near, sizeof near);
    return symbolizer_fail(s, CUDW_E_NOT_FOUND, "function", "no function named %.*s%s", (int)len, name, near);
}
