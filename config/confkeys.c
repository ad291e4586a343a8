/* config/confkeys.c: conf_keys[], the table of every configuration key: its type, limits,
 * default, macro and documentation. Host code, built into genconfig and the unit tests. */
#include "confparse.h"

/* Relative path so that both genconfig (-Iconfig only) and the unit tests find it. */
#include "../kernel/param.h"

/*
 * One port's address key: portN.address -> CONFIG_PORTN_HAS_ADDRESS, _IP and _PREFIX. Prefixes
 * /31 and /32 are refused: they have no network and broadcast address to check against, and a
 * point-to-point link or host route is not what a port address here is for.
 */
#define CONF_PORT_ADDRESS_KEY(n)                                                                   \
    {                                                                                              \
        .name = "port" #n ".address",                                                              \
        .type = CONF_IPV4_PREFIX,                                                                  \
        .no_default = true,                                                                        \
        .min = 8,                                                                                  \
        .max = 30,                                                                                 \
        .macro = "CONFIG_PORT" #n,                                                                 \
        .doc = "IPv4 address and prefix length of port " #n ", e.g. 198.18." #n ".1/24. Unset: "  \
               "the port has no address.",                                                         \
    }

/*
 * One port's IPv6 address key: portN.address6 -> CONFIG_PORTN_HAS_ADDRESS6, _ADDRESS6 and
 * _PREFIX6 (the macro prefix is portN.address's: the suffixes differ). Prefixes shorter than /16
 * are refused as typos: no site gets one. /127 (RFC 6164) and /128 are allowed.
 */
#define CONF_PORT_ADDRESS6_KEY(n)                                                                  \
    {                                                                                              \
        .name = "port" #n ".address6",                                                             \
        .type = CONF_IPV6_PREFIX,                                                                  \
        .no_default = true,                                                                        \
        .min = 16,                                                                                 \
        .max = 128,                                                                                \
        .macro = "CONFIG_PORT" #n,                                                                 \
        .doc = "Router mode: global or unique-local IPv6 address and prefix length of port " #n   \
               ", e.g. 2001:db8:1" #n "::1/64; its link-local address comes from its MAC. Unset: " \
               "the port has no IPv6.",                                                            \
    }

/*
 * One port's next-hop MAC key: portN.next_hop_mac -> CONFIG_PORTN_NEXT_HOP_HAS_MAC and
 * CONFIG_PORTN_NEXT_HOP_MAC. Only wire mode with wire.rewrite_mac = yes uses it.
 */
#define CONF_PORT_NEXT_HOP_MAC_KEY(n)                                                              \
    {                                                                                              \
        .name = "port" #n ".next_hop_mac",                                                         \
        .type = CONF_MAC,                                                                          \
        .no_default = true,                                                                        \
        .macro = "CONFIG_PORT" #n "_NEXT_HOP",                                                     \
        .doc = "Wire mode with wire.rewrite_mac = yes: destination MAC written on frames leaving " \
               "port " #n ", e.g. 02:00:00:00:00:0" #n ". Unset: none (only a port in no pair "    \
               "may lack one then).",                                                              \
    }

/*
 * One port's MTU key: portN.mtu -> CONFIG_PORTN_MTU. Read by net/iface (the router's egress
 * check, which fragments or answers "fragmentation needed") and the sink's netif.
 */
#define CONF_PORT_MTU_KEY(n)                                                                       \
    {                                                                                              \
        .name = "port" #n ".mtu",                                                                  \
        .type = CONF_INT,                                                                          \
        .def = "1500",                                                                             \
        .min = 576,                                                                                \
        .max = 9000,                                                                               \
        .macro = "CONFIG_PORT" #n "_MTU",                                                          \
        .doc = "Largest IPv4 datagram sent out of port " #n " and its VLANs, in bytes: a larger "  \
               "routed one is fragmented, or, with DF set, answered with ICMP fragmentation "      \
               "needed. Above 1500 (jumbo frames) every packet buffer is 16 KiB instead of 2.",   \
    }

