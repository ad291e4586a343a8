/*
 * drivers/nic/intel_ring.h: RX and TX descriptor rings shared by the igb (82576) and ixgbe
 * (82599) drivers, on the advanced descriptors of intel_desc.h (82576 datasheet §7.1, §7.2;
 * 82599 datasheet §7.1, §7.2). A ring knows its descriptor memory, its buffers and the address
 * of its tail register; queue setup and every other register stay in the drivers.
 *
 * Index conventions (both directions): the slots from next_to_clean up to next_to_use - 1 have
 * been handed to the NIC (posted) and are waited on in that order; next_to_use is also the value
 * last written to the tail register. The NIC owns the descriptors from its head up to tail - 1,
 * and head == tail means "nothing for the NIC", so a ring never posts all `size` slots: one
 * always stays empty, or a full ring would look empty to the NIC (both datasheets' "Receive /
 * Transmit Descriptor Ring Structure" sections, in §7.1 and §7.2).
 */
#ifndef WS_INTEL_RING_H
#define WS_INTEL_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/nic/intel_desc.h"
#include "pkb.h"

#define IRING_MIN_DESCS 8     /* RDLEN/TDLEN are multiples of 128 bytes = 8 descriptors */
#define IRING_MAX_DESCS 4096  /* no ring needs more; keeps indices in 16 bits */
#define IRING_ALIGN_BYTES 128 /* RDBAL/TDBAL: descriptor rings are 128-byte aligned */

/* IRING_DESC_MEM_BYTES: descriptor memory a ring of n descriptors needs (RDLEN/TDLEN value). */
#define IRING_DESC_MEM_BYTES(n) ((uint32_t)(n) * 16U)

/*
 * dma_wmb_before_tail: make every descriptor and buffer store above visible to the NIC before
 * the tail write below it. Descriptors and buffers are write-back (WB) memory, DMA snoops the
 * caches, and the tail register is mapped uncached (UC, kernel/vm.c). x86 never reorders a store
 * with older stores (SDM Vol. 3A "Memory Ordering in P6 and More Recent Processor Families":
 * "Writes to memory are not reordered with other writes", the exceptions being non-temporal
 * stores, string operations and WC memory), so when the UC tail store reaches the device all
 * earlier WB stores are already globally visible. Only the compiler could reorder them: an empty
 * asm with a memory clobber stops it (Linux's x86 dma_wmb() is likewise barrier()). Not enough if
 * the BAR is ever mapped write-combining or buffers are filled with movnt: those need sfence.
 */
static inline void dma_wmb_before_tail(void)
{
    __asm__ volatile("" ::: "memory");
}

/*
 * dma_rmb_after_dd: keep every read of a descriptor's other fields, and of the buffer the NIC
 * filled, after the read that found DD set. x86 does not reorder loads with other loads (same
 * SDM section), so once DD is seen the NIC's earlier writes are seen too; again only the
 * compiler could hoist a read above the DD test, which the memory clobber forbids.
 */
static inline void dma_rmb_after_dd(void)
{
    __asm__ volatile("" ::: "memory");
}

/*
 * Burst shape (what keeps the per-packet cost down; tests/bench/fwd_bench.sh measures it):
 * - RX harvests a burst with ring state in locals, stores two words of metadata per frame, and
 *   refills in bulk once IRING_RX_REFILL_BATCH slots are free (one pool pop, one tail write).
 * - TX asks for a status write-back (RS) only every IRING_TX_RS_EVERY descriptors and on the
 *   last descriptor of every burst, so an idle ring still completes. The NIC processes a ring in
 *   order, so DD on a reported descriptor means every descriptor before it is done too: reclaim
 *   looks at one DD bit per group and frees the group in bulk to the owning core's pool, where
 *   the next RX refill finds the buffers still warm. A frame in two descriptors (PKB_TX_EXT)
 *   gets RS on its second only: when a group's slot holds the first, the second reports it.
 */
#define IRING_RX_REFILL_BATCH 32
#define IRING_TX_RS_EVERY 32

