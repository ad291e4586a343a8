/*
 * net/lwip-port/lwipopts.h: lwIP 2.1.3 as the appliance's sink uses it: NO_SYS raw API on one
 * core, TCP and UDP over IPv4 and IPv6, tuned for receiving at 10 GbE on a LAN. Every value that
 * differs from lwIP's opt.h says why. Received frames are not in lwIP's pools at all: they
 * are the NIC driver's buffers wrapped as custom pbufs (net/lwip-port/sink_netif.c).
 */
#ifndef WS_LWIPOPTS_H
#define WS_LWIPOPTS_H

/* --- the system: one core, no threads, no OS ------------------------------------------------ */
#define NO_SYS 1
#define SYS_LIGHTWEIGHT_PROT 0 /* only the sink core ever enters lwIP, never from an interrupt */
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0
#define LWIP_TIMERS 1 /* sys_check_timeouts() on every pass of the sink core's loop */
#define LWIP_HOOK_FILENAME "lwip_hooks.h"

/* --- memory: static pools in .bss, sized for the bounds in config (sink.max_*) --------------- */
#define MEM_ALIGNMENT 8
/* PBUF_RAM (control replies, copied segments, the TCP/IP headers of what we send, ACKs) comes
 * from fixed-size pools (net/lwip-port/lwippools.h), not lwIP's first-fit heap: allocating
 * from that walks past every block in use, and a stream keeps ~180 headers queued. */
#define MEM_USE_POOLS 1
#define MEMP_USE_CUSTOM_POOLS 1
#define MEM_USE_POOLS_TRY_BIGGER_POOL 1
#define MEM_SIZE (4 * 1024 * 1024) /* unused with MEM_USE_POOLS (lwIP's opt.h wants one) */
#define MEMP_NUM_PBUF 4096        /* PBUF_ROM/REF: zero-copy data we send (-R, MAERTS) */
#define MEMP_NUM_TCP_PCB 256      /* connections: control + data + TIME_WAIT + half-open */
#define MEMP_NUM_TCP_PCB_LISTEN 16
#define MEMP_NUM_UDP_PCB 48
#define MEMP_NUM_TCP_SEG 8192     /* queued unacked/unsent + out-of-order segments, all pcbs */
#define MEMP_NUM_REASSDATA 16     /* datagrams being reassembled at once */
#define MEMP_NUM_FRAG_PBUF 64     /* fragments of a datagram we send that exceeds the MTU */
#define PBUF_POOL_SIZE 64         /* lwIP's own RX pool is unused (see above); ICMP replies */
#define MEMP_NUM_SYS_TIMEOUT 16

/* --- IPv4 ------------------------------------------------------------------------------------ */
#define LWIP_IPV4 1
#define LWIP_ARP 0      /* the netif resolves next hops with the forwarder's neighbour table */
#define LWIP_ETHERNET 0 /* the glue strips and builds Ethernet headers itself */
#define IP_FORWARD 0
#define IP_REASSEMBLY 1 /* netperf UDP_STREAM's 65507-byte datagrams: 45 fragments each */
#define IP_FRAG 1
#define IP_REASS_MAX_PBUFS 400 /* bounds buffers held by incomplete datagrams (each is a 2 KiB
                                * driver buffer); about 8 maximum-size datagrams at once */
#define IP_REASS_MAXAGE 5      /* seconds an incomplete datagram is kept (default 15) */
#define LWIP_ICMP 1            /* port/protocol unreachable, echo of reassembled pings */
#define LWIP_BROADCAST_PING 0
#define LWIP_MULTICAST_PING 0
#define LWIP_RAW 0
#define LWIP_DHCP 0
#define LWIP_AUTOIP 0
#define LWIP_IGMP 0
#define LWIP_DNS 0
#define LWIP_NETIF_LOOPBACK 0
#define LWIP_HAVE_LOOPIF 0
#define LWIP_SINGLE_NETIF 0 /* one netif per addressed port */

