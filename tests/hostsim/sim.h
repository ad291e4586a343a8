/*
 * tests/hostsim/sim.h: the host platform fwd_sim runs the firmware's forwarding path on: fake
 * ports whose queues are descriptor rings in host memory, each watched by the fake NIC of
 * tests/fakes/fake_intel_nic.h, and a simulated clock. sim_platform.c implements it by standing
 * in, at link time, for the pieces that touch hardware (igb_probe, pci_*, dma_alloc, time_ns,
 * kprintf); drivers/nic/nic.c, the rings, pools and apps/fwd are the firmware's own code.
 */
#ifndef WS_HOSTSIM_SIM_H
#define WS_HOSTSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/fakes/fake_intel_nic.h"

#define SIM_PORTS 2 /* port0 and port1, in "PCI order" */

/* One queue pair of a fake port: the tail "registers" the rings write and the NIC model. */
struct sim_queue {
    volatile uint32_t rdt; /* RDT: written by iring_rx_fill, read by the fake */
    volatile uint32_t tdt; /* TDT: written by iring_tx_burst, read by the fake */
    struct fake_inic_rx nrx;
    struct fake_inic_tx ntx;
};

/* sim_platform_init: before nic_pools_init / nic_probe_all. quiet drops kprintf output. */
void sim_platform_init(bool quiet);
/* sim_queue: the fake side of (port, queue), once nic_probe_all has brought the port up. */
struct sim_queue *sim_queue(unsigned port, unsigned q);
/* sim_port_mac: the MAC address a fake port reports (locally administered, 02:...). */
void sim_port_mac(unsigned port, uint8_t mac[6]);
/* The simulated clock behind time_ns: starts at 1 s, moves only when told to. */
void sim_clock_advance(uint64_t ns);
uint64_t sim_clock_ns(void);
/* sim_platform_free: give back every dma_alloc block. After the last use of any port. */
void sim_platform_free(void);

#endif
