/*
 * tests/hostsim/ixgbe_sim.h: what the parts of ixgbe_sim share. ixgbe_sim.c: reporting, frames,
 * running the appliance, main (one child process per test); ixgbe_sim_init.c: bring-up, the
 * datasheet's order in the model's access log, the failure cases, the link; ixgbe_sim_traffic.c:
 * RSS, ARP/ICMP, the million-frame stream; ixgbe_sim_faults.c: faults with traffic flowing;
 * ixgbe_sim_sfp.c: SFP+ modules, the board's NVM. The platform under it all: ixgbe_platform.h.
 */
#ifndef WS_HOSTSIM_IXGBE_SIM_H
#define WS_HOSTSIM_IXGBE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/hostsim/fwd_sim.h"
#include "tests/hostsim/ixgbe_platform.h"

#define XS_CORES 4         /* the appliance's cores: one queue pair per port each */
#define XS_NQ XS_CORES     /* queues per port */
#define XS_RETA_ENTRIES 128
#define XS_QUIET_ROUNDS 2000
#define XS_PROTO_ICMP 1
#define XS_PROTO_TCP 6
#define XS_PROTO_UDP 17

extern bool xs_verbose;
extern uint64_t xs_frames; /* the stream test's frames (--frames) */

/* --- reporting: FAIL lines, and the one summary line a test leaves ------------------------- */
void xs_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define XS_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            xs_fail(__VA_ARGS__);                                                                  \
        }                                                                                          \
    } while (0)
void xs_expect(const char *what, uint64_t got, uint64_t want);
void xs_expect_console(const char *line);
void xs_summarize(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned xs_failures(void);
const char *xs_test_name(void);
/* xs_check_clean: no model misuse, refused DMA, bad access width, stray MSI-X, config-space
 * write to a read-only bit, on either port. Every test ends with it. */
void xs_check_clean(void);

/* --- frames ---------------------------------------------------------------------------------- */
uint64_t xs_rand(void);
/* xs_build_ipv4: a 60-byte IPv4 frame (TCP, UDP or ICMP echo request); tag in the IP ID; frag
 * makes it a non-first fragment (RSS then hashes the addresses only). Returns its length. */
uint16_t xs_build_ipv4(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t src,
                       uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport, uint16_t tag,
                       bool frag);
/* xs_reta_queue: the queue the driver's redirection table gives a hash (entry i -> i % XS_NQ). */
unsigned xs_reta_queue(uint32_t hash);
uint32_t xs_port_ip(unsigned port);

/* --- running the appliance -------------------------------------------------------------------- */
/* xs_boot: pools, ports, forwarding, as kernel/main.c does. Returns the ports up. */
unsigned xs_boot(void);
bool xs_tx_in_flight(void);
/* xs_settle: the cores' passes in turn (and `between` after each round) until nothing moves. */
uint64_t xs_settle(void (*between)(void));
bool xs_inject(unsigned port, const uint8_t *f, size_t len);
uint32_t xs_peek(unsigned port, uint32_t off);

#define XS_CAP_FRAMES 64
struct xs_capture {
    uint8_t f[XS_CAP_FRAMES][1600];
    uint16_t len[XS_CAP_FRAMES];
    unsigned n, overflow;
};
/* xs_capture_tx: an xs_port on_tx that keeps the frames (ctx: a struct xs_capture). */
void xs_capture_tx(void *ctx, const uint8_t *f, size_t len);
/* xs_arp_exchange: a host on model port mp's wire asks for port_ip; exactly one correct ARP
 * reply must come out of mp. */
bool xs_arp_exchange(unsigned mp, uint32_t port_ip, const uint8_t *hmac, uint32_t hip);

/* --- the stream's hosts (ixgbe_sim_traffic.c), shared with the fault tests ------------------ */
struct fwd_stats;
extern struct sim xs_sim;              /* the hosts' books (fwd_sim.h, sim_frames.c) */
extern uint64_t xs_wire_in[XS_PORTS];  /* frames the hosts put on each port's wire */
extern uint64_t xs_wire_bytes[XS_PORTS];
void xs_on_port0(void *ctx, const uint8_t *f, size_t len);
void xs_on_port1(void *ctx, const uint8_t *f, size_t len);
/* xs_send: a host puts a frame on port's wire (counted in xs_wire_in); false if refused. */
bool xs_send(unsigned port, const uint8_t *f, size_t len);
/* xs_host_b: host B answers the router's ARP requests that came out of port1. */
void xs_host_b(void);
/* xs_rx_room: free descriptors the NIC may fill on port0 queue q (RDT - RDH). */
unsigned xs_rx_room(unsigned q);
/* xs_stream_neighbours: host A and host B become known to the router through ARP. */
void xs_stream_neighbours(void);

/* --- the tests ------------------------------------------------------------------------------- */
void xs_test_init(void);
void xs_test_eeprom(void);
void xs_test_dma(void);
void xs_test_rxq(void);
void xs_test_txq(void);
void xs_test_gone(void);
void xs_test_gone_reset(void);
void xs_test_gone_rxq(void);
void xs_test_gone_later(void);
void xs_test_link(void);
void xs_test_apic_high(void);
void xs_test_rss(void);
void xs_test_ping(void);
void xs_test_stream(void);
void xs_test_tx_hang(void);
void xs_test_gone_traffic(void);
void xs_test_sfp_pull(void);
void xs_test_pause_flood(void);
void xs_test_sfp_modules(void);
void xs_test_sfp_empty(void);
void xs_test_sfp_refused(void);
void xs_test_sfp_dual_rate(void);
void xs_test_sfp_board(void);
void xs_test_nvm_checksum(void);

#endif
