/*
 * apps/sink/basic.c: discard (RFC 863) and echo (RFC 862) over TCP and UDP. A TCP connection
 * holds one of sink.max_connections slots (both services together); the next is reset and
 * counted as refused. Echo never reads faster than it can send back: unsent bytes stay
 * unacknowledged to lwIP (tcp_recved is withheld), so a fast sender is slowed by TCP's own
 * window instead of filling our memory. What echo has written and the client not yet
 * acknowledged is copied into lwIP's memory (its MSS-sized pool, net/lwip-port/lwippools.h);
 * it is capped per connection (ECHO_MAX_UNACKED), so that clients which send but never read
 * cannot take the whole pool (16 connections x lwIP's 256 KiB send buffer would be more than
 * its 3.3 MiB) from iperf3 and netperf. What echo has received
 * and not yet written back stays in the driver's buffers it arrived in, so an echo connection
 * offers a 64 KiB receive window (ECHO_WINDOW), not lwIP's 256 KiB: clients that send but never
 * read hold at most that each, and their cores keep buffers to receive and forward with.
 */
#include <string.h>

#include "config.h"
#include "console.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/lwip-port/tcp_hooks.h"
#include "sink.h"

#define DISCARD_PORT 9
#define ECHO_PORT 7
#define ECHO_MAX_UNACKED (64 * 1024) /* a few LAN round trips of data at 10 Gb/s */
#define ECHO_WINDOW 65535u           /* the most a SYN offers: see lwport_tcp_cap_window */

struct basic_conn {
    struct tcp_pcb *pcb; /* NULL: slot free */
    enum sink_service svc;
    struct pbuf *pending; /* echo: received, not yet written back */
    bool fin;             /* the peer has closed its side */
};

static struct basic_conn basic_conns[CONFIG_SINK_MAX_CONNECTIONS];

static struct basic_conn *basic_slot(void)
{
    for (unsigned i = 0; i < CONFIG_SINK_MAX_CONNECTIONS; i++) {
        if (basic_conns[i].pcb == NULL) {
            return &basic_conns[i];
        }
    }
    return NULL;
}

/* basic_release: forget the connection (the pcb is closed, aborted or already freed). */
static void basic_release(struct basic_conn *c, bool failed)
{
    struct sink_service_stats *st = &sink_stats[c->svc];
    if (c->pending) {
        pbuf_free(c->pending);
    }
    if (failed) {
        st->tests_failed++;
    } else {
        st->tests_done++;
    }
    st->active--;
    memset(c, 0, sizeof(*c));
}

static void basic_close(struct basic_conn *c)
{
    struct tcp_pcb *pcb = c->pcb;
    tcp_arg(pcb, NULL);
    tcp_recv(pcb, NULL);
    tcp_sent(pcb, NULL);
    tcp_err(pcb, NULL);
    err_t closed = c->svc == SINK_ECHO ? lwport_tcp_close_capped(pcb, ECHO_WINDOW) : tcp_close(pcb);
    if (closed != ERR_OK) {
        tcp_abort(pcb); /* out of memory for the FIN: a reset still ends it */
    }
    basic_release(c, false);
}

/* echo_room: bytes echo may write now: what lwIP's send buffer takes, within the cap.
 * snd_buf itself, not tcp_sndbuf(), which window scaling clamps to 16 bits. */
static u16_t echo_room(const struct tcp_pcb *pcb)
{
    uint32_t unacked = TCP_SND_BUF - pcb->snd_buf;
    uint32_t room = unacked >= ECHO_MAX_UNACKED ? 0 : ECHO_MAX_UNACKED - unacked;
    return (u16_t)LWIP_MIN(LWIP_MIN(room, pcb->snd_buf), 0xffff);
}

/* echo_flush: write back as much pending data as echo_room allows. */
static void echo_flush(struct basic_conn *c)
{
    while (c->pending) {
        struct pbuf *p = c->pending;
        /* An empty pbuf is skipped: lwIP leaves some at the front of a chain it trimmed (a
         * retransmission overlapping what it had, in runs of segments, net/gro.h). */
        if (p->len > 0) {
            u16_t room = echo_room(c->pcb);
            u16_t n = LWIP_MIN(room, p->len);
            if (n == 0 || tcp_write(c->pcb, p->payload, n, TCP_WRITE_FLAG_COPY) != ERR_OK) {
                break;
            }
            sink_stats[SINK_ECHO].tx_bytes += n;
            tcp_recved(c->pcb, n); /* only now may the peer send more */
            if (n < p->len) {
                pbuf_remove_header(p, n);
                break;
            }
        }
        c->pending = p->next;
        if (p->next) {
            pbuf_ref(p->next);
        }
        pbuf_free(p);
    }
    tcp_output(c->pcb);
    if (c->fin && c->pending == NULL) {
        basic_close(c);
    }
}

