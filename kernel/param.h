/* kernel/param.h: every compile-time limit of the firmware, in one place. */
#ifndef WS_PARAM_H
#define WS_PARAM_H

#define WS_MAX_CPUS 64            /* cores we bring up; more are reported and left parked */
#define WS_MAX_PORTS 4            /* NIC ports driven; the config has port0..port3 addresses */
#define WS_MAX_VLANS 8            /* VLAN sub-interfaces (config `vlan` lines, CONF_MAX_VLANS) */
#define WS_MAX_MEM_REGIONS 64     /* usable/reserved ranges kept from the loader's memory map */
#define WS_MAX_MCFG_SEGMENTS 8    /* PCI ECAM ranges kept from ACPI MCFG */
#define WS_MAX_IOAPICS 4          /* I/O APICs kept from ACPI MADT */

#define WS_STACK_BYTES (64 * 1024)     /* per-core stack */
#define WS_IST_STACK_BYTES (16 * 1024) /* per-core NMI / double-fault stacks */
#define WS_HEAP_BYTES (16 * 1024 * 1024) /* newlib's malloc arena (_sbrk) */

#define WS_CONSOLE_LINE_BYTES 128 /* longest console command line accepted */
#define WS_CONSOLE_OUT_BYTES 4096 /* per-core console output buffer */

#define WS_AP_START_TIMEOUT_MS 200 /* an AP not in its loop by then is reported and skipped */

#endif