/* Per-queue RX counters, summed over queues only when shown. */
struct iring_rx_stats {
    uint64_t packets;     /* good frames handed out by iring_rx_burst */
    uint64_t bytes;       /* their lengths as written back (no FCS when the MAC strips it) */
    uint64_t no_buffer;   /* refills that found the pool empty and left slots unposted */
    uint64_t errors;      /* frames dropped: error bits, impossible length, or oversize */
    uint64_t oversize;    /* ...of which spanned several buffers (non-EOP descriptor) */
    uint64_t tail_writes; /* RDT writes (one per refill that posted anything) */
    uint64_t flushed;     /* frames the NIC had written back that iring_rx_release discarded
                           * (a port reset or a dead port: the core never took them) */
};

/* Per-queue TX counters. packets/bytes count completions (DD seen), not submissions. */
struct iring_tx_stats {
    uint64_t packets;     /* frames the NIC reported done (a TSO frame: each segment) */
    uint64_t bytes;       /* their lengths (a TSO frame's headers once per segment) */
    uint64_t ring_full;   /* frames dropped (freed) because no descriptor was free */
    uint64_t bad_len;     /* frames dropped because len was 0 or above PKB_DATA_BYTES */
    uint64_t foreign;     /* frames dropped because their buffer is not from this core's pool
                           * (a bug: completion returns buffers to the ring's pool in bulk) */
    uint64_t tail_writes; /* TDT writes (one per burst that placed anything) */
    uint64_t forwarded;   /* of packets: forwarded frames (pkb.forwarded when placed, or
                           * placed by iring_tx_burst_forward) */
    uint64_t flushed;     /* frames iring_tx_release freed without a completion (not sent) */
    uint64_t flushed_forwarded; /* of flushed: forwarded frames */
    uint64_t no_csum_ctx; /* frames dropped because they asked for a checksum offload the ring
                           * has no context for (a bug: iring_tx_load_csum_context first) */
    uint64_t tso_frames;  /* TSO frames placed (PKB_TX_TSO): each becomes segments on the wire */
    uint64_t bad_tso;     /* TSO frames dropped: headers, MSS or payload out of range (a bug) */
    uint64_t vlan_inserted; /* frames placed whose 802.1Q tag the NIC puts on (PKB_TX_VLAN) */
};

struct iring_rx {
    /* read-only after iring_rx_init */
    volatile union idesc_rx *desc; /* size descriptors, IRING_ALIGN_BYTES aligned */
    struct pkb **sw;               /* buffer behind each posted descriptor (others: stale) */
    struct pkb_pool *pool;         /* refills come from here: the owning core's pool */
    uintptr_t tail_reg;            /* MMIO address of this queue's RDT */
    uint64_t meta;                 /* pkb.rx_meta of every frame, less its length */
    uint32_t good_mask;            /* DD, EOP and the error bits that mean "bad frame" */
    uint32_t l4_mask;              /* L4I and the chip's TCP/UDP checksum error bit... */
    uint32_t l4_good;              /* ...and their value on a frame the NIC vouches for */
    uint32_t ip_mask;              /* IPCS and the chip's IPv4 header checksum error bit... */
    uint32_t ip_good;              /* ...and their value when the header checksum verified */
    uint16_t size;                 /* descriptors: a power of two */
    uint16_t mask;                 /* size - 1: indices wrap with & instead of % */
    uint16_t refill_min;           /* refill once this many slots are free */
    uint16_t core;                 /* owning core; also the queue index (one queue per core) */
    uint16_t port;                 /* port index written into each pkb */

    /* owned by core `core` */
    uint16_t next_to_clean; /* next descriptor whose write-back we wait for */
    uint16_t next_to_use;   /* next slot to post == last tail value written */
    bool discarding;        /* inside an oversize frame: drop up to its EOP descriptor */
    struct iring_rx_stats stats;
};

/*
 * What had been placed on a TX ring up to and including one descriptor with RS, as running
 * totals (modulo 2^32) since iring_tx_init: a completion up to that descriptor counts the
 * difference from the previous one, so reclaim never reads the frames' metadata. Written when
 * the descriptor is placed with RS; a mark left from an earlier lap is told apart by its frame
 * total (iring_tx_release trusts a mark only if it matches the slot's place in the ring).
 */
