/*
 * tests/hostsim/ixgbe_sim_sfp.c: the real 82599 driver's SFP+ handling (drivers/nic/ixgbe_sfp.c,
 * ixgbe_nvm.c) against the model's cage (tests/model/ixgbe_model_sfp.c), whose link comes up only
 * when the driver did what the module needs:
 *   sfp-modules   every known module type swapped into port1 in turn (pulled, pushed): each
 *                 removal and insertion reported and counted, the module identified as its
 *                 page says, laser on, the NVM sequence and speed its type needs, link up,
 *                 ARP answered at the end
 *   sfp-empty     an empty cage at boot: said so, no link wait, port kept; a module pushed in
 *                 later comes up
 *   sfp-refused   a module of unknown type and one whose ID page fails its checksum: refused,
 *                 laser off, port kept down
 *   sfp-dual-rate a dual-rate optic whose peer runs one rate only: the driver finds it
 *   sfp-board     an NVM that disables the link (AUTOC2), a laser a previous owner left off,
 *                 management firmware holding MNG_VETO, an NVM enabling the firmware's LESM
 *                 (AUTOC only under the MAC CSR semaphore): each handled, link up, no misuse
 *   nvm-checksum  a bad NVM checksum: the port is skipped with the sum in the message
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "drivers/nic/nic.h"
#include "tests/hostsim/ixgbe_sim.h"

#define XS_HK_NS ((uint64_t)100000000) /* housekeeping every 100 ms */

static const struct xs_module_case {
    enum ixgbe_model_module module;
    const char *kind, *part;
    uint32_t mbps;
    int sequence; /* the NVM sequence (SFP id) the model must have seen */
} xs_module_cases[] = {
    { IXGBE_MODEL_MODULE_LR, "10GBASE-LR", "WSM-10G-LR", 10000, 5 },
    { IXGBE_MODEL_MODULE_DA_PASSIVE, "DA passive", "WSM-DAC-3M", 10000, 3 },
    { IXGBE_MODEL_MODULE_DA_ACTIVE, "DA active", "WSM-ADAC-7M", 10000, 5 },
    { IXGBE_MODEL_MODULE_1G_SX, "1000BASE-SX", "WSM-1G-SX", 1000, 5 },
    { IXGBE_MODEL_MODULE_1G_LX, "1000BASE-LX", "WSM-1G-LX", 1000, 5 },
    { IXGBE_MODEL_MODULE_1G_T, "1000BASE-T", "WSM-1G-T", 1000, 5 },
    { IXGBE_MODEL_MODULE_SR_DUAL, "10G/1G SR", "WSM-10G1G-SR", 10000, 5 }, /* any peer */
    { IXGBE_MODEL_MODULE_SR, "10GBASE-SR", "WSM-10G-SR", 10000, 5 },
};

/* xs_housekeep: `n` housekeeping periods of simulated time, housekeeping after each. */
static void xs_housekeep(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        xs_advance(XS_HK_NS);
        nic_housekeeping();
    }
}

/* xs_expect_module: port1 runs module case c: identified, lit, set up, linked. */
static void xs_expect_module(const struct xs_module_case *c)
{
    const struct nic_port *p = nic_port(1);
    struct ixgbe_model *m = xs_port(1)->m;
    char line[160];
    snprintf(line, sizeof(line), "port1: SFP+ module %s, ", c->kind);
    xs_expect_console(line);
    XS_CHECK(p->media.present && !p->media.refused && strcmp(p->media.kind, c->kind) == 0 &&
             strcmp(p->media.part, c->part) == 0, "port1 media: present %d refused %d kind "
             "\"%s\" part \"%s\", expected %s %s", p->media.present, p->media.refused,
             p->media.kind, p->media.part, c->kind, c->part);
    XS_CHECK(ixgbe_model_laser_on(m) && p->media.laser_on, "%s: laser off", c->kind);
    xs_expect("NVM init sequence the model saw", (uint64_t)ixgbe_model_sfp_sequence(m),
              (uint64_t)c->sequence);
    XS_CHECK(p->link_up && p->speed_mbps == c->mbps, "%s: link %s at %u Mb/s, expected up at %u",
             c->kind, p->link_up ? "up" : "down", p->speed_mbps, c->mbps);
}

