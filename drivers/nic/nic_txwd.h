/*
 * drivers/nic/nic_txwd.h: the TX hang watchdog's decision for one queue, kept apart from the
 * NIC layer so it can be tested alone (tests/unit/test_nic_txwd.c). Core 0 samples every TX
 * queue from its 10 Hz housekeeping (drivers/nic/nic.c): the NIC's head (TDH), the tail we
 * wrote (TDT), the owning core's completion count and the link. A queue is hung when the NIC
 * has descriptors to send (TDH != TDT), the link is up, and neither TDH nor the completion
 * count has moved for NIC_TX_HANG_MS. Both signals, so that neither alone misleads: TDH read
 * 100 ms apart can land on the same value after whole laps of a busy ring, and the completion
 * count stands still when only the owning core is slow to reclaim.
 *
 * Why 1000 ms: a healthy queue with the link up never stands still that long. At 10 Gb/s a
 * 512-descriptor ring of 1518-byte frames drains in 0.6 ms; one XOFF holds it at most 65535 x
 * 512 bit times, 3.4 ms at 10 Gb/s and 336 ms at 100 Mb/s; QEMU's igb transmits synchronously
 * on the TDT write (and completes frames while its link is down). A peer that keeps sending
 * XOFF holds a queue for as long as it likes: nic.c passes such a port (XOFF received since
 * the last sample) as not pending, exactly like a link that is down. 1000 ms is three times
 * the worst pause and short enough that a hung port is back within about 1.3 s (detection at
 * 1.0-1.1 s with 100 ms sampling, then the reset). Linux's ixgbe waits longer (two 2-second watchdog periods, then the stack's 5 s tx_timeout)
 * because it cannot tell a stalled queue from a paused one without these two signals.
 */
#ifndef WS_NIC_TXWD_H
#define WS_NIC_TXWD_H

#include <stdbool.h>
#include <stdint.h>

#define NIC_TX_HANG_MS 1000ULL
#define NIC_TX_HANG_NS (NIC_TX_HANG_MS * 1000000ULL)

/* One queue's watchdog state: core 0 only. Zeroed = no sample yet. */
struct nic_txwd {
    uint32_t head;     /* TDH at the last sample */
    uint64_t done;     /* the owner's completion count (tx_packets) at the last sample */
    uint64_t since_ns; /* start of the current stand-still */
    bool pending;      /* the last sample saw work pending with the link up */
};

/* nic_txwd_forget: start over (after a port reset, or when sampling resumes). */
static inline void nic_txwd_forget(struct nic_txwd *w)
{
    w->pending = false;
}

/*
 * nic_txwd_sample: one sample of a TX queue at now_ns. Returns true when the queue has had work
 * pending (head != tail) with the link up and made no progress (head and done unchanged) in
 * every sample since one taken at least bound_ns ago; false otherwise. A sample that sees
 * progress, nothing pending, or the link down restarts the clock, so the bound is measured
 * from the first sample that found the queue stuck. Core 0 (housekeeping).
 */
static inline bool nic_txwd_sample(struct nic_txwd *w, uint32_t head, uint32_t tail,
                                   uint64_t done, bool link_up, uint64_t now_ns,
                                   uint64_t bound_ns)
{
    bool pending = head != tail && link_up;
    bool moved = head != w->head || done != w->done;

    if (!pending || !w->pending || moved) {
        w->head = head;
        w->done = done;
        w->since_ns = now_ns;
        w->pending = pending;
        return false;
    }
    return now_ns - w->since_ns >= bound_ns;
}

#endif