struct iring_tx_mark {
    uint32_t frames;
    uint32_t bytes;
    uint32_t forwarded;
    uint32_t descs; /* descriptors: frames plus the further ones of multi-descriptor frames */
    uint32_t extra; /* wire frames beyond the first of each TSO frame (its other segments) */
};

/* iring_tx.ctx1_tag when slot 1 holds no tag-only context (none yet, TSO's, a checksum's). */
#define IRING_CTX1_OTHER 0x10000u

struct iring_tx {
    /* read-only after iring_tx_init */
    volatile union idesc_tx *desc; /* size descriptors, IRING_ALIGN_BYTES aligned */
    struct pkb **sw;               /* packet behind each in-flight descriptor (others: stale) */
    struct iring_tx_mark *marks;   /* one per descriptor; meaningful where RS was set */
    struct pkb_pool *pool;         /* the owning core's pool: completions go back to it */
    uintptr_t tail_reg;            /* MMIO address of this queue's TDT */
    uint16_t size;
    uint16_t mask;
    uint16_t rs_mask; /* RS on every descriptor whose index has these bits all set */
    uint16_t core;    /* owning core: the only core that may call in */
    uint16_t port;

    /* owned by core `core` */
    uint16_t next_to_clean; /* oldest in-flight descriptor */
    uint16_t next_to_use;   /* next free slot == last tail value written */
    uint16_t report;        /* first descriptor from next_to_clean on with RS: its DD is the
                             * one reclaim waits for */
    bool csum_ctx;          /* the NIC holds the TCP/IPv4 context (iring_tx_load_csum_context) */
    uint8_t ctx_unseen;     /* 1 until a completion shows the NIC went past that context's
                             * slot: the slot is not free before (iring_tx_room) */
    uint32_t ctx1_tag;      /* what context slot 1 holds for the NIC: a tag alone (its TCI,
                             * for tagged forwarded runs), or IRING_CTX1_OTHER */
    struct iring_tx_mark placed; /* totals of everything placed (as a mark of the last) */
    struct iring_tx_mark done;   /* totals of everything completed */
    struct iring_tx_stats stats;
};

/*
 * iring_rx_init: set up an RX ring over caller-provided memory: desc_mem (ndesc * 16 bytes,
 * IRING_ALIGN_BYTES aligned; zeroed here) and sw (ndesc pointers). ndesc is a power of two in
 * [IRING_MIN_DESCS, IRING_MAX_DESCS]. Posts nothing and writes no register: program the queue
 * (RDBA/RDLEN/SRRCTL with a PKB_DATA_BYTES buffer), enable it, then call iring_rx_fill. The
 * frame-error mask defaults to IDESC_RX_ERR_FRAME_82576; the 82599 driver must set its own with
 * iring_rx_set_err_mask. pool is the owning core's. Returns 0 or WS_ERR_INVAL. Init time.
 */
int iring_rx_init(struct iring_rx *r, void *desc_mem, struct pkb **sw, uint16_t ndesc,
                  uintptr_t tail_reg, struct pkb_pool *pool, uint16_t core, uint16_t port);
/* iring_rx_set_err_mask: which write-back error bits drop a frame (IDESC_RX_ERR_FRAME_*). */
void iring_rx_set_err_mask(struct iring_rx *r, uint32_t mask);
/* iring_rx_trust_l4_csum: iring_rx_l4_csum_ok answers yes for frames whose write-back says the
 * NIC checked the TCP/UDP checksum (L4I) and found no error (the chip's bit l4_err), and the
 * sink does not check that checksum again. Without this call it always answers no. */
void iring_rx_trust_l4_csum(struct iring_rx *r, uint32_t l4_err);

/* iring_rx_trust_ipv4_csum: likewise for the IPv4 header checksum: IPCS set and the chip's
 * bit ip_err clear mean it verified, and the router does not sum the header again. */
void iring_rx_trust_ipv4_csum(struct iring_rx *r, uint32_t ip_err);

/* iring_rx_l4_csum_ok: did the NIC vouch for the TCP/UDP checksum of a frame from this ring
 * whose write-back status was rx_status (pkb.rx_status)? Decided when asked, not per frame. */
static inline bool iring_rx_l4_csum_ok(const struct iring_rx *r, uint32_t rx_status)
{
    return r->l4_mask != 0 && (rx_status & r->l4_mask) == r->l4_good;
}

