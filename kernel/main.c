/*
 * kernel/main.c: the boot order, one commented step per line. The boot core (BSP) arrives here
 * from boot/entry.S in long mode; application processors arrive in kernel/smp.c:ap_entry and
 * meet the BSP in core_loop(). Nothing here runs on the fast path.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acpi.h"
#include "bootinfo.h"
#include "config.h"
#include "console.h"
#include "dma.h"
#include "err.h"
#include "init.h"
#include "lapic.h"
#include "loop.h"
#include "memmap.h"
#include "panic.h"
#include "percpu.h"
#include "physmem.h"
#include "smp.h"
#include "time.h"
#include "trap.h"
#include "version.h"
#include "vm.h"

#define MB1_BOOT_MAGIC 0x2BADB002
#define MB2_BOOT_MAGIC 0x36D76289
#define KMAIN_ERR_BYTES 160
#define KMAIN_FAIL_BYTES 256
/* VGA text mode: 80x25 cells of (attribute << 8 | character) at 0xB8000 (IBM VGA reference). */
#define VGA_TEXT_PHYS 0xB8000UL
#define VGA_TEXT_CELLS (80 * 25)
#define VGA_ATTR_ALERT 0x4F /* white on red, as boot/entry.S's early messages */

extern const char __image_start[], __image_end[];

static struct bootinfo boot_info; /* read-only after parse_boot_info */
static struct acpi_info boot_acpi; /* read-only after find_acpi */

/* Loader and ACPI data are read in place: physical == virtual, bounded by what is mapped. */
static const void *kmain_phys_map(const struct physmem *pm, uint64_t phys, size_t len)
{
    (void)pm;
    uint64_t top = vm_mapped_top() ? vm_mapped_top() : 0x100000000ULL;
    if (phys < 0x400 || phys > top || len > top - phys) {
        return NULL; /* page 0 is left unmapped once vm_init has run; keep it out always */
    }
    return (const void *)(uintptr_t)phys;
}

static const struct physmem kmain_physmem = { kmain_phys_map, NULL };

/*
 * boot_fail: a boot step found the machine unusable (no Multiboot loader, no memory map, no
 * ACPI). The message goes to VGA text too, for a screen without a serial cable, then panic()
 * prints it on the serial console and stops. Under UEFI there is no text mode to write to (the
 * loader's EFI tags say so); with a bad magic we know nothing and try the screen anyway.
 */
static void __attribute__((noreturn, format(printf, 1, 2))) boot_fail(const char *fmt, ...)
{
    char msg[KMAIN_FAIL_BYTES];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!boot_info.efi) {
        volatile uint16_t *vga = (volatile uint16_t *)VGA_TEXT_PHYS;
        static const char head[] = "wirespeed: cannot boot: ";
        unsigned cell = 0;
        for (const char *p = head; *p != '\0'; p++) {
            vga[cell++] = (uint16_t)(VGA_ATTR_ALERT << 8 | (uint8_t)*p);
        }
        for (const char *p = msg; *p != '\0' && cell < VGA_TEXT_CELLS; p++) {
            vga[cell++] = (uint16_t)(VGA_ATTR_ALERT << 8 | (uint8_t)*p);
        }
    }
    panic("%s", msg);
}

/* parse_boot_info: the loader's memory map, command line and ACPI pointer, or stop. */
static void parse_boot_info(uint32_t magic, uint32_t info)
{
    char err[KMAIN_ERR_BYTES] = "";
    int rc;

    if (magic == MB1_BOOT_MAGIC) {
        rc = bootinfo_parse_mb1(&kmain_physmem, info, &boot_info, err, sizeof(err));
    } else if (magic == MB2_BOOT_MAGIC) {
        rc = bootinfo_parse_mb2(&kmain_physmem, info, &boot_info, err, sizeof(err));
    } else {
        boot_fail("boot: not started by a Multiboot loader (EAX=0x%08x, expected 0x%08x or "
                  "0x%08x)", magic, MB1_BOOT_MAGIC, MB2_BOOT_MAGIC);
    }
    if (rc != WS_OK) {
        boot_fail("boot: bad Multiboot %d information at 0x%x: %s",
                  magic == MB1_BOOT_MAGIC ? 1 : 2, info, err);
    }
    /* Our own image (code, data, stacks, heap) is never free memory. */
    memmap_reserve(&boot_info.mm, (uintptr_t)__image_start,
                   (uintptr_t)__image_end - (uintptr_t)__image_start);
    if (memmap_usable_bytes(&boot_info.mm) == 0) {
        boot_fail("boot: the loader's memory map (%s) has no usable RAM", boot_info.mm_source);
    }
}

