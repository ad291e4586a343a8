/*
 * kernel/acpi.c: RSDP search, root table walk and the MADT, MCFG, HPET and FADT parsers.
 * Section numbers are ACPI 6.5 unless marked otherwise. Every table is reached through struct
 * physmem and its length, mapping and checksum are checked before any field is read.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acpi.h"
#include "err.h"

/* Defined in err.c; the prototype moves to err.h once that header takes it. */
void err_vfmt(char *buf, size_t len, const char *fmt, va_list ap);

#define ACPI_PACKED __attribute__((packed))
#define ACPI_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* §5.2.5.1: where a legacy BIOS leaves the RSDP. */
#define ACPI_EBDA_SEG_PHYS 0x40EULL /* BDA word: EBDA segment */
#define ACPI_EBDA_SCAN_BYTES 1024
#define ACPI_BIOS_ROM_PHYS 0xE0000ULL
#define ACPI_BIOS_ROM_BYTES 0x20000
#define ACPI_RSDP_ALIGN 16

/* §5.2.5.3 Root System Description Pointer. */
struct acpi_rsdp {
    char sig[8]; /* "RSD PTR " */
    uint8_t checksum; /* over the first 20 bytes */
    char oem_id[6];
    uint8_t revision;
    uint32_t rsdt_addr;
    /* revision >= 2 only: */
    uint32_t length;
    uint64_t xsdt_addr;
    uint8_t ext_checksum; /* over length bytes */
    uint8_t reserved[3];
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_rsdp) == ACPI_RSDP_V2_BYTES, "RSDP is 36 bytes");

/* §5.2.6 System Description Table Header, at the start of every table. */
struct acpi_sdt {
    char sig[4];
    uint32_t length; /* whole table, header included */
    uint8_t revision;
    uint8_t checksum; /* all length bytes sum to 0 */
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    uint32_t creator_id;
    uint32_t creator_revision;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_sdt) == 36, "SDT header is 36 bytes");

/* §5.2.12 Multiple APIC Description Table; subtables follow. */
struct acpi_madt {
    struct acpi_sdt hdr;
    uint32_t lapic_addr;
    uint32_t flags;
#define ACPI_MADT_PCAT_COMPAT 0x1u
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT fixed part is 44 bytes");

/* MADT subtable types and the smallest length each may have (Table 5.21 and the sections). */
#define ACPI_MADT_LAPIC 0           /* §5.2.12.2, 8 bytes */
#define ACPI_MADT_IOAPIC 1          /* §5.2.12.3, 12 bytes */
#define ACPI_MADT_ISO 2             /* §5.2.12.5, 10 bytes */
#define ACPI_MADT_LAPIC_OVERRIDE 5  /* §5.2.12.8, 12 bytes */
#define ACPI_MADT_X2APIC 9          /* §5.2.12.12, 16 bytes */

struct acpi_madt_lapic {
    uint8_t type, length, uid, apic_id;
    uint32_t flags;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_lapic) == 8, "MADT type 0 is 8 bytes");

/* §5.2.12.2 Table 5.23 Local APIC Flags, shared by the x2APIC structure. */
#define ACPI_LAPIC_ENABLED 0x1u
#define ACPI_LAPIC_ONLINE_CAPABLE 0x2u /* defined from MADT revision 5 (ACPI 6.3) on */
#define ACPI_MADT_REV_ONLINE_CAPABLE 5

struct acpi_madt_ioapic {
    uint8_t type, length, id, reserved;
    uint32_t addr;
    uint32_t gsi_base;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_ioapic) == 12, "MADT type 1 is 12 bytes");

struct acpi_madt_iso {
    uint8_t type, length, bus, source;
    uint32_t gsi;
    uint16_t flags;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_iso) == 10, "MADT type 2 is 10 bytes");

struct acpi_madt_lapic_override {
    uint8_t type, length;
    uint16_t reserved;
    uint64_t addr;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_lapic_override) == 12, "MADT type 5 is 12 bytes");

struct acpi_madt_x2apic {
    uint8_t type, length;
    uint16_t reserved;
    uint32_t x2apic_id;
    uint32_t flags;
    uint32_t uid;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_x2apic) == 16, "MADT type 9 is 16 bytes");

/* PCI Firmware 3.3 §4.1.2 MCFG: header, 8 reserved bytes, then allocation entries. */
struct acpi_mcfg {
    struct acpi_sdt hdr;
    uint8_t reserved[8];
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_mcfg) == 44, "MCFG fixed part is 44 bytes");

struct acpi_mcfg_alloc {
    uint64_t base;
    uint16_t segment;
    uint8_t bus_start;
    uint8_t bus_end;
    uint32_t reserved;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_mcfg_alloc) == 16, "MCFG entry is 16 bytes");

/* §5.2.3.2 Generic Address Structure. */
struct acpi_gas {
    uint8_t space; /* 0 system memory, 1 system I/O, 2 PCI config */
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_size;
    uint64_t addr;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS is 12 bytes");
#define ACPI_GAS_MEMORY 0

/* IA-PC HPET 1.0a §3.2.4 Table 3. */
struct acpi_hpet {
    struct acpi_sdt hdr;
    uint32_t block_id;
    struct acpi_gas base;
    uint8_t number;
    uint16_t min_tick;
    uint8_t page_prot;
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_hpet) == 56, "HPET table is 56 bytes");

/*
 * §5.2.9 Table 5.9 FADT: only the fields we read, by offset, since the table grew with each
 * ACPI revision. 116 bytes is the ACPI 1.0 size; RESET_REG appeared in 2.0.
 */
#define ACPI_FADT_MIN_BYTES 116
#define ACPI_FADT_DSDT_OFF 40    /* 32-bit DSDT address */
#define ACPI_FADT_X_DSDT_OFF 140 /* 64-bit X_DSDT (ACPI 2.0+), preferred when not 0 */
#define ACPI_FADT_CENTURY_OFF 108
#define ACPI_FADT_FLAGS_OFF 112
#define ACPI_FADT_RESET_REG_SUP (1u << 10)
#define ACPI_FADT_RESET_REG_OFF 116
#define ACPI_FADT_RESET_VALUE_OFF 128
/* The ACPI power-management timer (§4.8.3.3): 3.579545 MHz, 24 bits or, with TMR_VAL_EXT,
 * 32 bits. PM_TMR_BLK is an I/O port (ACPI 1.0, offset 76, with PM_TMR_LEN 4 at 91);
 * X_PM_TMR_BLK (ACPI 2.0, offset 208) is a GAS that supersedes it when set. */
