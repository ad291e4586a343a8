/*
 * net/neigh.c: the neighbour table: one writer core, lock-free readers (a sequence lock per
 * entry). Layout and placement rules are in neigh.h.
 */
#include <string.h>

#include "err.h"
#include "net/inet.h"
#include "net/neigh.h"

#define NEIGH_SLOT_MASK (NEIGH_TABLE_ENTRIES - 1)

/*
 * Sequence lock, and why it needs no fence instruction on x86-64.
 *
 * Writer (one core): seq += 1 (odd), store key/mac/time, seq += 1 (even).
 * Reader (any core): load seq (retry while odd), load key/mac/time, load seq again; the copy is
 * consistent only if both seq loads agree.
 *
 * x86-64 is TSO (SDM vol. 3A 8.2.2, "Memory Ordering in P6 and More Recent Processor Families"):
 * stores become visible to other cores in program order, and loads are not reordered with
 * other loads. So the hardware already keeps the writer's odd-seq store ahead of its data
 * stores and the reader's seq loads around its data loads; only the compiler must be stopped
 * from reordering. The __atomic builtins below say exactly that: release stores and acquire
 * loads compile to plain movs on x86-64 and pin the order in the compiler (and let the host's
 * ThreadSanitizer build see the protocol). Each field is a single aligned, naturally sized
 * atomic, so no individual value can be torn either.
 *
 * The ordering argument in C11 terms: the data stores are release stores sequenced after the
 * odd seq store, and the reader's data loads are acquire loads sequenced before its second seq
 * load. If the reader saw any value of an update that began after its first seq load, that
 * update's odd seq is visible to its second load, which then differs, and it retries.
 */

/* Let the sibling hyperthread run while we wait for a writer mid-update. */
static inline void neigh_cpu_relax(void)
{
    __asm__ volatile("pause" ::: "memory");
}

static uint64_t neigh_mac_pack(const uint8_t mac[NEIGH_MAC_BYTES])
{
    uint64_t v = 0;
    for (unsigned i = 0; i < NEIGH_MAC_BYTES; i++) {
        v = v << 8 | mac[i];
    }
    return v;
}

static void neigh_mac_unpack(uint64_t v, uint8_t mac[NEIGH_MAC_BYTES])
{
    for (unsigned i = NEIGH_MAC_BYTES; i-- > 0;) {
        mac[i] = (uint8_t)v;
        v >>= 8;
    }
}

static struct neigh_key neigh_entry_key(const struct neigh_entry *e)
{
    return (struct neigh_key){ .hi = e->key_hi, .lo = e->key_lo };
}

static bool neigh_entry_free(const struct neigh_entry *e)
{
    return (e->key_hi | e->key_lo) == 0;
}

/* neigh_write: replace one slot's contents under its sequence counter. Writer core only. */
static void neigh_write(struct neigh_entry *e, struct neigh_key key, uint64_t mac,
                        uint64_t now_ns)
{
    uint32_t seq = e->seq; /* only this core writes seq: a plain read sees its latest value */

    __atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELAXED); /* odd: readers will retry */
    __atomic_store_n(&e->key_hi, key.hi, __ATOMIC_RELEASE);
    __atomic_store_n(&e->key_lo, key.lo, __ATOMIC_RELEASE);
    __atomic_store_n(&e->mac, mac, __ATOMIC_RELEASE);
    __atomic_store_n(&e->updated_ns, now_ns, __ATOMIC_RELEASE);
    __atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE); /* even: stable again */
}

/* neigh_read: a consistent copy of one slot, or false after NEIGH_READ_RETRIES attempts. */
static bool neigh_read(const struct neigh_entry *e, struct neigh_entry *out)
{
    for (unsigned i = 0; i < NEIGH_READ_RETRIES; i++) {
        uint32_t s0 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
        if (s0 & 1) {
            neigh_cpu_relax();
            continue;
        }
        out->key_hi = __atomic_load_n(&e->key_hi, __ATOMIC_ACQUIRE);
        out->key_lo = __atomic_load_n(&e->key_lo, __ATOMIC_ACQUIRE);
        out->mac = __atomic_load_n(&e->mac, __ATOMIC_ACQUIRE);
        out->updated_ns = __atomic_load_n(&e->updated_ns, __ATOMIC_ACQUIRE);
        uint32_t s1 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
        if (s0 == s1) {
            out->seq = s0;
            return true;
        }
    }
    return false;
}

