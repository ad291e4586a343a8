/*
 * net/fib.c: IPv4 longest-prefix match, DIR-16-8-8 (a 3-level multibit trie with 16/8/8-bit
 * strides and controlled prefix expansion; Gupta, Lin, McKeown, INFOCOM 1998, "DIR-24-8").
 *
 * Why this shape (numbers for the appliance: 128 MiB test machines, 256 KiB+ L2 per core):
 *
 *   layout             memory                                   dependent loads per lookup
 *   binary trie        ~2 nodes per route bit, scattered        up to 32 (one per bit)
 *   DIR-24-8           2^24 entries x 2 B = 32 MiB (64 MiB at   1, 2 for prefixes > /24
 *                      4 B) before any route: a quarter of the
 *                      machine, and every lookup a cache miss
 *   DIR-16-8-8 (this)  2^16 x 4 B = 256 KiB first level (fits   1 for destinations whose /16
 *                      any x86_64 L2), + 1 KiB per 256-entry    holds no prefix longer than
 *                      group; FIB_DEFAULT_GROUPS = 1024 groups  /16; 2 below /24; 3 at most
 *                      = 1 MiB; route memory for fib_del:
 *                      FIB_RULE_SLOTS x 8 B = 256 KiB
 *
 * A prefix of length <= 16 is expanded over 2^(16 - len) first-level entries; one in (16, 24]
 * takes a second-level group for its /16 and fills 2^(24 - len) of its entries; one in (24, 32]
 * takes a third-level group for its /24 as well. So a route costs at most 2 groups, and a
 * realistic table (hundreds of /24s spread over tens of /16s) needs one group per /16 that holds
 * longer prefixes. Random routes are the worst case: ~0.75 group per route.
 *
 * Every leaf keeps the length of the route that wrote it, so routes may be added in any order:
 * a route overwrites only leaves written by a route no longer than itself. Deletion rewrites the
 * leaves the route wrote with its longest covering route, found in a small hash of all routes
 * (the table alone cannot say what a longer route hides).
 *
 * The lookup (net/fib.h) does no division, no allocation and takes no lock; all levels live in
 * one array (tbl) so a level step is a mask, an OR and a load.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/err.h"
#include "net/fib.h"

#define FIB_CACHE_LINE_BYTES 64
#define FIB_NO_GROUP 0xffffffffu
#define FIB_RULE_MASK (FIB_RULE_SLOTS - 1u)
#define FIB_DEPTH(len) ((len) + 1u) /* what a leaf of a /len route stores: 0 means "no route" */

_Static_assert((FIB_RULE_SLOTS & (FIB_RULE_SLOTS - 1)) == 0, "FIB_RULE_SLOTS: power of two");
_Static_assert(FIB_RULE_SLOTS <= (1u << 24), "fib_rule_home yields 24 bits");
_Static_assert(sizeof(struct fib_rule) == 8, "struct fib_rule is 8 bytes");
_Static_assert(FIB_E_GROUP == 0x80000000u, "fib_step_masked takes the group bit as the sign");
_Static_assert(((FIB_TBL16_ENTRIES + FIB_GROUP_ENTRIES * (FIB_MAX_GROUPS - 1)) &
                ~FIB_E_OFFSET_MASK) == 0,
               "the last group's offset fits FIB_E_OFFSET_MASK");

/* --- entries ------------------------------------------------------------------------------ */

static uint32_t fib_mask(uint8_t len)
{
    /* len 0 would shift by 32: undefined in C, so it is its own case. */
    return len ? ~0u << (32 - len) : 0;
}

static uint32_t fib_leaf(uint8_t len, uint16_t nh)
{
    return FIB_E_VALID | FIB_DEPTH(len) << FIB_E_DEPTH_SHIFT | nh;
}

static unsigned fib_depth(uint32_t e)
{
    return (e & FIB_E_DEPTH_MASK) >> FIB_E_DEPTH_SHIFT;
}

static uint32_t *fib_group(struct fib *f, uint32_t e)
{
    return &f->tbl[e & FIB_E_OFFSET_MASK];
}

static uint32_t fib_group_index(uint32_t e)
{
    return ((e & FIB_E_OFFSET_MASK) - FIB_TBL16_ENTRIES) / FIB_GROUP_ENTRIES;
}

/* --- the group pool ----------------------------------------------------------------------- */

/* fib_group_alloc: a group filled with copies of the leaf it replaces (what its addresses
 * matched until now); returns the entry that points to it. Caller checked groups_free. */
