/*
 * tests/unit/test_neigh.c: the neighbour table: learning, lookup, ageing, replacement of the
 * stalest entry, snapshots, and the per-entry sequence lock (single-threaded checks of the
 * reader's retry rule, plus a two-thread stress that is most telling under -fsanitize=thread).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "err.h"
#include "net/neigh.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define SEC 1000000000ull

static struct neigh_table tbl;

static int setup(void **state)
{
    (void)state;
    neigh_init(&tbl);
    return 0;
}

static void mac_of(uint32_t n, uint8_t mac[6])
{
    mac[0] = 0x02; /* locally administered, unicast */
    mac[1] = 0x00;
    mac[2] = (uint8_t)(n >> 24);
    mac[3] = (uint8_t)(n >> 16);
    mac[4] = (uint8_t)(n >> 8);
    mac[5] = (uint8_t)n;
}

/* The first `want` addresses from `start` upward whose home slot is `home`. */
static void same_home(uint32_t home, uint32_t start, uint32_t *out, unsigned want)
{
    unsigned n = 0;
    for (uint32_t ip = start; n < want; ip++) {
        if (neigh_home_slot(ip) == home) {
            out[n++] = ip;
        }
    }
}

static unsigned occupied(void)
{
    static struct neigh_snapshot_entry snap[NEIGH_TABLE_ENTRIES];
    return (unsigned)neigh_snapshot(&tbl, snap, NEIGH_TABLE_ENTRIES);
}

static void test_update_and_lookup(void **state)
{
    (void)state;
    uint8_t mac[6], got[6];
    mac_of(1, mac);
    assert_false(neigh_lookup(&tbl, IP4(10, 0, 0, 1), got));
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), mac, 5), WS_OK);
    assert_true(neigh_lookup(&tbl, IP4(10, 0, 0, 1), got));
    assert_memory_equal(got, mac, 6);
    assert_false(neigh_lookup(&tbl, IP4(10, 0, 0, 2), got));
    assert_false(neigh_lookup(&tbl, 0, got)); /* 0 marks free slots: never found */
    assert_int_equal(tbl.stats.inserted, 1);

    /* same MAC again: a refresh; a new MAC: a change, still one entry */
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), mac, 6), WS_OK);
    mac_of(2, mac);
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), mac, 7), WS_OK);
    assert_true(neigh_lookup(&tbl, IP4(10, 0, 0, 1), got));
    assert_memory_equal(got, mac, 6);
    assert_int_equal(tbl.stats.inserted, 1);
    assert_int_equal(tbl.stats.refreshed, 1);
    assert_int_equal(tbl.stats.mac_changed, 1);
    assert_int_equal(occupied(), 1);
}

static void test_rejects_unusable(void **state)
{
    (void)state;
    uint8_t mac[6];
    mac_of(1, mac);
    assert_int_equal(neigh_update(&tbl, 0, mac, 1), WS_ERR_INVAL);
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
    static const uint8_t zero[6] = { 0 };
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), bcast, 1), WS_ERR_INVAL);
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), mcast, 1), WS_ERR_INVAL);
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), zero, 1), WS_ERR_INVAL);
    assert_int_equal(tbl.stats.rejected, 4);
    assert_int_equal(occupied(), 0);
}

static void test_refresh_only_known(void **state)
{
    (void)state;
    uint8_t mac[6], got[6];
    mac_of(1, mac);
    assert_false(neigh_refresh(&tbl, IP4(10, 0, 0, 9), mac, 1));
    assert_false(neigh_lookup(&tbl, IP4(10, 0, 0, 9), got));
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 9), mac, 1), WS_OK);
    mac_of(2, mac);
    assert_true(neigh_refresh(&tbl, IP4(10, 0, 0, 9), mac, 2));
    assert_true(neigh_lookup(&tbl, IP4(10, 0, 0, 9), got));
    assert_memory_equal(got, mac, 6);
}

/* --- aging ------------------------------------------------------------------------------------ */

