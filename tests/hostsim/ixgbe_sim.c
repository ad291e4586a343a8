/*
 * tests/hostsim/ixgbe_sim.c: the firmware's real 82599 driver (drivers/nic/ixgbe.c), NIC layer,
 * rings, MSI-X code and forwarding (apps/fwd, net/) on the host, against two ports of the
 * 82599 datasheet model (tests/model), through kernel/mmio.h's host seam (ixgbe_platform.c).
 * Deterministic: one thread, a simulated clock, the cores' passes (fwd_poll_core) in turn.
 *
 * Tests (issue 4, "Tests that must pass"; tests/hostsim/README.md says what each proves):
 *   init          both ports up; the model's access log holds the datasheet's init order
 *   eeprom, dma, rxq, txq, gone, gone-reset, gone-rxq
 *                 a fault per bring-up step: the step's message, the port skipped, the other
 *                 port still up and answering
 *   gone-later    the device drops off the bus after bring-up: housekeeping says so, once
 *   link          link never up at init: reported, port kept; up later: housekeeping says so
 *   rss           many IPv4 TCP/UDP/other flows: queue per the redirection table, hash per
 *                 Toeplitz (Microsoft's verification vectors too), MSI-X per queue and core
 *   ping          ARP and ICMP echo answered on both ports, from the core RSS picks
 *   stream        1,000,000 64-byte frames over 256 flows routed port0 -> port1: none lost,
 *                 none reordered, every counter adds up, pools full; then an overload whose
 *                 drops the model and the driver's statistics count alike
 *   tx-hang, gone-traffic, sfp-pull, pause-flood   faults with traffic flowing (ixgbe_sim_faults.c)
 *   sfp-modules, sfp-empty, sfp-refused, sfp-dual-rate, sfp-board, nvm-checksum   SFP+ and the
 *                 board's NVM (ixgbe_sim_sfp.c)
 * Each test runs in a child process of its own (the firmware's tables are static and boot-once),
 * prints FAIL lines for what went wrong and one summary line. Exit status 1 if any failed.
 */
#define _GNU_SOURCE
#include "tests/hostsim/ixgbe_sim.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apps/fwd/fwd.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/rss.h"
#include "tests/hostsim/ixgbe_appliance.h"

bool xs_verbose;
uint64_t xs_frames = 1000000;
static const char *xs_test;
static unsigned xs_fails;
static char xs_summary[512];

/* --- reporting ----------------------------------------------------------------------------- */

void xs_fail(const char *fmt, ...)
{
    va_list ap;
    printf("ixgbe_sim: FAIL %s: ", xs_test);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    xs_fails++;
}

void xs_expect(const char *what, uint64_t got, uint64_t want)
{
    XS_CHECK(got == want, "%s: %" PRIu64 ", expected %" PRIu64, what, got, want);
}

void xs_expect_console(const char *line)
{
    XS_CHECK(xs_console_has(line), "console lacks \"%s\"", line);
}

void xs_summarize(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(xs_summary, sizeof(xs_summary), fmt, ap);
    va_end(ap);
}

/* The models must never have seen a misuse, a refused DMA or an access of the wrong width. */
void xs_check_clean(void)
{
    char why[1024];
    if (xs_platform_clean(why, sizeof(why))) {
        return;
    }
    for (const char *line = why; *line != '\0';) { /* one FAIL line per problem */
        size_t len = strcspn(line, "\n");
        xs_fail("%.*s", (int)len, line);
        line += len + (line[len] == '\n');
    }
}

/* --- frames -------------------------------------------------------------------------------- */

static uint64_t xs_rng = 0x9E3779B97F4A7C15ULL;

uint64_t xs_rand(void)
{
    xs_rng ^= xs_rng << 13;
    xs_rng ^= xs_rng >> 7;
    xs_rng ^= xs_rng << 17;
    return xs_rng;
}

/* xs_build_ipv4: a 60-byte IPv4 frame (64 on the wire with the FCS the NIC strips) from src to
 * dst, tag in the IP identification field; frag sets a fragment offset (RSS then hashes the
 * addresses only). Returns its length. */
uint16_t xs_build_ipv4(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t src,
                       uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport, uint16_t tag,
                       bool frag)
{
    uint16_t len = 60;
    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    sim_st16(f + 12, 0x0800);
    uint8_t *ip = f + 14, *l4 = ip + 20;
    ip[0] = 0x45;
    sim_st16(ip + 2, (uint16_t)(len - 14));
    sim_st16(ip + 4, tag);
    sim_st16(ip + 6, frag ? 0x0010 : 0x4000); /* offset 16 x 8 bytes, or DF */
    ip[8] = 64;
    ip[9] = proto;
    sim_st32(ip + 12, src);
    sim_st32(ip + 16, dst);
    sim_st16(ip + 10, sim_csum(ip, 20, 0));
    if (proto == XS_PROTO_ICMP) {
        l4[0] = 8; /* echo request */
        sim_st16(l4 + 4, tag);
        sim_st16(l4 + 6, 1);
        sim_st16(l4 + 2, sim_csum(l4, len - 34u, 0));
    } else {
        sim_st16(l4, sport);
        sim_st16(l4 + 2, dport);
        if (proto == XS_PROTO_UDP) {
            sim_st16(l4 + 4, (uint16_t)(len - 34));
        } else {
            l4[12] = 0x50; /* data offset 5 */
            l4[13] = 0x10; /* ACK */
        }
    }
    return len;
}