#define ACPI_FADT_PM_TMR_BLK_OFF 76
#define ACPI_FADT_PM_TMR_LEN_OFF 91
#define ACPI_FADT_TMR_VAL_EXT (1u << 8)
#define ACPI_FADT_X_PM_TMR_BLK_OFF 208
#define ACPI_GAS_IO 1

/* One parse: what the walk needs besides the output. */
#define ACPI_MAX_SSDTS 64 /* servers ship a few dozen (per-CPU power states, hot plug) */

struct acpi_ctx {
    const struct physmem *pm;
    struct acpi_info *info;
    unsigned seen;     /* bit per acpi_handlers[] entry: a valid table was parsed */
    uint64_t madt_phys;
    uint64_t dsdt_phys; /* from the FADT, 0 if none */
    const uint8_t *ssdt[ACPI_MAX_SSDTS]; /* valid SSDTs (checked by the walk), read after the
                                          * DSDT (ACPI loads it first) */
    unsigned nssdt;
    uint8_t madt_rev;
    char madt_why[ACPI_WARNING_BYTES]; /* why the last MADT candidate was rejected */
};

static uint8_t acpi_sum(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;

    while (len-- > 0) {
        sum = (uint8_t)(sum + *b++);
    }
    return sum;
}

static void ACPI_PRINTF(3, 4) acpi_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vfmt(buf, len, fmt, ap);
    va_end(ap);
}

/* Formats the reason for a fatal error into err[errlen] and returns code. */
static int ACPI_PRINTF(4, 5) acpi_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vfmt(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

static void ACPI_PRINTF(2, 3) acpi_warn(struct acpi_info *info, const char *fmt, ...)
{
    va_list ap;

    if (info->nwarn == ACPI_MAX_WARNINGS) {
        info->warn_dropped++;
        return;
    }
    va_start(ap, fmt);
    err_vfmt(info->warn[info->nwarn++], ACPI_WARNING_BYTES, fmt, ap);
    va_end(ap);
}

/* Copies n bytes of a firmware-provided name, NUL-terminated, unprintables shown as '?'. */
static void acpi_name(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? src[i] : '?';
    }
    dst[n] = '\0';
}

/*
 * Looks for a checksummed RSDP on 16-byte boundaries in [base, base + len). The whole 20-byte
 * structure must lie inside the window: the spec places it there, and the window is all we
 * mapped. The signature alone is not enough: option ROMs and BIOS code contain the string.
 */
static bool acpi_scan(const struct physmem *pm, uint64_t base, size_t len, uint64_t *phys)
{
    const uint8_t *p = physmem_map(pm, base, len);

    if (p == NULL) {
        return false;
    }
    for (size_t off = 0; len - off >= ACPI_RSDP_V1_BYTES; off += ACPI_RSDP_ALIGN) {
        if (memcmp(p + off, "RSD PTR ", 8) == 0 && acpi_sum(p + off, ACPI_RSDP_V1_BYTES) == 0) {
            *phys = base + off;
            return true;
        }
    }
    return false;
}

int acpi_find_rsdp(const struct physmem *pm, uint64_t *phys)
{
    const uint8_t *bda = physmem_map(pm, ACPI_EBDA_SEG_PHYS, sizeof(uint16_t));
    uint16_t seg = 0;

    /* Spec order: EBDA first, then the BIOS ROM area. Segment 0 means there is no EBDA (and
     * is what a UEFI machine without CSM tends to leave there). */
    if (bda != NULL) {
        memcpy(&seg, bda, sizeof(seg));
    }
    if (seg != 0 && acpi_scan(pm, (uint64_t)seg << 4, ACPI_EBDA_SCAN_BYTES, phys)) {
        return 0;
    }
    return acpi_scan(pm, ACPI_BIOS_ROM_PHYS, ACPI_BIOS_ROM_BYTES, phys) ? 0 : WS_ERR_NOT_FOUND;
}

/*
 * §5.2.5.3: checksum of the first 20 bytes; from revision 2 on also the extended checksum over
 * the length field's byte count. Yields the XSDT address (0 if none usable) and the RSDT's.
 */
static int acpi_check_rsdp(struct acpi_ctx *c, const void *rsdp, size_t len, uint64_t *xsdt,
                           uint64_t *rsdt, char *err, size_t errlen)
{
    const struct acpi_rsdp *r = rsdp;

    if (r == NULL || len < ACPI_RSDP_V1_BYTES) {
        return acpi_fail(err, errlen, WS_ERR_TRUNCATED, "RSDP: %zu bytes, need 20", len);
    }
    if (memcmp(r->sig, "RSD PTR ", 8) != 0) {
        return acpi_fail(err, errlen, WS_ERR_INVAL, "RSDP: signature is not 'RSD PTR '");
    }
    if (acpi_sum(r, ACPI_RSDP_V1_BYTES) != 0) {
        return acpi_fail(err, errlen, WS_ERR_CHECKSUM, "RSDP: checksum 0x%x, expected 0",
                         acpi_sum(r, ACPI_RSDP_V1_BYTES));
    }
    c->info->revision = r->revision;
    acpi_name(c->info->oem_id, r->oem_id, sizeof(r->oem_id));
    *rsdt = r->rsdt_addr;
    *xsdt = 0;
    if (r->revision < 2) { /* ACPI 1.0 is revision 0; 1 was never assigned */
        return 0;
    }
    if (len < ACPI_RSDP_V2_BYTES) { /* e.g. a 20-byte copy from Multiboot 2 tag 14 */
        acpi_warn(c->info, "RSDP: revision %u but only %zu bytes given, using RSDT", r->revision,
                  len);
        return 0;
    }
    if (r->length < ACPI_RSDP_V2_BYTES || r->length > len) {
        return acpi_fail(err, errlen, WS_ERR_TRUNCATED, "RSDP: length %u, have %zu bytes",
                         r->length, len);
    }
    if (acpi_sum(r, r->length) != 0) {
        return acpi_fail(err, errlen, WS_ERR_CHECKSUM, "RSDP: extended checksum 0x%x, expected 0",
                         acpi_sum(r, r->length));
    }
    *xsdt = r->xsdt_addr;
    return 0;
}