static uint32_t fib_group_alloc(struct fib *f, uint32_t leaf)
{
    uint32_t g;
    if (f->free_head != FIB_NO_GROUP) {
        g = f->free_head;
        f->free_head = f->tbl[FIB_TBL16_ENTRIES + g * FIB_GROUP_ENTRIES];
    } else {
        g = f->next_unused++;
    }
    f->groups_free--;

    uint32_t offset = FIB_TBL16_ENTRIES + g * FIB_GROUP_ENTRIES;
    for (unsigned i = 0; i < FIB_GROUP_ENTRIES; i++) {
        f->tbl[offset + i] = leaf;
    }
    return FIB_E_GROUP | offset;
}

static void fib_group_free(struct fib *f, uint32_t e)
{
    uint32_t g = fib_group_index(e);
    f->tbl[FIB_TBL16_ENTRIES + g * FIB_GROUP_ENTRIES] = f->free_head;
    f->free_head = g;
    f->groups_free++;
}

/* fib_collapse: if the group *parent points to holds nothing longer than the level above can
 * express (every entry a leaf of depth <= max_depth), all its entries are the same leaf: put
 * that leaf back into *parent and free the group. */
static void fib_collapse(struct fib *f, uint32_t *parent, unsigned max_depth)
{
    const uint32_t *grp = fib_group(f, *parent);
    for (unsigned i = 0; i < FIB_GROUP_ENTRIES; i++) {
        if ((grp[i] & FIB_E_GROUP) || fib_depth(grp[i]) > max_depth) {
            return;
        }
    }
    uint32_t group = *parent;
    *parent = grp[0];
    fib_group_free(f, group);
}

/* --- remembered routes (open addressing, linear probing) ---------------------------------- */

static uint32_t fib_rule_home(uint32_t prefix, unsigned depth)
{
    /* Fibonacci hashing of (prefix, depth): a multiply and a shift. */
    uint64_t key = (uint64_t)prefix << 6 | depth;
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & FIB_RULE_MASK;
}

/* fib_rule_find: the slot holding prefix/len, or else the free slot where it would go. */
static struct fib_rule *fib_rule_find(struct fib *f, uint32_t prefix, uint8_t len)
{
    unsigned depth = FIB_DEPTH(len);
    uint32_t i = fib_rule_home(prefix, depth);
    /* Terminates: at most FIB_MAX_ROUTES of the 2 * FIB_MAX_ROUTES slots are ever used. */
    while (f->rules[i].depth != 0) {
        if (f->rules[i].depth == depth && f->rules[i].prefix == prefix) {
            break;
        }
        i = (i + 1) & FIB_RULE_MASK;
    }
    return &f->rules[i];
}

/* fib_rule_remove: empty a slot, shifting later members of its probe run back into the hole so
 * that no search stops early (no tombstones to accumulate). */
static void fib_rule_remove(struct fib *f, struct fib_rule *r)
{
    uint32_t hole = (uint32_t)(r - f->rules);
    uint32_t j = hole;
    for (;;) {
        j = (j + 1) & FIB_RULE_MASK;
        struct fib_rule *next = &f->rules[j];
        if (next->depth == 0) {
            break;
        }
        /* next may fill the hole if the hole lies between its home slot and j (cyclically). */
        uint32_t home = fib_rule_home(next->prefix, next->depth);
        if (((j - home) & FIB_RULE_MASK) >= ((j - hole) & FIB_RULE_MASK)) {
            f->rules[hole] = *next;
            hole = j;
        }
    }
    memset(&f->rules[hole], 0, sizeof(f->rules[hole]));
    f->nrules--;
}

/* fib_covering_leaf: the leaf for the longest remembered route strictly shorter than len that
 * contains prefix, or 0 (no route). */
static uint32_t fib_covering_leaf(struct fib *f, uint32_t prefix, uint8_t len)
{
    for (int l = len - 1; l >= 0; l--) {
        const struct fib_rule *r = fib_rule_find(f, prefix & fib_mask((uint8_t)l), (uint8_t)l);
        if (r->depth != 0) {
            return fib_leaf((uint8_t)l, r->nh);
        }
    }
    return 0;
}

/* --- writing ------------------------------------------------------------------------------ */

/* fib_fill: in tab[first .. first + count), and in every group below those entries, replace the
 * leaves whose depth is in [lo, hi] by leaf. Recursion depth <= 2 (three levels). */
