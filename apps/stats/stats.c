/* apps/stats/stats.c: console views of the counters (see header and docs/counters.md). */
#include "stats.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "irq.h"
#include "percpu.h"
#include "smp.h"
#include "time.h"

#define STATS_JSON_BYTES (128 * 1024)

/* One counter: its name (JSON key and table label) and where it lives in its struct. */
struct stats_counter {
    const char *name;
    size_t offset;
};

#define QC(name, field) { name, offsetof(struct nic_queue, field) }
static const struct stats_counter stats_queue_counters[] = {
    QC("rx_packets", rx.stats.packets),      QC("rx_bytes", rx.stats.bytes),
    QC("rx_no_buffer", rx.stats.no_buffer),  QC("rx_errors", rx.stats.errors),
    QC("rx_oversize", rx.stats.oversize),    QC("rx_tail_writes", rx.stats.tail_writes),
    QC("tx_packets", tx.stats.packets),      QC("tx_bytes", tx.stats.bytes),
    QC("tx_ring_full", tx.stats.ring_full),  QC("tx_bad_len", tx.stats.bad_len),
    QC("tx_tail_writes", tx.stats.tail_writes), QC("tx_forwarded", tx.stats.forwarded),
    QC("arp_requests_answered", local.arp_requests_answered),
    QC("icmp_echo_answered", local.icmp_echo_answered),
    QC("arp_replies_learned", local.arp_replies_learned),
    QC("arp_gratuitous_learned", local.arp_gratuitous_learned),
    QC("ip_passed", local.ip_passed),        QC("no_address", no_address),
};

#define FC(name, field) { name, offsetof(struct fwd_stats, field) }
static const struct stats_counter stats_fwd_counters[] = {
    FC("fwd_forwarded", forwarded),
    FC("fwd_no_route", no_route),
    FC("fwd_arp_unresolved", arp_unresolved),
    FC("fwd_dst_directed_broadcast", dst_directed_broadcast),
    FC("fwd_dst_other_port_address", dst_other_port_address),
    FC("fwd_egress_no_queue", egress_no_queue),
    FC("fwd_egress_link_down", egress_link_down),
    FC("fwd_wire_no_peer", wire_no_peer),
    FC("fwd_arp_requests_sent", arp_requests_sent),
    FC("fwd_icmp_errors_sent", icmp_errors_sent),
    FC("fwd_icmp_ratelimited", icmp_ratelimited),
    FC("fwd_alloc_fail", alloc_fail),
};

#define HC(name, field) { name, offsetof(struct nic_hw_stats, field) }
static const struct stats_counter stats_hw_counters[] = {
    HC("rx_packets", rx_packets),
    HC("rx_bytes", rx_bytes),
    HC("rx_broadcast", rx_broadcast),
    HC("rx_multicast", rx_multicast),
    HC("rx_missed_errors", rx_missed_errors),
    HC("rx_no_buffer_count", rx_no_buffer_count),
    HC("rx_crc_errors", rx_crc_errors),
    HC("rx_undersize", rx_undersize),
    HC("rx_oversize", rx_oversize),
    HC("tx_packets", tx_packets),
    HC("tx_bytes", tx_bytes),
};

#define CC(name, field) { name, offsetof(struct percpu, field) }
static const struct stats_counter stats_core_counters[] = {
    CC("loop_iterations", loop_iterations), CC("busy_cycles", busy_cycles),
    CC("idle_cycles", idle_cycles),         CC("halts", halts),
    CC("timer_irqs", timer_irqs),           CC("unexpected_irqs", unexpected_irqs),
};

#define NCOUNTERS(t) (sizeof(t) / sizeof((t)[0]))

static uint64_t stats_at(const void *base, size_t offset)
{
    return *(const volatile uint64_t *)((const char *)base + offset);
}

static uint64_t stats_queue_irqs(const struct nic_queue *q, unsigned core)
{
    const struct irq_slot *s = irq_slot_of(core, q->vector);
    return s ? s->count : 0;
}

/* --- stats json: built whole in one buffer, then written as one line ---------------------- */

struct stats_json {
    char *buf;
    size_t len;
};

static void sj_put(struct stats_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sj_put(struct stats_json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (j->len < STATS_JSON_BYTES) {
        int n = vsnprintf(j->buf + j->len, STATS_JSON_BYTES - j->len, fmt, ap);
        j->len += n > 0 ? (size_t)n : 0;
    }
    va_end(ap);
}

static void sj_counters(struct stats_json *j, const void *base, const struct stats_counter *t,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sj_put(j, ",\"%s\":%llu", t[i].name, (unsigned long long)stats_at(base, t[i].offset));
    }
}

