/*
 * net/neigh.h: the IP -> Ethernet neighbour table: what ARP (RFC 826) learned for IPv4, or
 * neighbour discovery (RFC 4861) for IPv6 (each has a table of its own; an IPv4 address is kept
 * as its IPv4-mapped IPv6 address, ::ffff:a.b.c.d, so one key type serves both). Fixed size, no
 * allocation. One writer core (the core that receives ARP: non-IP frames all land on RX queue
 * 0, i.e. core 0) and lock-free readers on every core, through a sequence counter per entry.
 *
 * Placement: an address hashes to a home slot; it lives in one of the NEIGH_PROBE_SLOTS slots
 * from there (wrapping). Entries never move once written, so a reader needs no more than each
 * entry's own sequence counter to see a consistent (ip, mac) pair. When all slots of an
 * address's window are taken, the least recently updated of them is replaced (counted): with
 * overlapping windows of 8 in 256 slots this is, in practice, "a full table replaces the oldest
 * entry", while a lookup stays bounded at 8 slots. Entries the forwarder has used (looked up
 * with neigh_lookup_use: next hops traffic goes to) are replaced only when every slot of the
 * window is in use, so a flood of ARP from many addresses churns the rest of the table, not the
 * next hops.
 */
#ifndef WS_NEIGH_H
#define WS_NEIGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef NEIGH_TABLE_BITS
#define NEIGH_TABLE_BITS 8 /* 256 entries: a /24 of hosts on the appliance's links */
#endif
#define NEIGH_TABLE_ENTRIES (1u << NEIGH_TABLE_BITS)
#define NEIGH_PROBE_SLOTS 8    /* slots an address may occupy, from its home slot on */
#define NEIGH_READ_RETRIES 64  /* a reader gives up (reports a miss) after this many retries */

#define NEIGH_MAC_BYTES 6

/* An address: the IPv6 address's two halves, each loaded big-endian (hi: bytes 0..7). All zero
 * marks a free slot (:: is never a neighbour). */
struct neigh_key {
    uint64_t hi, lo;
};

#define NEIGH_KEY_V4_MAPPED 0x0000ffff00000000ull /* lo of ::ffff:a.b.c.d, less the address */

/* neigh_key_v4: IPv4 address ip (host order) as a key. */
static inline struct neigh_key neigh_key_v4(uint32_t ip)
{
    return (struct neigh_key){ .hi = 0, .lo = NEIGH_KEY_V4_MAPPED | ip };
}

/* neigh_key_v6: the IPv6 address at a (16 bytes, network order) as a key. */
static inline struct neigh_key neigh_key_v6(const uint8_t *a)
{
    uint64_t hi, lo;
    __builtin_memcpy(&hi, a, 8);
    __builtin_memcpy(&lo, a + 8, 8);
    return (struct neigh_key){ .hi = __builtin_bswap64(hi), .lo = __builtin_bswap64(lo) };
}

/* neigh_key_bytes: the key as an IPv6 address (network order) into a. */
static inline void neigh_key_bytes(struct neigh_key k, uint8_t *a)
{
    uint64_t hi = __builtin_bswap64(k.hi), lo = __builtin_bswap64(k.lo);
    __builtin_memcpy(a, &hi, 8);
    __builtin_memcpy(a + 8, &lo, 8);
}

static inline bool neigh_key_is_v4(struct neigh_key k)
{
    return k.hi == 0 && (k.lo >> 32) == 0xffffu;
}

/* neigh_key_v4_ip: the IPv4 address of a key for which neigh_key_is_v4 holds. */
static inline uint32_t neigh_key_v4_ip(struct neigh_key k)
{
    return (uint32_t)k.lo;
}

static inline bool neigh_key_eq(struct neigh_key a, struct neigh_key b)
{
    return ((a.hi ^ b.hi) | (a.lo ^ b.lo)) == 0;
}

/* One slot. seq is even when stable, odd while the writer is changing the slot. */
struct neigh_entry {
    uint32_t seq;
    uint32_t pad;
    uint64_t key_hi, key_lo; /* struct neigh_key, as two atomics; both 0 = free slot */
    uint64_t mac;            /* 48-bit MAC, first byte on the wire in bits 47..40 */
    uint64_t updated_ns;     /* time of the last neigh_update for this address */
};