/* --- IPv6: the sink answers on the ports' global addresses (portN.address6). Neighbour
 * discovery, duplicate address detection, router advertisements and echo are the appliance's
 * own (net/local6, net/dad6, net/ra6): local6 hands lwIP only TCP and UDP to our addresses, and
 * lwIP's IPv6 output resolves next hops with the forwarder's cache (nexthop6_resolve), so
 * lwIP's own ND, MLD and autoconfiguration stay off or idle. */
#define LWIP_IPV6 1
#define LWIP_IPV6_NUM_ADDRESSES 1 /* the global address; link-local peers are not served */
#define LWIP_IPV6_MLD 0
#define LWIP_IPV6_AUTOCONFIG 0
#define LWIP_IPV6_DUP_DETECT_ATTEMPTS 0
#define LWIP_IPV6_SEND_ROUTER_SOLICIT 0
#define LWIP_ND6_ALLOW_RA_UPDATES 0
#define LWIP_ND6_QUEUEING 0
#define LWIP_IPV6_DHCP6 0
#define LWIP_IPV6_REASS 0 /* net/local6 drops fragments to us (counted ip6_fragment) */
#define LWIP_IPV6_FRAG 1  /* lwIP fragments what it sends above the MTU (UDP -l > MTU) */
#define LWIP_ICMP6 1      /* lwIP's own errors: port unreachable for UDP */

/* --- UDP and TCP ---------------------------------------------------------------------------- */
#define LWIP_UDP 1
#define LWIP_TCP 1
#define SO_REUSE 1 /* netperf -i reuses the data port while the old pcb is in TIME_WAIT */
/* The largest segment: the largest port MTU's (config portN.mtu) less the IPv4 and TCP
 * headers. The netifs' MTU (the smallest port's: sink_netif.c) lowers what each connection
 * announces and sends (TCP_CALCULATE_EFF_SEND_MSS). Built without a config (no config.h on
 * the path): a 1500-byte MTU's. */
#if __has_include("config.h")
#include "config.h"
#endif
#if defined(CONFIG_MAX_MTU) && CONFIG_MAX_MTU > 1500
#define TCP_MSS (CONFIG_MAX_MTU - 40)
#else
#define TCP_MSS 1460
#endif
/* Receive window (config sink.tcp_window_kib, 256 KiB by default: 10 Gbit/s over a 200 us
 * round trip), advertised with window scaling (RFC 7323): up to 1023 KiB >> 4 fits the 16-bit
 * field. Not larger by default: a window far beyond what the path needs lets a client that is
 * not itself the limit send as soon as each ACK comes, and a client pacing its sends (BBR)
 * then pays for a pacing timer per segment (tests/bench/README.md, "Side by side with Linux
 * 6.1, 2026-12-07 night"). Built without a config: the default. */
#define LWIP_WND_SCALE 1
#define TCP_RCV_SCALE 4
#if defined(CONFIG_SINK_TCP_WINDOW_KIB)
#define TCP_WND (CONFIG_SINK_TCP_WINDOW_KIB * 1024)
#else
#define TCP_WND (256 * 1024)
#endif
#define TCP_QUEUE_OOSEQ 1
#define TCP_OOSEQ_MAX_BYTES TCP_WND /* never hold more than the window out of order ... */
#define TCP_OOSEQ_MAX_PBUFS 384     /* ... nor more driver buffers per connection */
#define TCP_SND_BUF (256 * 1024)    /* -R / MAERTS: data in flight per connection */
#define TCP_SND_QUEUELEN ((4 * TCP_SND_BUF + TCP_MSS - 1) / TCP_MSS)
#define TCP_LISTEN_BACKLOG 1
/* Half-open connections per listener: the SYN flood bound. A full backlog evicts one (see
 * sink_evict_half_open); 64 gives a real client a 13 ms round trip against 5,000 SYNs/s. */
