/* Building .debug_pubnames / .debug_pubtypes from a unit's DIE tree.
 *
 * One set per unit, as in every -G object of CUDA 13.0:
 *
 *   u32 length (of what follows) | u16 version = 2 |
 *   u32 unit offset (0 + R_CUDA_32 against the info section in relocatable
 *       objects; the value itself in linked ones) |
 *   u32 unit size (unit_length + 4) |
 *   { u32 DIE offset from the unit header | name NUL }*  ascending offsets
 *   u32 0
 *
 * ptxas does not compute these: NVVM writes them into the PTX and ptxas
 * copies them.  The rules below are NVVM's as the bytes show them
 * (established on every sm_100/sm_120 -G object we have and the programs in
 * tests/src; docs/spec-disagreements.md):
 *
 *   names  subprograms that are children of the unit; variables that are
 *          children of the unit; nested variables with a linkage name
 *          (function-local statics); enumerators of enumeration types that
 *          are children of the unit.  The name is DW_AT_name, never the
 *          linkage name.  A variable without DW_AT_external that belongs to
 *          a function is "function::name": the nearest enclosing subprogram
 *          in the tree, or, for a static NVVM placed at unit level, the
 *          subprogram whose linkage name its _ZZ<function>E<name> mangling
 *          embeds.
 *   types  named base, typedef, structure, union, class, enumeration and
 *          unspecified types that are children of the unit, except the
 *          artificial array index type __ARRAY_SIZE_TYPE__.
 *   Both   one entry per name: a later DIE with the same name replaces the
 *          earlier one (three overloads of atomicAdd give one entry, the
 *          last).
 *
 * CUDW_PUB_LINKAGE_NAMES gives the nvlink reconstruction's nvlink emitter instead: the
 * linkage name wins over DW_AT_name and no name is qualified. */
#include "../internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct pub_ent {
    size_t name;          /* offset into the name pool */
    size_t len;
    uint64_t die;         /* from the unit header */
} pub_ent;

/* What the walk found, in DIE order; names point into the file. */
typedef struct cand {
    const char *name;
    const char *qual;     /* "qual::name", or NULL */
    const char *mangled;  /* a unit-level static: just past its "_ZZ" */
    uint64_t die;
} cand;

typedef struct subprog {
    const char *link;     /* linkage name */
    size_t llen;
    const char *name;
    uint64_t hash;        /* of its key (see key_of) */
} subprog;

typedef struct builder {
    cudw_file *f;
    unsigned flags;
    int kind;
    wbuf pool;            /* names, NUL-separated */
    pub_ent *ents;
    size_t nents, cap;
    hmap names;           /* name -> ents index */
    cand *cands;
    size_t ncands, ccap;
    size_t npending;
    subprog *subs;
    size_t nsubs, scap;
    hmap keys;            /* key hash -> subs index */
    int oom;
} builder;

#define fnv fnv1a
#define FNV0 CUDW_FNV0

/* p with room for element n (vec_room), or p unchanged and *oom set */
static void *grow(void *p, size_t *cap, size_t n, size_t elem, int *oom)
{
    void *q = vec_room(p, cap, n, elem, 64);
    if (!q)
        *oom = 1;
    return q ? q : p;
}

/* Name -> entry, last wins: a later DIE of the same name replaces the
 * earlier one. */