/* iring_rx_ipv4_csum_ok: did the NIC vouch for the IPv4 header checksum (rx_status as above)?
 * Without iring_rx_trust_ipv4_csum, never: a zero mask is compared with IPCS. */
static inline bool iring_rx_ipv4_csum_ok(const struct iring_rx *r, uint32_t rx_status)
{
    return (rx_status & r->ip_mask) == r->ip_good;
}

/*
 * iring_rx_fill: post a buffer into every free slot (all but one), in order, until the pool
 * runs dry (counted once in no_buffer), then write the tail once if anything was posted.
 * Returns the number posted. Owning core; iring_rx_burst refills through it.
 */
unsigned iring_rx_fill(struct iring_rx *r);
/*
 * iring_rx_burst: hand out up to max received frames (pkb len/port/queue/rx_status set, forwarded
 * 0; the caller owns them and frees them with pkb_free), drop and recycle bad ones, and refill
 * (one tail write) once IRING_RX_REFILL_BATCH slots are free, or fully when nothing came.
 * Returns the number written to out. Owning core, fast path.
 */
unsigned iring_rx_burst(struct iring_rx *r, struct pkb **out, unsigned max);
/* iring_rx_pending: a frame is waiting (DD set on next_to_clean). For the adaptive loop's
 * re-check after arming the interrupt. Owning core. */
bool iring_rx_pending(const struct iring_rx *r);
/* iring_rx_release: free every buffer the ring holds back to the pool and forget them; frames
 * the NIC had already written back (DD) are counted in stats.flushed. The ring is then as
 * iring_rx_init left it (indices 0, descriptors zeroed), statistics kept. Only once the NIC
 * can no longer write the ring: the queue stopped (RXDCTL.ENABLE reads 0), or the port reset
 * and reprogrammed with the tail at 0. Owning core. */
void iring_rx_release(struct iring_rx *r);

/*
 * iring_tx_init: like iring_rx_init, for a TX ring (desc_mem zeroed, nothing posted, no register
 * touched), with marks (ndesc of them, zeroed here) beside sw; pool is the owning core's, where
 * completed buffers go. Returns 0 or WS_ERR_INVAL. Init time, any core.
 */
int iring_tx_init(struct iring_tx *t, void *desc_mem, struct pkb **sw,
                  struct iring_tx_mark *marks, uint16_t ndesc, uintptr_t tail_reg,
                  struct pkb_pool *pool, uint16_t core, uint16_t port);
/*
 * iring_tx_burst: reclaim completions, then place pkts[0..n) one descriptor each (two for a
 * PKB_TX_EXT frame: its buffer, then its tx.ext part; three for PKB_TX_TSO: a context
 * descriptor with its MSS in slot 1 first; one more for PKB_TX_VLAN but with TSO: a context
 * descriptor with its tag in slot 1 first) and write the tail once. The ring takes
 * ownership of all n: those placed are freed on completion, the rest (no free descriptor:
 * ring_full; impossible length: bad_len; another pool's buffer: foreign; an offload it cannot
 * do: no_csum_ctx; a TSO frame out of range: bad_tso) are freed now. Returns the number placed. Owning core, fast path.
 */
unsigned iring_tx_burst(struct iring_tx *t, struct pkb **pkts, unsigned n);
/*
 * iring_tx_burst_forward: iring_tx_burst for frames this core just took from one of its RX
 * rings (iring_rx_burst: length already in range, buffer from this core's pool, forwarded 0), as
 * the wire forwarder does: placed without those checks, and counted forwarded. Frames
 * that find no descriptor are freed and counted in ring_full. Owning core, fast path.
 */
unsigned iring_tx_burst_forward(struct iring_tx *t, struct pkb **pkts, unsigned n);
/*
 * iring_tx_burst_forward_tagged: iring_tx_burst_forward for frames that are to leave with the
 * 802.1Q tag tci, which the NIC inserts (VLE), each marked PKB_TX_VLAN with vlan = tci and
 * forwarded. The tag's context stays in slot 1 across runs: when slot 1 holds anything else,
 * the first frame goes by iring_tx_burst, which writes the context ahead of it (if it finds no
 * room, neither does the rest); the others take one descriptor each, naming slot 1 with VLE.
 * Owning core, fast path.
 */
