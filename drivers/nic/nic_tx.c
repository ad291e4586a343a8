/* drivers/nic/nic_tx.c: the one TX batcher (see header). */
#include "drivers/nic/nic_tx.h"

#include "drivers/nic/nic.h"

struct nic_tx_core nic_tx_cores[WS_MAX_CPUS];

void nic_tx_flush_port(unsigned core, unsigned port)
{
    struct nic_tx_core *t = &nic_tx_cores[core];
    if (t->n[port] != 0) {
        iring_tx_burst(&nic_port(port)->q[core].tx, t->pkts[port], t->n[port]); /* takes all */
        t->n[port] = 0;
    }
}

void nic_tx_flush(unsigned core)
{
    for (unsigned i = 0; i < nic_port_count(); i++) {
        nic_tx_flush_port(core, i);
    }
}

void nic_tx_forward(unsigned core, struct nic_port *out, struct pkb **pkts, unsigned n)
{
    if (nic_tx_cores[core].n[out->index] != 0) {
        nic_tx_flush_port(core, out->index);
    }
    iring_tx_burst_forward(&out->q[core].tx, pkts, n); /* takes all */
}

void nic_tx_forward_tagged(unsigned core, struct nic_port *out, struct pkb **pkts, unsigned n,
                           uint16_t tci)
{
    if (nic_tx_cores[core].n[out->index] != 0) {
        nic_tx_flush_port(core, out->index);
    }
    iring_tx_burst_forward_tagged(&out->q[core].tx, pkts, n, tci); /* takes all */
}
