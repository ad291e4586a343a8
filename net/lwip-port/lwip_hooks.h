/* net/lwip-port/lwip_hooks.h: the lwIP hooks the sink sets (LWIP_HOOK_FILENAME). */
#ifndef WS_LWIP_HOOKS_H
#define WS_LWIP_HOOKS_H

#include "lwip/ip_addr.h"
#include "lwip/pbuf.h"

struct tcp_pcb;
struct tcp_hdr;

/* RFC 6528 initial sequence numbers: a keyed hash of the connection plus a 4 us clock. */
u32_t sink_tcp_isn(const ip_addr_t *local_ip, u16_t local_port, const ip_addr_t *remote_ip,
                   u16_t remote_port);
#define LWIP_HOOK_TCP_ISN sink_tcp_isn

/* Sees every segment for a pcb before lwIP processes it: counts what lwIP does not
 * (out-of-order segments, duplicate ACKs, resets received). Always lets it through. */
err_t lwport_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
                          u8_t *opt2, struct pbuf *p);
#define LWIP_HOOK_TCP_INPACKET_PCB lwport_tcp_inpacket

/* Sees every TCP header lwIP is about to send (no options added: returns opts): notes the wire
 * MSS of the connection it belongs to for the glue (lwport_tcp_wire_mss). pcb may be NULL. */
u32_t *lwport_tcp_out_header(struct pbuf *p, struct tcp_hdr *hdr, const struct tcp_pcb *pcb,
                             u32_t *opts);
#define LWIP_HOOK_TCP_OUT_ADD_TCPOPTS lwport_tcp_out_header

#endif