/* Writer-side counters. */
struct neigh_stats {
    uint64_t inserted;        /* a new address took a free slot */
    uint64_t refreshed;       /* a known address confirmed, same MAC */
    uint64_t mac_changed;     /* a known address moved to another MAC */
    uint64_t replaced_oldest; /* a new address evicted the stalest entry of its window */
    uint64_t replaced_in_use; /* ... and every entry of that window was in use (a next hop) */
    uint64_t expired;         /* removed by neigh_age: stale, and unused for gc_ns */
    uint64_t rejected;        /* neigh_update with address 0 or a group/zero MAC */
    uint64_t probes_sent;     /* unicast ARP probes asked for by neigh_age (stale, in use) */
    uint64_t probe_failed;    /* removed: every probe went unanswered (gone, or a new MAC) */
    uint64_t flushed;         /* removed by neigh_flush (the console's `neigh flush`) */
    uint64_t static_kept;     /* ARP claimed a static neighbour's address with another MAC */
};

/*
 * Aging (RFC 1122 2.3.2.1, the states of RFC 4861 7.3.2): an entry is REACHABLE for
 * reachable_ns after its last confirmation (an ARP from its address), then STALE: still used
 * as it is, but the forwarder's use (neigh_lookup_use) since then makes it PROBE: a unicast ARP
 * request to the MAC it has, every probe_interval_ns, `probes` times. An answer makes it
 * REACHABLE again; silence removes it, so the next frame asks by broadcast and a neighbour that
 * changed its MAC is followed. A STALE entry nothing uses is removed after gc_ns.
 */
enum neigh_state {
    NEIGH_REACHABLE,
    NEIGH_STALE,
    NEIGH_PROBE,
    NEIGH_STATIC, /* from the config (neigh_add_static): never aged, never changed by ARP */
};

struct neigh_age_params {
    uint64_t reachable_ns;
    uint64_t probe_interval_ns;
    uint64_t gc_ns; /* from the last confirmation: a STALE entry nothing used is removed */
    uint32_t probes;
};

/* Asked by neigh_age: send a unicast probe (ARP request, or neighbour solicitation) for the
 * address to mac. */
typedef void (*neigh_probe_fn)(void *ctx, struct neigh_key key, const uint8_t mac[6]);

struct neigh_table {
    /* written by the writer core under each entry's seq; read by every core */
    struct neigh_entry entry[NEIGH_TABLE_ENTRIES];
    /* used[i]: the forwarder looked slot i's address up (neigh_lookup_use). Set by any core,
     * with a plain byte store and only while still 0, so a used entry costs its readers no
     * further write; cleared by the writer when the slot gets a new address. A reader that set
     * it just after the slot changed hands marks the newcomer instead: it only shifts which
     * entry a full window gives up first. */
    uint8_t used[NEIGH_TABLE_ENTRIES] __attribute__((aligned(64)));
    /* owned by the writer core; on its own cache line so readers' lines stay clean */
    struct neigh_stats stats __attribute__((aligned(64)));
    uint8_t state[NEIGH_TABLE_ENTRIES];       /* enum neigh_state, as neigh_age last judged */
    uint8_t probes_sent[NEIGH_TABLE_ENTRIES]; /* in PROBE: probes asked for so far */
    uint64_t probe_at_ns[NEIGH_TABLE_ENTRIES]; /* in PROBE: when the next step is due */
};

/* One row of a snapshot (console `arp`). */
struct neigh_snapshot_entry {
    struct neigh_key key;
    uint32_t ip; /* an IPv4 key's address, host byte order; 0 for IPv6 */
    uint8_t mac[NEIGH_MAC_BYTES];
    uint64_t updated_ns;
    uint8_t state; /* enum neigh_state (as of the writer's last neigh_age) */
};

/* neigh_home_slot: where an address's window starts (Fibonacci hashing: a multiply and a shift,
 * which spreads consecutive host addresses over the table). Exposed for tests. */
static inline uint32_t neigh_home_slot(uint32_t ip)
{
    return (ip * 0x9e3779b1u) >> (32 - NEIGH_TABLE_BITS);
}

/* neigh_key_home_slot: a key's home slot: its 32-bit halves XORed (the IPv4-mapped marker
 * cancelled, so an IPv4 key's slot is neigh_home_slot of its address), then hashed alike. */
