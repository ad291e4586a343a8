/*
 * net/fib6.c: IPv6 longest-prefix match: one open-addressing hash of every route keyed by
 * (prefix masked to its length, length), probed once per present length from the longest
 * down; the first hit is the longest match. A first level per /16 narrows which lengths a
 * lookup tries, and answers the routes of length <= 16 itself.
 *
 * Why this shape: an IPv6 table is sparse in lengths (the DFZ uses ~36 of 129, mostly /32../48)
 * and in prefixes, so a DIR-style multibit trie as fib.c's would spend its memory on empty
 * levels, and a binary trie costs a load per bit. A hash per length costs one probe per length
 * tried whatever the table's size: tests/bench/fib6_bench.sh, inside a route, 119.9
 * instructions per lookup for 200 routes (the firmware's table holds 256), 469.4 for 1,000
 * DFZ-shaped routes and 706.1 for 100,000 (about 50 per length tried; 2026-12-04). The limit
 * shows at DFZ scale: every busy /16 holds most lengths, so the per-/16 bounds stop narrowing
 * and a destination covered only by a short route pays for every longer length first (1,750
 * instructions at 100k). Binary search on lengths with markers (Waldvogel et al.) would bound
 * that by log2(lengths) probes; not needed at the firmware's 256 routes.
 *
 * The hash: one table for all lengths rather than one per length, so its memory is fixed by
 * max_routes alone (slots = the power of two >= 2 * max_routes: load <= 1/2 whatever the mix of
 * lengths, nothing to resize when a length fills up). Linear probing over 24-byte slots: a
 * search reads consecutive slots until its key or a free slot; at load 1/2 that is 1.5 slots
 * on average for a hit and 2.5 for a miss, and a free slot always exists, so every search
 * ends. Deletion shifts later members of the run back into the hole (no tombstones, so the
 * runs stay what inserting the remaining routes alone would have made them). The hash is two
 * multiplies and a xorshift over the masked halves, with a per-length salt so that a prefix and
 * its own shorter or longer versions (same masked bits) start at unrelated slots.
 *
 * The first level: 65536 entries of 4 bytes (256 KiB, fib.c's first-level size) indexed by the
 * destination's top 16 bits. Each holds the longest route of length <= 16 covering that /16
 * (expanded, as in fib.c; a route keeps the entry of a shorter one from overwriting it through
 * short_depth) and the range of lengths > 16 present under the /16. A lookup probes only the
 * globally present lengths inside that range, longest first, and falls back to the entry's own
 * short route: no probe at all for the lengths <= 16, and none for a /16 without longer routes.
 * Keeping the range exact under deletion would need a scan of every slot, so fib6_del widens
 * nothing and narrows nothing, except that a /16 losing its last long route is reset (per-/16
 * counts): a stale bound only adds misses.
 *
 * The lookup does no division, no allocation and takes no lock.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/err.h"
#include "net/fib6.h"

#define FIB6_CACHE_LINE_BYTES 64
#define FIB6_DEPTH(len) ((unsigned)(len) + 1u) /* what a slot stores: 0 means "free" */

/* Hash multipliers: odd 64-bit constants with well-mixed bits (the golden ratio, and two
 * constants from MurmurHash3's finalizer, whose avalanche was measured by its author). */
#define FIB6_K_HI 0x9e3779b97f4a7c15ull
#define FIB6_K_MIX 0xff51afd7ed558ccdull
#define FIB6_K_SALT 0xc4ceb9fe1a85ec53ull

_Static_assert(sizeof(struct fib6_slot) == 24, "struct fib6_slot is 24 bytes");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "fib6_load_be64 swaps bytes");
_Static_assert(FIB6_LONG_LENS <= FIB6_E_CODE_MASK, "a length code fits its 7 bits");
_Static_assert(FIB6_LONG_LENS < 256, "plens indices fit first_le and end_ge (uint8_t)");
_Static_assert((2ull * FIB6_MAX_ROUTES) * sizeof(struct fib6_slot) < (1ull << 31),
               "fib6_mem_bytes fits any size_t the firmware has");

/* --- keys and hashing ---------------------------------------------------------------------- */

static inline uint64_t fib6_load_be64(const uint8_t *p)
{
    uint64_t v;
    /* Frames arrive at any alignment: one unaligned load on x86. The builtin, because
     * -ffreestanding makes a plain memcpy a call. */
    __builtin_memcpy(&v, p, sizeof(v));
    return __builtin_bswap64(v);
}

static uint64_t fib6_mask_hi(unsigned len)
{
    /* A shift by 64 is undefined in C: lengths 0 and >= 64 are their own cases. */
    return len == 0 ? 0 : len >= 64 ? ~0ull : ~0ull << (64 - len);
}

