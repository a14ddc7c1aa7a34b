/* The library's one hash table: an open-addressing index over entries the
 * caller keeps in its own array.
 *
 * A slot holds an entry's position in that array and 32 bits of its
 * hash, never the key:
 *
 *     slot   +0 u32 tag   the hash, mixed (hmap_tag)
 *            +4 u32 ref1  position + 1; 0 = empty
 *
 * so the index grows without hashing a key again, and a probe compares
 * keys only where the tags agree.  Linear probing, at most half full,
 * capacity a power of two.  Keys are whatever the caller's equality says:
 * a lookup walks the positions whose tags match and the caller tests each:
 *
 *     hmap_probe p = hmap_probe_at(&m, h);
 *     for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
 *         if (same_key(entries[r], key))
 *             return r;
 *     return hmap_add(&m, h, n) ? CUDW_E_NOMEM : ...;
 *
 * Entries are never removed.  The slots are malloc'd (hmap_free). */
#ifndef CUDW_HMAP_H
#define CUDW_HMAP_H

#include <stddef.h>
#include <stdint.h>

#define HMAP_NONE UINT32_MAX

typedef struct hmap_slot {
    uint32_t tag, ref1;
} hmap_slot;

typedef struct hmap {
    hmap_slot *s;
    size_t cap, n; /* slots (0 or a power of two), entries */
} hmap;

typedef struct hmap_probe {
    const hmap_slot *s;
    size_t i, mask;
    uint32_t tag;
} hmap_probe;

/* the 32 bits a slot keeps of h: the high half of h times the golden
 * ratio, good whatever bits of h vary (pointers, small integers, FNV) */
static inline uint32_t hmap_tag(uint64_t h) { return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 32); }

/* what a probe of an empty index walks: one empty slot */
static const hmap_slot hmap_no_slots[1];

static inline hmap_probe hmap_probe_at(const hmap *m, uint64_t h)
{
    uint32_t t = hmap_tag(h);
    if (!m->cap)
        return (hmap_probe){hmap_no_slots, 0, 0, t};
    return (hmap_probe){m->s, t & (m->cap - 1), m->cap - 1, t};
}

/* the next position whose tag is h's, HMAP_NONE at the end of its run */
static inline uint32_t hmap_next(hmap_probe *p)
{
    for (;;) {
        const hmap_slot *x = &p->s[p->i];
        if (!x->ref1)
            return HMAP_NONE;
        p->i = (p->i + 1) & p->mask;
        if (x->tag == p->tag)
            return x->ref1 - 1;
    }
}

/* The slot hmap_next last returned (same key) now holds ref instead:
 * for tables whose entry for a key changes (a chain's head). */
static inline void hmap_replace(hmap *m, const hmap_probe *p, uint32_t ref)
{
    m->s[(p->i - 1) & p->mask].ref1 = ref + 1;
}

/* Index position ref (< HMAP_NONE) under hash h, growing at half full.
 * Nothing is checked: a key added twice is found twice, in no set order.
 * 0, or -1 out of memory (the index unchanged). */
int hmap_add(hmap *m, uint64_t h, uint32_t ref);

/* room for n entries without growing: 0, or -1 out of memory */
int hmap_reserve(hmap *m, size_t n);

void hmap_free(hmap *m);

#endif