#define MS 1000000ull
static const struct neigh_age_params age_params = {
    .reachable_ns = 10 * SEC, .probe_interval_ns = SEC, .gc_ns = 100 * SEC, .probes = 3,
};

/* The probes neigh_age asked for. */
struct probe_log {
    unsigned n;
    uint32_t ip[16];
    uint8_t mac[16][6];
};

static void log_probe(void *ctx, struct neigh_key key, const uint8_t mac[6])
{
    struct probe_log *l = ctx;
    assert_true(neigh_key_is_v4(key));
    if (l->n < 16) {
        l->ip[l->n] = neigh_key_v4_ip(key);
        memcpy(l->mac[l->n], mac, 6);
    }
    l->n++;
}

static unsigned age_at(uint64_t t, struct probe_log *l)
{
    return neigh_age(&tbl, t, &age_params, log_probe, l);
}

static enum neigh_state state_of(uint32_t ip)
{
    struct neigh_snapshot_entry snap[NEIGH_TABLE_ENTRIES];
    size_t n = neigh_snapshot(&tbl, snap, NEIGH_TABLE_ENTRIES);
    for (size_t i = 0; i < n; i++) {
        if (snap[i].ip == ip) {
            return (enum neigh_state)snap[i].state;
        }
    }
    fail_msg("no entry for %08x", ip);
    return NEIGH_REACHABLE;
}

/* Nothing uses it: reachable, then stale (still there, never probed), removed after gc. */
static void test_age_unused_entry_is_collected(void **state)
{
    (void)state;
    struct probe_log l = { 0 };
    uint8_t mac[6], got[6];
    mac_of(1, mac);
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 1), mac, 0), WS_OK);
    assert_int_equal(age_at(10 * SEC, &l), 0);
    assert_int_equal(state_of(IP4(10, 0, 0, 1)), NEIGH_REACHABLE);
    assert_int_equal(age_at(10 * SEC + 1, &l), 0);
    assert_int_equal(state_of(IP4(10, 0, 0, 1)), NEIGH_STALE);
    assert_int_equal(age_at(100 * SEC, &l), 0);
    assert_true(neigh_lookup(&tbl, IP4(10, 0, 0, 1), got)); /* a stale MAC is still used */
    assert_int_equal(age_at(100 * SEC + 1, &l), 1);
    assert_false(neigh_lookup(&tbl, IP4(10, 0, 0, 1), got));
    assert_int_equal(l.n, 0);
    assert_int_equal(tbl.stats.expired, 1);
    assert_int_equal(tbl.stats.probes_sent, 0);
}

/* Used while stale: `probes` unicast probes to the MAC it has, one interval apart, then
 * removed when none is answered (a host gone, or one with a new MAC). Use before the entry
 * went stale does not count. */
static void test_age_used_entry_probed_then_removed(void **state)
{
    (void)state;
    struct probe_log l = { 0 };
    uint8_t mac[6], got[6];
    const uint32_t ip = IP4(10, 0, 0, 2);
    mac_of(2, mac);
    assert_int_equal(neigh_update(&tbl, ip, mac, 0), WS_OK);
    assert_true(neigh_lookup_use(&tbl, ip, got)); /* while reachable */
    age_at(11 * SEC, &l);
    assert_int_equal(state_of(ip), NEIGH_STALE);
    age_at(11 * SEC + 100 * MS, &l);
    assert_int_equal(l.n, 0);
    assert_true(neigh_lookup_use(&tbl, ip, got)); /* the forwarder sends to it */
    age_at(11 * SEC + 200 * MS, &l);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.ip[0], ip);
    assert_memory_equal(l.mac[0], mac, 6);
    assert_int_equal(state_of(ip), NEIGH_PROBE);
    age_at(12 * SEC, &l);
    assert_int_equal(l.n, 1); /* not before the interval */
    age_at(12 * SEC + 200 * MS, &l);
    age_at(13 * SEC + 200 * MS, &l);
    assert_int_equal(l.n, 3);
    assert_true(neigh_lookup(&tbl, ip, got)); /* still used while probing */
    assert_int_equal(age_at(14 * SEC + 100 * MS, &l), 0);
    assert_int_equal(age_at(14 * SEC + 200 * MS, &l), 1);
    assert_false(neigh_lookup(&tbl, ip, got));
    assert_int_equal(tbl.stats.probes_sent, 3);
    assert_int_equal(tbl.stats.probe_failed, 1);
}