static void add_entry(builder *b, const char *qual, const char *name, uint64_t die)
{
    if (b->oom)
        return;
    size_t at = b->pool.n;
    if (qual) {
        wb_put(&b->pool, qual, strlen(qual));
        wb_put(&b->pool, "::", 2);
    }
    wb_put(&b->pool, name, strlen(name));
    size_t len = b->pool.n - at;
    wb_byte(&b->pool, 0);
    if (b->pool.oom) {
        b->oom = 1;
        return;
    }
    const uint8_t *s = b->pool.p + at;
    uint64_t h = fnv(FNV0, s, len);
    hmap_probe p = hmap_probe_at(&b->names, h);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
        pub_ent *e = &b->ents[r];
        if (e->len == len && !memcmp(b->pool.p + e->name, s, len)) {
            e->die = die;
            b->pool.n = at; /* the name is there already */
            return;
        }
    }
    b->ents = grow(b->ents, &b->cap, b->nents, sizeof *b->ents, &b->oom);
    if (b->oom || hmap_add(&b->names, h, (uint32_t)b->nents)) {
        b->oom = 1;
        return;
    }
    b->ents[b->nents++] = (pub_ent){at, len, die};
}

static void add_cand(builder *b, const char *qual, const char *name, const char *mangled, uint64_t die)
{
    b->cands = grow(b->cands, &b->ccap, b->ncands, sizeof *b->cands, &b->oom);
    if (b->oom)
        return;
    b->cands[b->ncands++] = (cand){name, qual, mangled, die};
    b->npending += mangled != NULL;
}

/* A subprogram's key is what a local static's _ZZ<key>E<name> embeds: the
 * linkage name without "_Z", or <length><name> for an unmangled
 * (extern "C") one. */
static uint64_t key_hash(const subprog *s)
{
    if (s->llen > 2 && s->link[0] == '_' && s->link[1] == 'Z')
        return fnv(FNV0, s->link + 2, s->llen - 2);
    char num[24];
    int k = snprintf(num, sizeof num, "%zu", s->llen);
    return fnv(fnv(FNV0, num, (size_t)k), s->link, s->llen);
}

static int key_equals(const subprog *s, const char *m, size_t n)
{
    if (s->llen > 2 && s->link[0] == '_' && s->link[1] == 'Z')
        return n == s->llen - 2 && !memcmp(m, s->link + 2, n);
    char num[24];
    int k = snprintf(num, sizeof num, "%zu", s->llen);
    return n == (size_t)k + s->llen && !memcmp(m, num, (size_t)k) && !memcmp(m + k, s->link, s->llen);
}

static int build_subtab(builder *b)
{
    if (hmap_reserve(&b->keys, b->nsubs))
        return b->oom = 1, -1;
    for (size_t i = 0; i < b->nsubs; i++) {
        b->subs[i].hash = key_hash(&b->subs[i]);
        hmap_add(&b->keys, b->subs[i].hash, (uint32_t)i); /* reserved: cannot fail */
    }
    return 0;
}

/* The subprogram whose key is the longest prefix of m ending before an 'E':
 * one pass over m, hashing as it goes. */
static const subprog *owner_of(const builder *b, const char *m, size_t n)
{
    const subprog *best = NULL;
    uint64_t h = FNV0;
    for (size_t i = 0; i < n; i++) {
        if (m[i] == 'E' && i > 0) {
            hmap_probe p = hmap_probe_at(&b->keys, h);
            for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
                const subprog *s = &b->subs[r];
                if (s->hash == h && key_equals(s, m, i)) {
                    best = s;
                    break;
                }
            }
        }
        h = (h ^ (uint8_t)m[i]) * 0x100000001b3ull;
    }
    return best;
}

static int is_type_tag(uint32_t t)
{
    return t == CUDW_DW_TAG_base_type || t == CUDW_DW_TAG_typedef || t == CUDW_DW_TAG_structure_type ||
           t == CUDW_DW_TAG_union_type || t == CUDW_DW_TAG_class_type || t == CUDW_DW_TAG_enumeration_type ||
           t == CUDW_DW_TAG_unspecified_type;
}

typedef struct die_facts {
    const char *name, *link;
    int external;
} die_facts;