/*
 * Maps the table at phys and checks it (§5.2.6): signature, min_len <= length <= our cap,
 * the whole length mappable, checksum 0. On failure writes "SIG at 0x...: what" to why.
 */
static int acpi_map_table(const struct physmem *pm, uint64_t phys, const char *sig,
                          uint32_t min_len, const uint8_t **out, char *why, size_t whylen)
{
    const struct acpi_sdt *h = physmem_map(pm, phys, sizeof(*h)); /* length is in here */
    char got[5];

    if (h == NULL) {
        acpi_fmt(why, whylen, "%s at 0x%lx: not in mapped memory", sig, phys);
        return WS_ERR_RANGE;
    }
    if (memcmp(h->sig, sig, 4) != 0) {
        acpi_name(got, h->sig, 4);
        acpi_fmt(why, whylen, "%s at 0x%lx: signature '%s'", sig, phys, got);
        return WS_ERR_INVAL;
    }
    if (h->length < min_len || h->length > ACPI_MAX_TABLE_BYTES) {
        acpi_fmt(why, whylen, "%s at 0x%lx: length %u, expected %u..%u", sig, phys, h->length,
                 min_len, ACPI_MAX_TABLE_BYTES);
        return h->length < min_len ? WS_ERR_TRUNCATED : WS_ERR_RANGE;
    }
    *out = physmem_map(pm, phys, h->length);
    if (*out == NULL) {
        acpi_fmt(why, whylen, "%s at 0x%lx: length %u runs past mapped memory", sig, phys,
                 h->length);
        return WS_ERR_TRUNCATED;
    }
    if (acpi_sum(*out, h->length) != 0) {
        acpi_fmt(why, whylen, "%s at 0x%lx: checksum 0x%x, expected 0", sig, phys,
                 acpi_sum(*out, h->length));
        return WS_ERR_CHECKSUM;
    }
    return 0;
}

/* Adds a processor unless its APIC ID is already listed (some firmware lists a CPU both as
 * xAPIC and x2APIC) or the table is full. */
static void acpi_add_cpu(struct acpi_info *info, uint32_t apic_id, uint32_t uid, bool enabled)
{
    for (unsigned i = 0; i < info->ncpu; i++) {
        if (info->cpu[i].apic_id == apic_id) {
            return;
        }
    }
    if (info->ncpu == WS_MAX_CPUS) {
        info->cpu_dropped++;
        return;
    }
    info->cpu[info->ncpu++] = (struct acpi_cpu){ .apic_id = apic_id, .uid = uid,
                                                 .enabled = enabled };
}

/*
 * Processor entry (type 0 or 9, length already checked) of the kind this pass wants. Flags
 * with neither bit set mean "unusable, ignore" (§5.2.12.2); before MADT revision 5 the online
 * capable bit did not exist and a disabled entry was the way to describe a hot-plug socket.
 */
static void acpi_madt_cpu(struct acpi_ctx *c, const uint8_t *s, bool want_enabled)
{
    uint32_t id, uid, flags;
    bool online;

    if (s[0] == ACPI_MADT_LAPIC) {
        const struct acpi_madt_lapic *l = (const void *)s;
        id = l->apic_id == 0xFF ? UINT32_MAX : l->apic_id; /* 0xFF: broadcast, not a CPU */
        uid = l->uid;
        flags = l->flags;
    } else {
        const struct acpi_madt_x2apic *x = (const void *)s;
        id = x->x2apic_id;
        uid = x->uid;
        flags = x->flags;
    }
    online = c->madt_rev < ACPI_MADT_REV_ONLINE_CAPABLE || (flags & ACPI_LAPIC_ONLINE_CAPABLE);
    if (id == UINT32_MAX || ((flags & ACPI_LAPIC_ENABLED) != 0) != want_enabled) {
        return;
    }
    if (want_enabled || online) {
        acpi_add_cpu(c->info, id, uid, want_enabled);
    }
}

static void acpi_madt_ioapic(struct acpi_info *info, const struct acpi_madt_ioapic *io)
{
    if (info->nioapic == WS_MAX_IOAPICS) {
        info->ioapic_dropped++;
        return;
    }
    info->ioapic[info->nioapic++] = (struct acpi_ioapic){ .id = io->id, .phys = io->addr,
                                                          .gsi_base = io->gsi_base };
}

static void acpi_madt_iso(struct acpi_info *info, const struct acpi_madt_iso *iso)
{
    if (info->niso == ACPI_MAX_ISOS) {
        info->iso_dropped++;
        return;
    }
    info->iso[info->niso++] = (struct acpi_iso){ .source = iso->source, .gsi = iso->gsi,
                                                 .flags = iso->flags };
}

/* Smallest valid length of a MADT subtable type we read; 2 (just the header) otherwise. */
static uint8_t acpi_madt_min_len(uint8_t type)
{
    switch (type) {
    case ACPI_MADT_LAPIC:
        return sizeof(struct acpi_madt_lapic);
    case ACPI_MADT_IOAPIC:
    case ACPI_MADT_LAPIC_OVERRIDE:
        return 12;
    case ACPI_MADT_ISO:
        return sizeof(struct acpi_madt_iso);
    case ACPI_MADT_X2APIC:
        return sizeof(struct acpi_madt_x2apic);
    default:
        return 2;
    }
}