/* An answer to a probe makes the entry reachable again: no more probes until it is stale and
 * used again; then a fresh round of probes. A changed MAC in the answer is taken. */
static void test_age_answered_probe_restores(void **state)
{
    (void)state;
    struct probe_log l = { 0 };
    uint8_t mac[6], got[6];
    const uint32_t ip = IP4(10, 0, 0, 3);
    mac_of(3, mac);
    assert_int_equal(neigh_update(&tbl, ip, mac, 0), WS_OK);
    age_at(11 * SEC, &l);
    assert_true(neigh_lookup_use(&tbl, ip, got));
    age_at(11 * SEC + 100 * MS, &l);
    assert_int_equal(l.n, 1);
    mac_of(33, mac);
    assert_true(neigh_refresh(&tbl, ip, mac, 11 * SEC + 150 * MS)); /* the ARP reply */
    for (uint64_t t = 12 * SEC; t <= 21 * SEC; t += 100 * MS) {
        assert_int_equal(age_at(t, &l), 0);
    }
    assert_int_equal(l.n, 1);
    assert_int_equal(state_of(ip), NEIGH_REACHABLE);
    assert_true(neigh_lookup(&tbl, ip, got));
    assert_memory_equal(got, mac, 6);
    age_at(21 * SEC + 200 * MS, &l); /* stale again */
    assert_true(neigh_lookup_use(&tbl, ip, got));
    for (uint64_t t = 21 * SEC + 300 * MS; t < 24 * SEC + 250 * MS; t += 100 * MS) {
        assert_int_equal(age_at(t, &l), 0);
    }
    assert_int_equal(l.n, 4); /* a full round of three, no more */
    assert_int_equal(tbl.stats.probe_failed, 0);
    /* a clock that steps back counts as a confirmation, never as age */
    assert_int_equal(age_at(1, &l), 0);
    assert_int_equal(state_of(ip), NEIGH_REACHABLE);
}

/* A static neighbour: ARP does not move it (a different MAC is counted, the same one is a
 * no-op), it never ages or gets probed, flush keeps it, a new address never evicts it, and a
 * window full of static entries refuses a learned address rather than overwrite one. */
static void test_static_neighbour(void **state)
{
    (void)state;
    struct probe_log l = { 0 };
    uint8_t mac[6], other[6], got[6];
    const uint32_t ip = IP4(10, 0, 0, 9);
    mac_of(9, mac);
    mac_of(99, other);
    assert_int_equal(neigh_update(&tbl, ip, other, 0), WS_OK); /* learned first */
    assert_int_equal(neigh_add_static(&tbl, ip, mac, 0), WS_OK); /* the config wins */
    assert_int_equal(neigh_add_static(&tbl, ip, mac, 0), WS_ERR_INVAL);
    assert_true(neigh_refresh(&tbl, ip, other, SEC));
    assert_int_equal(neigh_update(&tbl, ip, other, SEC), WS_OK);
    assert_int_equal(tbl.stats.static_kept, 2);
    assert_true(neigh_lookup_use(&tbl, ip, got));
    assert_memory_equal(got, mac, 6);
    for (uint64_t t = 0; t < 2000 * SEC; t += 50 * SEC) {
        assert_int_equal(age_at(t, &l), 0);
    }
    assert_int_equal(l.n, 0);
    assert_int_equal(state_of(ip), NEIGH_STATIC);
    assert_int_equal(neigh_flush(&tbl), 0);
    assert_true(neigh_lookup(&tbl, ip, got));

    /* fill the rest of ip's window with static entries: a learned address then has no slot */
    uint32_t same[NEIGH_PROBE_SLOTS + 1]; /* same[0] is ip itself */
    same_home(neigh_home_slot(ip), ip, same, NEIGH_PROBE_SLOTS + 1);
    for (unsigned i = 1; i < NEIGH_PROBE_SLOTS; i++) {
        mac_of(same[i], mac);
        assert_int_equal(neigh_add_static(&tbl, same[i], mac, 0), WS_OK);
    }
    uint64_t rejected = tbl.stats.rejected;
    assert_int_equal(neigh_update(&tbl, same[NEIGH_PROBE_SLOTS], other, 3 * SEC),
                     WS_ERR_NO_MEMORY);
    assert_int_equal(tbl.stats.rejected, rejected + 1);
    assert_int_equal(occupied(), NEIGH_PROBE_SLOTS);
}

