/*
 * tests/hostsim/ixgbe_appliance.c: bring-up of the appliance on the 82599 platform, shared by
 * ixgbe_sim and fuzz_ixgbe_model (see ixgbe_appliance.h).
 */
#include "tests/hostsim/ixgbe_appliance.h"

#include <stddef.h>

#include "apps/fwd/fwd.h"
#include "drivers/nic/nic.h"
#include "net/iface.h"
#include "net/nexthop.h"

unsigned xs_appliance_boot(unsigned ncores, const char **failed)
{
    *failed = NULL;
    if (nic_pools_init(ncores) != 0) {
        *failed = "nic_pools_init";
        return 0;
    }
    unsigned n = nic_probe_all(ncores);
    net_iface_init();
    if (nexthop_init() != 0) {
        *failed = "nexthop_init";
    } else if (fwd_init(ncores) != 0) {
        *failed = "fwd_init";
    }
    return n;
}

bool xs_appliance_tx_in_flight(void)
{
    for (unsigned i = 0; i < nic_port_count(); i++) {
        for (unsigned c = 0; c < nic_port(i)->nqueues; c++) {
            if (iring_tx_in_flight(&nic_port(i)->q[c].tx) != 0) {
                return true;
            }
        }
    }
    return false;
}