static uint64_t fib6_mask_lo(unsigned len)
{
    return len <= 64 ? 0 : ~0ull << (128 - len);
}

static uint64_t fib6_salt(unsigned depth)
{
    return depth * FIB6_K_SALT;
}

/* fib6_hash: a 64-bit hash of a masked prefix; the slot index is its top bits. Multiplying
 * carries every bit of hi upwards; the xorshift brings the top half (where the bits of short
 * prefixes and of lo's top end up) down, so the second multiply spreads it over the top bits. */
static inline uint64_t fib6_hash(uint64_t hi, uint64_t lo, uint64_t salt)
{
    uint64_t x = hi * FIB6_K_HI + (lo ^ salt);
    x ^= x >> 32;
    return x * FIB6_K_MIX;
}

static uint64_t fib6_home(const struct fib6 *f, uint64_t hi, uint64_t lo, unsigned depth)
{
    return fib6_hash(hi, lo, fib6_salt(depth)) >> f->slot_shift;
}

/* fib6_slots_for: hash slots for max_routes: the power of two >= 2 * max_routes. */
static uint64_t fib6_slots_for(unsigned max_routes)
{
    uint64_t n = 2;
    while (n < 2ull * max_routes) {
        n <<= 1;
    }
    return n;
}

/* --- the hash (open addressing, linear probing) -------------------------------------------- */

/* fib6_find: the slot holding (hi, lo, depth), or else the free slot where it would go. */
static struct fib6_slot *fib6_find(const struct fib6 *f, uint64_t hi, uint64_t lo, unsigned depth)
{
    uint64_t i = fib6_home(f, hi, lo, depth);
    /* Terminates: at most max_routes of the >= 2 * max_routes slots are ever used. */
    for (;;) {
        struct fib6_slot *s = &f->slots[i];
        if (s->depth == 0 || (s->depth == depth && s->hi == hi && s->lo == lo)) {
            return s;
        }
        i = (i + 1) & f->slot_mask;
    }
}

/* fib6_remove: empty a slot, shifting later members of its run back into the hole when the
 * hole lies between their home and where they sit (cyclically), so no search stops early. */
static void fib6_remove(struct fib6 *f, struct fib6_slot *s)
{
    uint64_t mask = f->slot_mask;
    uint64_t hole = (uint64_t)(s - f->slots);
    uint64_t j = hole;
    for (;;) {
        j = (j + 1) & mask;
        struct fib6_slot *next = &f->slots[j];
        if (next->depth == 0) {
            break;
        }
        uint64_t home = fib6_home(f, next->hi, next->lo, next->depth);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            f->slots[hole] = *next;
            hole = j;
        }
    }
    memset(&f->slots[hole], 0, sizeof(f->slots[hole]));
}

/* --- present lengths ----------------------------------------------------------------------- */

/* fib6_plens_rebuild: plens[], first_le[] and end_ge[] from len_count[] (when a length longer
 * than /16 appears or disappears: at most 112 entries). */
static void fib6_plens_rebuild(struct fib6 *f)
{
    unsigned n = 0;
    for (unsigned len = FIB6_MAX_LEN; len > FIB6_L1_BITS; len--) {
        unsigned code = len - FIB6_L1_BITS;
        f->first_le[code] = (uint8_t)n; /* the lengths before index n are all > len */
        if (f->len_count[len] != 0) {
            struct fib6_plen *p = &f->plens[n++];
            memset(p, 0, sizeof(*p));
            p->mask_hi = fib6_mask_hi(len);
            p->mask_lo = fib6_mask_lo(len);
            p->salt = fib6_salt(FIB6_DEPTH(len));
            p->depth = (uint8_t)FIB6_DEPTH(len);
        }
        f->end_ge[code] = (uint8_t)n; /* and those before n here are all >= len */
    }
    /* Code 0 = no long route under the /16: an empty range. */
    f->first_le[0] = (uint8_t)n;
    f->end_ge[0] = 0;
    f->nplens = n;
}

/* --- the first level ----------------------------------------------------------------------- */

static unsigned fib6_e_max(uint32_t e)
{
    return (e >> FIB6_E_MAX_SHIFT) & FIB6_E_CODE_MASK;
}

static unsigned fib6_e_min(uint32_t e)
{
    return (e >> FIB6_E_MIN_SHIFT) & FIB6_E_CODE_MASK;
}

static uint32_t fib6_e_with_codes(uint32_t e, unsigned max, unsigned min)
{
    return (e & FIB6_E_SHORT_MASK) | (uint32_t)max << FIB6_E_MAX_SHIFT |
           (uint32_t)min << FIB6_E_MIN_SHIFT;
}

