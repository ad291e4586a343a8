/*
 * drivers/nic/nic_test.c: the test configs' console commands (config key test.fault_command):
 * `fault` (a page fault on purpose, or a port reset as the TX watchdog would make) and `pool`
 * (a core that holds its own buffers, as a consumer that fell behind). They live with the NIC
 * layer because the port reset and the pools are its own; the page fault needs nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "smp.h"

#if CONFIG_TEST_FAULT_COMMAND
/* test_fault_trigger: a page fault on purpose (test configs only), in a function of its own so
 * the test can check that the backtrace names it. */
__attribute__((noinline)) static void test_fault_trigger(void)
{
    volatile uint64_t *unmapped = (volatile uint64_t *)0x7f0000000000ULL; /* beyond the map */
    *unmapped = 0xdead;
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
    long n = argc == 3 ? command_number("port", argv[2], nic_port_count()) : -2;
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
    long c = argc >= 3 ? command_number("core", argv[2], smp_cores_online()) : -2;
    if (c == -1) {
        return;
    }
    if (c >= 0 && argc == 4 && strcmp(argv[1], "hold") == 0) {
        long n = command_number("count", argv[3], 1UL << 20);
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
WS_COMMAND(fault, "fault", 2, "(test config) fault [reset <port>]: a page fault, or a port reset",
           cmd_fault);
WS_COMMAND(pool, "pool", 3, "(test config) pool [hold <core> <n> | release <core>]: pool exhaustion",
           cmd_pool);
#endif