#define TCP_DEFAULT_LISTEN_BACKLOG 64
#define TCP_OVERSIZE TCP_MSS
#define LWIP_TCP_TIMESTAMPS 0
/* One per-connection word for the port (tcp_hooks.c: the wire MSS of a connection whose
 * segments the NIC cuts, lwport_tcp_offload_segments). */
#define LWIP_TCP_PCB_NUM_EXT_ARGS 1
#define LWIP_TCP_KEEPALIVE 1 /* a client that vanishes without a FIN is found and freed */
#define TCP_KEEPIDLE_DEFAULT 30000
#define TCP_KEEPINTVL_DEFAULT 5000
#define TCP_KEEPCNT_DEFAULT 4
/* The RX buffers are the driver's, not PBUF_POOL: lwIP's check that TCP_WND fits in
 * PBUF_POOL does not apply. */
#define LWIP_DISABLE_TCP_SANITY_CHECKS 1

/* --- checksums -------------------------------------------------------------------------------- */
#define CHECKSUM_CHECK_IP 0 /* net/local.c has verified every IPv4 header before the handoff */
/* A build may switch the three below off (-DCHECKSUM_CHECK_TCP=0 ...): the lwIP fuzz harness
 * does, so mutated segments get past the checksum into TCP (tests/fuzz/fuzz_lwip.c). */
#ifndef CHECKSUM_CHECK_TCP
#define CHECKSUM_CHECK_TCP 1
#endif
#ifndef CHECKSUM_CHECK_UDP
#define CHECKSUM_CHECK_UDP 1
#endif
#ifndef CHECKSUM_CHECK_ICMP
#define CHECKSUM_CHECK_ICMP 1
#endif
#define CHECKSUM_GEN_IP 1
#define CHECKSUM_GEN_TCP 1
#define CHECKSUM_GEN_UDP 1
#define CHECKSUM_GEN_ICMP 1
/* CHECKSUM_GEN_TCP is switched off per netif (net/lwip-port/sink_netif.c: the NIC, or the
 * glue once, sums outgoing segments), so lwIP's sum-while-copying would be wasted work. */
#define LWIP_CHECKSUM_ON_COPY 0
/* lwIP sums through net/inet's 64-bit loop instead of its own 16-bit one (LWIP_CHKSUM's
 * contract: the folded, uncomplemented sum in the bytes' own order, which is what
 * inet_csum_native returns): a received segment the NIC did not check costs half as much. */
#include <stddef.h>
#include <stdint.h>
uint16_t inet_csum_native(const uint8_t *p, size_t len);
#define LWIP_CHKSUM(dataptr, len) inet_csum_native((const uint8_t *)(dataptr), (size_t)(len))
/* Per-frame choice (sink_netif_input): a TCP/UDP checksum the NIC has already verified
 * (nic_rx_l4_csum_ok) is not computed again; fragments and frames the NIC did not check are. */
#define LWIP_CHECKSUM_CTRL_PER_NETIF 1

/* --- counters: lwIP's own, shown by `stats` (apps/sink) ---------------------------------------- */
#define LWIP_STATS 1
#define LWIP_STATS_DISPLAY 0
#define LWIP_STATS_LARGE 1 /* 32-bit counters (16-bit ones wrap within a second) */
#define MIB2_STATS 1
#define MEM_STATS 1
#define MEMP_STATS 1
#define TCP_STATS 1
#define UDP_STATS 1
#define IP_STATS 1
#define IPFRAG_STATS 1
#define ICMP_STATS 1
#define LINK_STATS 0
#define SYS_STATS 0

/* --- netif ------------------------------------------------------------------------------------ */
#define LWIP_NETIF_STATUS_CALLBACK 0
#define LWIP_NETIF_LINK_CALLBACK 0
#define PBUF_LINK_HLEN 14 /* room for the Ethernet header in front of what lwIP sends */

#endif