static void fib_fill(struct fib *f, uint32_t *tab, uint32_t first, uint32_t count, uint32_t leaf,
                     unsigned lo, unsigned hi)
{
    for (uint32_t i = first; i < first + count; i++) {
        uint32_t e = tab[i];
        if (e & FIB_E_GROUP) {
            fib_fill(f, fib_group(f, e), 0, FIB_GROUP_ENTRIES, leaf, lo, hi);
        } else if (fib_depth(e) >= lo && fib_depth(e) <= hi) {
            tab[i] = leaf;
        }
    }
}

/* The entries of one route at the level its length ends in, and the parents above them. */
struct fib_span {
    uint32_t *tab;     /* the level's table: tbl (first level) or a group */
    uint32_t first;    /* first entry of the route in tab */
    uint32_t count;    /* entries it covers there: 2^(level bits - len) */
    uint32_t *l1, *l2; /* parent entries in the first and second level, or NULL */
};

/* fib_groups_needed: groups fib_span_get must allocate for a route of length len. */
static unsigned fib_groups_needed(struct fib *f, uint32_t prefix, uint8_t len)
{
    if (len <= 16) {
        return 0;
    }
    uint32_t e1 = f->tbl[prefix >> 16];
    if (!(e1 & FIB_E_GROUP)) {
        return len <= 24 ? 1 : 2;
    }
    if (len <= 24) {
        return 0;
    }
    return (fib_group(f, e1)[(prefix >> 8) & 0xff] & FIB_E_GROUP) ? 0 : 1;
}

/* fib_span_get: where prefix/len lives; with expand, allocates the groups on its path (the
 * caller checked fib_groups_needed), else returns false if a group on the path is missing. */
static bool fib_span_get(struct fib *f, uint32_t prefix, uint8_t len, bool expand,
                         struct fib_span *s)
{
    s->l1 = s->l2 = NULL;
    if (len <= 16) {
        s->tab = f->tbl;
        s->first = prefix >> 16;
        s->count = 1u << (16 - len);
        return true;
    }
    s->l1 = &f->tbl[prefix >> 16];
    if (!(*s->l1 & FIB_E_GROUP)) {
        if (!expand) {
            return false;
        }
        *s->l1 = fib_group_alloc(f, *s->l1);
    }
    s->tab = fib_group(f, *s->l1);
    s->first = (prefix >> 8) & 0xff;
    if (len <= 24) {
        s->count = 1u << (24 - len);
        return true;
    }
    s->l2 = &s->tab[s->first];
    if (!(*s->l2 & FIB_E_GROUP)) {
        if (!expand) {
            return false;
        }
        *s->l2 = fib_group_alloc(f, *s->l2);
    }
    s->tab = fib_group(f, *s->l2);
    s->first = prefix & 0xff;
    s->count = 1u << (32 - len);
    return true;
}

/* --- API ---------------------------------------------------------------------------------- */

size_t fib_mem_bytes(unsigned max_groups)
{
    if (max_groups > FIB_MAX_GROUPS) {
        return 0;
    }
    size_t entries = FIB_TBL16_ENTRIES + (size_t)max_groups * FIB_GROUP_ENTRIES;
    /* The rules follow the entries, which end on a 1 KiB boundary: aligned for them too. */
    return entries * sizeof(uint32_t) + FIB_RULE_SLOTS * sizeof(struct fib_rule) +
           FIB_CACHE_LINE_BYTES - 1;
}

int fib_init(struct fib *f, void *mem, size_t mem_bytes, unsigned max_groups)
{
    if (mem == NULL || max_groups > FIB_MAX_GROUPS || mem_bytes < fib_mem_bytes(max_groups)) {
        return WS_ERR_INVAL;
    }
    /* Cache-line aligned, so a group (1 KiB) spans 16 lines exactly, never 17. */
    uintptr_t base =
        ((uintptr_t)mem + FIB_CACHE_LINE_BYTES - 1) & ~(uintptr_t)(FIB_CACHE_LINE_BYTES - 1);
    f->tbl = (uint32_t *)base;
    f->rules =
        (struct fib_rule *)(f->tbl + FIB_TBL16_ENTRIES + (size_t)max_groups * FIB_GROUP_ENTRIES);
    f->max_groups = max_groups;
    f->groups_free = max_groups;
    f->next_unused = 0;
    f->free_head = FIB_NO_GROUP;
    f->nrules = 0;

    /* Groups are filled when handed out; only the first level and the rules start empty. */
    memset(f->tbl, 0, FIB_TBL16_ENTRIES * sizeof(uint32_t));
    memset(f->rules, 0, FIB_RULE_SLOTS * sizeof(struct fib_rule));
    return 0;
}