/* find_rsdp: from the Multiboot 2 tag, else by scanning the BIOS areas (needs low memory
 * mapped, so before vm_init). */
static void find_rsdp(uint64_t *rsdp_phys)
{
    *rsdp_phys = 0;
    if (!boot_info.has_rsdp && acpi_find_rsdp(&kmain_physmem, rsdp_phys) != WS_OK) {
        boot_fail("acpi: no RSDP (no Multiboot 2 ACPI tag and none in the EBDA or BIOS area)");
    }
}

/* SLIT's distances, a line per node ("acpi: SLIT node 0: 10 21"), when the firmware has one. */
static void print_slit(void)
{
    for (unsigned i = 0; i < boot_acpi.nslit; i++) {
        char row[4 * ACPI_MAX_SLIT_NODES + 1];
        size_t len = 0;
        for (unsigned j = 0; j < boot_acpi.nslit; j++) {
            len += (size_t)snprintf(row + len, sizeof(row) - len, " %u", boot_acpi.slit[i][j]);
        }
        kprintf("acpi: SLIT node %u:%s%s\n", i, row,
                boot_acpi.slit_dropped ? " (more localities not kept)" : "");
    }
}

static void find_acpi(uint64_t rsdp_phys)
{
    char err[KMAIN_ERR_BYTES] = "";
    int rc = boot_info.has_rsdp ? acpi_parse(&kmain_physmem, boot_info.rsdp, boot_info.rsdp_len,
                                             &boot_acpi, err, sizeof(err))
                                : acpi_parse_phys(&kmain_physmem, rsdp_phys, &boot_acpi, err,
                                                  sizeof(err));

    if (rc != WS_OK) {
        boot_fail("acpi: %s", err);
    }
    kprintf("acpi: rev %u oem '%s' rsdp from %s, %u cpus in MADT, %u PCI ECAM ranges\n",
            boot_acpi.revision, boot_acpi.oem_id,
            boot_info.has_rsdp ? boot_info.rsdp_source : "BIOS area scan", boot_acpi.ncpu_enabled,
            boot_acpi.nmcfg);
    for (unsigned i = 0; i < boot_acpi.nwarn; i++) {
        kprintf("acpi: warning: %s\n", boot_acpi.warn[i]);
    }
    print_slit();
}

static void print_banner(void)
{
    kprintf("\nwirespeed %s config %s rev %s\n", WS_VERSION, CONFIG_NAME, WS_GIT_REV);
    kprintf("boot: multiboot%d loader '%s' cmdline '%s'\n", boot_info.mb_version,
            boot_info.loader[0] ? boot_info.loader : "?", boot_info.cmdline);
    /* Under UEFI the BIOS areas hold no RSDP: ACPI comes from the loader's tag 14/15 (the acpi:
     * line says which). Multiboot 1 has no EFI tags, so it cannot tell the firmware apart. */
    kprintf("boot: firmware %s, memory map from %s\n",
            boot_info.efi ? "UEFI" : boot_info.mb_version == 2 ? "BIOS" : "not told (multiboot1)",
            boot_info.mm_source);
    kprintf("memory: %llu MiB usable in %u regions, image 0x%lx-0x%lx\n",
            (unsigned long long)(memmap_usable_bytes(&boot_info.mm) >> 20), boot_info.mm.n,
            (unsigned long)(uintptr_t)__image_start, (unsigned long)(uintptr_t)__image_end);
}