/*
 * One port's router advertisement switch: portN.advertise6 -> CONFIG_PORTN_ADVERTISE6. Read by
 * net/iface (struct net_iface6.advertise) for net/ra6. Off by default: hosts take their default
 * route from any advertisement they hear, so an appliance put into a network must not capture
 * its hosts unasked. A yes needs the port's address6 and router mode (conf_check_advertise6).
 */
#define CONF_PORT_ADVERTISE6_KEY(n)                                                                \
    {                                                                                              \
        .name = "port" #n ".advertise6",                                                           \
        .type = CONF_BOOL,                                                                         \
        .def = "no",                                                                               \
        .macro = "CONFIG_PORT" #n "_ADVERTISE6",                                                   \
        .doc = "Router mode, port " #n " with an address6: yes sends IPv6 router advertisements "  \
               "there (RFC 4861 section 6: this router as default, the port's MTU and its "        \
               "address6 prefix, autonomous when /64) and answers router solicitations, so hosts " \
               "configure themselves; no sends none.",                                             \
    }

/*
 * One port's PCI function key: portN.pci -> CONFIG_PORTN_SLOT_HAS_PCI and CONFIG_PORTN_SLOT_PCI
 * (and CONFIG_PORT_PCI, all four together). Read by
 * the NIC layer (nic_probe_all), which numbers the ports.
 */
#define CONF_PORT_PCI_KEY(n)                                                                       \
    {                                                                                              \
        .name = "port" #n ".pci",                                                                  \
        .type = CONF_PCI_ADDR,                                                                     \
        .no_default = true,                                                                        \
        .macro = "CONFIG_PORT" #n "_SLOT",                                                         \
        .doc = "The NIC port that is port " #n ", by PCI address (e.g. 0000:03:00.0): it keeps "   \
               "that number even when a port before it fails or is missing (then port " #n " is " \
               "absent). Unset: ports are numbered in PCI bus order, into the numbers no "         \
               "portN.pci takes.",                                                                 \
    }

/*
 * The one key table. A new key is one row here (and a line in each shipped config file);
 * parsing, defaults, the header and docs/config.md all follow from it. Keep doc strings free
 * of '|' (they become markdown table cells). The order is that of the header and the doc.
 */
