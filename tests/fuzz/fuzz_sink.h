/*
 * tests/fuzz/fuzz_sink.h: what the two harnesses of the sink over lwIP share (fuzz_lwip,
 * fuzz_sink_services). lwIP cannot be brought up twice, so it is brought up on the first input
 * and every input must start from the same point and leave everything as it found it:
 *   fuzz_sink_same_phase   each input at the same phase of the ISN clock and of lwIP's slow
 *                          TCP timer, so an input behaves the same every time it runs;
 *   fuzz_sink_abort_all    what the input's clients left open, aborted (their err callbacks);
 *   fuzz_sink_all_home     every handed buffer back in its pool, no pcb left open;
 *   fuzz_lwip_level_*      lwIP's memp pools and heap back at the level taken after start-up.
 * Requires the fake platform (tests/fakes/fake_sink_platform.h) and lwIP's tcp_priv.h.
 */
#ifndef WS_FUZZ_SINK_H
#define WS_FUZZ_SINK_H

#include "net/handoff.h"
#include "lwip/memp.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "net/lwip-port/sink_netif.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/fuzz/fuzz.h"

/* time_ns / 4000 (the ISN clock, isn.c) wraps at 2^32: inputs start a whole period apart. */
#define FUZZ_SINK_ISN_PERIOD_NS (4000ULL << 32)

struct fuzz_lwip_level {
    uint16_t memp[MEMP_MAX];
    mem_size_t mem;
};

static inline void fuzz_lwip_level_take(struct fuzz_lwip_level *l)
{
    for (unsigned i = 0; i < MEMP_MAX; i++) {
        l->memp[i] = lwip_stats.memp[i]->used;
    }
    l->mem = lwip_stats.mem.used;
}

static inline void fuzz_lwip_level_check(const struct fuzz_lwip_level *l)
{
    for (unsigned i = 0; i < MEMP_MAX; i++) {
        if (lwip_stats.memp[i]->used != l->memp[i]) {
            fprintf(stderr, "lwIP memp pool %u: %u in use, %u after start-up\n", i,
                    lwip_stats.memp[i]->used, l->memp[i]);
            FUZZ_CHECK(!"lwIP's memp pools are back where they were");
        }
    }
    FUZZ_CHECK(lwip_stats.mem.used == l->mem);
}

static inline void fuzz_sink_same_phase(void)
{
    fsp_clock_set_ns((fsp_clock_ns() / FUZZ_SINK_ISN_PERIOD_NS + 1) * FUZZ_SINK_ISN_PERIOD_NS +
                     1000000000ULL);
    /* tcp_tmr runs tcp_slowtmr every second call, counted in a static of tcp.c that the last
     * input left odd or even. With no connection (the last input closed them all) a call
     * changes nothing else: call it until one was a slow one (tcp_ticks moved). */
    for (u32_t ticks = tcp_ticks; tcp_ticks == ticks;) {
        tcp_tmr();
    }
}

static inline void fuzz_sink_abort_all(void)
{
    while (tcp_active_pcbs != NULL) {
        tcp_abort(tcp_active_pcbs);
    }
    while (tcp_tw_pcbs != NULL) {
        tcp_abort(tcp_tw_pcbs);
    }
}

static inline void fuzz_sink_all_home(void)
{
    FUZZ_CHECK(!handoff_pending());
    for (unsigned c = 0; c < FSP_CORES; c++) {
        FUZZ_CHECK(!handoff_returns_pending(c));
    }
    FUZZ_CHECK(fsp_pools_full());
    FUZZ_CHECK(sink_netif_stats.rx_wrapped == sink_netif_stats.rx_released);
    FUZZ_CHECK(tcp_active_pcbs == NULL && tcp_tw_pcbs == NULL && tcp_bound_pcbs == NULL);
}

#endif