void xs_test_sfp_modules(void)
{
    if (xs_boot() != 2) {
        xs_fail("bring-up");
        return;
    }
    xs_expect_console("port0: SFP+ module 10GBASE-SR, Intel Corp WSM-10G-SR (OUI 00:1b:21): "
                      "10 Gb/s, NVM init sequence 5 (4 words)\n");
    const struct nic_port *p = nic_port(1);
    for (size_t i = 0; i < sizeof(xs_module_cases) / sizeof(xs_module_cases[0]); i++) {
        const struct xs_module_case *c = &xs_module_cases[i];
        xs_console_clear();
        ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_NONE);
        xs_housekeep(1);
        xs_expect_console("port1: SFP+ module removed (");
        xs_expect_console("port1: link down\n");
        XS_CHECK(!p->media.present, "%s: still present after the pull", c->kind);
        ixgbe_model_set_module(xs_port(1)->m, c->module);
        xs_housekeep(2);
        XS_CHECK(!xs_console_has("inserted"), "%s: set up before it settled", c->kind);
        xs_housekeep(2); /* settled (300 ms), set up; trained; the link reported */
        xs_expect_console("port1: SFP+ module inserted\n");
        xs_expect_module(c);
    }
    size_t swaps = sizeof(xs_module_cases) / sizeof(xs_module_cases[0]);
    xs_expect("port1 module_events", p->module_events, 2 * swaps);
    xs_expect("port0 module_events", nic_port(0)->module_events, 0);
    static const uint8_t hmac[6] = { 0x02, 0, 0, 0, 0, 0xb1 };
    xs_arp_exchange(1, xs_port_ip(1), hmac, xs_port_ip(1) + 1);
    if (xs_failures() == 0) {
        xs_summarize("%zu modules swapped into port1 (LR, passive and active DA, 1000BASE-SX/"
                     "LX/T, dual-rate SR, SR): each pulled and pushed, reported, identified "
                     "from its page, "
                     "laser on, its NVM sequence and speed, link up; %" PRIu64 " module events; "
                     "ARP answered", swaps, p->module_events);
    }
}

void xs_test_sfp_empty(void)
{
    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_NONE);
    uint64_t t0 = xs_now();
    xs_expect("ports up", xs_boot(), 2);
    uint64_t took_ms = (xs_now() - t0) / 1000000;
    xs_expect_console("port1: SFP+ cage empty: no link until a module is inserted\n");
    XS_CHECK(!xs_console_has("link down 1000 ms"), "waited for a link with no module");
    XS_CHECK(took_ms < 500, "bring-up took %" PRIu64 " ms simulated with an empty cage", took_ms);
    const struct nic_port *p = nic_port(1);
    XS_CHECK(p != NULL && !p->link_up && !p->media.present, "port1 not kept down and empty");
    if (p == NULL) {
        return;
    }
    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_SR);
    xs_housekeep(4);
    xs_expect_module(&xs_module_cases[7]);
    xs_expect("port1 module_events", p->module_events, 1);
    if (xs_failures() == 0) {
        xs_summarize("empty cage: \"cage empty\", port kept, bring-up %" PRIu64 " ms simulated "
                     "(no link wait); an SR pushed in later: identified, set up, link up",
                     took_ms);
    }
}

