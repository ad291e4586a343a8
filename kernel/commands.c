/* kernel/commands.c: the console's parser and table walk, and the kernel's own commands (help,
 * version, cpus, reboot). Each answers in whole lines; none blocks the datapath. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "console_line.h"
#include "panic.h"
#include "percpu.h"
#include "smp.h"
#include "time.h"
#include "version.h"

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

static void cmd_reboot(int argc, char **argv)
{
    (void)argc, (void)argv;
    kprintf("rebooting\n");
    console_flush();
    machine_reboot();
}

long command_number(const char *what, const char *s, unsigned long limit)
{
    char *end;
    unsigned long n = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || *s == '-' || n >= limit) {
        kprintf("error: no %s '%s' (%ss 0..%lu)\n", what, s, what, limit - 1);
        return -1;
    }
    return (long)n;
}

WS_COMMAND(help, "help", 0, "list commands", cmd_help);
WS_COMMAND(version, "version", 0, "version, config name and git revision", cmd_version);
WS_COMMAND(cpus, "cpus", 0, "cores: APIC ID, online, loop iterations, halts (adaptive)",
           cmd_cpus);
WS_COMMAND(reboot, "reboot", 0, "reset the machine", cmd_reboot);

WS_TABLE_DECLARE(struct command, ws_commands);

#define COMMANDS_MAX 64

/* cmd_help: every registered command, by name (the table itself is in link order). */
static void cmd_help(int argc, char **argv)
{
    (void)argc, (void)argv;
    const struct command *sorted[COMMANDS_MAX];
    unsigned n = 0;
    for (const struct command *c = WS_TABLE_BEGIN(ws_commands);
         c < WS_TABLE_END(ws_commands) && n < COMMANDS_MAX; c++) {
        unsigned i = n++;
        for (; i > 0 && strcmp(sorted[i - 1]->name, c->name) > 0; i--) {
            sorted[i] = sorted[i - 1];
        }
        sorted[i] = c;
    }
    for (unsigned i = 0; i < n; i++) {
        kprintf("  %-10s %s\n", sorted[i]->name, sorted[i]->help);
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
    for (const struct command *c = WS_TABLE_BEGIN(ws_commands); c < WS_TABLE_END(ws_commands);
         c++) {
        if (strcmp(argv[0], c->name) == 0) {
            if (argc - 1 > c->max_args) {
                if (c->max_args == 0) {
                    kprintf("error: %s takes no arguments\n", argv[0]);
                } else {
                    kprintf("error: %s takes at most %d arguments\n", argv[0], c->max_args);
                }
                return;
            }
            c->run(argc, argv);
            return;
        }
    }
    kprintf("error: unknown command '%s' (try 'help')\n", argv[0]);
}