static struct neigh_entry *neigh_slot(struct neigh_table *t, uint32_t home, unsigned i)
{
    return &t->entry[(home + i) & NEIGH_SLOT_MASK];
}

/* neigh_remove: free slot i (writer core). */
static void neigh_remove(struct neigh_table *t, unsigned i)
{
    neigh_write(&t->entry[i], (struct neigh_key){ 0, 0 }, 0, 0);
    __atomic_store_n(&t->used[i], 0, __ATOMIC_RELAXED);
    t->state[i] = NEIGH_REACHABLE;
    t->probes_sent[i] = 0;
}

/* neigh_find: key's slot in its window, or NULL. Writer side: plain reads of its own data. */
static struct neigh_entry *neigh_find(struct neigh_table *t, struct neigh_key key)
{
    uint32_t home = neigh_key_home_slot(key);
    for (unsigned i = 0; i < NEIGH_PROBE_SLOTS; i++) {
        struct neigh_entry *e = neigh_slot(t, home, i);
        if (neigh_key_eq(neigh_entry_key(e), key)) {
            return e;
        }
    }
    return NULL;
}

static bool neigh_used(const struct neigh_table *t, const struct neigh_entry *e)
{
    return __atomic_load_n(&t->used[e - t->entry], __ATOMIC_RELAXED) != 0;
}

/* neigh_victim: the first free slot of key's window, else its least recently updated entry that
 * the forwarder has not used, else (every one a next hop) its least recently updated one;
 * never a static entry (NULL if the window holds nothing else). */
static struct neigh_entry *neigh_victim(struct neigh_table *t, struct neigh_key key,
                                        bool *evicts)
{
    uint32_t home = neigh_key_home_slot(key);
    struct neigh_entry *oldest = NULL, *oldest_unused = NULL;

    for (unsigned i = 0; i < NEIGH_PROBE_SLOTS; i++) {
        struct neigh_entry *e = neigh_slot(t, home, i);
        if (neigh_entry_free(e)) {
            *evicts = false;
            return e;
        }
        if (t->state[e - t->entry] == NEIGH_STATIC) {
            continue;
        }
        if (oldest == NULL || e->updated_ns < oldest->updated_ns) {
            oldest = e;
        }
        if (!neigh_used(t, e) && (oldest_unused == NULL ||
                                  e->updated_ns < oldest_unused->updated_ns)) {
            oldest_unused = e;
        }
    }
    *evicts = true;
    if (oldest_unused == NULL && oldest != NULL) {
        t->stats.replaced_in_use++;
    }
    return oldest_unused != NULL ? oldest_unused : oldest;
}

void neigh_init(struct neigh_table *t)
{
    memset(t, 0, sizeof(*t));
}

/* neigh_key_valid: neither :: nor the IPv4 address 0 (both mean "no address"). */
static bool neigh_key_valid(struct neigh_key key)
{
    return (key.hi | key.lo) != 0 && !neigh_key_eq(key, neigh_key_v4(0));
}

/* An address we may send unicast frames to. A router must not believe an ARP claim that a
 * neighbour's link address is broadcast or multicast (RFC 1812 section 3.3.2). */
static bool neigh_valid(struct neigh_key key, const uint8_t mac[NEIGH_MAC_BYTES])
{
    return neigh_key_valid(key) && !inet_eth_is_group(mac) && !inet_eth_is_zero(mac);
}