/* neigh_flush forgets everything, counts it, and the slots are reused. */
static void test_flush(void **state)
{
    (void)state;
    uint8_t mac[6], got[6];
    for (uint32_t i = 1; i <= 10; i++) {
        mac_of(i, mac);
        assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, i), mac, i * SEC), WS_OK);
    }
    assert_int_equal(neigh_flush(&tbl), 10);
    assert_int_equal(occupied(), 0);
    assert_int_equal(tbl.stats.flushed, 10);
    assert_int_equal(neigh_update(&tbl, IP4(10, 0, 0, 6), mac, 101 * SEC), WS_OK);
    assert_true(neigh_lookup(&tbl, IP4(10, 0, 0, 6), got));
    assert_int_equal(neigh_flush(&tbl), 1);
}

/* Nine addresses with one home slot: the ninth replaces the least recently updated. */
static void test_replace_oldest(void **state)
{
    (void)state;
    uint32_t ips[NEIGH_PROBE_SLOTS + 1];
    uint8_t mac[6], got[6];
    same_home(17, IP4(10, 0, 0, 1), ips, NEIGH_PROBE_SLOTS + 1);

    for (unsigned i = 0; i < NEIGH_PROBE_SLOTS; i++) {
        mac_of(ips[i], mac);
        assert_int_equal(neigh_update(&tbl, ips[i], mac, 100 + i), WS_OK);
    }
    /* make ips[0] recent again: ips[1] becomes the stalest */
    mac_of(ips[0], mac);
    assert_int_equal(neigh_update(&tbl, ips[0], mac, 200), WS_OK);
    assert_int_equal(tbl.stats.replaced_oldest, 0);

    mac_of(ips[NEIGH_PROBE_SLOTS], mac);
    assert_int_equal(neigh_update(&tbl, ips[NEIGH_PROBE_SLOTS], mac, 300), WS_OK);
    assert_int_equal(tbl.stats.replaced_oldest, 1);
    assert_false(neigh_lookup(&tbl, ips[1], got));
    for (unsigned i = 0; i <= NEIGH_PROBE_SLOTS; i++) {
        if (i != 1) {
            assert_true(neigh_lookup(&tbl, ips[i], got));
            mac_of(ips[i], mac);
            assert_memory_equal(got, mac, 6);
        }
    }
    assert_int_equal(occupied(), NEIGH_PROBE_SLOTS);
}

/* A window full of addresses, one of them a next hop the forwarder uses and the stalest of all:
 * a newcomer replaces the stalest entry nobody uses; once every entry is in use, the stalest. */
