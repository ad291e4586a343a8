/* drivers/nic/nic_tx.c: the one TX batcher (see header). */
#include "drivers/nic/nic_tx.h"

#include "drivers/nic/nic.h"

struct nic_tx_batch nic_tx_batches[WS_MAX_CPUS][WS_MAX_PORTS];

void nic_tx_flush_port(unsigned core, unsigned port)
{
    struct nic_tx_batch *t = &nic_tx_batches[core][port];
    if (t->n != 0) {
        iring_tx_burst(&nic_port(port)->q[core].tx, t->pkts, t->n); /* takes all n */
        t->n = 0;
    }
}

void nic_tx_flush(unsigned core)
{
    for (unsigned i = 0; i < nic_port_count(); i++) {
        nic_tx_flush_port(core, i);
    }
}
