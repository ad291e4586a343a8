/*
 * tests/unit/test_ra6.c: IPv6 router advertisements (net/ra6.c, RFC 4861 section 6). The
 * message field by field against RFC 4861 4.2 and 4.6 (its checksum by a reference sum written
 * apart from net/inet6.c), the options present and their layout, the autonomous flag only for a
 * /64 (RFC 4862 5.5.3 d); the timing rules (6.2.4, 6.2.6) on a clock the test turns; and the
 * core-0 sender itself, run through its poller against stubs of the floor below (ports, the
 * pool, the TX batch, the clock): what it sends when, and its counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "console.h"
#include "drivers/nic/nic.h"
#include "init.h"
#include "loop.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/inet6.h"
#include "net/local6.h"
#include "net/nexthop.h"
#include "net/ra6.h"
#include "time.h"

#define S_NS 1000000000ULL
#define MS_NS 1000000ULL

static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
/* fe80::ff:fe00:1, our_mac's EUI-64 address */
static const uint8_t our_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x01 };
/* 2001:db8:18::1 */
static const uint8_t our_gua[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18, [15] = 0x01 };
static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };

static struct net_iface6 ifc;

static void ifc_init(struct net_iface6 *i)
{
    memset(i, 0, sizeof(*i));
    memcpy(i->mac, our_mac, 6);
    i->enabled = true;
    memcpy(i->link_local, our_ll, 16);
    i->has_global = true;
    memcpy(i->global, our_gua, 16);
    i->prefix_len = 64;
    i->advertise = true;
}

/* --- reference checksum: RFC 1071 4.1's loop over a pseudo-header built here (RFC 8200 8.1) -- */