static void test_used_entries_replaced_last(void **state)
{
    (void)state;
    uint32_t ips[NEIGH_PROBE_SLOTS + 2];
    uint8_t mac[6], got[6];
    same_home(29, IP4(10, 0, 0, 1), ips, NEIGH_PROBE_SLOTS + 2);

    for (unsigned i = 0; i < NEIGH_PROBE_SLOTS; i++) {
        mac_of(ips[i], mac);
        assert_int_equal(neigh_update(&tbl, ips[i], mac, 100 + i), WS_OK);
    }
    assert_true(neigh_lookup_use(&tbl, ips[0], got)); /* the next hop, and the stalest */
    mac_of(ips[0], mac);
    assert_memory_equal(got, mac, 6);
    assert_int_equal(neigh_count(&tbl), NEIGH_PROBE_SLOTS);

    mac_of(ips[NEIGH_PROBE_SLOTS], mac);
    assert_int_equal(neigh_update(&tbl, ips[NEIGH_PROBE_SLOTS], mac, 300), WS_OK);
    assert_true(neigh_lookup(&tbl, ips[0], got));  /* kept */
    assert_false(neigh_lookup(&tbl, ips[1], got)); /* the stalest unused went */
    assert_int_equal(tbl.stats.replaced_oldest, 1);
    assert_int_equal(tbl.stats.replaced_in_use, 0);

    /* The newcomer did not inherit the used mark: it goes before any next hop. */
    for (unsigned i = 2; i < NEIGH_PROBE_SLOTS; i++) {
        assert_true(neigh_lookup_use(&tbl, ips[i], got));
    }
    mac_of(ips[NEIGH_PROBE_SLOTS + 1], mac);
    assert_int_equal(neigh_update(&tbl, ips[NEIGH_PROBE_SLOTS + 1], mac, 400), WS_OK);
    assert_false(neigh_lookup(&tbl, ips[NEIGH_PROBE_SLOTS], got));
    assert_true(neigh_lookup(&tbl, ips[0], got));

    /* Every entry a next hop now: the stalest (ips[0]) has to go, and that is counted. */
    assert_true(neigh_lookup_use(&tbl, ips[NEIGH_PROBE_SLOTS + 1], got));
    mac_of(ips[1], mac);
    assert_int_equal(neigh_update(&tbl, ips[1], mac, 500), WS_OK);
    assert_false(neigh_lookup(&tbl, ips[0], got));
    assert_int_equal(tbl.stats.replaced_in_use, 1);
    assert_int_equal(neigh_count(&tbl), NEIGH_PROBE_SLOTS);
}

/* Many more addresses than slots: nothing is lost silently, the table fills up, and every
 * address still present maps to its own MAC. */
static void test_overfill(void **state)
{
    (void)state;
    uint8_t mac[6], got[6];
    const uint32_t n = 4 * NEIGH_TABLE_ENTRIES;
    for (uint32_t i = 0; i < n; i++) {
        mac_of(i + 1, mac);
        assert_int_equal(neigh_update(&tbl, IP4(10, 1, 0, 0) + i, mac, i + 1), WS_OK);
    }
    assert_int_equal(tbl.stats.inserted, NEIGH_TABLE_ENTRIES); /* every slot got used */
    assert_int_equal(tbl.stats.inserted + tbl.stats.replaced_oldest, n);
    assert_int_equal(occupied(), NEIGH_TABLE_ENTRIES);
    unsigned found = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (neigh_lookup(&tbl, IP4(10, 1, 0, 0) + i, got)) {
            mac_of(i + 1, mac);
            assert_memory_equal(got, mac, 6);
            found++;
        }
    }
    assert_int_equal(found, NEIGH_TABLE_ENTRIES);
    /* the most recent address is always kept */
    assert_true(neigh_lookup(&tbl, IP4(10, 1, 0, 0) + n - 1, got));
}