static int read_facts(cudw_die_iter *it, const cudw_die *d, die_facts *x)
{
    *x = (die_facts){0};
    cudw_attr_iter ai;
    cudw_attr a;
    int rc;
    cudw_attr_iter_init(d, &ai);
    while ((rc = cudw_attr_next(&ai, &a)) == CUDW_OK) {
        if (a.name == CUDW_DW_AT_name && a.vclass == CUDW_V_STRING)
            x->name = a.str;
        else if ((a.name == CUDW_DW_AT_MIPS_linkage_name || a.name == CUDW_DW_AT_linkage_name) &&
                 a.vclass == CUDW_V_STRING)
            x->link = a.str;
        else if (a.name == CUDW_DW_AT_external)
            x->external = a.u != 0;
    }
    if (rc != CUDW_DONE)
        return rc;
    cudw_die_iter_resume(it, &ai);
    return CUDW_OK;
}

/* Collect the unit's entries into b (reset per unit). */
static int walk_unit(builder *b, const cudw_unit *u)
{
    const char **sub_at = calloc(CUDW_MAX_DIE_DEPTH + 2, sizeof *sub_at); /* enclosing subprogram name */
    uint32_t *tag_at = calloc(CUDW_MAX_DIE_DEPTH + 2, sizeof *tag_at);
    if (!sub_at || !tag_at) {
        free(sub_at);
        free(tag_at);
        return b->oom = 1, CUDW_E_NOMEM;
    }
    int linkage_wins = (b->flags & CUDW_PUB_LINKAGE_NAMES) != 0;
    cudw_die_iter it;
    cudw_die d;
    int rc;
    cudw_die_iter_init(u, &it);
    while ((rc = cudw_die_next(&it, &d)) == CUDW_OK && !b->oom) {
        unsigned dep = d.depth;
        tag_at[dep] = d.tag;
        sub_at[dep] = dep ? sub_at[dep - 1] : NULL;
        die_facts x;
        /* skip DIEs that cannot contribute without decoding them */
        int want = d.tag == CUDW_DW_TAG_subprogram || d.tag == CUDW_DW_TAG_variable ||
                   (dep == 2 && d.tag == CUDW_DW_TAG_enumerator) || (dep == 1 && is_type_tag(d.tag));
        if (!want)
            continue;
        if ((rc = read_facts(&it, &d, &x)) != CUDW_OK)
            break;
        const char *name = linkage_wins && x.link ? x.link : x.name;
        uint64_t rel = d.offset - u->offset;
        if (d.tag == CUDW_DW_TAG_subprogram) {
            if (x.name)
                sub_at[dep] = x.name;
            if (x.link && x.name && b->kind == CUDW_PUB_NAMES) {
                b->subs = grow(b->subs, &b->scap, b->nsubs, sizeof *b->subs, &b->oom);
                if (!b->oom)
                    b->subs[b->nsubs++] = (subprog){x.link, strlen(x.link), x.name, 0};
            }
        }
        if (!name)
            continue;
        if (b->kind == CUDW_PUB_TYPES) {
            if (dep == 1 && is_type_tag(d.tag) && strcmp(name, "__ARRAY_SIZE_TYPE__"))
                add_cand(b, NULL, name, NULL, rel);
        } else if (d.tag == CUDW_DW_TAG_subprogram) {
            if (dep == 1)
                add_cand(b, NULL, name, NULL, rel);
        } else if (d.tag == CUDW_DW_TAG_enumerator) {
            if (tag_at[1] == CUDW_DW_TAG_enumeration_type)
                add_cand(b, NULL, name, NULL, rel);
        } else if (d.tag == CUDW_DW_TAG_variable && (dep == 1 || x.link)) {
            const char *zz = x.link ? strstr(x.link, "_ZZ") : NULL;
            const char *owner = dep > 1 ? sub_at[dep - 1] : NULL;
            if (x.external || linkage_wins || (!owner && !zz))
                add_cand(b, NULL, name, NULL, rel);
            else if (owner)
                add_cand(b, owner, name, NULL, rel);
            else /* placed at unit level: its function is known after the walk */
                add_cand(b, NULL, name, zz + 3, rel);
        }
    }
    free(sub_at);
    free(tag_at);
    if (b->oom)
        return CUDW_E_NOMEM;
    return rc == CUDW_DONE ? CUDW_OK : rc;
}

