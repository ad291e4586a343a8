/*
 * kernel/init.h: boot steps that the kernel runs but does not name. Each floor above registers
 * its own with WS_INIT (as LK's LK_INIT_HOOK); kernel/main.c runs them all, level by level, once
 * every core is waiting in its loop and before any core touches a port.
 */
#ifndef WS_INIT_H
#define WS_INIT_H

#include <stdbool.h>

#include "table.h"

struct acpi_info;

/* What a step is told, and what it reports back (the `ready:` line counts ports). */
struct init_ctx {
    unsigned ncores;              /* cores in their loops */
    const struct acpi_info *acpi; /* the firmware's tables, read-only */
    unsigned nports;              /* written by the NIC layer's step */
};

/* Levels run in this order; steps of one level in the order of their `sub` key. */
enum init_level {
    INIT_CONFIG = 50,   /* what floors above ask of the ones below, before any device */
    INIT_BUS = 100,     /* buses: PCI enumeration */
    INIT_DRIVERS = 200, /* devices on them: packet pools, then the NIC ports */
    INIT_NET = 300,     /* the network layer over the ports */
    INIT_APPS = 400,    /* forwarding, then the sink */
};

struct init_step {
    const char *name;
    int level;  /* enum init_level + a small offset: the order within the level */
    bool fatal; /* a failure stops the boot (panic) instead of being reported and survived */
    int (*run)(struct init_ctx *ctx); /* 0, or a negative WS_ERR_* after printing why */
};

/* WS_INIT(name, level, fatal, fn): register fn as boot step `name` (an identifier). */
#define WS_INIT(id, lvl, is_fatal, fn)                                                         \
    static const struct init_step init_step_##id WS_TABLE_ENTRY(ws_inits) = {                 \
        .name = #id, .level = (lvl), .fatal = (is_fatal), .run = (fn)                          \
    }

/* init_run_all: every registered step, by level. Boot core, once. */
void init_run_all(struct init_ctx *ctx);

#endif