unsigned iring_tx_burst_forward_tagged(struct iring_tx *t, struct pkb **pkts, unsigned n,
                                       uint16_t tci);
/*
 * iring_tx_reclaim: free what the NIC has reported done (DD on a reported descriptor covers it
 * and every one before it), counting each frame. Returns the number reclaimed. Owning core;
 * the bursts call it, and an idle loop should too so buffers do not sit in a quiet ring.
 * (iring_tx_reclaim_reported does the work once a report is seen.)
 */
unsigned iring_tx_reclaim_reported(struct iring_tx *t);
static inline unsigned iring_tx_reclaim(struct iring_tx *t)
{
    /* Called on every pass: the common answer (nothing new) costs one look at one DD. */
    bool reported = t->next_to_clean != t->next_to_use &&
                    (t->desc[t->report].wb.status & IDESC_TX_STATUS_DD) != 0;
    return reported ? iring_tx_reclaim_reported(t) : 0;
}
/*
 * iring_tx_load_csum_context: give the NIC the context that frames marked PKB_TX_CSUM_TCP4 use
 * (slot 0: 14-byte Ethernet header, 20-byte IPv4 header, TCP): one context descriptor in slot
 * 0 and TDT = 1, then the ring goes on from slot 1. Only on an empty ring that starts at slot
 * 0 (just after iring_tx_init or iring_tx_release) whose queue is enabled; WS_ERR_INVAL
 * otherwise. The descriptor asks for no write-back and holds no buffer, so nothing reclaims it:
 * slot 0 is placed again only a lap later, after the NIC reported later descriptors done.
 * Owning core (or the boot, before the cores run).
 */
int iring_tx_load_csum_context(struct iring_tx *t);

/* iring_tx_release: reclaim what the NIC reported done (as iring_tx_reclaim), then free every
 * other in-flight buffer without waiting for DD, counted in stats.flushed. The ring is then as
 * iring_tx_init left it, statistics kept. Only once the NIC can no longer read the ring: the
 * queue stopped (TXDCTL.ENABLE reads 0), or the port reset with the tail at 0. Owning core. */
void iring_tx_release(struct iring_tx *t);

/* Accessors for the `rings` console command (software view; the driver adds RDH/RDT). */
static inline uint16_t iring_rx_next_to_clean(const struct iring_rx *r)
{
    return r->next_to_clean;
}

static inline uint16_t iring_rx_next_to_use(const struct iring_rx *r)
{
    return r->next_to_use;
}

static inline uint16_t iring_rx_size(const struct iring_rx *r)
{
    return r->size;
}

/* iring_rx_posted: buffers currently handed to the NIC (done or not). */
static inline uint16_t iring_rx_posted(const struct iring_rx *r)
{
    return (uint16_t)((r->next_to_use - r->next_to_clean) & r->mask);
}

static inline uint16_t iring_tx_next_to_clean(const struct iring_tx *t)
{
    return t->next_to_clean;
}

static inline uint16_t iring_tx_next_to_use(const struct iring_tx *t)
{
    return t->next_to_use;
}

static inline uint16_t iring_tx_size(const struct iring_tx *t)
{
    return t->size;
}

/* A PKB_TX_EXT frame's second part: at most a jumbo frame's payload (DTALEN is 16 bits). */
#define IRING_TX_EXT_MAX_BYTES 9216u
/* A PKB_TX_TSO frame's payload, in its one descriptor: 16 KiB, what the 82599 takes in one data
 * buffer (Linux's ixgbe splits its buffers there too). */
#define IRING_TX_TSO_MAX_BYTES 16384u
/* A PKB_TX_TSO frame's MSS: from IPv4's minimum (RFC 879) to a 9000-byte MTU's. */
#define IRING_TX_TSO_MIN_MSS 536u
#define IRING_TX_TSO_MAX_MSS 8960u

/* iring_tx_in_flight: descriptors placed and not yet reclaimed (a frame's, or two). */
static inline uint16_t iring_tx_in_flight(const struct iring_tx *t)
{
    return (uint16_t)((t->next_to_use - t->next_to_clean) & t->mask);
}

#endif