static void test_snapshot(void **state)
{
    (void)state;
    uint8_t mac[6];
    for (uint32_t i = 1; i <= 5; i++) {
        mac_of(i, mac);
        assert_int_equal(neigh_update(&tbl, IP4(192, 168, 1, i), mac, i), WS_OK);
    }
    struct neigh_snapshot_entry snap[8];
    assert_int_equal(neigh_snapshot(&tbl, snap, 3), 3); /* bounded by the caller's array */
    assert_int_equal(neigh_snapshot(&tbl, snap, 8), 5);
    bool seen[6] = { false };
    for (unsigned i = 0; i < 5; i++) {
        uint32_t host = snap[i].ip & 0xff;
        assert_int_equal(snap[i].ip, IP4(192, 168, 1, host));
        mac_of(host, mac);
        assert_memory_equal(snap[i].mac, mac, 6);
        assert_int_equal(snap[i].updated_ns, host);
        assert_false(seen[host]);
        seen[host] = true;
    }
}

/* The reader's rule, driven by hand: an odd sequence (writer mid-update) is never trusted; the
 * bounded retry then reports a miss instead of spinning forever. */
static void test_seqlock_odd_is_not_read(void **state)
{
    (void)state;
    uint8_t mac[6], got[6];
    mac_of(7, mac);
    uint32_t ip = IP4(10, 0, 0, 7);
    assert_int_equal(neigh_update(&tbl, ip, mac, 1), WS_OK);

    struct neigh_entry *e = NULL;
    for (unsigned i = 0; i < NEIGH_TABLE_ENTRIES; i++) {
        if (tbl.entry[i].key_lo == neigh_key_v4(ip).lo) {
            e = &tbl.entry[i];
        }
    }
    assert_non_null(e);
    assert_int_equal(e->seq % 2, 0); /* a finished write leaves it even */
    uint32_t seq = e->seq;

    e->seq = seq + 1; /* as if the writer stopped half-way */
    assert_false(neigh_lookup(&tbl, ip, got));
    struct neigh_snapshot_entry snap[1];
    assert_int_equal(neigh_snapshot(&tbl, snap, 1), 0);

    e->seq = seq + 2;
    assert_true(neigh_lookup(&tbl, ip, got));
    assert_memory_equal(got, mac, 6);

    /* each write advances the sequence by exactly two */
    assert_int_equal(neigh_update(&tbl, ip, mac, 2), WS_OK);
    assert_int_equal(e->seq, seq + 4);
}

/*
 * Two threads: a writer keeps moving one slot between two addresses A and B (same home slot,
 * so the slot is reused), each time with a MAC that names the address it belongs to and a
 * generation number. Readers must never see A's address paired with B's MAC (or vice versa),
 * nor generations going backwards. Without the sequence lock, (ip, mac) pairs would tear.
 */
#define STRESS_ROUNDS 200000

struct stress {
    uint32_t a, b;
    volatile bool done;
    unsigned long hits, bad;
};

static void stress_mac(uint32_t ip, uint32_t gen, uint8_t mac[6])
{
    mac[0] = 0x02;
    mac[1] = (uint8_t)ip; /* tag: low byte of the owning address */
    mac[2] = (uint8_t)(gen >> 24);
    mac[3] = (uint8_t)(gen >> 16);
    mac[4] = (uint8_t)(gen >> 8);
    mac[5] = (uint8_t)gen;
}

static void *stress_reader(void *arg)
{
    struct stress *s = arg;
    uint32_t last[2] = { 0, 0 };
    while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
        for (int k = 0; k < 2; k++) {
            uint32_t ip = k ? s->b : s->a;
            uint8_t got[6];
            if (!neigh_lookup(&tbl, ip, got)) {
                continue;
            }
            uint32_t gen = (uint32_t)got[2] << 24 | (uint32_t)got[3] << 16 |
                           (uint32_t)got[4] << 8 | got[5];
            if (got[1] != (uint8_t)ip || gen < last[k]) {
                s->bad++;
            }
            last[k] = gen;
            s->hits++;
        }
    }
    return NULL;
}

