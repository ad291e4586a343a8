/*
 * tests/hostsim/ixgbe_appliance.h: the appliance on the 82599 platform (ixgbe_platform.h), as
 * kernel/main.c brings it up and its cores run it, for every host program that runs it: the
 * tests of ixgbe_sim and the fuzz harness tests/fuzz/fuzz_ixgbe_model.c. No main() here: the
 * firmware's tables are static and boot-once, so each program boots once per process.
 */
#ifndef WS_HOSTSIM_IXGBE_APPLIANCE_H
#define WS_HOSTSIM_IXGBE_APPLIANCE_H

#include <stdbool.h>

/* xs_appliance_boot: kernel/main.c's order: per-core pools, the ports (nic_probe_all), the
 * forwarding app, for ncores cores. Returns the ports up; *failed names the step that failed
 * ("nic_pools_init", "fwd_init"), NULL if none did. After xs_platform_init, once. */
unsigned xs_appliance_boot(unsigned ncores, const char **failed);

/* xs_appliance_tx_in_flight: does any port's TX queue hold a frame not yet reclaimed? */
bool xs_appliance_tx_in_flight(void);

#endif