static inline uint32_t neigh_key_home_slot(struct neigh_key k)
{
    uint64_t x = k.hi ^ (k.lo ^ NEIGH_KEY_V4_MAPPED);
    return neigh_home_slot((uint32_t)x ^ (uint32_t)(x >> 32));
}

/* neigh_init: empty the table. Init time, before any reader runs. */
void neigh_init(struct neigh_table *t);

/* neigh_update_key: learn or refresh key -> mac at time now_ns. Returns 0, or WS_ERR_INVAL for
 * address 0 (or ::) or a MAC that is zero or a group address (nothing a unicast frame may be
 * sent to). Writer core only. */
int neigh_update_key(struct neigh_table *t, struct neigh_key key,
                     const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns);

/* neigh_add_static_key: key is at mac, whatever ARP or ND says later: an entry that never ages,
 * is never replaced and that neigh_update / neigh_refresh leave as it is (counting a different
 * MAC in static_kept). WS_ERR_INVAL for an unusable address or MAC, or key already static. Boot. */
int neigh_add_static_key(struct neigh_table *t, struct neigh_key key,
                         const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns);

/* neigh_refresh_key: like neigh_update_key but only if key is already known (RFC 826's "merge"
 * step for ARP packets not addressed to us; RFC 4861 7.2.5 for an unsolicited advertisement).
 * Returns true if an entry was updated. Writer core only. */
bool neigh_refresh_key(struct neigh_table *t, struct neigh_key key,
                       const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns);

/* neigh_lookup_key: the MAC for key, into mac_out. Returns false if unknown (or, rarely, if the
 * entry kept changing under the reader NEIGH_READ_RETRIES times). Any core, lock-free, no
 * writes to shared memory. */
bool neigh_lookup_key(const struct neigh_table *t, struct neigh_key key,
                      uint8_t mac_out[NEIGH_MAC_BYTES]);

/* neigh_lookup_use_key: neigh_lookup_key, and mark the entry used (a next hop): a full window
 * then gives up its unused entries first. The forwarder's lookup. Any core. */
bool neigh_lookup_use_key(struct neigh_table *t, struct neigh_key key,
                          uint8_t mac_out[NEIGH_MAC_BYTES]);

/* The same for an IPv4 address ip (host byte order). */
static inline int neigh_update(struct neigh_table *t, uint32_t ip,
                               const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns)
{
    return neigh_update_key(t, neigh_key_v4(ip), mac, now_ns);
}

static inline int neigh_add_static(struct neigh_table *t, uint32_t ip,
                                   const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns)
{
    return neigh_add_static_key(t, neigh_key_v4(ip), mac, now_ns);
}

static inline bool neigh_refresh(struct neigh_table *t, uint32_t ip,
                                 const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns)
{
    return neigh_refresh_key(t, neigh_key_v4(ip), mac, now_ns);
}

static inline bool neigh_lookup(const struct neigh_table *t, uint32_t ip,
                                uint8_t mac_out[NEIGH_MAC_BYTES])
{
    return neigh_lookup_key(t, neigh_key_v4(ip), mac_out);
}

static inline bool neigh_lookup_use(struct neigh_table *t, uint32_t ip,
                                    uint8_t mac_out[NEIGH_MAC_BYTES])
{
    return neigh_lookup_use_key(t, neigh_key_v4(ip), mac_out);
}

/* neigh_count: occupied slots (a snapshot; any core). */
size_t neigh_count(const struct neigh_table *t);

/*
 * neigh_age: one aging step over the whole table at now_ns (see enum neigh_state), calling
 * probe for each probe due. Returns the entries removed. Writer core only, a few times a second
 * (nothing here runs per packet).
 */
unsigned neigh_age(struct neigh_table *t, uint64_t now_ns, const struct neigh_age_params *p,
                   neigh_probe_fn probe, void *ctx);
/* neigh_flush: forget every entry but the static ones (counted in flushed); they are learned
 * again by ARP. Returns how many. Writer core only. */
unsigned neigh_flush(struct neigh_table *t);
/* neigh_state_name: "reachable", "stale", "probe" or "static". */
const char *neigh_state_name(enum neigh_state s);

/* neigh_snapshot: copy up to max consistent entries into out, in slot order; returns the count.
 * Any core (it reads like neigh_lookup); meant for the console's `arp` command. */
size_t neigh_snapshot(const struct neigh_table *t, struct neigh_snapshot_entry *out, size_t max);

#endif
