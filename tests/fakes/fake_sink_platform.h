/*
 * tests/fakes/fake_sink_platform.h: what the sink's glue (apps/sink, net/lwip-port) and lwIP need
 * from the rest of the firmware, stood in for on the host, so the real glue and the real lwIP
 * run in one host process: per-core packet-buffer pools (kernel/pkb.c, real), ports with addresses
 * (nic_port, nic_pool), a TX queue that keeps what the sink core sends until the harness takes
 * it (iring_tx_burst), next-hop resolution (nexthop_resolve), a clock the harness advances
 * (time_ns), loop_kick counted, kprintf and panic.
 *
 * Used by tests/unit/test_sink_glue.c, tests/bench/sink_bench.c and tests/fuzz/fuzz_lwip.c.
 * Single-threaded: "cores" take turns in the caller's order, so nothing here tests concurrency.
 */
#ifndef WS_FAKE_SINK_PLATFORM_H
#define WS_FAKE_SINK_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "net/nexthop.h"
#include "pkb.h"

#define FSP_CORES 4      /* cores 0..3; config/default.conf's sink.core = last: core 3 */
#define FSP_PORTS 2      /* port0 and port1, addressed as config/default.conf says */
#define FSP_TX_MAX 4096  /* frames the fake TX queue holds before it drops (counted) */

/* fsp_setup: pools of pool_buffers buffers for each core, the ports with the config's
 * addresses, link up. Before sink_init (or the bring-up steps it is made of). quiet: drop the
 * firmware's kprintf output instead of printing it as "  fw| ...". Once per process. */
void fsp_setup(uint32_t pool_buffers, bool quiet);

/* The clock behind time_ns (and so lwIP's sys_now): starts at 1 s. */
uint64_t fsp_clock_ns(void);
void fsp_clock_set_ns(uint64_t ns);
void fsp_clock_advance_ms(uint64_t ms);

/* fsp_pools_full: every core's pool holds all its buffers, and none was freed twice or by a
 * core that does not own it. */
bool fsp_pools_full(void);
/* fsp_pool_free: free buffers in core c's pool. */
uint32_t fsp_pool_free(unsigned core);
uint32_t fsp_pool_size(unsigned core);

/* loop_kick calls per core. */
uint64_t fsp_kicks(unsigned core);

/* What the sink core has sent (iring_tx_burst), oldest first. fsp_tx_take moves up to max
 * frames out, with their egress ports; each must then go through fsp_tx_done (the TX
 * completion: the buffer returns to its pool). fsp_tx_flush completes everything untaken. */
unsigned fsp_tx_take(struct pkb **out, unsigned *port, unsigned max);
void fsp_tx_done(struct pkb *b);
void fsp_tx_flush(void);
unsigned fsp_tx_pending(void);
uint64_t fsp_tx_dropped(void); /* frames the fake queue had no room for (freed) */
/* The ports' TX checksum offload (nic_port.tx_tcp4_csum; on after fsp_setup): the fake queue
 * completes the TCP checksum of frames marked PKB_TX_CSUM_TCP4 as the NIC would (and panics on
 * a mark sent to a port without it); fsp_tx_csum_done counts them. */
void fsp_set_tx_csum_offload(bool on);
uint64_t fsp_tx_csum_done(void);
/* Frames the sink sent in two parts (PKB_TX_EXT): the fake queue joins them (as the NIC would
 * gather its two descriptors) when the wire takes the frame (fsp_tx_take). */
uint64_t fsp_tx_ext_done(void);
/* Frames the sink asked the NIC to cut (PKB_TX_TSO): the fake queue cuts them (fake_tso.c)
 * when the wire takes them, each segment in a new buffer of the frame's pool. fsp_set_tx_tso
 * turns the ports' nic_port.tx_tcp4_tso off or on (on after fsp_setup). */
uint64_t fsp_tx_tso_done(void);
#define FSP_WIRE_OWNER 0x7777u /* the owner of those segments' buffers: no core (the wire's) */
void fsp_set_tx_tso(bool on);

/* nexthop_resolve's answer: NEXTHOP_OK (the default) resolves every address of the ports'
 * subnets to port and MAC fsp_peer_mac(ip); anything else is returned as is. */
void fsp_set_next_hop(enum nexthop_result result);
void fsp_peer_mac(uint32_t ip, uint8_t mac[6]);
/* fsp_port_mac: port i's MAC, 02:57:53:00:00:0i. */
void fsp_port_mac(unsigned port, uint8_t mac[6]);

#endif