static bool fib_prefix_ok(uint32_t prefix, uint8_t len)
{
    return len <= 32 && (prefix & ~fib_mask(len)) == 0;
}

int fib_add(struct fib *f, uint32_t prefix, uint8_t len, uint16_t nh)
{
    if (!fib_prefix_ok(prefix, len)) {
        return WS_ERR_INVAL;
    }
    /* Check every resource before the first write, so a failure leaves the table as it was. */
    struct fib_rule *r = fib_rule_find(f, prefix, len);
    if (r->depth == 0 && f->nrules >= FIB_MAX_ROUTES) {
        return WS_ERR_NO_MEMORY;
    }
    if (fib_groups_needed(f, prefix, len) > f->groups_free) {
        return WS_ERR_NO_MEMORY;
    }

    if (r->depth == 0) {
        f->nrules++;
    }
    r->prefix = prefix;
    r->depth = (uint8_t)FIB_DEPTH(len);
    r->nh = nh;

    struct fib_span s;
    fib_span_get(f, prefix, len, true, &s);
    /* Up to and including the route's own depth: its old leaves are replaced, too. */
    fib_fill(f, s.tab, s.first, s.count, fib_leaf(len, nh), 0, FIB_DEPTH(len));
    return 0;
}

int fib_del(struct fib *f, uint32_t prefix, uint8_t len)
{
    if (!fib_prefix_ok(prefix, len)) {
        return WS_ERR_INVAL;
    }
    struct fib_rule *r = fib_rule_find(f, prefix, len);
    if (r->depth == 0) {
        return WS_ERR_NOT_FOUND;
    }
    fib_rule_remove(f, r);

    struct fib_span s;
    if (!fib_span_get(f, prefix, len, false, &s)) {
        /* A remembered route always has its groups: a broken invariant, but harmless here. */
        return 0;
    }
    /* Exactly the leaves this route wrote carry its depth; they fall back to the cover. */
    fib_fill(f, s.tab, s.first, s.count, fib_covering_leaf(f, prefix, len), FIB_DEPTH(len),
             FIB_DEPTH(len));

    /* Only the groups on this route's own path can have lost their last long prefix. */
    if (s.l2 != NULL) {
        fib_collapse(f, s.l2, FIB_DEPTH(24));
    }
    if (s.l1 != NULL && (*s.l1 & FIB_E_GROUP)) {
        fib_collapse(f, s.l1, FIB_DEPTH(16));
    }
    return 0;
}

unsigned fib_groups_free(const struct fib *f)
{
    return f->groups_free;
}

unsigned fib_route_count(const struct fib *f)
{
    return f->nrules;
}

/*
 * One level without a branch. A group entry's top bit becomes an all-ones mask; a leaf gets a
 * zero mask, loads tbl[0] (always cached, value unused) and keeps itself. Whether a destination
 * needs a group is random packet to packet in mixed traffic, and a mispredicted branch (~15-20
 * cycles) costs more than the extra load and the few ALU operations (tests/bench/fib_bench.sh).
 */
static inline uint32_t fib_step_masked(const uint32_t *tbl, uint32_t e, uint32_t byte)
{
    uint32_t group = 0u - (e >> 31); /* FIB_E_GROUP is bit 31 */
    uint32_t next = tbl[((e & FIB_E_OFFSET_MASK) | byte) & group];
    return (next & group) | (e & ~group);
}

/*
 * A plain loop: lookups of different destinations are independent, so the out-of-order core
 * already overlaps their loads. Measured on the development host, prefetching a burst's
 * first-level entries in a separate pass, or walking the burst level by level, only added
 * instructions (tests/bench/fib_bench.sh).
 */
void fib_lookup_burst(const struct fib *f, const uint32_t *dst, int *nh_out, unsigned n)
{
    const uint32_t *tbl = f->tbl;

    for (unsigned i = 0; i < n; i++) {
        uint32_t d = dst[i];
        uint32_t e = tbl[d >> 16];
        e = fib_step_masked(tbl, e, (d >> 8) & 0xff);
        e = fib_step_masked(tbl, e, d & 0xff);
        nh_out[i] = (e & FIB_E_VALID) ? (int)(e & FIB_E_NH_MASK) : -1;
    }
}
