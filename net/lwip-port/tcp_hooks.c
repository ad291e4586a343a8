/*
 * net/lwip-port/tcp_hooks.c: what the firmware adds to lwIP's TCP (lwip_hooks.h): the hook that
 * sees every segment before lwIP (counters lwIP's MIB-II does not keep, the SYN-flood defence),
 * and a fix for a persist-timer bug of lwIP 2.1.3. Sink core only, like lwIP.
 */
#include "net/lwip-port/tcp_hooks.h"

#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "drivers/nic/nic.h"
#include "net/lwip-port/lwip_hooks.h"
#include "net/lwip-port/sink_netif.h"
#include "net/nexthop.h"
#include "net/nexthop6.h"

struct lwport_tcp_stats lwport_tcp_stats;

/*
 * lwport_tcp_persist_fixup: lwIP 2.1.3 (and its master branch, 3d896ba0) can leave a connection's
 * persist timer running with nothing left to send. When the retransmission timer fires while
 * the peer's window is shut, tcp_rexmit_rto moves the data in flight back to the unsent queue
 * and tcp_output, unable to send it, starts the persist timer; a later ACK of that data frees
 * it from the unsent queue (tcp_receive) but leaves the timer on. tcp_slowtmr then fails the
 * assertion "persist ticking with empty send buffer": a panic that any peer can cause (without
 * assertions the connection would be dropped after TCP_MAXRTX empty probes). The timer is
 * meant to be off when there is nothing to send (tcp_zero_window_probe says so), so stop such
 * timers before lwIP's run; tcp_output starts it again if data is written into a shut window.
 * Found by tests/fuzz/fuzz_lwip.c; test_tcp_zero_window_then_late_ack replays it.
 */
void lwport_tcp_persist_fixup(void)
{
    for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb != NULL; pcb = pcb->next) {
        if (pcb->persist_backoff != 0 && pcb->unsent == NULL) {
            pcb->persist_backoff = 0;
            lwport_tcp_stats.persist_stopped++;
        }
    }
}

/*
 * lwport_tcp_ack_burst: lwIP acknowledges every second full segment at once and leaves a lone
 * one (an odd last segment, a small write) to its fast timer, up to 250 ms later. A client
 * with Nagle's algorithm on sends its next small segment only once the last is acknowledged,
 * so small writes would crawl at a few per 250 ms. Here the end of a receive burst is the
 * moment: whatever lwIP holds back is acknowledged then. A stream of full segments costs at
 * most one ACK more per burst; a request answered at once (echo, TCP_RR) has already carried
 * its ACK on the answer, so nothing changes there. Linux likewise ACKs at once in quick-ack
 * mode and after each GRO batch.
 */
void lwport_tcp_ack_burst(void)
{
    for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb != NULL; pcb = pcb->next) {
        if ((pcb->flags & TF_ACK_DELAY) != 0) {
            tcp_ack_now(pcb);
            tcp_output(pcb);
            lwport_tcp_stats.burst_acks++;
        }
    }
}

/* lwport_evict_half_open: a SYN found listener l's backlog full (a SYN flood, most likely from
 * spoofed addresses that never complete the handshake). lwIP would drop the SYN, and keep
 * dropping every SYN, legitimate ones too, until a half-open connection times out (20 s).
 * Instead one half-open connection of that listener is reset to make room: the oldest whose
 * peer we cannot even reach (no route, or no ARP answer: our SYN-ACK never left), else the
 * oldest. A real client is reachable and completes its handshake within a round trip. */
static bool lwport_peer_reachable(const ip_addr_t *a)
{
    if (IP_IS_V6(a)) {
        return nexthop6_neighbour_known((const uint8_t *)ip_2_ip6(a)->addr);
    }
    return nexthop_neighbour_known(lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(a))));
}

static void lwport_evict_half_open(struct tcp_pcb_listen *l)
{
    struct tcp_pcb *oldest = NULL, *unreachable = NULL;
    for (struct tcp_pcb *p = tcp_active_pcbs; p != NULL; p = p->next) {
        if (p->state != SYN_RCVD || p->listener != l) {
            continue;
        }
        u32_t age = (u32_t)(tcp_ticks - p->tmr);
        if (oldest == NULL || age > (u32_t)(tcp_ticks - oldest->tmr)) {
            oldest = p;
        }
        if (!lwport_peer_reachable(&p->remote_ip) &&
            (unreachable == NULL || age > (u32_t)(tcp_ticks - unreachable->tmr))) {
            unreachable = p;
        }
    }
    struct tcp_pcb *victim = unreachable ? unreachable : oldest;
    if (victim != NULL) {
        lwport_tcp_stats.half_open_evicted++;
        tcp_abort(victim);
    }
}

/* The hook lwIP calls for every segment that found its pcb, before processing it
 * (lwip_hooks.h): the TCP counters lwIP's MIB does not have, and the SYN flood defence. */