static uint16_t ref_icmp6_csum(const uint8_t *ip6, const uint8_t *msg, size_t mlen)
{
    uint8_t tmp[40 + 256];
    memcpy(tmp, ip6 + 8, 32);
    memset(tmp + 32, 0, 8);
    tmp[34] = (uint8_t)(mlen >> 8);
    tmp[35] = (uint8_t)mlen;
    tmp[39] = 58;
    memcpy(tmp + 40, msg, mlen);
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < 40 + mlen; i += 2) {
        sum += (uint32_t)tmp[i] << 8 | tmp[i + 1];
    }
    if ((40 + mlen) % 2) {
        sum += (uint32_t)tmp[40 + mlen - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The Ethernet and IPv6 headers and the 16-byte message every advertisement starts with;
 * returns the message. Its checksum verifies by the reference sum. */
static const uint8_t *assert_ra_head(const uint8_t *f, uint16_t len)
{
    static const uint8_t mac_all_nodes[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
    assert_memory_equal(f, mac_all_nodes, 6);
    assert_memory_equal(f + 6, our_mac, 6);
    assert_int_equal(f[12], 0x86);
    assert_int_equal(f[13], 0xdd);
    const uint8_t *ip = f + 14;
    assert_int_equal(be32(ip), 6u << 28); /* version 6, traffic class 0, flow label 0 */
    assert_int_equal((ip[4] << 8) | ip[5], len - 54);
    assert_int_equal(ip[6], 58);  /* ICMPv6 */
    assert_int_equal(ip[7], 255); /* RFC 4861 6.1.2: hosts drop any other */
    assert_memory_equal(ip + 8, our_ll, 16);
    assert_memory_equal(ip + 24, all_nodes, 16);
    const uint8_t *m = ip + 40;
    assert_int_equal(m[0], 134); /* router advertisement */
    assert_int_equal(m[1], 0);   /* code */
    assert_int_equal(ref_icmp6_csum(ip, m, len - 54u), 0);
    assert_int_equal(inet6_upper_csum(ip, m, len - 54u, 58), 0);
    assert_int_equal(m[4], 64);  /* Cur Hop Limit */
    assert_int_equal(m[5], 0);   /* M = O = 0, reserved 0 */
    assert_int_equal((m[6] << 8) | m[7], 1800); /* Router Lifetime */
    assert_int_equal(be32(m + 8), 0);           /* Reachable Time: unspecified */
    assert_int_equal(be32(m + 12), 0);          /* Retrans Timer: unspecified */
    return m;
}

/* --- the message ------------------------------------------------------------------------------ */

static void test_build_every_field(void **state)
{
    (void)state;
    uint8_t f[256];
    memset(f, 0xa5, sizeof(f));
    uint16_t len = ra6_build(f, sizeof(f), &ifc, 1500);
    assert_int_equal(len, 118);
    assert_int_equal(len, RA6_FRAME_MAX_BYTES);
    const uint8_t *m = assert_ra_head(f, len);
    /* source link-layer address (4.6.1) */
    const uint8_t *o = m + 16;
    assert_int_equal(o[0], 1);
    assert_int_equal(o[1], 1);
    assert_memory_equal(o + 2, our_mac, 6);
    /* MTU (4.6.4) */
    o += 8;
    static const uint8_t mtu[8] = { 5, 1, 0, 0, 0, 0, 0x05, 0xdc };
    assert_memory_equal(o, mtu, 8);
    /* prefix information (4.6.2) */
    o += 8;
    assert_int_equal(o[0], 3);
    assert_int_equal(o[1], 4);
    assert_int_equal(o[2], 64);
    assert_int_equal(o[3], 0xc0);              /* L and A */
    assert_int_equal(be32(o + 4), 2592000);    /* valid lifetime: 30 days */
    assert_int_equal(be32(o + 8), 604800);     /* preferred lifetime: 7 days */
    assert_int_equal(be32(o + 12), 0);         /* Reserved2 */
    static const uint8_t prefix[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18 };
    assert_memory_equal(o + 16, prefix, 16);   /* host bits cleared */
    assert_int_equal(o + 32 - f, len);
    assert_int_equal(f[len], 0xa5);            /* nothing written past the frame */
}

/* A only where a 64-bit interface identifier completes an address; the prefix's host bits are
 * always zero, whatever the length. */
static void test_build_autonomous_only_at_64(void **state)
{
    (void)state;
    static const struct {
        uint8_t len;
        uint8_t flags;
        uint8_t prefix[16];
    } cases[] = {
        { 64, 0xc0, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18 } },
        { 48, 0x80, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18 } },
        { 56, 0x80, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18 } },
        { 63, 0x80, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18 } },
        { 65, 0x80, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18 } },
        { 16, 0x80, { 0x20, 0x01 } },
        { 20, 0x80, { 0x20, 0x01, 0x00 } },
        { 127, 0x80, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18, [15] = 0x00 } },
        { 128, 0x80, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18, [15] = 0x01 } },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t f[256];
        ifc.prefix_len = cases[i].len;
        ifc.global[12] = 0xab; /* a host bit for every length up to /96 */
        uint16_t len = ra6_build(f, sizeof(f), &ifc, 1500);
        assert_int_equal(len, 118);
        const uint8_t *o = assert_ra_head(f, len) + 32;
        assert_int_equal(o[2], cases[i].len);
        assert_int_equal(o[3], cases[i].flags);
        uint8_t want[16];
        memcpy(want, cases[i].prefix, 16);
        if (cases[i].len > 96) {
            want[12] = 0xab;
        }
        assert_memory_equal(o + 16, want, 16);
    }
}

/* The MTU option carries the port's MTU, and is left out below IPv6's 1280 (hosts must ignore
 * it, RFC 4861 6.3.4); no global address, no prefix option. */