/* The queue the driver's redirection table sends a hash to: entry (hash & 127) holds
 * entry % nqueues (ixgbe_init_rss); the model reads the table the driver wrote. */
unsigned xs_reta_queue(uint32_t hash)
{
    return (hash & (XS_RETA_ENTRIES - 1)) % XS_NQ;
}

/* --- running the appliance ----------------------------------------------------------------- */

/* xs_boot: kernel/main.c's order: pools, ports, forwarding. Returns the ports up. */
unsigned xs_boot(void)
{
    const char *failed;
    unsigned n = xs_appliance_boot(XS_CORES, &failed);
    if (failed != NULL) {
        xs_fail("%s failed", failed);
    }
    return n;
}

bool xs_tx_in_flight(void)
{
    return xs_appliance_tx_in_flight();
}

/* xs_settle: every core's pass in turn, time moving on, until nothing moves and nothing is in
 * flight. Returns frames received. */
uint64_t xs_settle(void (*between)(void))
{
    uint64_t total = 0;
    for (unsigned round = 0; round < XS_QUIET_ROUNDS; round++) {
        unsigned moved = 0;
        for (unsigned c = 0; c < XS_CORES; c++) {
            moved += fwd_poll_core(c);
        }
        xs_advance(1000);
        total += moved;
        if (between) {
            between();
        }
        if (moved == 0 && !xs_tx_in_flight()) {
            return total;
        }
    }
    xs_fail("still busy after %d rounds", XS_QUIET_ROUNDS);
    return total;
}

void xs_capture_tx(void *ctx, const uint8_t *f, size_t len)
{
    struct xs_capture *c = ctx;
    if (c->n == XS_CAP_FRAMES || len > sizeof(c->f[0])) {
        c->overflow++;
        return;
    }
    memcpy(c->f[c->n], f, len);
    c->len[c->n++] = (uint16_t)len;
}

/* xs_inject: one frame on port i's wire; false if the model did not take it. */
bool xs_inject(unsigned port, const uint8_t *f, size_t len)
{
    return ixgbe_model_inject(xs_port(port)->m, f, len) == 0;
}

uint32_t xs_port_ip(unsigned port)
{
    return port == 0 ? SIM_IP_PORT0 : SIM_IP_PORT1;
}

/* xs_arp_exchange: host (hmac, hip) on model port mp's wire asks for port_ip; exactly one correct
 * ARP reply must come out of that port. Returns true if it did. */
bool xs_arp_exchange(unsigned mp, uint32_t port_ip, const uint8_t *hmac, uint32_t hip)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static struct xs_capture cap;
    uint8_t f[SIM_FRAME_BYTES], want[SIM_FRAME_BYTES];
    struct xs_port *xp = xs_port(mp);

    memset(&cap, 0, sizeof(cap));
    xp->on_tx = xs_capture_tx;
    xp->tx_ctx = &cap;
    sim_build_arp(f, 1, bcast, hmac, hip, (const uint8_t[6]){ 0 }, port_ip);
    bool took = xs_inject(mp, f, sizeof(f));
    XS_CHECK(took, "model port %u refused the ARP request", mp);
    xs_settle(NULL);
    xp->on_tx = NULL;
    sim_build_arp(want, 2, hmac, xp->mac, port_ip, hmac, hip);
    bool ok = took && cap.n == 1 && cap.len[0] == SIM_FRAME_BYTES &&
              memcmp(cap.f[0], want, SIM_FRAME_BYTES) == 0;
    XS_CHECK(ok, "model port %u: %u frame(s) out after an ARP request for %u.%u.%u.%u, expected "
             "one ARP reply as RFC 826 has it", mp, cap.n, port_ip >> 24, (port_ip >> 16) & 255,
             (port_ip >> 8) & 255, port_ip & 255);
    return ok;
}

/* The model's register, without side effects. */
uint32_t xs_peek(unsigned port, uint32_t off)
{
    return ixgbe_model_peek(xs_port(port)->m, IXGBE_MODEL_BAR_REGS, off);
}


unsigned xs_failures(void)
{
    return xs_fails;
}

const char *xs_test_name(void)
{
    return xs_test;
}

/* --- main: one child process per test ------------------------------------------------------ */