/* First pass over one subtable (framing already checked): everything but disabled CPUs. */
static void acpi_madt_entry(struct acpi_ctx *c, const uint8_t *s, size_t off)
{
    if (s[1] < acpi_madt_min_len(s[0])) {
        acpi_warn(c->info, "APIC at 0x%lx: type %u at +%zu: length %u < %u, skipped",
                  c->madt_phys, s[0], off, s[1], acpi_madt_min_len(s[0]));
        return;
    }
    switch (s[0]) {
    case ACPI_MADT_LAPIC:
    case ACPI_MADT_X2APIC:
        acpi_madt_cpu(c, s, true);
        break;
    case ACPI_MADT_IOAPIC:
        acpi_madt_ioapic(c->info, (const void *)s);
        break;
    case ACPI_MADT_ISO:
        acpi_madt_iso(c->info, (const void *)s);
        break;
    case ACPI_MADT_LAPIC_OVERRIDE: /* §5.2.12.8: 64-bit address supersedes the 32-bit one */
        c->info->lapic_phys = ((const struct acpi_madt_lapic_override *)s)->addr;
        break;
    default:
        break;
    }
}

/*
 * End of the well-formed run of subtables: each needs length >= 2 and must end inside the
 * table. Past a bad length nothing can be located (a zero length would loop forever), so the
 * walk stops there and keeps what came before.
 */
static size_t acpi_madt_extent(struct acpi_ctx *c, const uint8_t *t, size_t len)
{
    size_t off = sizeof(struct acpi_madt);

    while (off < len) {
        if (len - off < 2) {
            acpi_warn(c->info, "APIC at 0x%lx: %zu stray bytes at +%zu", c->madt_phys,
                      len - off, off);
            break;
        }
        if (t[off + 1] < 2 || t[off + 1] > len - off) {
            acpi_warn(c->info, "APIC at 0x%lx: type %u at +%zu: length %u, table ends at %zu",
                      c->madt_phys, t[off], off, t[off + 1], len);
            break;
        }
        off += t[off + 1];
    }
    return off;
}

static void acpi_madt_report_drops(struct acpi_ctx *c)
{
    struct acpi_info *info = c->info;

    if (info->cpu_dropped > 0) {
        acpi_warn(info, "APIC at 0x%lx: %u processors beyond WS_MAX_CPUS=%u ignored",
                  c->madt_phys, info->cpu_dropped, WS_MAX_CPUS);
    }
    if (info->ioapic_dropped > 0) {
        acpi_warn(info, "APIC at 0x%lx: %u I/O APICs beyond WS_MAX_IOAPICS=%u ignored",
                  c->madt_phys, info->ioapic_dropped, WS_MAX_IOAPICS);
    }
    if (info->iso_dropped > 0) {
        acpi_warn(info, "APIC at 0x%lx: %u interrupt overrides beyond %u ignored", c->madt_phys,
                  info->iso_dropped, ACPI_MAX_ISOS);
    }
}

/*
 * §5.2.12. Two passes so enabled processors are kept first when there are more entries than
 * WS_MAX_CPUS (QEMU lists every possible hot-plug CPU, present or not).
 */
static void acpi_parse_madt(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    const struct acpi_madt *m = (const void *)t;
    size_t end;

    c->madt_phys = phys;
    c->madt_rev = m->hdr.revision;
    c->info->lapic_phys = m->lapic_addr;
    c->info->pcat_compat = (m->flags & ACPI_MADT_PCAT_COMPAT) != 0;
    end = acpi_madt_extent(c, t, m->hdr.length);
    for (size_t off = sizeof(*m); off < end; off += t[off + 1]) {
        acpi_madt_entry(c, t + off, off);
    }
    c->info->ncpu_enabled = c->info->ncpu;
    for (size_t off = sizeof(*m); off < end; off += t[off + 1]) {
        uint8_t type = t[off];
        if ((type == ACPI_MADT_LAPIC || type == ACPI_MADT_X2APIC) &&
            t[off + 1] >= acpi_madt_min_len(type)) {
            acpi_madt_cpu(c, t + off, false);
        }
    }
    acpi_madt_report_drops(c);
}

/* PCI Firmware 3.3 §4.1.2: one ECAM window per segment group and bus range. */
static void acpi_parse_mcfg(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    struct acpi_info *info = c->info;
    size_t body = ((const struct acpi_sdt *)t)->length - sizeof(struct acpi_mcfg);
    size_t n = body / sizeof(struct acpi_mcfg_alloc);

    if (body % sizeof(struct acpi_mcfg_alloc) != 0) {
        acpi_warn(info, "MCFG at 0x%lx: %zu stray bytes after %zu entries", phys,
                  body % sizeof(struct acpi_mcfg_alloc), n);
    }
    for (size_t i = 0; i < n; i++) {
        const struct acpi_mcfg_alloc *a =
            (const void *)(t + sizeof(struct acpi_mcfg) + i * sizeof(*a));
        /* Firmware leaves unused slots zeroed or inverted; ECAM at 0 would alias low RAM. */
        if (a->base == 0 || a->bus_end < a->bus_start) {
            acpi_warn(info, "MCFG at 0x%lx: entry %zu (base 0x%lx, buses %u-%u) skipped", phys,
                      i, (uint64_t)a->base, a->bus_start, a->bus_end);
            continue;
        }
        if (info->nmcfg == WS_MAX_MCFG_SEGMENTS) {
            info->mcfg_dropped++;
            continue;
        }
        info->mcfg[info->nmcfg++] = (struct acpi_mcfg_seg){
            .base = a->base, .segment = a->segment, .bus_start = a->bus_start,
            .bus_end = a->bus_end };
    }
    if (info->mcfg_dropped > 0) {
        acpi_warn(info, "MCFG at 0x%lx: %u entries beyond WS_MAX_MCFG_SEGMENTS=%u ignored",
                  phys, info->mcfg_dropped, WS_MAX_MCFG_SEGMENTS);
    }
}

/* IA-PC HPET 1.0a §3.2.4: the event timer block must be memory-mapped to be of use. */
static void acpi_parse_hpet(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    const struct acpi_hpet *h = (const void *)t;

    if (h->base.space != ACPI_GAS_MEMORY || h->base.addr == 0) {
        acpi_warn(c->info, "HPET at 0x%lx: base 0x%lx in address space %u, ignored", phys,
                  (uint64_t)h->base.addr, h->base.space);
        return;
    }
    c->info->has_hpet = true;
    c->info->hpet_phys = h->base.addr;
}

