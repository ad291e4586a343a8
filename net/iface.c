/* net/iface.c: the appliance's interfaces and the local stack's counters (see header). */
#include "net/iface.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "init.h"
#include "net/inet.h"
#include "net/inet6.h"

struct net_port net_ifaces[NET_MAX_IFACES];
unsigned net_iface_count = WS_MAX_PORTS;
struct net_queue_stats net_queue_stats[WS_MAX_PORTS][WS_MAX_CPUS];
struct net_vlan_stats net_vlan_stats[WS_MAX_VLANS][WS_MAX_CPUS];
uint8_t net_vlan_map[WS_MAX_PORTS][4096];

_Static_assert(NET_IFACE_MAX_ALSO_OURS >= NET_MAX_IFACES - 1,
               "room for every other interface's address");
_Static_assert(NET_MAX_IFACES < 256, "net_vlan_map holds interface numbers in a byte");
_Static_assert(CONFIG_NVLANS <= WS_MAX_VLANS, "config/confparse.h's CONF_MAX_VLANS is larger");

/* net_iface_share_addresses: with router.answer_any_address, each addressed interface answers
 * for the other interfaces' addresses too (struct net_iface, also_ours). */
static void net_iface_share_addresses(void)
{
    for (unsigned i = 0; CONFIG_ROUTER_ANSWER_ANY_ADDRESS && i < net_iface_count; i++) {
        struct net_iface *ifc = &net_ifaces[i].ifc;
        ifc->n_also_ours = 0;
        for (unsigned j = 0; net_ifaces[i].has_address && j < net_iface_count; j++) {
            if (j != i && net_ifaces[j].has_address &&
                ifc->n_also_ours < NET_IFACE_MAX_ALSO_OURS) {
                ifc->also_ours[ifc->n_also_ours++] = net_ifaces[j].ifc.ip;
            }
        }
    }
}

/* net_iface_share_addresses6: the same for the ports' global IPv6 addresses (echo only: a
 * solicitation is answered for this interface's own addresses). */
static void net_iface_share_addresses6(void)
{
    for (unsigned i = 0; CONFIG_ROUTER_ANSWER_ANY_ADDRESS && i < WS_MAX_PORTS; i++) {
        struct net_iface6 *ifc6 = &net_ifaces[i].ifc6;
        ifc6->n_also_ours = 0;
        for (unsigned j = 0; net_ifaces[i].has_address6 && j < WS_MAX_PORTS; j++) {
            if (j != i && net_ifaces[j].has_address6 &&
                ifc6->n_also_ours < NET_IFACE6_MAX_ALSO_OURS) {
                memcpy(ifc6->also_ours[ifc6->n_also_ours++], net_ifaces[j].ifc6.global, 16);
            }
        }
    }
}

/* ", mtu N" (console core, one line at a time) */
static const char *net_iface_mtu_str(uint16_t mtu)
{
    static char buf[16];
    snprintf(buf, sizeof(buf), ", mtu %u", mtu);
    return buf;
}

static void net_iface_say(const struct net_port *np)
{
    char ip[INET_IPV4_STR_BYTES];
    if (!np->has_address) {
        kprintf("%s: no address\n", np->name);
    } else if (np->vid == 0) {
        kprintf("%s: address %s/%u%s\n", np->name, inet_ipv4_str(ip, np->ifc.ip),
                np->ifc.prefix_len, np->mtu != 1500 ? net_iface_mtu_str(np->mtu) : "");
    } else {
        kprintf("%s: address %s/%u (VLAN %u)\n", np->name, inet_ipv4_str(ip, np->ifc.ip),
                np->ifc.prefix_len, np->vid);
    }
}

/* net_iface_port6: port np's IPv6 interface, if the config gives it an address: that global
 * address, the link-local one its MAC makes (RFC 4291 appendix A), and whether it sends router
 * advertisements (net/ra6). */