static void test_seqlock_stress(void **state)
{
    (void)state;
    uint32_t pair[2];
    same_home(3, IP4(10, 9, 0, 0), pair, 2);
    assert_int_not_equal((uint8_t)pair[0], (uint8_t)pair[1]);
    struct stress s = { .a = pair[0], .b = pair[1] };

    pthread_t rd;
    assert_int_equal(pthread_create(&rd, NULL, stress_reader, &s), 0);
    for (uint32_t gen = 1; gen <= STRESS_ROUNDS; gen++) {
        uint32_t ip = (gen & 1) ? s.a : s.b;
        uint8_t mac[6];
        stress_mac(ip, gen, mac);
        assert_int_equal(neigh_update(&tbl, ip, mac, gen), WS_OK);
        /* clear the slot so the other address takes the very same slot next round */
        assert_int_equal(neigh_flush(&tbl), 1);
    }
    __atomic_store_n(&s.done, true, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(rd, NULL), 0);
    assert_int_equal(s.bad, 0);
    print_message("seqlock stress: %lu consistent reads\n", s.hits);
}

/* IPv6 keys: learned and found by all 16 bytes; an IPv4 key and an IPv6 key sharing their low
 * 32 bits are different entries; an IPv4 key's home slot is the IPv4 hash of its address. */
static void test_ipv6_keys(void **state)
{
    (void)state;
    uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 }, b[16], out[6];
    memcpy(b, a, 16);
    b[7] = 1; /* differs only in the upper half */
    const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0xa }, mac_b[6] = { 2, 0, 0, 0, 0, 0xb };
    assert_int_equal(neigh_update_key(&tbl, neigh_key_v6(a), mac_a, 1), 0);
    assert_false(neigh_lookup_key(&tbl, neigh_key_v6(b), out));
    assert_int_equal(neigh_update_key(&tbl, neigh_key_v6(b), mac_b, 2), 0);
    assert_true(neigh_lookup_key(&tbl, neigh_key_v6(a), out));
    assert_memory_equal(out, mac_a, 6);
    assert_true(neigh_lookup_use_key(&tbl, neigh_key_v6(b), out));
    assert_memory_equal(out, mac_b, 6);
    assert_false(neigh_lookup(&tbl, 2, out)); /* 0.0.0.2 is not 2001:db8::2 */

    uint8_t back[16];
    neigh_key_bytes(neigh_key_v6(a), back);
    assert_memory_equal(back, a, 16);
    assert_false(neigh_key_is_v4(neigh_key_v6(a)));
    assert_true(neigh_key_is_v4(neigh_key_v4(0xc0000201u)));
    assert_int_equal(neigh_key_home_slot(neigh_key_v4(0xc0000201u)), neigh_home_slot(0xc0000201u));

    static const uint8_t zero[16];
    assert_int_equal(neigh_update_key(&tbl, neigh_key_v6(zero), mac_a, 3), WS_ERR_INVAL);
    struct neigh_snapshot_entry snap[NEIGH_TABLE_ENTRIES];
    size_t n = neigh_snapshot(&tbl, snap, NEIGH_TABLE_ENTRIES);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(snap[i].ip, 0); /* not IPv4 */
        assert_false(neigh_key_is_v4(snap[i].key));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_update_and_lookup, setup),
        cmocka_unit_test_setup(test_rejects_unusable, setup),
        cmocka_unit_test_setup(test_refresh_only_known, setup),
        cmocka_unit_test_setup(test_age_unused_entry_is_collected, setup),
        cmocka_unit_test_setup(test_age_used_entry_probed_then_removed, setup),
        cmocka_unit_test_setup(test_age_answered_probe_restores, setup),
        cmocka_unit_test_setup(test_flush, setup),
        cmocka_unit_test_setup(test_static_neighbour, setup),
        cmocka_unit_test_setup(test_replace_oldest, setup),
        cmocka_unit_test_setup(test_overfill, setup),
        cmocka_unit_test_setup(test_used_entries_replaced_last, setup),
        cmocka_unit_test_setup(test_snapshot, setup),
        cmocka_unit_test_setup(test_seqlock_odd_is_not_read, setup),
        cmocka_unit_test_setup(test_seqlock_stress, setup),
        cmocka_unit_test_setup(test_ipv6_keys, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
