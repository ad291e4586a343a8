/*
 * net/fib.h: the router's IPv4 longest-prefix-match table (a DIR-16-8-8 multibit trie, after
 * Gupta, Lin, McKeown, "Routing Lookups in Hardware at Memory Access Speeds", INFOCOM 1998,
 * with 16/8/8 strides instead of 24/8). Sizes and the reasons for them: top of net/fib.c.
 *
 * Built once at boot (fib_add from the baked routes, one core), then read by every core with no
 * lock: fib_lookup only reads, and nothing writes after init.
 */
#ifndef WS_FIB_H
#define WS_FIB_H

#include <stddef.h>
#include <stdint.h>

#ifndef FIB_DEFAULT_GROUPS
#define FIB_DEFAULT_GROUPS 1024 /* 256-entry groups (1 KiB each) for prefixes longer than /16 */
#endif
#define FIB_MAX_GROUPS 65536 /* group offsets must fit an entry's 25 offset bits */

#ifndef FIB_MAX_ROUTES
#define FIB_MAX_ROUTES 16384 /* distinct prefixes remembered for fib_del (control path only) */
#endif
#define FIB_RULE_SLOTS (2 * FIB_MAX_ROUTES) /* hash slots: load <= 1/2; power of two */

#define FIB_TBL16_ENTRIES 65536u /* first level: one entry per top 16 destination bits */
#define FIB_GROUP_ENTRIES 256u   /* second and third levels: one entry per next 8 bits */

/*
 * One table entry (uint32_t). Three kinds:
 *   0                              no route covers these addresses
 *   FIB_E_VALID | depth | nh       leaf: next hop nh (bits 0..15); depth = prefix length + 1 of
 *                                  the route that wrote it, so a shorter route never overwrites
 *                                  a longer one (0 = empty, hence the + 1)
 *   FIB_E_GROUP | offset           the next level: offset (bits 8..24) of a 256-entry group in
 *                                  tbl[]; the low 8 bits are zero so the next address byte is
 *                                  simply ORed in
 */
#define FIB_E_GROUP 0x80000000u /* the top bit: fib_lookup_burst turns it into a mask */
#define FIB_E_VALID 0x40000000u
#define FIB_E_NH_MASK 0x0000ffffu
#define FIB_E_DEPTH_SHIFT 16
#define FIB_E_DEPTH_MASK 0x003f0000u
#define FIB_E_OFFSET_MASK 0x01ffff00u

/* A remembered route (control path: fib_del needs the covering route of a deleted one). */
struct fib_rule {
    uint32_t prefix; /* host order, host bits zero */
    uint16_t nh;
    uint8_t depth; /* prefix length + 1; 0 = free slot */
    uint8_t pad;
};

struct fib {
    /* read-only after init; read by every core on the fast path */
    uint32_t *tbl; /* [0, 65536): first level; then group g at 65536 + 256 * g */

    /* control path only (fib_add, fib_del: the boot core) */
    struct fib_rule *rules; /* FIB_RULE_SLOTS open-addressing slots */
    unsigned max_groups;
    unsigned groups_free; /* never-used groups plus the free list */
    unsigned next_unused; /* groups [next_unused, max_groups) have never been handed out */
    uint32_t free_head;   /* freed groups, chained through their entry 0; FIB_NO_GROUP ends */
    unsigned nrules;
};

/* fib_mem_bytes: bytes fib_init needs for a pool of max_groups groups (any alignment: fib_init
 * aligns to a cache line inside). 0 if max_groups > FIB_MAX_GROUPS. With the default pool:
 * 256 KiB first level + 1 MiB groups + 256 KiB route memory + 64. */
size_t fib_mem_bytes(unsigned max_groups);

/* fib_init: lay the table out in mem (mem_bytes >= fib_mem_bytes(max_groups)) and empty it.
 * Returns 0, or WS_ERR_INVAL for NULL mem, too little of it, or max_groups > FIB_MAX_GROUPS.
 * Init time, one core; the memory stays the caller's and must outlive f. */
int fib_init(struct fib *f, void *mem, size_t mem_bytes, unsigned max_groups);

/* fib_add: route prefix/len (host order, len 0..32) to next hop nh (an index into the caller's
 * next-hop table). Adding a prefix that is already there replaces its next hop. Returns 0,
 * WS_ERR_INVAL (len > 32, or bits set in prefix beyond len), or WS_ERR_NO_MEMORY (the group
 * pool or the FIB_MAX_ROUTES route memory is full; the table is then unchanged). Init time,
 * one core: not safe against concurrent fib_lookup. */
int fib_add(struct fib *f, uint32_t prefix, uint8_t len, uint16_t nh);

/* fib_del: remove prefix/len; its addresses fall back to the longest shorter route covering
 * them (or to no route), and groups left without a longer prefix return to the pool. Returns 0,
 * WS_ERR_INVAL (as fib_add) or WS_ERR_NOT_FOUND. Same context as fib_add. */
int fib_del(struct fib *f, uint32_t prefix, uint8_t len);

/* fib_groups_free: groups still available (what fib_add of a long prefix may take: up to 2). */
unsigned fib_groups_free(const struct fib *f);

/* fib_route_count: distinct prefixes in the table. */
unsigned fib_route_count(const struct fib *f);

/*
 * fib_lookup: the next hop of the longest prefix containing dst (host order), or -1 if no route
 * covers it. One load for destinations whose /16 holds no longer prefix, two below a /24
 * boundary, three at most; a branch per level, well predicted while consecutive destinations
 * take the same path (~1 ns, 8 instructions for a one-load hit on the development host), up to
 * ~5 ns when the path is random (see fib_lookup_burst). Any core, any context: reads only.
 */
static inline int fib_lookup(const struct fib *f, uint32_t dst)
{
    const uint32_t *tbl = f->tbl;
    uint32_t e = tbl[dst >> 16];

    if (e & FIB_E_GROUP) {
        e = tbl[(e & FIB_E_OFFSET_MASK) | ((dst >> 8) & 0xff)];
        if (e & FIB_E_GROUP) {
            e = tbl[(e & FIB_E_OFFSET_MASK) | (dst & 0xff)];
        }
    }
    return (e & FIB_E_VALID) ? (int)(e & FIB_E_NH_MASK) : -1;
}

/*
 * fib_lookup_burst: nh_out[i] = fib_lookup(f, dst[i]) for i < n (an RX burst), without a
 * branch per level: it always makes three loads, so its cost does not depend on the mix of
 * prefix lengths the destinations hit. fib_lookup is faster while that mix is predictable
 * (traffic to one /24, or a table with only /16 and shorter), and several times slower when it
 * is not; tests/bench/fib_bench.sh measures both. Any core.
 */
void fib_lookup_burst(const struct fib *f, const uint32_t *dst, int *nh_out, unsigned n);

#endif