/* A dual-rate optic whose peer runs 1G only, then 10G only: the driver finds each rate. */
void xs_test_sfp_dual_rate(void)
{
    struct ixgbe_model *m = xs_port(1)->m;
    ixgbe_model_set_module(m, IXGBE_MODEL_MODULE_SR_DUAL);
    ixgbe_model_set_peer_speed(m, 1000);
    xs_expect("ports up", xs_boot(), 2);
    if (nic_port_count() != 2) {
        return;
    }
    const struct nic_port *p = nic_port(1);
    xs_expect_console("port1: SFP+ module 10G/1G SR, Intel Corp WSM-10G1G-SR (OUI 00:1b:21): 10 "
                      "or 1 Gb/s, NVM init sequence 5 (4 words)\n");
    XS_CHECK(!p->link_up, "linked at 10G with a 1G-only peer");
    xs_housekeep(25);
    xs_expect_console("port1: dual-rate SFP+ module: no link at 10 Gb/s for 2 s; trying 1 Gb/s\n");
    XS_CHECK(p->link_up && p->speed_mbps == 1000, "1G peer: link %d at %u Mb/s", p->link_up,
             p->speed_mbps);
    xs_console_clear();
    ixgbe_model_set_peer_speed(m, 10000); /* the peer changed to 10G only */
    xs_housekeep(25);
    xs_expect_console("port1: dual-rate SFP+ module: no link at 1 Gb/s for 2 s; trying 10 Gb/s\n");
    XS_CHECK(p->link_up && p->speed_mbps == 10000, "10G peer: link %d at %u Mb/s", p->link_up,
             p->speed_mbps);
    xs_housekeep(30);
    XS_CHECK(!xs_console_has("trying 1 Gb/s"), "rate changed while linked: %s", xs_console());
    if (xs_failures() == 0) {
        xs_summarize("dual-rate SR optic: a 1G-only peer linked at 1000 Mb/s after the 2 s try at "
                     "10G; the peer moved to 10G only: back at 10000 Mb/s; no change once linked");
    }
}

/* One refused module: the line, laser off in the model and in the port's view, link down. */
static void xs_expect_refused(const char *line)
{
    const struct nic_port *p = nic_port(1);
    xs_expect_console(line);
    XS_CHECK(p->media.present && p->media.refused, "port1 media: present %d refused %d",
             p->media.present, p->media.refused);
    XS_CHECK(!ixgbe_model_laser_on(xs_port(1)->m) && !p->media.laser_on,
             "a refused module's laser is on");
    XS_CHECK(!p->link_up, "a refused module's link is up");
}

void xs_test_sfp_refused(void)
{
    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_UNKNOWN);
    xs_expect("ports up", xs_boot(), 2);
    if (nic_port_count() != 2) {
        return;
    }
    xs_housekeep(12); /* a second later: still refused, nothing new said */
    xs_expect_refused("port1: SFP+ module of unknown type (identifier 0x03, 10G codes 0x00, 1G "
                      "codes 0x00, cable 0x00), NoName Optics NN-10G-??: refused, laser off "
                      "(nic.sfp_any = yes sets it up as a 10G optic)\n");
    XS_CHECK(!xs_console_has("link up") || xs_console_has("port0: link up"),
             "port1 linked with a refused module");

    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_NONE);
    xs_housekeep(1);
    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_SR);
    ixgbe_model_module_corrupt(xs_port(1)->m);
    xs_console_clear();
    xs_housekeep(4);
    xs_expect_refused("port1: SFP+ module ID page fails its checksum (CC_BASE ");
    xs_expect("port1 module_events", nic_port(1)->module_events, 2);
    if (xs_failures() == 0) {
        xs_summarize("unknown-type module and one with a bad ID checksum: each refused with its "
                     "reason, laser off, no link, the port kept");
    }
}

/* xs_board: port1 becomes an SFP+ board with an SR optic and `tweak` applied. */
static void xs_board(void (*tweak)(struct ixgbe_model_config *))
{
    struct ixgbe_model_config cfg = { .autoc = IXGBE_MODEL_AUTOC_SFI,
                                      .autoc2 = IXGBE_MODEL_AUTOC2_SFI,
                                      .sfp_cage = true,
                                      .module = IXGBE_MODEL_MODULE_SR };
    tweak(&cfg);
    xs_port_board(1, &cfg);
}

static void xs_tweak_link_disabled(struct ixgbe_model_config *c)
{
    c->autoc2 |= 0x50000000u; /* AUTOC2 link disable (on D3), as some NVMs load it */
}

static void xs_tweak_laser_off(struct ixgbe_model_config *c)
{
    c->laser_off = true;
}