/* acpi_parse_pm_timer: the PM timer's I/O port from X_PM_TMR_BLK or PM_TMR_BLK; a timer in
 * memory space, or a block of another length, is not used (and said so). */
static void acpi_parse_pm_timer(struct acpi_ctx *c, const uint8_t *t, uint32_t len,
                                uint32_t flags)
{
    struct acpi_gas x = { 0 };
    uint32_t port;

    if (len >= ACPI_FADT_X_PM_TMR_BLK_OFF + sizeof(x)) {
        memcpy(&x, t + ACPI_FADT_X_PM_TMR_BLK_OFF, sizeof(x));
    }
    memcpy(&port, t + ACPI_FADT_PM_TMR_BLK_OFF, sizeof(port));
    if (x.addr != 0) {
        if (x.space != ACPI_GAS_IO || x.addr > 0xFFFC) {
            acpi_warn(c->info, "FADT: PM timer at 0x%lx in address space %u, not used",
                      (unsigned long)x.addr, x.space);
            return;
        }
        port = (uint32_t)x.addr;
    } else if (port == 0 || t[ACPI_FADT_PM_TMR_LEN_OFF] != 4 || port > 0xFFFC) {
        return; /* no PM timer (hardware-reduced ACPI has none) */
    }
    c->info->pm_tmr_port = (uint16_t)port;
    c->info->pm_tmr_32bit = (flags & ACPI_FADT_TMR_VAL_EXT) != 0;
}

/* §5.2.9 DSDT / X_DSDT: where the namespace's main definition block is. */
static void acpi_fadt_dsdt(struct acpi_ctx *c, const uint8_t *t, uint32_t len)
{
    uint32_t dsdt32;
    uint64_t dsdt64 = 0;

    memcpy(&dsdt32, t + ACPI_FADT_DSDT_OFF, sizeof(dsdt32));
    if (len >= ACPI_FADT_X_DSDT_OFF + sizeof(dsdt64)) {
        memcpy(&dsdt64, t + ACPI_FADT_X_DSDT_OFF, sizeof(dsdt64));
    }
    c->dsdt_phys = dsdt64 != 0 ? dsdt64 : dsdt32;
}

/* §5.2.11: a definition block (DSDT or SSDT): its PCI root bridges, for their NUMA nodes. */
static void acpi_parse_aml(struct acpi_ctx *c, const uint8_t *t)
{
    struct acpi_info *info = c->info;
    uint32_t len = ((const struct acpi_sdt *)t)->length;

    info->aml_tables++;
    aml_find_pci_roots(t + sizeof(struct acpi_sdt), len - sizeof(struct acpi_sdt),
                       info->pci_root, ACPI_MAX_PCI_ROOTS, &info->npci_root,
                       &info->pci_root_dropped);
}

/* An SSDT from the root table: read after the DSDT (§5.2.11.2: the namespace is the DSDT's,
 * then each SSDT's in order). More than ACPI_MAX_SSDTS: said, and the rest not read. */
static void acpi_note_ssdt(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    if (c->nssdt == ACPI_MAX_SSDTS) {
        acpi_warn(c->info, "SSDT at 0x%lx: more than %u SSDTs, not read", phys, ACPI_MAX_SSDTS);
        return;
    }
    c->ssdt[c->nssdt++] = t;
}

/* The namespace's definition blocks: the DSDT the FADT names (not listed in the root table,
 * so checked here), then the SSDTs in root-table order. */
static void acpi_parse_namespace(struct acpi_ctx *c)
{
    char why[ACPI_WARNING_BYTES];
    const uint8_t *t;

    if (c->dsdt_phys != 0 && acpi_map_table(c->pm, c->dsdt_phys, "DSDT", sizeof(struct acpi_sdt),
                                            &t, why, sizeof(why)) != 0) {
        acpi_warn(c->info, "%s", why);
    } else if (c->dsdt_phys != 0) {
        acpi_parse_aml(c, t);
    }
    for (unsigned i = 0; i < c->nssdt; i++) {
        acpi_parse_aml(c, c->ssdt[i]);
    }
}

bool acpi_pci_root_node(const struct acpi_info *info, uint16_t segment, uint8_t root_bus,
                        uint32_t *node)
{
    for (unsigned i = 0; i < info->npci_root; i++) {
        const struct aml_pci_root *r = &info->pci_root[i];
        if (!r->bus_computed && r->segment == segment && r->bus == root_bus) {
            if (r->has_node) {
                *node = r->node;
            }
            return r->has_node;
        }
    }
    return false;
}

/* §5.2.9: RTC century index, PM timer and the reset register, each read only if the table has
 * it. */
static void acpi_parse_fadt(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    uint32_t len = ((const struct acpi_sdt *)t)->length, flags;
    struct acpi_gas reset;

    (void)phys;
    c->info->has_fadt = true;
    c->info->century_index = t[ACPI_FADT_CENTURY_OFF]; /* 0: RTC has no century register */
    acpi_fadt_dsdt(c, t, len);
    memcpy(&flags, t + ACPI_FADT_FLAGS_OFF, sizeof(flags));
    acpi_parse_pm_timer(c, t, len, flags);
    /* §5.2.9 FADT Flags bit 10: RESET_REG is meaningful only with RESET_REG_SUP set. */
    if (len <= ACPI_FADT_RESET_VALUE_OFF || (flags & ACPI_FADT_RESET_REG_SUP) == 0) {
        return;
    }
    memcpy(&reset, t + ACPI_FADT_RESET_REG_OFF, sizeof(reset));
    c->info->reset = (struct acpi_reset){ .valid = reset.addr != 0, .space = reset.space,
                                          .addr = reset.addr,
                                          .value = t[ACPI_FADT_RESET_VALUE_OFF] };
}

/*
 * SPCR (Microsoft's Serial Port Console Redirection table, revision 2): the UART the firmware
 * (often a BMC's Serial-over-LAN) uses as its console. Only a 16550-compatible UART at an I/O
 * port is of use here: interface type 0 (16550) or 0x12 (16550 by the GAS); MMIO UARTs and
 * others are reported and left.
 */