/* Qualify the unit-level statics, then index every candidate in DIE
 * order so that the last DIE of a name wins. */
static int index_cands(builder *b)
{
    if (b->npending && build_subtab(b))
        return CUDW_E_NOMEM;
    for (size_t i = 0; i < b->ncands && !b->oom; i++) {
        const cand *c = &b->cands[i];
        const char *qual = c->qual;
        if (c->mangled) {
            const subprog *s = owner_of(b, c->mangled, strlen(c->mangled));
            qual = s ? s->name : NULL;
        }
        add_entry(b, qual, c->name, c->die);
    }
    return b->oom ? CUDW_E_NOMEM : CUDW_OK;
}

static int by_die(const void *a, const void *b)
{
    const pub_ent *x = a, *y = b;
    return x->die < y->die ? -1 : x->die > y->die;
}

int cudw_pub_build(cudw_file *f, const cudw_section *info, int kind, unsigned flags, cudw_pub_out *out)
{
    memset(out, 0, sizeof *out);
    if (!f || !info || (kind != CUDW_PUB_NAMES && kind != CUDW_PUB_TYPES))
        return f ? file_fail(f, CUDW_E_ARG, info, 0, "name index", "bad arguments") : CUDW_E_ARG;
    wbuf o = {0};
    size_t scap = 0;
    uint64_t cursor = 0;
    cudw_unit u;
    int rc;
    while ((rc = cudw_unit_next(f, info, &cursor, &u)) == CUDW_OK) {
        builder b = {.f = f, .flags = flags, .kind = kind};
        rc = walk_unit(&b, &u);
        if (rc == CUDW_OK)
            rc = index_cands(&b);
        if (rc == CUDW_OK) {
            size_t k = b.nents;
            if (k)
                qsort(b.ents, k, sizeof *b.ents, by_die);
            size_t start = o.n;
            wb_le(&o, 0, 4);
            wb_le(&o, 2, 2);
            if (flags & CUDW_PUB_RESOLVED) {
                wb_le(&o, u.offset, 4);
            } else {
                out->sites = grow(out->sites, &scap, out->nsites, sizeof *out->sites, &b.oom);
                if (!b.oom)
                    out->sites[out->nsites++] = (cudw_reloc_site){o.n, info->name, (int64_t)u.offset, 4};
                wb_le(&o, 0, 4);
            }
            wb_le(&o, u.end - u.offset, 4);
            for (size_t i = 0; i < k; i++) {
                wb_le(&o, b.ents[i].die, 4);
                wb_put(&o, b.pool.p + b.ents[i].name, b.ents[i].len);
                wb_byte(&o, 0);
            }
            wb_le(&o, 0, 4);
            wb_patch_le(&o, start, o.n - start - 4, 4);
            if (b.oom || o.oom)
                rc = CUDW_E_NOMEM;
        }
        wb_free(&b.pool);
        free(b.ents);
        hmap_free(&b.names);
        free(b.cands);
        free(b.subs);
        hmap_free(&b.keys);
        if (rc != CUDW_OK)
            break;
    }
    if (rc == CUDW_DONE) {
        out->data = o.p;
        out->size = o.n;
        return CUDW_OK;
    }
    wb_free(&o);
    free(out->sites);
    out->sites = NULL;
    out->nsites = 0;
    if (rc == CUDW_E_NOMEM)
        return file_fail(f, CUDW_E_NOMEM, info, cursor, "name index", "out of memory");
    return rc;
}

void cudw_pub_out_free(cudw_pub_out *out)
{
    if (!out)
        return;
    free(out->data);
    free(out->sites);
    memset(out, 0, sizeof *out);
}