static void net_iface_port6(struct net_port *np, unsigned i)
{
    static const struct {
        int has;
        uint8_t addr[16];
        int prefix;
    } addrs6[] = CONFIG_PORT_ADDRESSES6;
    static const bool advertise6[] = { CONFIG_PORT0_ADVERTISE6, CONFIG_PORT1_ADVERTISE6,
                                       CONFIG_PORT2_ADVERTISE6, CONFIG_PORT3_ADVERTISE6 };
    _Static_assert(sizeof(advertise6) / sizeof(advertise6[0]) == WS_MAX_PORTS,
                   "one advertise6 per port");
    char g[INET6_STR_BYTES], ll[INET6_STR_BYTES];

    np->has_address6 = i < sizeof(addrs6) / sizeof(addrs6[0]) && addrs6[i].has &&
                       CONFIG_MODE_ROUTER;
    if (!np->has_address6) {
        return;
    }
    struct net_iface6 *ifc6 = &np->ifc6;
    memcpy(ifc6->mac, np->ifc.mac, 6);
    ifc6->port = (uint16_t)i;
    ifc6->enabled = true;
    ifc6->has_global = true;
    memcpy(ifc6->global, addrs6[i].addr, 16);
    ifc6->prefix_len = (uint8_t)addrs6[i].prefix;
    ifc6->advertise = advertise6[i]; /* genconfig allows it only with an address6 */
    inet6_link_local_from_mac(ifc6->link_local, np->ifc.mac);
    kprintf("%s: address6 %s/%u, link-local %s\n", np->name, inet6_str(g, ifc6->global),
            ifc6->prefix_len, inet6_str(ll, ifc6->link_local));
}

static void net_iface_ports(void)
{
    static const struct {
        int has;
        uint32_t ip;
        int prefix;
    } addrs[] = CONFIG_PORT_ADDRESSES;

    static const uint16_t mtus[] = { CONFIG_PORT0_MTU, CONFIG_PORT1_MTU, CONFIG_PORT2_MTU,
                                     CONFIG_PORT3_MTU };
    _Static_assert(sizeof(mtus) / sizeof(mtus[0]) == WS_MAX_PORTS, "one MTU per port");

    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        struct net_port *np = &net_ifaces[i];
        snprintf(np->name, sizeof(np->name), "port%u", i);
        np->ifc.port = (uint16_t)i;
        np->mtu = mtus[i];
        np->present = i < nic_port_count();
        if (!np->present) {
            continue;
        }
        memcpy(np->ifc.mac, nic_port(i)->mac, 6);
        np->has_address = i < sizeof(addrs) / sizeof(addrs[0]) && addrs[i].has;
        if (np->has_address) {
            np->ifc.ip = addrs[i].ip;
            np->ifc.prefix_len = (uint8_t)addrs[i].prefix;
        }
        net_iface_say(np);
        net_iface_port6(np, i);
    }
}

#if CONFIG_NVLANS > 0 /* (GCC flags the placeholder entry's read in a loop of 0) */
/* the config's sub-interfaces (genconfig checked ports, VIDs and subnets) */
static const struct {
    uint8_t port;
    uint16_t vid;
    uint32_t ip;
    uint8_t prefix;
} vlans[] = CONFIG_VLANS;
#endif

bool net_iface_port_has_vlans(unsigned port)
{
#if CONFIG_NVLANS > 0
    for (unsigned j = 0; j < CONFIG_NVLANS; j++) {
        if (vlans[j].port == port) {
            return true;
        }
    }
#endif
    (void)port;
    return false;
}

/* net_iface_vlans: the config's sub-interfaces; one on a port that did not come up is said and
 * left out of the map. */
static void net_iface_vlans(void)
{
#if CONFIG_NVLANS > 0
    for (unsigned j = 0; j < CONFIG_NVLANS; j++) {
        struct net_port *np = &net_ifaces[WS_MAX_PORTS + j];
        snprintf(np->name, sizeof(np->name), "port%u.%u", vlans[j].port, vlans[j].vid);
        np->ifc.port = vlans[j].port;
        np->vid = vlans[j].vid;
        np->vlan = (uint8_t)j;
        np->mtu = net_ifaces[vlans[j].port].mtu;
        np->present = vlans[j].port < nic_port_count();
        if (!np->present) {
            kprintf("%s: port%u is not up; VLAN %u left out\n", np->name, vlans[j].port,
                    vlans[j].vid);
            continue;
        }
        memcpy(np->ifc.mac, nic_port(vlans[j].port)->mac, 6);
        np->ifc.ip = vlans[j].ip;
        np->ifc.prefix_len = vlans[j].prefix;
        np->has_address = true;
        net_vlan_map[vlans[j].port][vlans[j].vid] = (uint8_t)(WS_MAX_PORTS + j);
        net_iface_say(np);
    }
    net_iface_count = WS_MAX_PORTS + CONFIG_NVLANS;
#endif
}

int net_iface_init(void)
{
    net_iface_ports();
    net_iface_vlans();
    net_iface_share_addresses();
    net_iface_share_addresses6();
    return 0;
}

static int net_iface_init_step(struct init_ctx *ctx)
{
    (void)ctx;
    return net_iface_init();
}
WS_INIT(net_iface, INIT_NET, false, net_iface_init_step); /* before nexthop, which routes them */