#define ACPI_SPCR_MIN_BYTES 80
#define ACPI_SPCR_TYPE_OFF 36
#define ACPI_SPCR_BASE_OFF 40
#define ACPI_SPCR_BAUD_OFF 58
#define ACPI_SPCR_TYPE_16550 0x00
#define ACPI_SPCR_TYPE_16550_GAS 0x12

static void acpi_parse_spcr(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    static const uint32_t bauds[8] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };
    struct acpi_gas base;
    uint8_t type = t[ACPI_SPCR_TYPE_OFF], b = t[ACPI_SPCR_BAUD_OFF];

    memcpy(&base, t + ACPI_SPCR_BASE_OFF, sizeof(base));
    if ((type != ACPI_SPCR_TYPE_16550 && type != ACPI_SPCR_TYPE_16550_GAS) ||
        base.space != ACPI_GAS_IO || base.addr == 0 || base.addr > 0xFFF8) {
        acpi_warn(c->info, "SPCR: type %u UART at 0x%lx (space %u), not a 16550 on I/O ports",
                  type, (unsigned long)base.addr, base.space);
        (void)phys;
        return;
    }
    c->info->spcr_port = (uint16_t)base.addr;
    c->info->spcr_baud = b < 8 ? bauds[b] : 0; /* 0: as the firmware left it */
}

/*
 * IOMMUs, so the platform layer can say what the firmware left on and turn it off: DMAR (Intel
 * VT-d 3.x section 8.1: 48-byte header, then remapping structures of type u16 and length u16;
 * type 0 is a DRHD: flags 4, segment 6, register base 8) and IVRS (AMD IOMMU 3.x section 5.2:
 * 48-byte header, then blocks of type u8, flags u8, length u16; types 0x10, 0x11 and 0x40 are
 * IVHDs: IOMMU base 8, PCI segment 16). Each structure's length is checked against the table's.
 */
#define ACPI_IOMMU_TABLE_HDR 48
#define ACPI_DMAR_DRHD 0
#define ACPI_DMAR_DRHD_MIN 16
#define ACPI_IVRS_IVHD_MIN 24

/* acpi_add_iommu: one unit, once: IVRS describes one IOMMU in several IVHD blocks (types 0x10
 * and 0x11 for older and newer readers). */
static void acpi_add_iommu(struct acpi_info *info, uint8_t kind, uint16_t seg, uint64_t base)
{
    for (unsigned i = 0; i < info->niommu; i++) {
        if (info->iommu[i].base == base && info->iommu[i].segment == seg) {
            return;
        }
    }
    if (info->niommu == ACPI_MAX_IOMMUS) {
        info->iommu_dropped++;
        return;
    }
    info->iommu[info->niommu++] = (struct acpi_iommu){ .kind = kind, .segment = seg,
                                                        .base = base };
}

static void acpi_parse_dmar(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    uint32_t len = ((const struct acpi_sdt *)t)->length;
    for (uint32_t at = ACPI_IOMMU_TABLE_HDR; at + 4 <= len;) {
        uint16_t type, slen;
        memcpy(&type, t + at, 2);
        memcpy(&slen, t + at + 2, 2);
        if (slen < 4 || slen > len - at) {
            acpi_warn(c->info, "DMAR at 0x%lx: structure at %u has length %u; rest ignored", phys,
                      at, slen);
            return;
        }
        if (type == ACPI_DMAR_DRHD && slen >= ACPI_DMAR_DRHD_MIN) {
            uint16_t seg;
            uint64_t base;
            memcpy(&seg, t + at + 6, 2);
            memcpy(&base, t + at + 8, 8);
            acpi_add_iommu(c->info, ACPI_IOMMU_VTD, seg, base);
        }
        at += slen;
    }
}

static void acpi_parse_ivrs(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    uint32_t len = ((const struct acpi_sdt *)t)->length;
    for (uint32_t at = ACPI_IOMMU_TABLE_HDR; at + 4 <= len;) {
        uint8_t type = t[at];
        uint16_t blen;
        memcpy(&blen, t + at + 2, 2);
        if (blen < 4 || blen > len - at) {
            acpi_warn(c->info, "IVRS at 0x%lx: block at %u has length %u; rest ignored", phys,
                      at, blen);
            return;
        }
        if ((type == 0x10 || type == 0x11 || type == 0x40) && blen >= ACPI_IVRS_IVHD_MIN) {
            uint16_t seg;
            uint64_t base;
            memcpy(&base, t + at + 8, 8);
            memcpy(&seg, t + at + 16, 2);
            acpi_add_iommu(c->info, ACPI_IOMMU_AMD, seg, base);
        }
        at += blen;
    }
}

/*
 * SRAT (§5.2.16): 48-byte header, then affinity structures {u8 type, u8 length}. Type 0,
 * processor local APIC (16 bytes): domain bits 7:0 at 2, APIC ID at 3, flags (bit 0 enabled)
 * at 4, domain bits 31:8 at 9; type 1, memory (40 bytes): domain at 2, base at 8, length at 16,
 * flags (bit 0 enabled) at 28; type 2, processor x2APIC (24 bytes): domain at 4, x2APIC ID at
 * 8, flags at 12. Other types (GICC, generic initiators) are skipped by their length.
 */
#define ACPI_SRAT_HDR 48
#define ACPI_SRAT_LAPIC 0
#define ACPI_SRAT_MEMORY 1
#define ACPI_SRAT_X2APIC 2

static void acpi_srat_cpu(struct acpi_info *info, uint32_t apic_id, uint32_t node)
{
    if (info->nnuma_cpu == ACPI_MAX_NUMA_CPUS) {
        info->numa_cpu_dropped++;
        return;
    }
    info->numa_cpu[info->nnuma_cpu++] = (struct acpi_numa_cpu){ apic_id, node };
}