static void test_build_options_present(void **state)
{
    (void)state;
    uint8_t f[256];
    uint16_t len = ra6_build(f, sizeof(f), &ifc, 1280);
    assert_int_equal(len, 118);
    assert_int_equal(be32(assert_ra_head(f, len) + 28), 1280);
    len = ra6_build(f, sizeof(f), &ifc, 9000);
    assert_int_equal(be32(assert_ra_head(f, len) + 28), 9000);

    len = ra6_build(f, sizeof(f), &ifc, 1279);
    assert_int_equal(len, 110);
    const uint8_t *m = assert_ra_head(f, len);
    assert_int_equal(m[16], 1); /* source link-layer address, then straight to the prefix */
    assert_int_equal(m[24], 3);
    assert_int_equal(m[26], 64);

    ifc.has_global = false;
    len = ra6_build(f, sizeof(f), &ifc, 1500);
    assert_int_equal(len, 86);
    m = assert_ra_head(f, len);
    assert_int_equal(m[16], 1);
    assert_int_equal(m[24], 5);
    len = ra6_build(f, sizeof(f), &ifc, 576);
    assert_int_equal(len, 78); /* the least we send, still no padding needed */
    assert_ra_head(f, len);
}

static void test_build_refused(void **state)
{
    (void)state;
    uint8_t f[256];
    memset(f, 0x5a, sizeof(f));
    assert_int_equal(ra6_build(f, 117, &ifc, 1500), 0);
    assert_int_equal(ra6_build(f, 0, &ifc, 1500), 0);
    assert_int_equal(ra6_build(f, 110, &ifc, 1500), 0);
    assert_int_equal(ra6_build(f, 118, &ifc, 1500), 118);
    assert_int_equal(ra6_build(f, 110, &ifc, 1000), 110);
    memset(f, 0x5a, sizeof(f));
    ifc.enabled = false;
    assert_int_equal(ra6_build(f, sizeof(f), &ifc, 1500), 0);
    ifc.enabled = true;
    memset(ifc.link_local, 0, 16);
    assert_int_equal(ra6_build(f, sizeof(f), &ifc, 1500), 0);
    for (size_t i = 0; i < sizeof(f); i++) {
        assert_int_equal(f[i], 0x5a); /* a refusal writes nothing */
    }
}

/* --- the timing ------------------------------------------------------------------------------- */