const struct conf_key conf_keys[] = {
    {
        .name = "name",
        .type = CONF_STRING,
        .def_from_file = true,
        .min_len = 1,
        .max_len = 32,
        .extra_chars = "_.-",
        .macro = "CONFIG_NAME",
        .doc = "Configuration name shown in the boot banner.",
    },
    {
        .name = "console.port",
        .type = CONF_INT,
        .required = true,
        .min = 0x100,
        .max = 0xfff8,
        .step = 8, /* a 16550 decodes 8 consecutive ports */
        .hex = true,
        .choices = { { "com1", 0x3f8 }, { "com2", 0x2f8 }, { "com3", 0x3e8 }, { "com4", 0x2e8 } },
        .macro = "CONFIG_CONSOLE_PORT",
        .doc = "I/O port base of the 16550-compatible UART used as the serial console.",
    },
    {
        .name = "console.baud",
        .type = CONF_ENUM,
        .required = true,
        .choices = { { "9600", 9600 },
                     { "19200", 19200 },
                     { "38400", 38400 },
                     { "57600", 57600 },
                     { "115200", 115200 } },
        .macro = "CONFIG_CONSOLE_BAUD",
        .doc = "Serial console speed in bit/s (always 8 data bits, no parity, 1 stop bit).",
    },
    {
        .name = "console.watch_seconds",
        .type = CONF_INT,
        .def = "0",
        .min = 0,
        .max = 3600,
        .macro = "CONFIG_CONSOLE_WATCH_SECONDS",
        .doc = "Print the per-second rates of every counter that changed, every this many "
               "seconds (like ethtool_stats.pl); 0 = off. The `watch` command changes it at run "
               "time.",
    },
    {
        .name = "cores",
        .type = CONF_INT,
        .required = true,
        .min = 1,
        .max = WS_MAX_CPUS,
        /* 0, not WS_MAX_CPUS: "all" must keep meaning all if that limit is raised */
        .choices = { { "all", 0 } },
        .macro = "CONFIG_MAX_CORES",
        .doc = "Most cores to bring up, the boot core included; further cores stay parked. "
               "'all' is emitted as 0 and means every core found, up to WS_MAX_CPUS.",
    },
    {
        .name = "panic",
        .type = CONF_ENUM,
        .required = true,
        .choices = { { "halt", 0 }, { "reboot", 1 } },
        .macro = "CONFIG_PANIC_REBOOT",
        .doc = "What a panic does after printing its report on the console: halt every core, "
               "or reset the machine.",
    },
    {
        .name = "test.fault_command",
        .type = CONF_BOOL,
        .def = "no",
        .macro = "CONFIG_TEST_FAULT_COMMAND",
        .doc = "Compile in a console command that deliberately faults, so system tests can "
               "check the exception report. Never enable it in production images.",
    },
    /* CONF_PORT_COUNT of them, in port order: CONFIG_PORT_ADDRESSES is built from these. */
    CONF_PORT_ADDRESS_KEY(0),
    CONF_PORT_ADDRESS_KEY(1),
    CONF_PORT_ADDRESS_KEY(2),
    CONF_PORT_ADDRESS_KEY(3),
    /* CONF_PORT_COUNT of them, in port order: CONFIG_PORT_ADDRESSES6 is built from these. */
    CONF_PORT_ADDRESS6_KEY(0),
    CONF_PORT_ADDRESS6_KEY(1),
    CONF_PORT_ADDRESS6_KEY(2),
    CONF_PORT_ADDRESS6_KEY(3),
    CONF_PORT_MTU_KEY(0),
    CONF_PORT_MTU_KEY(1),
    CONF_PORT_MTU_KEY(2),
    CONF_PORT_MTU_KEY(3),
    CONF_PORT_ADVERTISE6_KEY(0),
    CONF_PORT_ADVERTISE6_KEY(1),
    CONF_PORT_ADVERTISE6_KEY(2),
    CONF_PORT_ADVERTISE6_KEY(3),
    {
        .name = "mode",
        .type = CONF_ENUM,
        .def = "router",
        .one_hot = true,
        .choices = { { "router", 0 }, { "wire", 1 } },
        .macro = "CONFIG_MODE",
        .doc = "router: forward IPv4 and IPv6 between ports by longest-prefix match over the "
               "ports' own subnets (prefixes) and the route (route6) lines. wire: a bump in the "
               "wire, every frame received on a port of wire.pairs leaves through its peer; port "
               "addresses (address6), routes (route6) and router.* are then unused.",
    },
    {
        .name = "route",
        .type = CONF_ROUTE,
        .no_default = true,
        .repeatable = true,
        .min = 0,
        .max = 32,
        .macro = "CONFIG_ROUTES",
        .doc = "A static route, one per line. `prefix/len via gateway`: the interface (port or "
               "VLAN) whose subnet holds the gateway is the egress. `prefix/len dev portN` or "
               "`dev portN.VID`: destinations are on that link. Interfaces' own subnets need no "
               "route line. Longest prefix wins.",
    },
    {
        .name = "route6",
        .type = CONF_ROUTE6,
        .no_default = true,
        .repeatable = true,
        .min = 0,
        .max = 128,
        .macro = "CONFIG_ROUTES6",
        .doc = "Router mode: a static IPv6 route, one per line. `prefix/len via gateway`: the "
               "port whose address6 prefix holds the gateway is the egress. `prefix/len via "
               "fe80::X dev portN`: a link-local gateway on port N. `prefix/len dev portN`: "
               "destinations are on port N's link. Ports only (no VLANs); longest prefix wins.",
    },
    {
        .name = "router.icmp_errors_per_sec",
        .type = CONF_INT,
        .def = "100",
        .min = 0,
        .max = 100000,
        .macro = "CONFIG_ROUTER_ICMP_PER_SEC",
        .doc = "Router mode: ICMP errors (unreachable, time exceeded) each core may send per "
               "second, the refill rate of its token bucket; 0 = never send ICMP errors.",
    },
    {
        .name = "router.icmp_burst",
        .type = CONF_INT,
        .def = "10",
        .min = 1,
        .max = 1000,
        .macro = "CONFIG_ROUTER_ICMP_BURST",
        .doc = "Router mode: size of each core's ICMP token bucket, the most ICMP errors a core "
               "sends back to back after a quiet period.",
    },
    {
        .name = "router.answer_any_address",
        .type = CONF_BOOL,
        .def = "yes",
        .macro = "CONFIG_ROUTER_ANSWER_ANY_ADDRESS",
        .doc = "Router mode: a datagram to one port's address that arrives on another port is "
               "answered (ping, the sink's services), from the address it was sent to, as "
               "routers do; no: it is dropped and counted in fwd_dst_other_port_address.",
    },
    {
        .name = "vlan",
        .type = CONF_VLAN,
        .no_default = true,
        .repeatable = true,
        .min = 8,
        .max = 30,
        .macro = "CONFIG_VLANS",
        .doc = "Router mode: an 802.1Q VLAN sub-interface, `portN.VID address/len`, one per "
               "line: frames tagged VID on port N are its, with their own subnet, routes and "
               "neighbours; frames it sends carry the tag. Tags with no sub-interface are "
               "counted drops (vlan_unknown).",
    },
    {
        .name = "vlan.offload",
        .type = CONF_BOOL,
        .def = "yes",
        .macro = "CONFIG_VLAN_OFFLOAD",
        .doc = "Router mode: on a port with VLAN sub-interfaces the NIC takes the tags off "
               "received frames and puts them on sent ones (both chips can: 82576 CTRL.VME, "
               "82599 RXDCTL.VME, VLE on transmit), so no frame is moved in memory for its tag; "
               "no: the router moves the bytes behind the MAC addresses itself.",
    },
    {
        .name = "neigh.reachable_ms",
        .type = CONF_INT,
        .def = "30000",
        .min = 1000,
        .max = 3600000,
        .macro = "CONFIG_NEIGH_REACHABLE_MS",
        .doc = "Router mode: a neighbour is trusted this long after its last ARP; then a "
               "neighbour in use is probed (unicast ARP, once a second) and forgotten if it "
               "never answers, so a new MAC is learned; one nothing uses is forgotten after "
               "10 times this.",
    },
    {
        .name = "neigh.probes",
        .type = CONF_INT,
        .def = "3",
        .min = 1,
        .max = 10,
        .macro = "CONFIG_NEIGH_PROBES",
        .doc = "Router mode: unanswered unicast ARP probes, one a second, after which a stale "
               "neighbour in use is forgotten.",
    },
    {
        .name = "neigh.static",
        .type = CONF_NEIGH,
        .no_default = true,
        .repeatable = true,
        .macro = "CONFIG_STATIC_NEIGHS",
        .doc = "Router mode: a static neighbour, `address mac`, one per line: never aged or "
               "probed, and no ARP changes it (a claim for its address with another MAC is "
               "counted in neigh.static_kept). The address must be a host on a port's subnet.",
    },
    {
        .name = "wire.pairs",
        .type = CONF_PORT_PAIRS,
        .def = "0-1",
        .macro = "CONFIG_WIRE_PEER",
        .doc = "Wire mode: the ports joined in pairs; a frame received on one port of a pair is "
               "sent out of the other. A port in no pair forwards nothing (-1 in "
               "CONFIG_WIRE_PEER).",
    },
    {
        .name = "wire.rewrite_mac",
        .type = CONF_BOOL,
        .def = "no",
        .macro = "CONFIG_WIRE_REWRITE_MAC",
        .doc = "Wire mode: yes sets the destination MAC of each frame leaving port N to "
               "portN.next_hop_mac (then every paired port needs one); no forwards frames "
               "unchanged.",
    },
    /* CONF_PORT_COUNT of them, in port order: CONFIG_PORT_NEXT_HOP_MACS is built from these. */
    CONF_PORT_NEXT_HOP_MAC_KEY(0),
    CONF_PORT_NEXT_HOP_MAC_KEY(1),
    CONF_PORT_NEXT_HOP_MAC_KEY(2),
    CONF_PORT_NEXT_HOP_MAC_KEY(3),
    /* CONF_PORT_COUNT of them, in port order: CONFIG_PORT_PCI is built from these. */
    CONF_PORT_PCI_KEY(0),
    CONF_PORT_PCI_KEY(1),
    CONF_PORT_PCI_KEY(2),
    CONF_PORT_PCI_KEY(3),
    {
        .name = "nic.rx_descs",
        .type = CONF_INT,
        .def = "512",
        .min = 64,
        .max = 4096,
        .pow2 = true, /* ring index arithmetic masks instead of dividing */
        .macro = "CONFIG_NIC_RX_DESCS",
        .doc = "Descriptors in each RX ring (one ring per port and core), like `ethtool -G rx`.",
    },
    {
        .name = "nic.tx_descs",
        .type = CONF_INT,
        .def = "512",
        .min = 64,
        .max = 4096,
        .pow2 = true,
        .macro = "CONFIG_NIC_TX_DESCS",
        .doc = "Descriptors in each TX ring (one ring per port and core), like `ethtool -G tx`.",
    },
    {
        .name = "nic.burst",
        .type = CONF_INT,
        .def = "32",
        .min = 1,
        .max = 64,
        .macro = "CONFIG_NIC_BURST",
        .doc = "Most packets one RX or TX burst moves: the batch size of each core's poll loop.",
    },
    {
        .name = "nic.rx_usecs",
        .type = CONF_INT,
        .def = "10",
        .min = 0,
        .max = 10000,
        .macro = "CONFIG_NIC_RX_USECS",
        .doc = "Interrupt throttling interval in microseconds, like `ethtool -C rx-usecs`: at most "
               "one interrupt per vector per interval; 0 = no throttling. Only matters when cores "
               "sleep (poll.mode = adaptive).",
    },
    {
        .name = "nic.pool_buffers",
        .type = CONF_INT,
        .def = "4096",
        .min = 256,
        .max = 65536,
        .macro = "CONFIG_NIC_POOL_BUFFERS",
        .doc = "Packet buffers (2 KiB each) in each core's pool. Each core needs at least "
               "`ports * rx_descs + tx_descs + burst`; the firmware checks at boot.",
    },
    {
        .name = "nic.sfp_any",
        .type = CONF_BOOL,
        .def = "no",
        .macro = "CONFIG_NIC_SFP_ANY",
        .doc = "82599 SFP+ boards: a module whose type the driver does not know (no SR, LR, "
               "direct-attach or 1000BASE-SX/LX/T code in its SFF-8472 page) is refused and its "
               "laser kept off; yes sets it up as a 10G optic instead. Any vendor is accepted "
               "for the known types either way.",
    },
    {
        .name = "nic.flow_control",
        .type = CONF_ENUM,
        .def = "full",
        .choices = { { "off", 0 }, { "rx", 1 }, { "tx", 2 }, { "full", 3 } },
        .macro = "CONFIG_NIC_FLOW_CONTROL",
        .doc = "82599: IEEE 802.3x PAUSE. rx: TX stops while the peer says XOFF; tx: the NIC "
               "sends XOFF when its receive buffer is nearly full (queues still drop on their "
               "own when a core falls behind, so one slow core does not pause the port); full: "
               "both, Linux's default; off: neither.",
    },
    {
        .name = "nic.bad_nvm",
        .type = CONF_ENUM,
        .def = "skip",
        .choices = { { "skip", 0 }, { "keep", 1 } },
        .macro = "CONFIG_NIC_BAD_NVM_KEEP",
        .doc = "82599: a port whose NVM checksum is wrong (words 0x00-0x3F and their sections "
               "must sum to 0xBABA) is skipped, as Linux does; keep brings it up anyway, with "
               "the warning.",
    },
    {
        .name = "poll.mode",
        .type = CONF_ENUM,
        .def = "adaptive",
        .choices = { { "busy", 0 }, { "adaptive", 1 } },
        .macro = "CONFIG_POLL_ADAPTIVE",
        .doc = "busy: each core polls its queues forever. adaptive: after poll.idle_us without "
               "work the core arms its MSI-X vectors and halts until an interrupt.",
    },
    {
        .name = "poll.idle_us",
        .type = CONF_INT,
        .def = "20",
        .min = 1,
        .max = 1000000,
        .macro = "CONFIG_POLL_IDLE_US",
        .doc = "Idle time in microseconds before an adaptive core halts; unused when poll.mode "
               "= busy.",
    },
    {
        .name = "sink.core",
        .type = CONF_INT,
        .def = "last",
        .min = 0,
        .max = WS_MAX_CPUS - 1,
        /* -1, not a number: the highest core is known only at boot */
        .choices = { { "last", -1 } },
        .macro = "CONFIG_SINK_CORE",
        .doc = "Core that runs lwIP and the sink services (discard, echo, iperf3, netperf); "
               "'last' (emitted as -1) is the highest core brought up. A core that is not up "
               "at boot is reported and the last core used instead.",
    },
    {
        .name = "sink.discard",
        .type = CONF_BOOL,
        .def = "yes",
        .macro = "CONFIG_SINK_DISCARD",
        .doc = "Discard service (RFC 863) on TCP and UDP port 9.",
    },
    {
        .name = "sink.echo",
        .type = CONF_BOOL,
        .def = "yes",
        .macro = "CONFIG_SINK_ECHO",
        .doc = "Echo service (RFC 862) on TCP and UDP port 7.",
    },
    {
        .name = "sink.iperf3_port",
        .type = CONF_INT,
        .def = "5201",
        .min = 0,
        .max = 65535,
        .macro = "CONFIG_SINK_IPERF3_PORT",
        .doc = "TCP/UDP port of the iperf3-compatible server (iperf3 3.12 clients); 0 = off.",
    },
    {
        .name = "sink.iperf3_json",
        .type = CONF_BOOL,
        .def = "no",
        .macro = "CONFIG_SINK_IPERF3_JSON",
        .doc = "The iperf3 server's report for --get-server-output: as JSON (yes, like iperf3 -s "
               "-J) or as text (no, like iperf3 -s).",
    },
    {
        .name = "sink.netperf_port",
        .type = CONF_INT,
        .def = "12865",
        .min = 0,
        .max = 65535,
        .macro = "CONFIG_SINK_NETPERF_PORT",
        .doc = "TCP control port of the netperf-compatible server (netperf 2.7.0 clients); "
               "0 = off.",
    },
    {
        .name = "sink.max_connections",
        .type = CONF_INT,
        .def = "16",
        .min = 1,
        .max = 256,
        .macro = "CONFIG_SINK_MAX_CONNECTIONS",
        .doc = "Discard and echo TCP connections held at once; the next is refused (RST) and "
               "counted.",
    },
    {
        .name = "sink.max_tests",
        .type = CONF_INT,
        .def = "2",
        .min = 1,
        .max = 16,
        .macro = "CONFIG_SINK_MAX_TESTS",
        .doc = "iperf3 and netperf tests running at once, each tool counted on its own; the "
               "next client is refused (iperf3: access denied, netperf: control connection "
               "reset) and counted.",
    },
    {
        .name = "sink.max_streams",
        .type = CONF_INT,
        .def = "16",
        .min = 1,
        .max = 128,
        .macro = "CONFIG_SINK_MAX_STREAMS",
        .doc = "Parallel streams one iperf3 test may open (-P); a test asking for more is "
               "refused with an error the client prints.",
    },
    {
        .name = "sink.tcp_window_kib",
        .type = CONF_INT,
        .def = "256",
        .min = 64,
        .max = 1023,
        .macro = "CONFIG_SINK_TCP_WINDOW_KIB",
        .doc = "Receive window each sink TCP connection offers, in KiB (scaled by 16, so at "
               "most 1023): at least the path's bandwidth-delay product (10 Gbit/s x 200 us is "
               "250 KiB). Larger lets a client that writes faster than the sink reads keep more "
               "in flight and in the sink core's buffers.",
    },
};

const size_t conf_key_count = sizeof(conf_keys) / sizeof(conf_keys[0]);

_Static_assert(sizeof(conf_keys) / sizeof(conf_keys[0]) <= CONF_MAX_KEYS,
               "raise CONF_MAX_KEYS in confparse.h");

_Static_assert(CONF_PORT_COUNT == WS_MAX_PORTS, "the portN keys must cover every port driven");
