/* net/iface.c: the appliance's interfaces and the local stack's counters (see header). */
#include "net/iface.h"

#include <string.h>

#include "config.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "init.h"
#include "net/inet.h"

struct net_port net_ports[WS_MAX_PORTS];
struct net_queue_stats net_queue_stats[WS_MAX_PORTS][WS_MAX_CPUS];

_Static_assert(NET_IFACE_MAX_ALSO_OURS >= WS_MAX_PORTS - 1, "room for every other port's address");

/* net_iface_share_addresses: with router.answer_any_address, each addressed port answers for
 * the other ports' addresses too (struct net_iface, also_ours). */
static void net_iface_share_addresses(void)
{
    unsigned n = nic_port_count() < WS_MAX_PORTS ? nic_port_count() : WS_MAX_PORTS;
    for (unsigned i = 0; CONFIG_ROUTER_ANSWER_ANY_ADDRESS && i < n; i++) {
        struct net_iface *ifc = &net_ports[i].ifc;
        ifc->n_also_ours = 0;
        for (unsigned j = 0; net_ports[i].has_address && j < n; j++) {
            if (j != i && net_ports[j].has_address &&
                ifc->n_also_ours < NET_IFACE_MAX_ALSO_OURS) {
                ifc->also_ours[ifc->n_also_ours++] = net_ports[j].ifc.ip;
            }
        }
    }
}

int net_iface_init(void)
{
    static const struct {
        int has;
        uint32_t ip;
        int prefix;
    } addrs[] = CONFIG_PORT_ADDRESSES;

    for (unsigned i = 0; i < nic_port_count() && i < WS_MAX_PORTS; i++) {
        const struct nic_port *p = nic_port(i);
        struct net_port *np = &net_ports[i];
        memcpy(np->ifc.mac, p->mac, 6);
        np->ifc.port = (uint16_t)i;
        np->has_address = i < sizeof(addrs) / sizeof(addrs[0]) && addrs[i].has;
        if (np->has_address) {
            char ip[INET_IPV4_STR_BYTES];
            np->ifc.ip = addrs[i].ip;
            np->ifc.prefix_len = (uint8_t)addrs[i].prefix;
            kprintf("%s: address %s/%u\n", p->name, inet_ipv4_str(ip, np->ifc.ip),
                    np->ifc.prefix_len);
        } else {
            kprintf("%s: no address\n", p->name);
        }
    }
    net_iface_share_addresses();
    return 0;
}

static int net_iface_init_step(struct init_ctx *ctx)
{
    (void)ctx;
    return net_iface_init();
}
WS_INIT(net_iface, INIT_NET, false, net_iface_init_step); /* before nexthop, which routes them */