static void test_timer_initial_then_periodic(void **state)
{
    (void)state;
    struct ra6_timer t = { 0 };
    uint64_t now = 5 * S_NS;
    ra6_timer_start(&t, now);
    assert_int_equal(t.initial_left, 3);
    assert_false(ra6_timer_due(&t, now + S_NS - 1));
    assert_true(ra6_timer_due(&t, now + S_NS)); /* 1 s: past the addresses' tentative second */
    now += S_NS;
    /* the first three at most 16 s apart, whatever the draw; then 200..600 s */
    static const uint64_t draws[] = { 0, UINT64_MAX, 12345 };
    for (int i = 0; i < 2; i++) {
        ra6_timer_sent(&t, now, draws[i]);
        assert_true(t.next_ns - now <= 16 * S_NS);
        assert_true(t.next_ns - now >= 3 * S_NS);
        now = t.next_ns;
    }
    ra6_timer_sent(&t, now, 0);
    assert_int_equal(t.initial_left, 0);
    assert_int_equal(t.next_ns - now, 200 * S_NS); /* draw 0: MinRtrAdvInterval */
    now = t.next_ns;
    ra6_timer_sent(&t, now, 400 * S_NS);
    assert_int_equal(t.next_ns - now, 600 * S_NS); /* the top of the range */
    now = t.next_ns;
    ra6_timer_sent(&t, now, 400 * S_NS + 1);
    assert_int_equal(t.next_ns - now, 200 * S_NS); /* and round again */
    /* many draws: always inside [200 s, 600 s], and they spread over it */
    uint64_t lo = UINT64_MAX, hi = 0, x = 0x12345678;
    for (int i = 0; i < 10000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        ra6_timer_sent(&t, now, x);
        uint64_t d = t.next_ns - now;
        assert_true(d >= 200 * S_NS && d <= 600 * S_NS);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    assert_true(lo < 210 * S_NS && hi > 590 * S_NS);
}

static void test_timer_solicited(void **state)
{
    (void)state;
    struct ra6_timer t = { 0 };
    uint64_t now = 100 * S_NS;
    ra6_timer_start(&t, now);
    ra6_timer_sent(&t, now + S_NS, 0);
    ra6_timer_sent(&t, now + 17 * S_NS, 0);
    ra6_timer_sent(&t, now + 33 * S_NS, 0); /* periodic now: next at +233 s */
    assert_false(t.solicited);
    now += 100 * S_NS;
    /* 6.2.6: within MAX_RA_DELAY_TIME, at random */
    ra6_timer_solicit(&t, now, 0);
    assert_int_equal(t.next_ns, now);
    assert_true(t.solicited);
    ra6_timer_solicit(&t, now, 500 * MS_NS); /* a later draw does not put it off */
    assert_int_equal(t.next_ns, now);
    ra6_timer_sent(&t, now, 0);
    assert_false(t.solicited);
    assert_int_equal(t.next_ns, now + 200 * S_NS); /* a solicited one restarts the interval */
    ra6_timer_solicit(&t, now + 10 * S_NS, 500 * MS_NS);
    assert_int_equal(t.next_ns, now + 10 * S_NS + 500 * MS_NS);
    ra6_timer_solicit(&t, now + 10 * S_NS, 500 * MS_NS + 1); /* the draw's range is 0..0.5 s */
    assert_int_equal(t.next_ns, now + 10 * S_NS);
    ra6_timer_sent(&t, now + 10 * S_NS, 0);
    now += 10 * S_NS;
    /* MIN_DELAY_BETWEEN_RAS: a solicitation right after one waits for 3 s past it; every one
     * until then is answered by that one */
    ra6_timer_solicit(&t, now + S_NS, 0);
    assert_int_equal(t.next_ns, now + 3 * S_NS);
    ra6_timer_solicit(&t, now + 2 * S_NS, 300 * MS_NS);
    assert_int_equal(t.next_ns, now + 3 * S_NS);
    ra6_timer_solicit(&t, now + 2900 * MS_NS, 300 * MS_NS);
    assert_int_equal(t.next_ns, now + 3 * S_NS);
    assert_true(t.solicited);
    /* one already due sooner answers it, and is marked so */
    struct ra6_timer u = { 0 };
    ra6_timer_start(&u, now);
    ra6_timer_solicit(&u, now, 500 * MS_NS);
    assert_int_equal(u.next_ns, now + 500 * MS_NS); /* sooner than the first's 1 s */
    ra6_timer_start(&u, now);
    u.next_ns = now + 100 * MS_NS;
    ra6_timer_solicit(&u, now, 400 * MS_NS);
    assert_int_equal(u.next_ns, now + 100 * MS_NS);
    assert_true(u.solicited);
}

/* A link that comes back soon after an advertisement starts over, but not within 3 s of it. */
static void test_timer_restart(void **state)
{
    (void)state;
    struct ra6_timer t = { 0 };
    uint64_t now = 50 * S_NS;
    ra6_timer_start(&t, now);
    ra6_timer_sent(&t, now + S_NS, 0);
    ra6_timer_sent(&t, now + 17 * S_NS, 0);
    ra6_timer_sent(&t, now + 33 * S_NS, 0);
    assert_int_equal(t.initial_left, 0);
    ra6_timer_start(&t, now + 33 * S_NS + 500 * MS_NS);
    assert_int_equal(t.initial_left, 3);
    assert_int_equal(t.next_ns, now + 36 * S_NS);
    ra6_timer_start(&t, now + 40 * S_NS);
    assert_int_equal(t.next_ns, now + 41 * S_NS);
}

/* --- the sender, against stubs of its floor -------------------------------------------------- */

#define POOL_N 8
static struct pkb_pool pool;
static struct pkb pool_meta[POOL_N];
static struct pkb *pool_stack[POOL_N];
static uint8_t pool_data[POOL_N * PKB_DATA_BYTES] __attribute__((aligned(2048)));

static struct nic_queue queues[2][1];
static struct nic_port ports[2];
static unsigned nports;
static uint64_t clock_ns = 1000 * S_NS;

/* What was sent: every frame through nexthop_send, copied. */
#define SENT_MAX 64
static struct {
    unsigned port;
    uint64_t at;
    uint16_t len;
    uint8_t f[RA6_FRAME_MAX_BYTES];
} sent[SENT_MAX];
static unsigned nsent;
static char console[1024];

struct net_port net_ifaces[NET_MAX_IFACES];

unsigned nic_port_count(void)
{
    return nports;
}

struct nic_port *nic_port(unsigned i)
{
    return &ports[i];
}

struct pkb_pool *nic_pool(unsigned core)
{
    assert_int_equal(core, 0);
    return &pool;
}

bool nexthop_send(unsigned core, const struct net_port *np, struct pkb *b)
{
    assert_int_equal(core, 0);
    assert_true(nsent < SENT_MAX);
    assert_true(b->len <= RA6_FRAME_MAX_BYTES);
    assert_int_equal(b->forwarded, 0);
    assert_int_equal(b->tx_flags, 0);
    sent[nsent].port = np->ifc.port;
    sent[nsent].at = clock_ns;
    sent[nsent].len = b->len;
    memcpy(sent[nsent].f, b->data, b->len);
    nsent++;
    pkb_free(b, 0);
    return true;
}

uint64_t time_ns(void)
{
    return clock_ns;
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t used = strlen(console);
    int n = vsnprintf(console + used, sizeof(console) - used, fmt, ap);
    va_end(ap);
    return n;
}

WS_TABLE_DECLARE(struct poller, ws_pollers);
WS_TABLE_DECLARE(struct init_step, ws_inits);

/* The sender's poller and boot step, found as the kernel finds them: in their tables. */
static const struct poller *ra6_poller(void)
{
    assert_int_equal(WS_TABLE_COUNT(ws_pollers), 1);
    const struct poller *p = WS_TABLE_BEGIN(ws_pollers);
    assert_string_equal(p->name, "ra6");
    assert_int_equal(p->period_us, 100000);
    assert_true(p->runs_on(0) && !p->runs_on(1));
    return p;
}

static void run_init(void)
{
    assert_int_equal(WS_TABLE_COUNT(ws_inits), 1);
    struct init_ctx ctx = { .ncores = 1 };
    assert_int_equal(WS_TABLE_BEGIN(ws_inits)->run(&ctx), 0);
}

/* Run the poller every 100 ms until `until` (ns). */
static void run_until(uint64_t until)
{
    const struct poller *p = ra6_poller();
    while (clock_ns + 100 * MS_NS <= until) {
        clock_ns += 100 * MS_NS;
        p->poll(0);
    }
}

/* Two ports, link up, port0 advertising; both have IPv6, so port1's silence is its config. The
 * sender keeps its state from test to test, as it would from link to link: each test starts
 * with a new link, and the clock only moves on. */
static int setup_sender(void **state)
{
    static uint64_t links;
    (void)state;
    pkb_pool_init(&pool, 0, pool_meta, pool_stack, pool_data, POOL_N);
    memset(ports, 0, sizeof(ports));
    memset(net_ifaces, 0, sizeof(net_ifaces));
    nports = 2;
    links += 10;
    for (unsigned i = 0; i < 2; i++) {
        ports[i].index = i;
        ports[i].nqueues = 1;
        ports[i].q = queues[i];
        queues[i][0].usable = true;
        ports[i].link_up = true;
        ports[i].link_changes = links;
        struct net_port *np = &net_ifaces[i];
        snprintf(np->name, sizeof(np->name), "port%u", i);
        np->ifc.port = (uint16_t)i;
        np->present = true;
        np->has_address6 = true;
        np->mtu = 1400;
        ifc_init(&np->ifc6);
        np->ifc6.mac[5] = (uint8_t)(1 + i);
        np->ifc6.port = (uint16_t)i;
    }
    net_ifaces[1].ifc6.advertise = false;
    clock_ns += 100000 * S_NS;
    nsent = 0;
    console[0] = '\0';
    return 0;
}

/* Every frame sent is port0's advertisement with the port's MTU, and they go out no closer than
 * 3 s to each other. */
static void assert_sent_valid(void)
{
    for (unsigned i = 0; i < nsent; i++) {
        assert_int_equal(sent[i].port, 0);
        assert_int_equal(sent[i].len, 118);
        const uint8_t *m = assert_ra_head(sent[i].f, sent[i].len);
        assert_int_equal(be32(m + 28), 1400);
        if (i > 0) {
            assert_true(sent[i].at - sent[i - 1].at >= 3 * S_NS);
        }
    }
}

static void test_sender_schedule(void **state)
{
    (void)state;
    run_init();
    const struct ra6_stats base = *ra6_stats_of(0);
    assert_non_null(strstr(console, "port0: router advertisements: prefix 2001:db8:18::/64 "
                                    "(on-link, autonomous), mtu 1400, router lifetime 1800 s, "
                                    "every 200..600 s\n"));
    assert_null(strstr(console, "port1"));
    uint64_t up = clock_ns;
    run_until(up + 900 * MS_NS);
    assert_int_equal(nsent, 0);
    assert_string_equal(ra6_state_name(0), "initial");
    assert_string_equal(ra6_state_name(1), "off");
    run_until(up + 1100 * MS_NS);
    assert_int_equal(nsent, 1); /* 1 s after the link was first seen up */
    run_until(up + 34 * S_NS);
    assert_int_equal(nsent, 3); /* the initial three, 16 s apart */
    assert_int_equal(sent[1].at - sent[0].at, 16 * S_NS);
    assert_int_equal(sent[2].at - sent[1].at, 16 * S_NS);
    assert_string_equal(ra6_state_name(0), "periodic");
    run_until(up + 33 * S_NS + 199 * S_NS);
    assert_int_equal(nsent, 3);
    run_until(up + 3 * 3600 * S_NS);
    assert_true(nsent >= 3 + 17 && nsent <= 3 + 3 * 3600 / 200); /* 17 x 600 s < 3 h - 34 s */
    for (unsigned i = 3; i < nsent; i++) {
        uint64_t gap = sent[i].at - sent[i - 1].at;
        assert_true(gap >= 200 * S_NS && gap <= 600 * S_NS + 100 * MS_NS);
    }
    assert_sent_valid();
    assert_int_equal(ra6_stats_of(0)->sent - base.sent, nsent);
    assert_int_equal(ra6_stats_of(0)->solicited - base.solicited, 0);
    assert_int_equal(ra6_stats_of(1)->sent, 0);
}

static void test_sender_solicited(void **state)
{
    (void)state;
    run_init();
    const struct ra6_stats base = *ra6_stats_of(0);
    run_until(clock_ns + 60 * S_NS); /* past the initial three */
    unsigned before = nsent;
    uint64_t rs_at = clock_ns;
    ra6_solicited(0, rs_at);
    ra6_solicited(0, rs_at + 1); /* a second one before the answer: the same answer */
    ra6_solicited(1, rs_at);     /* port1 does not advertise: nothing */
    ra6_solicited(7, rs_at);     /* no such port: nothing */
    run_until(rs_at + 700 * MS_NS);
    assert_int_equal(nsent, before + 1);
    assert_true(sent[before].at - rs_at <= 600 * MS_NS); /* 0.5 s, and the poll's 100 ms */
    /* one right after is put off to 3 s after the answer */
    ra6_solicited(0, clock_ns);
    run_until(sent[before].at + 2900 * MS_NS);
    assert_int_equal(nsent, before + 1);
    run_until(sent[before].at + 3100 * MS_NS);
    assert_int_equal(nsent, before + 2);
    assert_int_equal(ra6_stats_of(0)->sent - base.sent, nsent);
    assert_int_equal(ra6_stats_of(0)->solicited - base.solicited, 2);
    assert_sent_valid();
}

/* No link, no advertisement; every new link starts the initial ones again. */
static void test_sender_link(void **state)
{
    (void)state;
    run_init();
    ports[0].link_up = false;
    run_until(clock_ns + 40 * S_NS);
    assert_int_equal(nsent, 0);
    assert_string_equal(ra6_state_name(0), "waiting for link");
    ra6_solicited(0, clock_ns); /* nothing to answer on */
    ports[0].link_up = true;
    ports[0].link_changes++;
    uint64_t up = clock_ns;
    run_until(up + 40 * S_NS);
    assert_int_equal(nsent, 3);
    assert_true(sent[0].at - up <= 1100 * MS_NS);
    /* a flap between two polls: seen by its count */
    ports[0].link_changes += 2;
    run_until(clock_ns + 100 * MS_NS);
    assert_string_equal(ra6_state_name(0), "initial");
    run_until(clock_ns + 40 * S_NS);
    assert_int_equal(nsent, 6);
    /* a queue core 0 may not use (a port being reset) is no link either */
    queues[0][0].usable = false;
    run_until(clock_ns + 700 * S_NS);
    assert_int_equal(nsent, 6);
    assert_string_equal(ra6_state_name(0), "waiting for link");
    assert_sent_valid();
    /* no port at all, or one without IPv6 */
    nports = 0;
    run_until(clock_ns + 100 * MS_NS);
    assert_string_equal(ra6_state_name(0), "off");
    assert_string_equal(ra6_state_name(9), "off");
}

static void test_sender_no_buffer(void **state)
{
    (void)state;
    run_init();
    const struct ra6_stats base = *ra6_stats_of(0);
    struct pkb *held[POOL_N];
    for (unsigned i = 0; i < POOL_N; i++) {
        held[i] = pkb_alloc(&pool);
        assert_non_null(held[i]);
    }
    run_until(clock_ns + 3500 * MS_NS);
    assert_int_equal(nsent, 0);
    /* the first due at 1 s, then tried again once a second */
    assert_int_equal(ra6_stats_of(0)->alloc_fail - base.alloc_fail, 3);
    pkb_free(held[0], 0);
    run_until(clock_ns + S_NS);
    assert_int_equal(nsent, 1);
    assert_int_equal(ra6_stats_of(0)->alloc_fail - base.alloc_fail, 3);
    assert_int_equal(ra6_stats_of(0)->sent - base.sent, 1);
    assert_int_equal(pool.nfree, 1); /* the frame went back (nexthop_send's stub frees it) */
    for (unsigned i = 1; i < POOL_N; i++) {
        pkb_free(held[i], 0);
    }
    assert_sent_valid();
}

/* A prefix other than /64 is advertised on-link only, and the boot line says so. */
static void test_sender_not_64(void **state)
{
    (void)state;
    net_ifaces[0].ifc6.prefix_len = 48;
    net_ifaces[0].mtu = 1000;
    run_init();
    assert_non_null(strstr(console, "port0: router advertisements: prefix 2001:db8:18::/48 "
                                    "(on-link; not /64: no autoconf), no mtu option: below 1280 "
                                    "is 1000,"));
    run_until(clock_ns + 1100 * MS_NS);
    assert_true(nsent >= 1);
    const uint8_t *m = assert_ra_head(sent[nsent - 1].f, sent[nsent - 1].len);
    assert_int_equal(sent[nsent - 1].len, 110);
    assert_int_equal(m[24], 3);
    assert_int_equal(m[27], 0x80);
}

static int setup_ifc(void **state)
{
    (void)state;
    ifc_init(&ifc);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_build_every_field, setup_ifc),
        cmocka_unit_test_setup(test_build_autonomous_only_at_64, setup_ifc),
        cmocka_unit_test_setup(test_build_options_present, setup_ifc),
        cmocka_unit_test_setup(test_build_refused, setup_ifc),
        cmocka_unit_test(test_timer_initial_then_periodic),
        cmocka_unit_test(test_timer_solicited),
        cmocka_unit_test(test_timer_restart),
        cmocka_unit_test_setup(test_sender_schedule, setup_sender),
        cmocka_unit_test_setup(test_sender_solicited, setup_sender),
        cmocka_unit_test_setup(test_sender_link, setup_sender),
        cmocka_unit_test_setup(test_sender_no_buffer, setup_sender),
        cmocka_unit_test_setup(test_sender_not_64, setup_sender),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