static err_t basic_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct basic_conn *c = arg;
    (void)err;
    if (p == NULL) { /* FIN */
        c->fin = true;
        if (c->svc == SINK_ECHO) {
            echo_flush(c);
        } else {
            basic_close(c);
        }
        return ERR_OK;
    }
    sink_stats[c->svc].rx_bytes += p->tot_len;
    if (c->svc == SINK_DISCARD) {
        tcp_recved(pcb, p->tot_len);
        pbuf_free(p);
        return ERR_OK;
    }
    if (c->pending) {
        pbuf_cat(c->pending, p);
    } else {
        c->pending = p;
    }
    echo_flush(c);
    return ERR_OK;
}

static err_t basic_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    (void)pcb;
    (void)len;
    echo_flush(arg);
    return ERR_OK;
}

/* basic_err: lwIP has already freed the pcb (reset by the peer, or given up retransmitting). */
static void basic_err(void *arg, err_t err)
{
    (void)err;
    struct basic_conn *c = arg;
    if (c) {
        c->pcb = NULL;
        basic_release(c, true);
    }
}

static err_t basic_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    enum sink_service svc = (enum sink_service)(uintptr_t)arg;
    struct basic_conn *c = basic_slot();
    if (err != ERR_OK || pcb == NULL) {
        return ERR_VAL;
    }
    if (c == NULL) {
        sink_stats[svc].refused++;
        tcp_abort(pcb); /* a reset: the client learns at once */
        return ERR_ABRT;
    }
    *c = (struct basic_conn){ .pcb = pcb, .svc = svc };
    sink_stats[svc].tests_run++;
    sink_stats[svc].active++;
    ip_set_option(pcb, SOF_KEEPALIVE); /* a peer that vanishes is found and freed */
    if (svc == SINK_ECHO) {
        lwport_tcp_cap_window(pcb, ECHO_WINDOW);
    }
    tcp_arg(pcb, c);
    tcp_recv(pcb, basic_recv);
    tcp_sent(pcb, basic_sent);
    tcp_err(pcb, basic_err);
    return ERR_OK;
}

static void basic_udp_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                           u16_t port)
{
    enum sink_service svc = (enum sink_service)(uintptr_t)arg;
    struct sink_service_stats *st = &sink_stats[svc];
    st->rx_datagrams++;
    st->rx_bytes += p->tot_len;
    if (svc == SINK_ECHO && udp_sendto(pcb, p, addr, port) == ERR_OK) {
        st->tx_datagrams++;
        st->tx_bytes += p->tot_len;
    }
    pbuf_free(p);
}

static void basic_listen(enum sink_service svc, u16_t port)
{
    void *arg = (void *)(uintptr_t)svc;
    struct tcp_pcb *t = tcp_new_ip_type(IPADDR_TYPE_ANY); /* IPv4 and IPv6 */
    struct tcp_pcb *l = NULL;
    if (t && tcp_bind(t, IP_ANY_TYPE, port) == ERR_OK) {
        l = tcp_listen(t);
    }
    if (l == NULL) {
        kprintf("sink: cannot listen on TCP port %u\n", port);
        if (t) {
            tcp_close(t);
        }
    } else {
        tcp_arg(l, arg);
        tcp_accept(l, basic_accept);
    }
    struct udp_pcb *u = udp_new_ip_type(IPADDR_TYPE_ANY);
    if (u == NULL || udp_bind(u, IP_ANY_TYPE, port) != ERR_OK) {
        kprintf("sink: cannot bind UDP port %u\n", port);
        if (u) {
            udp_remove(u);
        }
        return;
    }
    udp_recv(u, basic_udp_recv, arg);
}

void sink_basic_init(void)
{
    if (CONFIG_SINK_DISCARD) {
        basic_listen(SINK_DISCARD, DISCARD_PORT);
    }
    if (CONFIG_SINK_ECHO) {
        basic_listen(SINK_ECHO, ECHO_PORT);
    }
}