static void acpi_parse_srat(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    uint32_t len = ((const struct acpi_sdt *)t)->length, flags, node;
    c->info->has_srat = true;
    for (uint32_t at = ACPI_SRAT_HDR; at + 2 <= len;) {
        uint8_t type = t[at], slen = t[at + 1];
        if (slen < 2 || slen > len - at) {
            acpi_warn(c->info, "SRAT at 0x%lx: structure at %u has length %u; rest ignored",
                      phys, at, slen);
            return;
        }
        if (type == ACPI_SRAT_LAPIC && slen >= 16) {
            memcpy(&flags, t + at + 4, 4);
            node = t[at + 2] | (uint32_t)t[at + 9] << 8 | (uint32_t)t[at + 10] << 16 |
                   (uint32_t)t[at + 11] << 24;
            if (flags & 1) {
                acpi_srat_cpu(c->info, t[at + 3], node);
            }
        } else if (type == ACPI_SRAT_X2APIC && slen >= 24) {
            uint32_t id;
            memcpy(&node, t + at + 4, 4);
            memcpy(&id, t + at + 8, 4);
            memcpy(&flags, t + at + 12, 4);
            if (flags & 1) {
                acpi_srat_cpu(c->info, id, node);
            }
        } else if (type == ACPI_SRAT_MEMORY && slen >= 40) {
            struct acpi_numa_mem m;
            memcpy(&m.node, t + at + 2, 4);
            memcpy(&m.base, t + at + 8, 8);
            memcpy(&m.len, t + at + 16, 8);
            memcpy(&flags, t + at + 28, 4);
            if ((flags & 1) && m.len != 0 && m.base <= UINT64_MAX - m.len) {
                if (c->info->nnuma_mem == ACPI_MAX_NUMA_RANGES) {
                    c->info->numa_mem_dropped++;
                } else {
                    c->info->numa_mem[c->info->nnuma_mem++] = m;
                }
            }
        }
        at += slen;
    }
}

/* SLIT (§5.2.17): after the header, the number of localities N (8 bytes), then N x N distance
 * bytes, row i the distances from locality i. A distance below 10 is reserved, and a locality
 * is at 10 from itself: a table breaking either is ignored whole, as Linux does. At most
 * ACPI_MAX_SLIT_NODES localities are kept. */
#define ACPI_SLIT_HDR 44
#define ACPI_SLIT_MAX_LOCALITIES 4096 /* N * N stays far below 2^32 */

static bool acpi_slit_valid(struct acpi_ctx *c, const uint8_t *d, uint64_t n, uint64_t phys)
{
    for (uint64_t i = 0; i < n; i++) {
        for (uint64_t j = 0; j < n; j++) {
            uint8_t v = d[i * n + j];
            if (v < ACPI_SLIT_LOCAL || (i == j) != (v == ACPI_SLIT_LOCAL)) {
                acpi_warn(c->info, "SLIT at 0x%lx: distance %u from %lu to %lu is %s; ignored",
                          phys, v, (unsigned long)i, (unsigned long)j,
                          v < ACPI_SLIT_LOCAL ? "reserved" :
                          i == j ? "not local" : "local between two localities");
                return false;
            }
        }
    }
    return true;
}

static void acpi_parse_slit(struct acpi_ctx *c, const uint8_t *t, uint64_t phys)
{
    uint32_t len = ((const struct acpi_sdt *)t)->length;
    uint64_t n;
    memcpy(&n, t + 36, 8);
    if (n == 0 || n > ACPI_SLIT_MAX_LOCALITIES || n * n > len - ACPI_SLIT_HDR) {
        acpi_warn(c->info, "SLIT at 0x%lx: %lu localities do not fit its %u bytes; ignored",
                  phys, (unsigned long)n, len);
        return;
    }
    const uint8_t *d = t + ACPI_SLIT_HDR;
    if (!acpi_slit_valid(c, d, n, phys)) {
        return;
    }
    unsigned keep = n < ACPI_MAX_SLIT_NODES ? (unsigned)n : ACPI_MAX_SLIT_NODES;
    for (unsigned i = 0; i < keep; i++) {
        memcpy(c->info->slit[i], d + (uint64_t)i * n, keep);
    }
    c->info->nslit = keep;
    c->info->slit_dropped = (unsigned)(n - keep);
}

unsigned acpi_node_distance(const struct acpi_info *info, uint32_t a, uint32_t b)
{
    if (a < info->nslit && b < info->nslit) {
        return info->slit[a][b];
    }
    return a == b ? ACPI_SLIT_LOCAL : ACPI_SLIT_REMOTE;
}

uint32_t acpi_cpu_node(const struct acpi_info *info, uint32_t apic_id)
{
    for (unsigned i = 0; i < info->nnuma_cpu; i++) {
        if (info->numa_cpu[i].apic_id == apic_id) {
            return info->numa_cpu[i].node;
        }
    }
    return 0;
}

/* The tables we read; the first valid one of each signature wins (SSDTs: every one). Entry 0
 * is required. */
static const struct acpi_handler {
    char sig[5];
    uint32_t min_len;
    void (*parse)(struct acpi_ctx *c, const uint8_t *t, uint64_t phys);
    bool every;
} acpi_handlers[] = {
    { "APIC", sizeof(struct acpi_madt), acpi_parse_madt, false },
    { "MCFG", sizeof(struct acpi_mcfg), acpi_parse_mcfg, false },
    { "HPET", sizeof(struct acpi_hpet), acpi_parse_hpet, false },
    { "FACP", ACPI_FADT_MIN_BYTES, acpi_parse_fadt, false },
    { "SPCR", ACPI_SPCR_MIN_BYTES, acpi_parse_spcr, false },
    { "DMAR", ACPI_IOMMU_TABLE_HDR, acpi_parse_dmar, false },
    { "IVRS", ACPI_IOMMU_TABLE_HDR, acpi_parse_ivrs, false },
    { "SRAT", ACPI_SRAT_HDR, acpi_parse_srat, false },
    { "SLIT", ACPI_SLIT_HDR, acpi_parse_slit, false },
    { "SSDT", sizeof(struct acpi_sdt), acpi_note_ssdt, true },
};
#define ACPI_NHANDLERS (sizeof(acpi_handlers) / sizeof(acpi_handlers[0]))

