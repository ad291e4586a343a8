/*
 * net/lwip-port/lwippools.h: the fixed-size pools lwIP's mem_malloc draws from (MEM_USE_POOLS,
 * net/lwip-port/lwipopts.h) instead of its first-fit heap, whose allocation walks past every
 * block still in use: with a send buffer's worth of segment headers queued (about 180 per
 * connection), that walk was a tenth of what sending a segment cost (tests/bench/README.md,
 * send_bench). A request takes the smallest pool it fits, a bigger one when that is empty
 * (MEM_USE_POOLS_TRY_BIGGER_POOL); one that fits none fails and is counted (`heap_fail`).
 * Each entry is LWIP_MALLOC_MEMPOOL(count, bytes); bytes is one token (lwIP names the pool
 * after it) and at most 65,527 (lwIP's pool sizes are 16 bits, its helper takes 8).
 * Included by lwIP's memp_std.h, more than once: no include guard.
 */
LWIP_MALLOC_MEMPOOL_START
/* Headers of queued segments (one per segment on the queues: MEMP_NUM_TCP_SEG), the ACKs and
 * other empty segments lwIP builds, UDP and fragment headers: a pbuf, link/IP/TCP header room
 * and TCP options come to about 130 bytes. */
LWIP_MALLOC_MEMPOOL(8704, 256)
/* Segments lwIP copies (echo, control messages, JSON), one MSS each with its headers. */
#if TCP_MSS <= 1460
LWIP_MALLOC_MEMPOOL(2048, 1664)
#else
LWIP_MALLOC_MEMPOOL(384, 9216) /* jumbo frames: MSS up to 8960 */
#endif
/* Whole datagrams lwIP answers or echoes at once (ICMP echo of a reassembled ping, UDP echo of
 * a reassembled datagram): up to about 65,450 bytes. */
LWIP_MALLOC_MEMPOOL(8, 65520)
LWIP_MALLOC_MEMPOOL_END