static const struct xs_case {
    const char *name;
    void (*fn)(void);
    const char *what;
} xs_cases[] = {
    { "init", xs_test_init, "bring-up of both ports in the datasheet's order" },
    { "eeprom", xs_test_eeprom, "EEPROM auto-read never completes" },
    { "dma", xs_test_dma, "DMA init never completes" },
    { "rxq", xs_test_rxq, "an RX queue enable never latches" },
    { "txq", xs_test_txq, "a TX queue enable never latches" },
    { "gone", xs_test_gone, "the device is gone (all-ones) from the start" },
    { "gone-reset", xs_test_gone_reset, "the device goes away during the reset" },
    { "gone-rxq", xs_test_gone_rxq, "the device goes away while an RX queue is enabled" },
    { "gone-later", xs_test_gone_later, "the device goes away after bring-up" },
    { "link", xs_test_link, "the link is down at bring-up and comes up later" },
    { "apic-high", xs_test_apic_high, "a core with APIC ID 300: no MSI-X route, it polls" },
    { "rss", xs_test_rss, "RSS queue choice, hash and per-queue MSI-X" },
    { "ping", xs_test_ping, "ARP and ICMP echo on both ports" },
    { "stream", xs_test_stream, "a million frames routed port0 -> port1, then an overload" },
    { "tx-hang", xs_test_tx_hang, "port1 stops completing mid-stream: watchdog, reset, resume" },
    { "gone-traffic", xs_test_gone_traffic, "port1 drops off the bus mid-stream: isolated" },
    { "sfp-pull", xs_test_sfp_pull, "port1's SFP+ module pulled mid-stream, pushed back" },
    { "pause-flood", xs_test_pause_flood, "XOFF flood on port1 under a stream: held, not hung" },
    { "sfp-modules", xs_test_sfp_modules, "every known module type swapped into port1" },
    { "sfp-empty", xs_test_sfp_empty, "an empty cage at boot, a module pushed in later" },
    { "sfp-refused", xs_test_sfp_refused, "unknown-type and bad-checksum modules refused" },
    { "sfp-dual-rate", xs_test_sfp_dual_rate, "a dual-rate optic finds a 1G-only peer's rate" },
    { "sfp-board", xs_test_sfp_board, "AUTOC2 link-disable, laser left off, MNG_VETO" },
    { "nvm-checksum", xs_test_nvm_checksum, "a bad NVM checksum: the port skipped" },
};
#define XS_NCASES (sizeof(xs_cases) / sizeof(xs_cases[0]))

/* xs_run_case: the test in this process. Returns its exit status. */
static int xs_run_case(const struct xs_case *c)
{
    xs_test = c->name;
    xs_fails = 0;
    xs_summary[0] = '\0';
    xs_platform_init(XS_CORES, xs_verbose);
    c->fn();
    xs_check_clean();
    printf("ixgbe_sim: %s %s: %s\n", xs_fails ? "FAIL" : "PASS", c->name,
           xs_summary[0] ? xs_summary : c->what);
    xs_platform_free();
    fflush(stdout);
    return xs_fails ? 1 : 0;
}

static double xs_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void xs_usage(FILE *to)
{
    fprintf(to, "usage: ixgbe_sim [--verbose] [--frames N] [--inline] [TEST...]\n"
                "  the real 82599 driver and forwarding path against two 82599 model ports\n"
                "  --verbose   the firmware's console lines (  fw| ...)\n"
                "  --frames N  frames in the stream test (default 1000000)\n"
                "  --inline    run in this process, no fork (one test only; for debuggers)\n"
                "tests:\n");
    for (size_t i = 0; i < XS_NCASES; i++) {
        fprintf(to, "  %-11s %s\n", xs_cases[i].name, xs_cases[i].what);
    }
}

int main(int argc, char **argv)
{
    bool want[XS_NCASES] = { false }, any = false, inline_run = false;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--verbose") == 0) {
            xs_verbose = true;
        } else if (strcmp(a, "--inline") == 0) {
            inline_run = true;
        } else if (strcmp(a, "--frames") == 0 && i + 1 < argc) {
            xs_frames = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(a, "--help") == 0) {
            xs_usage(stdout);
            return 0;
        } else {
            size_t k = 0;
            while (k < XS_NCASES && strcmp(xs_cases[k].name, a) != 0) {
                k++;
            }
            if (k == XS_NCASES) {
                xs_usage(stderr);
                return 2;
            }
            want[k] = any = true;
        }
    }
    if (xs_frames == 0 || xs_frames > 0xffffffffULL) {
        xs_usage(stderr);
        return 2;
    }
    unsigned run = 0, failed = 0;
    double t_all = xs_wall();
    for (size_t k = 0; k < XS_NCASES; k++) {
        if (any && !want[k]) {
            continue;
        }
        if (inline_run) {
            return xs_run_case(&xs_cases[k]);
        }
        double t0 = xs_wall();
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("ixgbe_sim: fork");
            return 1;
        }
        if (pid == 0) {
            _exit(xs_run_case(&xs_cases[k]));
        }
        int st = 0;
        while (waitpid(pid, &st, 0) < 0) {
        }
        run++;
        bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!ok) {
            failed++;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 1) {
                printf("ixgbe_sim: FAIL %s: the test process died (%s %d)\n", xs_cases[k].name,
                       WIFSIGNALED(st) ? "signal" : "exit status",
                       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            }
        }
        if (xs_verbose) {
            printf("ixgbe_sim: %s took %.2f s\n", xs_cases[k].name, xs_wall() - t0);
        }
    }
    printf("ixgbe_sim: %u of %u tests passed (%.1f s)\n", run - failed, run, xs_wall() - t_all);
    return failed ? 1 : 0;
}
