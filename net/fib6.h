/*
 * net/fib6.h: the router's IPv6 longest-prefix-match table: an exact-match hash per prefix
 * length, tried from the longest present length down, with a first level per /16 that bounds
 * the lengths worth trying (the "hash per length" scheme of Waldvogel et al., "Scalable High
 * Speed IP Routing Lookups", SIGCOMM 1997, searched linearly rather than by binary search).
 * Sizes, costs and the reasons for them: top of net/fib6.c.
 *
 * Built once at boot (fib6_add from the ports' prefixes and the baked route6 lines, one core),
 * then read by every core with no lock: fib6_lookup only reads, and nothing writes after init.
 * Addresses are 16 bytes in network order, as on the wire, at any alignment.
 */
#ifndef WS_FIB6_H
#define WS_FIB6_H

#include <stddef.h>
#include <stdint.h>

#define FIB6_MAX_ROUTES (1u << 20) /* fib6_mem_bytes refuses more: 48 MiB of slots already */
#define FIB6_ADDR_BYTES 16
#define FIB6_MAX_LEN 128
#define FIB6_L1_ENTRIES 65536u /* first level: one entry per top 16 destination bits */
#define FIB6_L1_BITS 16
#define FIB6_LONG_LENS (FIB6_MAX_LEN - FIB6_L1_BITS) /* /17../128: the lengths lookups probe */

/*
 * One first-level entry (uint32_t), for the /16 of the destination's top 16 bits:
 *   bits 0..15   FIB6_E_NH_MASK    next hop of the longest route of length <= 16 covering the
 *                                  /16 (expanded over every /16 it covers, as fib.c's first
 *                                  level), valid if FIB6_E_SHORT
 *   bit 16       FIB6_E_SHORT      such a route exists
 *   bits 17..23  max code          longest length of a route longer than /16 under this /16,
 *   bits 24..30  min code          and the shortest, each as length - 16; 0 = no such route
 * A zero entry: no route at all for these addresses. The max and min codes are bounds: exact
 * after fib6_add; fib6_del resets them when the /16 loses its last route longer than /16 but
 * never narrows them otherwise (that would take a scan of every slot), which costs lookups
 * under that /16 some misses after churn, never a wrong answer.
 */
#define FIB6_E_NH_MASK 0x0000ffffu
#define FIB6_E_SHORT 0x00010000u
#define FIB6_E_MAX_SHIFT 17
#define FIB6_E_MIN_SHIFT 24
#define FIB6_E_CODE_MASK 0x7fu
#define FIB6_E_SHORT_MASK (FIB6_E_SHORT | FIB6_E_NH_MASK)

/* One route in the hash: key = (hi, lo, depth). 24 bytes, so 2.7 slots per cache line. */
struct fib6_slot {
    uint64_t hi; /* prefix bytes 0..7 in host order, bits beyond the length zero */
    uint64_t lo; /* prefix bytes 8..15, likewise */
    uint16_t nh;
    uint8_t depth; /* prefix length + 1; 0 = free slot */
    uint8_t pad[5];
};

/* One present length longer than /16, in lookup order (what a probe needs, precomputed). */
struct fib6_plen {
    uint64_t mask_hi, mask_lo; /* the length as masks over the two halves */
    uint64_t salt;             /* mixed into the hash: the length's own hash sequence */
    uint8_t depth;             /* length + 1, as in the slots */
    uint8_t pad[7];
};

struct fib6 {
    /* read-only after init; read by every core on the fast path */
    uint32_t *l1;              /* FIB6_L1_ENTRIES first-level entries (see above) */
    struct fib6_slot *slots;   /* the hash: every route, of every length */
    uint64_t slot_mask;        /* slots - 1 (a power of two) */
    unsigned slot_shift;       /* 64 - log2(slots): the hash's top bits index the slots */
    unsigned nplens;           /* present lengths longer than /16, in plens[] */
    /* first_le[c]: index in plens[] of the first length <= 16 + c (c = 0: nplens), and
     * end_ge[c]: one past the last length >= 16 + c (c = 0: 0); c is an entry's max or min
     * code, so a lookup probes plens[first_le[max] .. end_ge[min]) */
    uint8_t first_le[FIB6_LONG_LENS + 1];
    uint8_t end_ge[FIB6_LONG_LENS + 1];
    struct fib6_plen plens[FIB6_LONG_LENS]; /* longest first */

    /* control path only (fib6_add, fib6_del: the boot core) */
    uint8_t *short_depth;  /* per /16: depth of the route its entry's short part holds, or 0 */
    uint32_t *long_count;  /* per /16: routes longer than /16 under it */
    uint32_t len_count[FIB6_MAX_LEN + 1]; /* routes per length */
    unsigned nroutes, max_routes;
};

/* fib6_mem_bytes: bytes fib6_init needs for max_routes routes (any alignment: fib6_init aligns
 * to a cache line inside): 24 B per hash slot, slots = the power of two >= 2 * max_routes (load
 * <= 1/2), plus 576 KiB of per-/16 arrays (256 KiB of them read by lookups). 0 if max_routes is
 * 0 or above FIB6_MAX_ROUTES. */
size_t fib6_mem_bytes(unsigned max_routes);

/* fib6_init: lay the table out in mem (mem_bytes >= fib6_mem_bytes(max_routes)) and empty it.
 * Returns 0, or WS_ERR_INVAL for NULL f or mem, too little memory, or a max_routes that
 * fib6_mem_bytes refuses. Init time, one core; the memory stays the caller's and must outlive
 * f. */
int fib6_init(struct fib6 *f, void *mem, size_t mem_bytes, unsigned max_routes);

/* fib6_add: route prefix/len (len 0..128) to next hop nh (an index into the caller's next-hop
 * table). Adding a prefix that is already there replaces its next hop. Returns 0, WS_ERR_INVAL
 * (len > 128, or bits set in prefix beyond len), or WS_ERR_NO_MEMORY (max_routes distinct
 * prefixes already; the table is then unchanged). Init time, one core: not safe against
 * concurrent fib6_lookup. A route of length <= 16 rewrites 2^(16 - len) first-level entries. */
int fib6_add(struct fib6 *f, const uint8_t prefix[16], uint8_t len, uint16_t nh);

/* fib6_del: remove prefix/len; its addresses fall back to the longest shorter route covering
 * them (or to no route). Returns 0, WS_ERR_INVAL (as fib6_add) or WS_ERR_NOT_FOUND. Same
 * context as fib6_add. */
int fib6_del(struct fib6 *f, const uint8_t prefix[16], uint8_t len);

/* fib6_route_count: distinct prefixes in the table. */
unsigned fib6_route_count(const struct fib6 *f);

/*
 * fib6_lookup: the next hop of the longest prefix containing dst, or -1 if no route covers it.
 * One first-level load, then one hash probe sequence per present length in the /16's bounds,
 * longest first, down to the match (an average probe sequence reads 1.5 slots when it hits,
 * 2.5 when it misses, at load 1/2); the routes of length <= 16 cost no probe. Any core, any
 * context: reads only. Costs measured by tests/bench/fib6_bench.sh: top of net/fib6.c.
 */
int fib6_lookup(const struct fib6 *f, const uint8_t dst[16]);

#endif
