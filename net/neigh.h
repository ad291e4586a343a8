/*
 * net/neigh.h: the IPv4 -> Ethernet neighbour table (what ARP, RFC 826, learned). Fixed size, no
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

/* One slot. seq is even when stable, odd while the writer is changing the slot. */
struct neigh_entry {
    uint32_t seq;
    uint32_t ip;         /* host byte order; 0 = free slot */
    uint64_t mac;        /* 48-bit MAC, first byte on the wire in bits 47..40 */
    uint64_t updated_ns; /* time of the last neigh_update for this address */
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

/* Asked by neigh_age: send a unicast ARP request for ip to mac. */
typedef void (*neigh_probe_fn)(void *ctx, uint32_t ip, const uint8_t mac[6]);

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
    uint32_t ip; /* host byte order */
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

/* neigh_init: empty the table. Init time, before any reader runs. */
void neigh_init(struct neigh_table *t);

/* neigh_update: learn or refresh ip -> mac at time now_ns. Returns 0, or WS_ERR_INVAL for
 * ip 0 or a MAC that is zero or a group address (nothing a unicast frame may be sent to).
 * Writer core only. */
int neigh_update(struct neigh_table *t, uint32_t ip, const uint8_t mac[NEIGH_MAC_BYTES],
                 uint64_t now_ns);

/* neigh_add_static: ip is at mac, whatever ARP says later: an entry that never ages, is never
 * replaced and that neigh_update / neigh_refresh leave as it is (counting a different MAC in
 * static_kept). WS_ERR_INVAL for an unusable address or MAC, or ip already static. Boot. */
int neigh_add_static(struct neigh_table *t, uint32_t ip, const uint8_t mac[NEIGH_MAC_BYTES],
                     uint64_t now_ns);

/* neigh_refresh: like neigh_update but only if ip is already known (RFC 826's "merge" step for
 * ARP packets not addressed to us). Returns true if an entry was updated. Writer core only. */
bool neigh_refresh(struct neigh_table *t, uint32_t ip, const uint8_t mac[NEIGH_MAC_BYTES],
                   uint64_t now_ns);

/* neigh_lookup: the MAC for ip, into mac_out. Returns false if unknown (or, rarely, if the
 * entry kept changing under the reader NEIGH_READ_RETRIES times). Any core, lock-free, no
 * writes to shared memory. */
bool neigh_lookup(const struct neigh_table *t, uint32_t ip, uint8_t mac_out[NEIGH_MAC_BYTES]);

/* neigh_lookup_use: neigh_lookup, and mark the entry used (a next hop): a full window then
 * gives up its unused entries first. The forwarder's lookup. Any core. */
bool neigh_lookup_use(struct neigh_table *t, uint32_t ip, uint8_t mac_out[NEIGH_MAC_BYTES]);

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