static void sj_core(struct stats_json *j, unsigned c)
{
    const struct percpu *cpu = &percpu_blocks[c];
    const struct pkb_pool *pool = nic_pool(c);
    sj_put(j, "%s{\"core\":%u,\"apic_id\":%u", c ? "," : "", c, cpu->apic_id);
    sj_counters(j, cpu, stats_core_counters, NCOUNTERS(stats_core_counters));
    sj_put(j, ",\"pool_size\":%u,\"pool_free\":%u,\"pool_alloc_fail\":%llu,"
              "\"pool_foreign_free\":%llu,\"pool_double_free\":%llu}",
           pool->size, pool->nfree, (unsigned long long)pool->alloc_fail,
           (unsigned long long)pool->foreign_free, (unsigned long long)pool->double_free);
}

static void sj_queue(struct stats_json *j, const struct nic_port *p, unsigned qi)
{
    const struct nic_queue *q = &p->q[qi];
    const struct fwd_stats *f = fwd_stats_of(p->index, qi);
    sj_put(j, "%s{\"queue\":%u,\"core\":%u,\"irqs\":%llu", qi ? "," : "", qi, qi,
           (unsigned long long)stats_queue_irqs(q, qi));
    sj_counters(j, q, stats_queue_counters, NCOUNTERS(stats_queue_counters));
    sj_counters(j, f, stats_fwd_counters, NCOUNTERS(stats_fwd_counters));
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        sj_put(j, ",\"drop_%s\":%llu", net_drop_counters[i].name,
               (unsigned long long)stats_at(&q->local.drop, net_drop_counters[i].offset));
    }
    for (size_t i = 0; i < route_drop_counter_count; i++) {
        sj_put(j, ",\"route_%s\":%llu", route_drop_counters[i].name,
               (unsigned long long)stats_at(&f->route, route_drop_counters[i].offset));
    }
    sj_put(j, "}");
}

static uint64_t stats_queue_drops(const struct nic_port *p)
{
    uint64_t sum = 0;
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        sum += p->hw.rx_queue_drops[qi];
    }
    return sum;
}

static void sj_port(struct stats_json *j, const struct nic_port *p)
{
    sj_put(j, "%s{\"port\":%u,\"name\":\"%s\",\"chip\":\"%s\",\"link\":%s,\"speed_mbps\":%u,"
              "\"link_changes\":%llu,\"hw\":{\"rx_queue_drops\":%llu",
           p->index ? "," : "", p->index, p->name, p->ops->chip, p->link_up ? "true" : "false",
           p->speed_mbps, (unsigned long long)p->link_changes,
           (unsigned long long)stats_queue_drops(p));
    sj_counters(j, &p->hw, stats_hw_counters, NCOUNTERS(stats_hw_counters));
    sj_put(j, "},\"queues\":[");
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        sj_queue(j, p, qi);
    }
    sj_put(j, "]}");
}

static void stats_json(void)
{
    static char buf[STATS_JSON_BYTES]; /* console core only */
    struct stats_json j = { buf, 0 };

    nic_housekeeping(); /* fresh hardware counters */
    sj_put(&j, "{\"schema\":%d,\"uptime_ns\":%llu,\"tsc_hz\":%llu,\"cores\":[", STATS_JSON_SCHEMA,
           (unsigned long long)time_ns(), (unsigned long long)time_tsc_hz());
    for (unsigned c = 0; c < smp_cores_online(); c++) {
        sj_core(&j, c);
    }
    sj_put(&j, "],\"ports\":[");
    for (unsigned i = 0; i < nic_port_count(); i++) {
        sj_port(&j, nic_port(i));
    }
    sj_put(&j, "]}\n");
    if (j.len >= STATS_JSON_BYTES) {
        kprintf("error: stats json larger than %d bytes\n", STATS_JSON_BYTES);
        return;
    }
    console_write(buf, j.len);
}

/* --- human views ----------------------------------------------------------------------------- */

/* stats_port_arg: "port N" style argument -> port, or NULL with an error printed. */
static struct nic_port *stats_port_arg(const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || n < 0 || n >= (long)nic_port_count()) {
        kprintf("error: no port '%s' (ports 0..%d)\n", s, (int)nic_port_count() - 1);
        return NULL;
    }
    return nic_port((unsigned)n);
}

static void stats_print_nonzero(const char *indent, const void *base,
                                const struct stats_counter *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = stats_at(base, t[i].offset);
        if (v != 0) {
            kprintf("%s%-24s %20llu\n", indent, t[i].name, (unsigned long long)v);
        }
    }
}