int neigh_update_key(struct neigh_table *t, struct neigh_key key,
                     const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns)
{
    if (!neigh_valid(key, mac)) {
        t->stats.rejected++;
        return WS_ERR_INVAL;
    }
    if (neigh_refresh_key(t, key, mac, now_ns)) {
        return WS_OK;
    }

    bool evicts;
    struct neigh_entry *e = neigh_victim(t, key, &evicts);
    if (e == NULL) {
        t->stats.rejected++; /* every slot of its window is a static neighbour */
        return WS_ERR_NO_MEMORY;
    }
    if (evicts) {
        t->stats.replaced_oldest++;
    } else {
        t->stats.inserted++;
    }
    __atomic_store_n(&t->used[e - t->entry], 0, __ATOMIC_RELAXED); /* a new address */
    t->state[e - t->entry] = NEIGH_REACHABLE;
    t->probes_sent[e - t->entry] = 0;
    neigh_write(e, key, neigh_mac_pack(mac), now_ns);
    return WS_OK;
}

bool neigh_refresh_key(struct neigh_table *t, struct neigh_key key,
                       const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns)
{
    if (!neigh_valid(key, mac)) {
        return false;
    }
    struct neigh_entry *e = neigh_find(t, key);
    if (e == NULL) {
        return false;
    }
    uint64_t m = neigh_mac_pack(mac);
    if (t->state[e - t->entry] == NEIGH_STATIC) {
        t->stats.static_kept += e->mac != m; /* configured: no ARP moves it */
        return true;
    }
    if (e->mac == m) {
        t->stats.refreshed++;
    } else {
        t->stats.mac_changed++;
    }
    neigh_write(e, key, m, now_ns);
    return true;
}

int neigh_add_static_key(struct neigh_table *t, struct neigh_key key,
                         const uint8_t mac[NEIGH_MAC_BYTES], uint64_t now_ns)
{
    struct neigh_entry *e = neigh_find(t, key);
    if (e != NULL) {
        if (t->state[e - t->entry] == NEIGH_STATIC) {
            return WS_ERR_INVAL;
        }
        neigh_remove(t, (unsigned)(e - t->entry)); /* learned before: the config wins */
    }
    int err = neigh_update_key(t, key, mac, now_ns);
    if (err != WS_OK) {
        return err;
    }
    t->state[neigh_find(t, key) - t->entry] = NEIGH_STATIC;
    return WS_OK;
}

/* neigh_find_read: the slot holding key and a consistent copy of it, or -1. Any core. */
static int neigh_find_read(const struct neigh_table *t, struct neigh_key key,
                           struct neigh_entry *copy)
{
    if ((key.hi | key.lo) == 0) {
        return -1; /* all zero marks free slots: never a match */
    }
    uint32_t home = neigh_key_home_slot(key);
    for (unsigned i = 0; i < NEIGH_PROBE_SLOTS; i++) {
        unsigned slot = (home + i) & NEIGH_SLOT_MASK;
        const struct neigh_entry *e = &t->entry[slot];
        /* Cheap filter first: only a slot that looks like ours pays for the full read. A slot
         * being rewritten to key right now may be missed: as if we had looked a moment earlier. */
        if (__atomic_load_n(&e->key_lo, __ATOMIC_RELAXED) != key.lo) {
            continue;
        }
        if (neigh_read(e, copy) && neigh_key_eq(neigh_entry_key(copy), key)) {
            return (int)slot;
        }
    }
    return -1;
}

bool neigh_lookup_key(const struct neigh_table *t, struct neigh_key key,
                      uint8_t mac_out[NEIGH_MAC_BYTES])
{
    struct neigh_entry copy;
    if (neigh_find_read(t, key, &copy) < 0) {
        return false;
    }
    neigh_mac_unpack(copy.mac, mac_out);
    return true;
}

bool neigh_lookup_use_key(struct neigh_table *t, struct neigh_key key,
                          uint8_t mac_out[NEIGH_MAC_BYTES])
{
    struct neigh_entry copy;
    int slot = neigh_find_read(t, key, &copy);
    if (slot < 0) {
        return false;
    }
    if (__atomic_load_n(&t->used[slot], __ATOMIC_RELAXED) == 0) {
        __atomic_store_n(&t->used[slot], 1, __ATOMIC_RELAXED); /* once per entry */
    }
    neigh_mac_unpack(copy.mac, mac_out);
    return true;
}