/*
 * lwport_ooseq_past_window: lwIP 2.1.3 puts the first out-of-order segment on an empty queue
 * whole, even when it ends past the receive window (tcp_receive trims only a segment it appends
 * behind others); when the hole before it fills, its assertion "ooseq tcplen > rcv_wnd" fires:
 * a panic any peer can cause once a connection's window is small (an echo client that does not
 * read, with echo's 64 KiB window). Found by tests/fuzz/fuzz_lwip.c. No sender that keeps to
 * the window it is told sends such a segment, so it is dropped here, not trimmed.
 */
static bool lwport_ooseq_past_window(const struct tcp_pcb *pcb, const struct tcp_hdr *hdr,
                                     const struct pbuf *p)
{
    u32_t end = hdr->seqno + p->tot_len + ((TCPH_FLAGS(hdr) & TCP_FIN) ? 1u : 0u);
    return TCP_SEQ_GT(end, pcb->rcv_nxt + pcb->rcv_wnd);
}

/*
 * TCP segmentation offload. lwIP 2.1.3 sizes every segment to pcb->mss, and each costs it a
 * header pbuf, a reference pbuf, a trip through tcp_output, ip4_output and the glue, and an
 * entry in the unacknowledged queue. For a connection that sends from constant memory, the
 * glue can instead give the NIC one segment of up to 16 KiB and let it cut the wire segments
 * (PKB_TX_TSO): so lwIP's MSS for it is raised to the largest multiple of the peer's MSS that
 * fits (tcp_write still keeps each segment within half the peer's largest window), and the
 * peer's MSS is kept in the pcb's extension word for the glue. The raise waits for the first
 * segment from the peer after the handshake: lwIP computes the initial congestion window from
 * the MSS once the connection is established (tcp_process), and that window stays the
 * RFC 3390 one. lwIP never sends more than its congestion window and assumes it holds at least
 * one segment (tcp_output starts no timer otherwise), so the window is raised to one large
 * segment, about RFC 6928's initial window of ten. Retransmissions and a zero-window probe's
 * split segments stay the large segments lwIP made: the glue sends copied data in frames of
 * the peer's MSS (sink_netif.c).
 */
#define LWPORT_TSO_WANTED 0x10000u /* ext word: raise at the next segment from the peer */
static u8_t lwport_ext_id = 0xFF;
static struct {
    u32_t seqno; /* network order, as in the header */
    u16_t src, dest;
    u16_t wire_mss;
} lwport_tx_next;

static uintptr_t lwport_ext_word(const struct tcp_pcb *pcb)
{
    return lwport_ext_id == 0xFF ? 0 : (uintptr_t)pcb->ext_args[lwport_ext_id].data;
}

void lwport_tcp_offload_segments(struct tcp_pcb *pcb)
{
    if (IP_IS_V6(&pcb->remote_ip)) {
        return; /* the TX rings' contexts are TCP over IPv4 */
    }
    if (lwport_ext_id == 0xFF) {
        lwport_ext_id = tcp_ext_arg_alloc_id();
    }
    tcp_ext_arg_set(pcb, lwport_ext_id, (void *)(uintptr_t)LWPORT_TSO_WANTED);
    tcp_nagle_disable(pcb);
}

/* lwport_tso_raise: the peer's first segment after the handshake reached offloaded pcb. */
static void lwport_tso_raise(struct tcp_pcb *pcb)
{
    u16_t wire = pcb->mss;
    u32_t big = wire != 0 ? (IRING_TX_TSO_MAX_BYTES / wire) * wire : 0;
    if (big <= wire || wire < IRING_TX_TSO_MIN_MSS || wire > IRING_TX_TSO_MAX_MSS) {
        tcp_ext_arg_set(pcb, lwport_ext_id, NULL); /* nothing to gain, or nothing the NIC cuts */
        return;
    }
    tcp_ext_arg_set(pcb, lwport_ext_id, (void *)(uintptr_t)wire);
    pcb->mss = (u16_t)big;
    if (pcb->cwnd < big) {
        pcb->cwnd = (tcpwnd_size_t)big;
    }
    lwport_tcp_stats.tso_connections++;
}

u32_t *lwport_tcp_out_header(struct pbuf *p, struct tcp_hdr *hdr, const struct tcp_pcb *pcb,
                             u32_t *opts)
{
    uintptr_t w = pcb != NULL ? lwport_ext_word(pcb) : 0;
    lwport_tx_next.seqno = hdr->seqno;
    lwport_tx_next.src = hdr->src;
    lwport_tx_next.dest = hdr->dest;
    lwport_tx_next.wire_mss = (w & LWPORT_TSO_WANTED) ? 0 : (u16_t)w;
    if (lwport_tx_next.wire_mss != 0 &&
        p->tot_len > (u32_t)TCPH_HDRLEN_BYTES(hdr) + lwport_tx_next.wire_mss) {
        sink_netif_mtu_lift(); /* one segment larger than a frame: lwIP must not fragment it */
    }
    return opts;
}