/* Root table entry i points at phys: peek at its signature, validate and parse if wanted. */
static void acpi_visit(struct acpi_ctx *c, const char *root, size_t i, uint64_t phys)
{
    const struct acpi_sdt *h = physmem_map(c->pm, phys, sizeof(*h));
    char why[ACPI_WARNING_BYTES];
    const uint8_t *t;

    if (h == NULL) {
        acpi_warn(c->info, "%s entry %zu: table at 0x%lx not in mapped memory", root, i, phys);
        return;
    }
    for (unsigned k = 0; k < ACPI_NHANDLERS; k++) {
        const struct acpi_handler *hd = &acpi_handlers[k];
        if (memcmp(h->sig, hd->sig, 4) != 0 || (c->seen & (1u << k)) != 0) {
            continue;
        }
        if (acpi_map_table(c->pm, phys, hd->sig, hd->min_len, &t, why, sizeof(why)) != 0) {
            acpi_warn(c->info, "%s", why);
            if (k == 0) {
                memcpy(c->madt_why, why, sizeof(why));
            }
            return;
        }
        c->seen |= hd->every ? 0 : 1u << k;
        hd->parse(c, t, phys);
        return;
    }
}

/* §5.2.7 RSDT (4-byte entries) / §5.2.8 XSDT (8-byte entries, only 4-byte aligned). */
static void acpi_walk_root(struct acpi_ctx *c, const uint8_t *t, size_t esize)
{
    const struct acpi_sdt *h = (const void *)t;
    size_t body = h->length - sizeof(*h), n = body / esize;
    char root[5];

    acpi_name(root, h->sig, 4);
    if (body % esize != 0) {
        acpi_warn(c->info, "%s at 0x%lx: %zu stray bytes after %zu entries", root,
                  c->info->root_phys, body % esize, n);
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = t + sizeof(*h) + i * esize;
        uint32_t a32;
        uint64_t a64;

        if (esize == sizeof(a32)) {
            memcpy(&a32, e, sizeof(a32));
            a64 = a32;
        } else {
            memcpy(&a64, e, sizeof(a64));
        }
        if (a64 == 0) {
            acpi_warn(c->info, "%s entry %zu: null table address", root, i);
            continue;
        }
        acpi_visit(c, root, i, a64);
    }
}

/* Prefers the XSDT (§5.2.5.3: "OSPM should use the XSDT if present"), else the RSDT. */
static int acpi_parse_root(struct acpi_ctx *c, uint64_t xsdt, uint64_t rsdt, char *err,
                           size_t errlen)
{
    char why[ACPI_WARNING_BYTES];
    const uint8_t *t;
    int rc;

    if (xsdt != 0) {
        rc = acpi_map_table(c->pm, xsdt, "XSDT", sizeof(struct acpi_sdt), &t, why, sizeof(why));
        if (rc == 0) {
            c->info->root_phys = xsdt;
            c->info->root_is_xsdt = true;
            acpi_walk_root(c, t, sizeof(uint64_t));
            return 0;
        }
        if (rsdt == 0) {
            return acpi_fail(err, errlen, rc, "%s", why);
        }
        acpi_warn(c->info, "%s; using RSDT", why);
    }
    if (rsdt == 0) {
        return acpi_fail(err, errlen, WS_ERR_NOT_FOUND, "RSDP: no RSDT or XSDT address");
    }
    rc = acpi_map_table(c->pm, rsdt, "RSDT", sizeof(struct acpi_sdt), &t, why, sizeof(why));
    if (rc != 0) {
        return acpi_fail(err, errlen, rc, "%s", why);
    }
    c->info->root_phys = rsdt;
    acpi_walk_root(c, t, sizeof(uint32_t));
    return 0;
}

/* Without a MADT listing at least one enabled processor we cannot even run the BSP's loop
 * with interrupts routed; everything else is optional. */
static int acpi_check_required(struct acpi_ctx *c, char *err, size_t errlen)
{
    const char *root = c->info->root_is_xsdt ? "XSDT" : "RSDT";

    if ((c->seen & 1u) == 0 && c->madt_why[0] != '\0') {
        return acpi_fail(err, errlen, WS_ERR_NOT_FOUND, "no valid MADT: %s", c->madt_why);
    }
    if ((c->seen & 1u) == 0) {
        return acpi_fail(err, errlen, WS_ERR_NOT_FOUND, "no MADT ('APIC') in %s at 0x%lx", root,
                         c->info->root_phys);
    }
    if (c->info->ncpu_enabled == 0) {
        return acpi_fail(err, errlen, WS_ERR_NOT_FOUND, "APIC at 0x%lx: no enabled processor",
                         c->madt_phys);
    }
    return 0;
}

/* RSDP -> root table -> each table it lists, then the check that the result is usable. */
int acpi_parse(const struct physmem *pm, const void *rsdp, size_t rsdp_len,
               struct acpi_info *out, char *err, size_t errlen)
{
    struct acpi_ctx c = { .pm = pm, .info = out };
    uint64_t xsdt = 0, rsdt = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (err != NULL && errlen > 0) {
        err[0] = '\0';
    }
    rc = acpi_check_rsdp(&c, rsdp, rsdp_len, &xsdt, &rsdt, err, errlen);
    if (rc == 0) {
        rc = acpi_parse_root(&c, xsdt, rsdt, err, errlen);
    }
    if (rc == 0) {
        acpi_parse_namespace(&c);
    }
    if (rc == 0) {
        rc = acpi_check_required(&c, err, errlen);
    }
    return rc;
}

int acpi_parse_phys(const struct physmem *pm, uint64_t rsdp_phys, struct acpi_info *out,
                    char *err, size_t errlen)
{
    size_t len = ACPI_RSDP_V2_BYTES;
    const void *p = physmem_map(pm, rsdp_phys, len);

    if (p == NULL) { /* a revision 0 RSDP may sit in the last 20 bytes of a mapping */
        len = ACPI_RSDP_V1_BYTES;
        p = physmem_map(pm, rsdp_phys, len);
    }
    if (p == NULL) {
        memset(out, 0, sizeof(*out));
        return acpi_fail(err, errlen, WS_ERR_RANGE, "RSDP at 0x%lx: not in mapped memory",
                         rsdp_phys);
    }
    return acpi_parse(pm, p, len, out, err, errlen);
}