static void print_time(void)
{
    kprintf("time: TSC %llu.%03llu MHz (%s)\n", (unsigned long long)(time_tsc_hz() / 1000000),
            (unsigned long long)(time_tsc_hz() / 1000 % 1000), time_tsc_source());
}

static uint32_t max_apic_id(const struct acpi_info *acpi)
{
    uint32_t max = 0;
    for (unsigned i = 0; i < acpi->ncpu; i++) {
        if (acpi->cpu[i].enabled && acpi->cpu[i].apic_id > max) {
            max = acpi->cpu[i].apic_id;
        }
    }
    return max;
}

static void print_cores(unsigned ncores)
{
    for (unsigned i = 0; i < ncores; i++) {
        const struct percpu *c = &percpu_blocks[i];
        kprintf("cpu%u: apic %u%s, node %u, online\n", c->index, c->apic_id,
                i == 0 ? " (boot)" : "", c->numa_node);
    }
}

void kmain(uint32_t magic, uint32_t info)
{
    uint64_t rsdp_phys;

    percpu_setup(0, 0);             /* GS base -> core 0's block (APIC ID filled in below) */
    console_init();                 /* serial console, so every later failure can be told */
    cpu_tables_init();              /* GDT with per-core TSS, IDT for all 256 vectors */
    cpu_tables_load();              /* ... in force on this core: faults now print a dump */
    parse_boot_info(magic, info);   /* memory map and ACPI pointer from the loader */
    find_rsdp(&rsdp_phys);          /* BIOS-area scan needs page 0, so before vm_init */
    if (vm_init(&boot_info.mm) != WS_OK) {
        boot_fail("vm: page-table pool exhausted mapping %llu MiB%s",
                  (unsigned long long)(memmap_highest_usable_end(&boot_info.mm) >> 20),
                  vm_uses_1g_pages() ? "" : " (this CPU has no 1 GiB pages: in 2 MiB pages "
                                            "about 500 GiB is the most the tables map)");
    }
    print_banner();
    find_acpi(rsdp_phys);           /* MADT: the cores; MCFG: PCI ECAM; HPET, PM timer */
    console_adopt_spcr(boot_acpi.spcr_port, boot_acpi.spcr_baud); /* a BMC's console */
    console_report();
    time_init(&boot_acpi);          /* TSC frequency, once, for every core */
    print_time();
    lapic_choose_mode(max_apic_id(&boot_acpi)); /* x2APIC if handed over in it, or needed */
    lapic_init(boot_acpi.lapic_phys);
    percpu_setup(0, lapic_id());
    kprintf("lapic: %s\n", lapic_mode());
    lapic_timer_calibrate();        /* wakes a halted core 0 for the console (adaptive mode) */
    dma_init(&boot_info.mm, &boot_acpi); /* rings and pools: the loader's free RAM, by node */
    unsigned ncores = smp_start_aps(&boot_acpi, CONFIG_MAX_CORES); /* wait in core_loop */
    for (unsigned c = 0; c < ncores; c++) { /* SRAT's node of each core (0 without it) */
        percpu_blocks[c].numa_node = acpi_cpu_node(&boot_acpi, percpu_blocks[c].apic_id);
    }
    print_cores(ncores);
    if (loop_init(ncores) != 0) {   /* wake-up vectors for cross-core rings */
        panic("loop: no interrupt vector left for the wake-up IPI");
    }
    struct init_ctx ctx = { .ncores = ncores, .acpi = &boot_acpi };
    init_run_all(&ctx);             /* buses, drivers, net, apps: what registered (init.h) */
    loop_release();                 /* every core may now poll its queues */
    kprintf("ready: cores=%u ports=%u\n", ncores, ctx.nports);
    console_prompt();
    console_start_async();          /* no core waits for the serial line from now on */
    core_loop();
}