static void xs_tweak_lesm(struct ixgbe_model_config *c)
{
    c->lesm = true;
    c->laser_off = true; /* so the reset finds the link down and writes AUTOC */
}

static void xs_tweak_veto(struct ixgbe_model_config *c)
{
    c->mng_veto = true;
    c->laser_off = true; /* so the reset finds the link down and sets it up again */
}

void xs_test_sfp_board(void)
{
    static const struct {
        void (*tweak)(struct ixgbe_model_config *);
        const char *line;
    } boards[] = {
        { xs_tweak_link_disabled, "port1: the NVM left the link disabled (AUTOC2 0x50020000): "
                                  "enabling it\n" },
        { xs_tweak_laser_off, "port1: SFP+ module 10GBASE-SR, " },
        { xs_tweak_veto, "port1: management firmware vetoes link resets (MMNGC.MNG_VETO)" },
        { xs_tweak_lesm, "port1: SFP+ module 10GBASE-SR, " },
    };
    /* One boot per board: the firmware's tables are boot-once, so the later boards are
     * brought up by a port reset (nic_port_reset runs the same link setup). */
    xs_board(boards[0].tweak);
    xs_expect("ports up", xs_boot(), 2);
    if (nic_port_count() != 2) {
        return;
    }
    xs_expect_console(boards[0].line);
    XS_CHECK(nic_port(1)->link_up, "link-disabled NVM: link down");
    for (unsigned b = 1; b < sizeof(boards) / sizeof(boards[0]); b++) {
        xs_board(boards[b].tweak);
        xs_console_clear();
        XS_CHECK(nic_port_reset(nic_port(1), "test: new board"), "reset refused");
        for (unsigned i = 0; i < 30 && !(nic_port_state(nic_port(1)) == NIC_PORT_RUNNING &&
                                         nic_port(1)->link_up); i++) {
            xs_settle(NULL);
            xs_housekeep(1);
        }
        xs_expect_console(boards[b].line);
        XS_CHECK(nic_port(1)->link_up, "board %u: link down after the reset: %s", b,
                 xs_console());
    }
    XS_CHECK(ixgbe_model_laser_on(xs_port(1)->m), "LESM board: laser off");
    XS_CHECK((xs_peek(1, 0x10160) & 0x8) == 0, "LESM board: MAC CSR semaphore left held");
    if (xs_failures() == 0) {
        xs_summarize("NVM with AUTOC2 link-disable: cleared and said; laser left off by a previous "
                     "owner: turned on; MNG_VETO: no link reset, said, link kept; LESM in the "
                     "NVM: AUTOC under the MAC CSR semaphore; no misuse");
    }
}

void xs_test_nvm_checksum(void)
{
    static uint16_t image[IXGBE_MODEL_EEPROM_WORDS];
    memset(image, 0xFF, sizeof(image));
    uint16_t sum = 0;
    for (unsigned w = 0; w < 0x3F; w++) {
        image[w] = w < 3 ? (uint16_t)(0x1000 + w) : 0xFFFF; /* pointers absent */
        sum = (uint16_t)(sum + image[w]);
    }
    image[0x3F] = (uint16_t)(0xBABA - sum + 1); /* one off */
    struct ixgbe_model_config cfg = { .autoc = IXGBE_MODEL_AUTOC_SFI,
                                      .autoc2 = IXGBE_MODEL_AUTOC2_SFI,
                                      .eeprom = image,
                                      .eeprom_words = IXGBE_MODEL_EEPROM_WORDS,
                                      .sfp_cage = true,
                                      .module = IXGBE_MODEL_MODULE_SR };
    xs_port_board(1, &cfg);
    xs_expect("ports up", xs_boot(), 1);
    xs_expect_console("port1: NVM checksum wrong: words 0x00-0x3F and their sections sum to "
                      "0xbabb, not 0xbaba; port skipped (nic.bad_nvm = keep brings it up)\n");
    if (xs_failures() == 0) {
        xs_summarize("NVM checksum off by one: port1 skipped with the sum in the message, port0 "
                     "up");
    }
}