size_t neigh_count(const struct neigh_table *t)
{
    size_t n = 0;
    for (unsigned i = 0; i < NEIGH_TABLE_ENTRIES; i++) {
        n += (__atomic_load_n(&t->entry[i].key_hi, __ATOMIC_RELAXED) |
              __atomic_load_n(&t->entry[i].key_lo, __ATOMIC_RELAXED)) != 0;
    }
    return n;
}

/* neigh_age_one: the aging step for the occupied slot i; true if it was removed. */
static bool neigh_age_one(struct neigh_table *t, unsigned i, uint64_t now_ns,
                          const struct neigh_age_params *p, neigh_probe_fn probe, void *ctx)
{
    const struct neigh_entry *e = &t->entry[i];
    if (t->state[i] == NEIGH_STATIC) {
        return false; /* configured: never aged, never probed */
    }
    /* An entry stamped after now (a clock that stepped back) counts as just confirmed. */
    uint64_t age = e->updated_ns > now_ns ? 0 : now_ns - e->updated_ns;
    if (age <= p->reachable_ns) {
        t->state[i] = NEIGH_REACHABLE;
        t->probes_sent[i] = 0;
        return false;
    }
    if (t->state[i] == NEIGH_REACHABLE) {
        /* Just gone stale: forget the use so far, so that only use from now on probes. */
        t->state[i] = NEIGH_STALE;
        __atomic_store_n(&t->used[i], 0, __ATOMIC_RELAXED);
        return false;
    }
    if (t->state[i] == NEIGH_STALE) {
        if (__atomic_load_n(&t->used[i], __ATOMIC_RELAXED) != 0) {
            t->state[i] = NEIGH_PROBE;
            t->probe_at_ns[i] = now_ns;
        } else if (age > p->gc_ns) {
            t->stats.expired++;
            neigh_remove(t, i);
            return true;
        }
    }
    if (t->state[i] != NEIGH_PROBE || now_ns < t->probe_at_ns[i]) {
        return false;
    }
    if (t->probes_sent[i] >= p->probes) {
        t->stats.probe_failed++;
        neigh_remove(t, i);
        return true;
    }
    uint8_t mac[NEIGH_MAC_BYTES];
    neigh_mac_unpack(e->mac, mac);
    t->probes_sent[i]++;
    t->probe_at_ns[i] = now_ns + p->probe_interval_ns;
    t->stats.probes_sent++;
    probe(ctx, neigh_entry_key(e), mac);
    return false;
}

unsigned neigh_age(struct neigh_table *t, uint64_t now_ns, const struct neigh_age_params *p,
                   neigh_probe_fn probe, void *ctx)
{
    unsigned removed = 0;
    for (unsigned i = 0; i < NEIGH_TABLE_ENTRIES; i++) {
        if (!neigh_entry_free(&t->entry[i])) {
            removed += neigh_age_one(t, i, now_ns, p, probe, ctx);
        }
    }
    return removed;
}

unsigned neigh_flush(struct neigh_table *t)
{
    unsigned removed = 0;
    for (unsigned i = 0; i < NEIGH_TABLE_ENTRIES; i++) {
        if (!neigh_entry_free(&t->entry[i]) && t->state[i] != NEIGH_STATIC) {
            neigh_remove(t, i);
            removed++;
        }
    }
    t->stats.flushed += removed;
    return removed;
}

const char *neigh_state_name(enum neigh_state s)
{
    static const char *const names[] = { "reachable", "stale", "probe", "static" };
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

size_t neigh_snapshot(const struct neigh_table *t, struct neigh_snapshot_entry *out, size_t max)
{
    size_t n = 0;
    for (unsigned i = 0; i < NEIGH_TABLE_ENTRIES && n < max; i++) {
        struct neigh_entry copy;
        if (!neigh_read(&t->entry[i], &copy) || neigh_entry_free(&copy)) {
            continue; /* free, or changing too fast to show this instant */
        }
        out[n].key = neigh_entry_key(&copy);
        out[n].ip = neigh_key_is_v4(out[n].key) ? neigh_key_v4_ip(out[n].key) : 0;
        neigh_mac_unpack(copy.mac, out[n].mac);
        out[n].updated_ns = copy.updated_ns;
        out[n].state = t->state[i];
        n++;
    }
    return n;
}