uint16_t lwport_tcp_wire_mss(const uint8_t *tcp)
{
    const struct tcp_hdr *h = (const struct tcp_hdr *)tcp;
    uint16_t mss = lwport_tx_next.wire_mss;
    lwport_tx_next.wire_mss = 0; /* one segment's */
    return h->seqno == lwport_tx_next.seqno && h->src == lwport_tx_next.src &&
                   h->dest == lwport_tx_next.dest ? mss : 0;
}

err_t lwport_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
                        u8_t *opt2, struct pbuf *p)
{
    (void)optlen;
    (void)opt1len;
    (void)opt2;
    struct lwport_tcp_stats *st = &lwport_tcp_stats;
    u8_t flags = TCPH_FLAGS(hdr);
    if (flags & TCP_RST) {
        st->resets_received++;
    }
    if (pcb->state == LISTEN) {
        struct tcp_pcb_listen *l = (struct tcp_pcb_listen *)pcb;
        if ((flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN && l->accepts_pending >= l->backlog) {
            lwport_evict_half_open(l);
        }
        return ERR_OK;
    }
    if (pcb->state < ESTABLISHED || pcb->state == TIME_WAIT) {
        return ERR_OK;
    }
    if (lwport_ext_word(pcb) == LWPORT_TSO_WANTED) {
        lwport_tso_raise(pcb);
    }
    if (p->tot_len > 0 && TCP_SEQ_GT(hdr->seqno, pcb->rcv_nxt)) {
        st->out_of_order++; /* a hole before it: lwIP queues it (pcb->ooseq) if there is room */
        if (lwport_ooseq_past_window(pcb, hdr, p)) {
            st->ooseq_past_window++;
            return ERR_VAL; /* dropped: the sender sends it again, within the window */
        }
    }
    /* RFC 5681's duplicate ACK: no data, no SYN/FIN, nothing newly acknowledged, the window
     * unchanged, while data of ours is outstanding. */
    if (p->tot_len == 0 && !(flags & (TCP_SYN | TCP_FIN | TCP_RST)) && (flags & TCP_ACK) &&
        hdr->ackno == pcb->lastack && pcb->unacked != NULL &&
        ((tcpwnd_size_t)hdr->wnd << pcb->snd_scale) == pcb->snd_wnd) {
        st->dup_acks++;
    }
    return ERR_OK;
}

/*
 * lwport_tcp_cap_window: every lwIP connection offers TCP_WND (sink.tcp_window_kib, scaled) so
 * that one stream can fill a 10 Gb/s path; a service that keeps what it receives until it can
 * act on it (echo, whose client may never read) would then hold that much of its core's
 * receive buffers per connection. Capping a connection's window bounds that at the source.
 * lwIP has no per-connection window, so the pcb's three window fields are set here: the
 * receive window tcp_receive accepts into, the window the next ACK announces, and its right
 * edge. A SYN never carries a scaled window (RFC 7323 2.2), so in the accept callback the peer
 * has been offered at most 65535 bytes: a cap up to that withdraws nothing it was offered, and
 * since the window only reopens by what tcp_recved gives back, it never grows past the cap
 * again.
 */
static tcpwnd_size_t lwport_window_cap(const struct tcp_pcb *pcb, uint32_t bytes)
{
    return (tcpwnd_size_t)LWIP_MIN(LWIP_MIN(bytes, 0xffffu), TCP_WND_MAX(pcb));
}

void lwport_tcp_cap_window(struct tcp_pcb *pcb, uint32_t bytes)
{
    tcpwnd_size_t cap = lwport_window_cap(pcb, bytes);
    if (pcb->rcv_wnd > cap) {
        pcb->rcv_wnd = cap;
    }
    if (pcb->rcv_ann_wnd > cap) {
        pcb->rcv_ann_wnd = cap;
        pcb->rcv_ann_right_edge = pcb->rcv_nxt + cap;
    }
}

/*
 * lwport_tcp_close_capped: tcp_close resets a connection whose receive window is not whole
 * (data the application never took: RFC 2525 2.17) instead of closing it. A capped window is
 * short by design, so what the cap took is given back first: the check then sees only bytes
 * really left untaken. Nothing announces the restored window; the FIN follows at once.
 */
int8_t lwport_tcp_close_capped(struct tcp_pcb *pcb, uint32_t bytes)
{
    if (pcb->state == ESTABLISHED || pcb->state == CLOSE_WAIT) {
        pcb->rcv_wnd += TCP_WND_MAX(pcb) - lwport_window_cap(pcb, bytes);
    }
    return tcp_close(pcb);
}