/* fib6_short_fill: in the /16 entries [first, first + count), those whose short route has a
 * depth in [lo, hi] get short part bits (FIB6_E_SHORT | nh, or 0) from a route of depth. */
static void fib6_short_fill(struct fib6 *f, uint32_t first, uint32_t count, uint32_t bits,
                            unsigned depth, unsigned lo, unsigned hi)
{
    for (uint32_t b = first; b < first + count; b++) {
        if (f->short_depth[b] >= lo && f->short_depth[b] <= hi) {
            f->l1[b] = (f->l1[b] & ~FIB6_E_SHORT_MASK) | bits;
            f->short_depth[b] = (uint8_t)depth;
        }
    }
}

/* fib6_long_added: a new route of length len > 16 under /16 b widens b's length range. */
static void fib6_long_added(struct fib6 *f, uint32_t b, unsigned len)
{
    unsigned code = len - FIB6_L1_BITS;
    uint32_t e = f->l1[b];
    if (f->long_count[b]++ == 0) {
        f->l1[b] = fib6_e_with_codes(e, code, code);
        return;
    }
    unsigned max = fib6_e_max(e), min = fib6_e_min(e);
    f->l1[b] = fib6_e_with_codes(e, code > max ? code : max, code < min ? code : min);
}

/* fib6_long_removed: see the top of the file for why the range only resets when empty. */
static void fib6_long_removed(struct fib6 *f, uint32_t b)
{
    if (--f->long_count[b] == 0) {
        f->l1[b] = fib6_e_with_codes(f->l1[b], 0, 0);
    }
}

/* fib6_cover: the longest route strictly shorter than len (<= 16) that contains (hi, 0), as
 * first-level short bits and its depth; 0 and 0 if none. */
static uint32_t fib6_cover(const struct fib6 *f, uint64_t hi, unsigned len, unsigned *depth)
{
    for (int l = (int)len - 1; l >= 0; l--) {
        if (f->len_count[l] == 0) {
            continue;
        }
        const struct fib6_slot *s = fib6_find(f, hi & fib6_mask_hi((unsigned)l), 0,
                                              FIB6_DEPTH(l));
        if (s->depth != 0) {
            *depth = s->depth;
            return FIB6_E_SHORT | s->nh;
        }
    }
    *depth = 0;
    return 0;
}

/* --- API ----------------------------------------------------------------------------------- */

size_t fib6_mem_bytes(unsigned max_routes)
{
    if (max_routes == 0 || max_routes > FIB6_MAX_ROUTES) {
        return 0;
    }
    /* l1, slots, long_count, short_depth: each a multiple of 8 bytes before the next. */
    return FIB6_L1_ENTRIES * sizeof(uint32_t) +
           (size_t)fib6_slots_for(max_routes) * sizeof(struct fib6_slot) +
           FIB6_L1_ENTRIES * sizeof(uint32_t) + FIB6_L1_ENTRIES * sizeof(uint8_t) +
           FIB6_CACHE_LINE_BYTES - 1;
}

int fib6_init(struct fib6 *f, void *mem, size_t mem_bytes, unsigned max_routes)
{
    size_t need = fib6_mem_bytes(max_routes);
    if (f == NULL || mem == NULL || need == 0 || mem_bytes < need) {
        return WS_ERR_INVAL;
    }
    uint64_t nslots = fib6_slots_for(max_routes);
    /* Cache-line aligned: the first level's 16 entries per line, and the slots at a known
     * phase (a 24-byte slot crosses a line at most once). */
    uintptr_t base =
        ((uintptr_t)mem + FIB6_CACHE_LINE_BYTES - 1) & ~(uintptr_t)(FIB6_CACHE_LINE_BYTES - 1);
    memset(f, 0, sizeof(*f));
    f->l1 = (uint32_t *)base;
    f->slots = (struct fib6_slot *)(f->l1 + FIB6_L1_ENTRIES);
    f->long_count = (uint32_t *)(f->slots + nslots);
    f->short_depth = (uint8_t *)(f->long_count + FIB6_L1_ENTRIES);
    f->slot_mask = nslots - 1;
    f->slot_shift = 64u - (unsigned)__builtin_ctzll(nslots);
    f->max_routes = max_routes;

    memset(f->l1, 0, FIB6_L1_ENTRIES * sizeof(uint32_t));
    memset(f->slots, 0, (size_t)nslots * sizeof(struct fib6_slot));
    memset(f->long_count, 0, FIB6_L1_ENTRIES * sizeof(uint32_t));
    memset(f->short_depth, 0, FIB6_L1_ENTRIES * sizeof(uint8_t));
    fib6_plens_rebuild(f);
    return 0;
}