static void stats_print_port(const struct nic_port *p)
{
    kprintf("%s (%s, link %s): hardware\n", p->name, p->ops->chip, p->link_up ? "up" : "down");
    stats_print_nonzero("  ", &p->hw, stats_hw_counters, NCOUNTERS(stats_hw_counters));
    uint64_t qdrops = stats_queue_drops(p);
    if (qdrops) {
        kprintf("  %-24s %20llu\n", "rx_queue_drops", (unsigned long long)qdrops);
    }
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        const struct nic_queue *q = &p->q[qi];
        kprintf("  queue %u (core %u): irqs %llu\n", qi, qi,
                (unsigned long long)stats_queue_irqs(q, qi));
        const struct fwd_stats *f = fwd_stats_of(p->index, qi);
        stats_print_nonzero("    ", q, stats_queue_counters, NCOUNTERS(stats_queue_counters));
        stats_print_nonzero("    ", f, stats_fwd_counters, NCOUNTERS(stats_fwd_counters));
        for (size_t i = 0; i < net_drop_counter_count; i++) {
            uint64_t v = stats_at(&q->local.drop, net_drop_counters[i].offset);
            if (v != 0) {
                kprintf("    drop_%-19s %20llu\n", net_drop_counters[i].name,
                        (unsigned long long)v);
            }
        }
        for (size_t i = 0; i < route_drop_counter_count; i++) {
            uint64_t v = stats_at(&f->route, route_drop_counters[i].offset);
            if (v != 0) {
                kprintf("    route_%-18s %20llu\n", route_drop_counters[i].name,
                        (unsigned long long)v);
            }
        }
    }
}

static void stats_print_core(unsigned c)
{
    const struct percpu *cpu = &percpu_blocks[c];
    uint64_t busy = cpu->busy_cycles, idle = cpu->idle_cycles;
    uint64_t permille = busy + idle ? busy * 1000 / (busy + idle) : 0;
    kprintf("core %u (apic %u): busy %llu.%llu%%\n", c, cpu->apic_id,
            (unsigned long long)(permille / 10), (unsigned long long)(permille % 10));
    stats_print_nonzero("  ", cpu, stats_core_counters, NCOUNTERS(stats_core_counters));
    const struct pkb_pool *pool = nic_pool(c);
    kprintf("  %-24s %20u of %u\n", "pool_free", pool->nfree, pool->size);
}

void stats_cmd_stats(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "json") == 0) {
        stats_json();
        return;
    }
    nic_housekeeping();
    if (argc == 3 && strcmp(argv[1], "port") == 0) {
        struct nic_port *p = stats_port_arg(argv[2]);
        if (p) {
            stats_print_port(p);
        }
        return;
    }
    if (argc != 1) {
        kprintf("error: usage: stats [json | port N]\n");
        return;
    }
    for (unsigned i = 0; i < nic_port_count(); i++) {
        stats_print_port(nic_port(i));
    }
    for (unsigned c = 0; c < smp_cores_online(); c++) {
        stats_print_core(c);
    }
}

void stats_cmd_ports(int argc, char **argv)
{
    (void)argc, (void)argv;
    kprintf("%-6s %-13s %-6s %-17s %-5s %6s %6s  %s\n", "port", "pci", "chip", "mac", "link",
            "Mb/s", "queues", "address");
    for (unsigned i = 0; i < nic_port_count(); i++) {
        const struct nic_port *p = nic_port(i);
        char bdf[16], addr[24] = "-";
        if (p->has_address) {
            uint32_t ip = p->ifc.ip;
            snprintf(addr, sizeof(addr), "%u.%u.%u.%u/%u", ip >> 24, (ip >> 16) & 255,
                     (ip >> 8) & 255, ip & 255, p->ifc.prefix_len);
        }
        kprintf("%-6s %-13s %-6s %02x:%02x:%02x:%02x:%02x:%02x %-5s %6u %6u  %s\n", p->name,
                pci_bdf(p->pci, bdf), p->ops->chip, p->mac[0], p->mac[1], p->mac[2], p->mac[3],
                p->mac[4], p->mac[5], p->link_up ? "up" : "down", p->speed_mbps, p->nqueues,
                addr);
    }
}

void stats_cmd_rings(int argc, char **argv)
{
    struct nic_port *p = argc == 2 ? stats_port_arg(argv[1]) : NULL;
    if (argc != 2) {
        kprintf("error: usage: rings <port>\n");
    }
    if (p == NULL) {
        return;
    }
    kprintf("%-5s %6s %6s %6s %6s | %6s %6s %6s %6s %6s\n", "queue", "RDH", "RDT", "rx_ntc",
            "rx_ntu", "TDH", "TDT", "tx_ntc", "tx_ntu", "flight");
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        const struct nic_queue *q = &p->q[qi];
        uint32_t rdh, rdt, tdh, tdt;
        p->ops->ring_heads(p, qi, &rdh, &rdt, &tdh, &tdt);
        kprintf("%-5u %6u %6u %6u %6u | %6u %6u %6u %6u %6u\n", qi, rdh, rdt,
                iring_rx_next_to_clean(&q->rx), iring_rx_next_to_use(&q->rx), tdh, tdt,
                iring_tx_next_to_clean(&q->tx), iring_tx_next_to_use(&q->tx),
                iring_tx_in_flight(&q->tx));
    }
}

void stats_cmd_regs(int argc, char **argv)
{
    struct nic_port *p = argc == 2 ? stats_port_arg(argv[1]) : NULL;
    if (argc != 2) {
        kprintf("error: usage: regs <port>\n");
    }
    if (p != NULL) {
        kprintf("%s (%s) registers:\n", p->name, p->ops->chip);
        p->ops->dump_regs(p);
    }
}
