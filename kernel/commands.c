/* kernel/commands.c: console commands. Each answers in whole lines; none blocks the datapath. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "apps/stats/stats.h"
#include "config.h"
#include "console.h"
#include "console_line.h"
#include "drivers/nic/nic.h"
#include "panic.h"
#include "percpu.h"
#include "smp.h"
#include "time.h"
#include "version.h"

struct command {
    const char *name;
    int max_args; /* words after the command name */
    const char *help;
    void (*run)(int argc, char **argv);
};

static void cmd_help(int argc, char **argv);

static void cmd_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    kprintf("wirespeed %s config %s rev %s\n", WS_VERSION, CONFIG_NAME, WS_GIT_REV);
}

static void cmd_cpus(int argc, char **argv)
{
    (void)argc, (void)argv;
    kprintf("%-5s %-8s %-7s %20s %12s\n", "core", "apic_id", "online", "loop_iterations",
            "halts");
    for (unsigned i = 0; i < smp_cores_online(); i++) {
        const struct percpu *c = &percpu_blocks[i];
        kprintf("%-5u %-8u %-7s %20llu %12llu\n", c->index, c->apic_id, c->online ? "yes" : "no",
                (unsigned long long)c->loop_iterations, (unsigned long long)c->halts);
    }
}

static void cmd_routes(int argc, char **argv)
{
    (void)argc, (void)argv;
    fwd_routes_print();
}

static void cmd_arp(int argc, char **argv)
{
    (void)argc, (void)argv;
    fwd_arp_print();
}

static void cmd_reboot(int argc, char **argv)
{
    (void)argc, (void)argv;
    kprintf("rebooting\n");
    console_flush();
    machine_reboot();
}

#if CONFIG_TEST_FAULT_COMMAND
/* test_fault_trigger: a page fault on purpose (test configs only), in a function of its own so
 * the test can check that the backtrace names it. */
__attribute__((noinline)) static void test_fault_trigger(void)
{
    volatile uint64_t *unmapped = (volatile uint64_t *)0x7f0000000000ULL; /* beyond the map */
    *unmapped = 0xdead;
}

/* test_number: argv word as a number below limit, or -1 with an error printed. */
static long test_number(const char *what, const char *s, unsigned long limit)
{
    char *end;
    unsigned long n = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || *s == '-' || n >= limit) {
        kprintf("error: no %s '%s' (%ss 0..%lu)\n", what, s, what, limit - 1);
        return -1;
    }
    return (long)n;
}

/* `fault`: a page fault; `fault reset N`: reset port N as the TX hang watchdog would (QEMU's
 * igb never hangs, so this is how the system tests reach the reset path). */
static void cmd_fault(int argc, char **argv)
{
    if (argc == 1) {
        kprintf("fault: writing to unmapped address 0x7f0000000000\n");
        test_fault_trigger();
        return;
    }
    long n = argc == 3 ? test_number("port", argv[2], nic_port_count()) : -2;
    if (n == -1) {
        return;
    }
    struct nic_port *p = n >= 0 ? nic_port((unsigned)n) : NULL;
    if (p != NULL && strcmp(argv[1], "reset") == 0) {
        if (!nic_port_reset(p, "reset asked for on the console (test)")) {
            kprintf("error: %s is %s\n", p->name, nic_port_state_name(p));
        }
    } else {
        kprintf("error: usage: fault [reset <port>]\n");
    }
}

/* `pool`: each core's pool; `pool hold C N`: core C takes up to N buffers of its own pool and
 * keeps them (a consumer that fell behind); `pool release C`: it gives them all back. */
static void cmd_pool(int argc, char **argv)
{
    if (argc == 1) {
        kprintf("%-5s %8s %8s %8s %12s\n", "core", "size", "free", "held", "alloc_fail");
        for (unsigned c = 0; c < smp_cores_online(); c++) {
            const struct pkb_pool *pool = nic_pool(c);
            kprintf("%-5u %8u %8u %8u %12llu\n", c, pool->size, pool->nfree, nic_test_held(c),
                    (unsigned long long)pool->alloc_fail);
        }
        return;
    }
    long c = argc >= 3 ? test_number("core", argv[2], smp_cores_online()) : -2;
    if (c == -1) {
        return;
    }
    if (c >= 0 && argc == 4 && strcmp(argv[1], "hold") == 0) {
        long n = test_number("count", argv[3], 1UL << 20);
        if (n >= 0) {
            nic_test_hold((unsigned)c, (uint32_t)n);
            kprintf("pool: core %ld holds up to %ld of its buffers\n", c, n);
        }
    } else if (c >= 0 && argc == 3 && strcmp(argv[1], "release") == 0) {
        nic_test_hold((unsigned)c, 0);
        kprintf("pool: core %ld gives its buffers back\n", c);
    } else {
        kprintf("error: usage: pool [hold <core> <count> | release <core>]\n");
    }
}
#endif

static const struct command commands[] = {
    { "help", 0, "list commands", cmd_help },
    { "version", 0, "version, config name and git revision", cmd_version },
    { "cpus", 0, "cores: APIC ID, online, loop iterations, halts (adaptive)", cmd_cpus },
    { "ports", 0, "ports: PCI address, chip, MAC, link, queues, address", stats_cmd_ports },
    { "stats", 2, "counters: stats [all | json | doc | port N | core N | tcp]",
      stats_cmd_stats },
    { "clear", 0, "zero the counters' view (hardware registers untouched)", stats_cmd_clear },
    { "watch", 1, "watch [on | off | <seconds>]: per-second rates of what changed",
      stats_cmd_watch },
    { "routes", 0, "routing table: connected subnets and baked routes", cmd_routes },
    { "arp", 0, "neighbour table: address, MAC, age", cmd_arp },
    { "rings", 1, "rings <port>: hardware head/tail and software ring indices", stats_cmd_rings },
    { "regs", 1, "regs <port>: register dump", stats_cmd_regs },
    { "reboot", 0, "reset the machine", cmd_reboot },
#if CONFIG_TEST_FAULT_COMMAND
    { "fault", 2, "(test config) fault [reset <port>]: a page fault, or a port reset",
      cmd_fault },
    { "pool", 3, "(test config) pool [hold <core> <n> | release <core>]: pool exhaustion",
      cmd_pool },
#endif
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void cmd_help(int argc, char **argv)
{
    (void)argc, (void)argv;
    for (size_t i = 0; i < NCOMMANDS; i++) {
        kprintf("  %-10s %s\n", commands[i].name, commands[i].help);
    }
}

void commands_run_line(char *line)
{
    char *argv[CONSOLE_MAX_ARGS];
    int argc = console_split(line, argv, CONSOLE_MAX_ARGS);

    if (argc == 0) {
        return;
    }
    if (argc < 0) {
        kprintf("error: more than %d words on the line\n", CONSOLE_MAX_ARGS);
        return;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(argv[0], commands[i].name) == 0) {
            if (argc - 1 > commands[i].max_args) {
                if (commands[i].max_args == 0) {
                    kprintf("error: %s takes no arguments\n", argv[0]);
                } else {
                    kprintf("error: %s takes at most %d arguments\n", argv[0],
                            commands[i].max_args);
                }
                return;
            }
            commands[i].run(argc, argv);
            return;
        }
    }
    kprintf("error: unknown command '%s' (try 'help')\n", argv[0]);
}