/* fib6_key: prefix/len as host-order halves; false if len > 128 or bits are set beyond len. */
static bool fib6_key(const uint8_t *prefix, uint8_t len, uint64_t *hi, uint64_t *lo)
{
    if (len > FIB6_MAX_LEN) {
        return false;
    }
    *hi = fib6_load_be64(prefix);
    *lo = fib6_load_be64(prefix + 8);
    return ((*hi & ~fib6_mask_hi(len)) | (*lo & ~fib6_mask_lo(len))) == 0;
}

/* The /16 entries a route of length len <= 16 covers. */
static uint32_t fib6_short_first(uint64_t hi)
{
    return (uint32_t)(hi >> (64 - FIB6_L1_BITS));
}

static uint32_t fib6_short_count(unsigned len)
{
    return 1u << (FIB6_L1_BITS - len);
}

int fib6_add(struct fib6 *f, const uint8_t prefix[16], uint8_t len, uint16_t nh)
{
    uint64_t hi, lo;
    if (!fib6_key(prefix, len, &hi, &lo)) {
        return WS_ERR_INVAL;
    }
    unsigned depth = FIB6_DEPTH(len);
    struct fib6_slot *s = fib6_find(f, hi, lo, depth);
    bool is_new = s->depth == 0;
    if (is_new && f->nroutes >= f->max_routes) {
        return WS_ERR_NO_MEMORY;
    }
    s->hi = hi;
    s->lo = lo;
    s->depth = (uint8_t)depth;
    s->nh = nh;
    if (is_new) {
        f->nroutes++;
        if (f->len_count[len]++ == 0 && len > FIB6_L1_BITS) {
            fib6_plens_rebuild(f);
        }
    }

    if (len <= FIB6_L1_BITS) {
        /* Over entries held by shorter routes, or by this one (a replaced next hop). */
        fib6_short_fill(f, fib6_short_first(hi), fib6_short_count(len), FIB6_E_SHORT | nh, depth,
                        0, depth);
    } else if (is_new) {
        fib6_long_added(f, fib6_short_first(hi), len);
    }
    return 0;
}

int fib6_del(struct fib6 *f, const uint8_t prefix[16], uint8_t len)
{
    uint64_t hi, lo;
    if (!fib6_key(prefix, len, &hi, &lo)) {
        return WS_ERR_INVAL;
    }
    unsigned depth = FIB6_DEPTH(len);
    struct fib6_slot *s = fib6_find(f, hi, lo, depth);
    if (s->depth == 0) {
        return WS_ERR_NOT_FOUND;
    }
    fib6_remove(f, s);
    f->nroutes--;
    if (--f->len_count[len] == 0 && len > FIB6_L1_BITS) {
        fib6_plens_rebuild(f);
    }

    if (len <= FIB6_L1_BITS) {
        /* Exactly the entries this route holds fall back to its cover. */
        unsigned cover_depth;
        uint32_t bits = fib6_cover(f, hi, len, &cover_depth);
        fib6_short_fill(f, fib6_short_first(hi), fib6_short_count(len), bits, cover_depth, depth,
                        depth);
    } else {
        fib6_long_removed(f, fib6_short_first(hi));
    }
    return 0;
}

unsigned fib6_route_count(const struct fib6 *f)
{
    return f->nroutes;
}

/*
 * The per-packet path. Probes of different lengths are independent of each other: with the
 * loop's "miss" branches predicted, the out-of-order core overlaps their loads.
 */
int fib6_lookup(const struct fib6 *f, const uint8_t dst[16])
{
    uint64_t hi = fib6_load_be64(dst), lo = fib6_load_be64(dst + 8);
    uint32_t e = f->l1[hi >> (64 - FIB6_L1_BITS)];
    const struct fib6_slot *slots = f->slots;
    unsigned shift = f->slot_shift;
    uint64_t mask = f->slot_mask;

    for (unsigned i = f->first_le[fib6_e_max(e)], end = f->end_ge[fib6_e_min(e)]; i < end; i++) {
        const struct fib6_plen *p = &f->plens[i];
        uint64_t ph = hi & p->mask_hi, pl = lo & p->mask_lo;
        uint64_t j = fib6_hash(ph, pl, p->salt) >> shift;
        for (;;) {
            const struct fib6_slot *s = &slots[j];
            /* One branch for the whole key; a free slot never matches (depth >= 18 here). */
            if (((s->hi ^ ph) | (s->lo ^ pl) | (uint64_t)(s->depth ^ p->depth)) == 0) {
                return s->nh;
            }
            if (s->depth == 0) {
                break;
            }
            j = (j + 1) & mask;
        }
    }
    return (e & FIB6_E_SHORT) ? (int)(e & FIB6_E_NH_MASK) : -1;
}
