/*
 * tests/fuzz/fuzz_acpi.c: libFuzzer harness for kernel/acpi.c: the root table walk and every
 * table parser (MADT, MCFG, HPET, FADT with its PM timer, SPCR, DMAR, IVRS, SRAT, SLIT, and the
 * DSDT and SSDTs through kernel/aml.c) on firmware tables that lie.
 *
 * The input describes a set of tables, each as: a kind byte (which signature, modulo 11: APIC,
 * MCFG, HPET, FACP, SPCR, DMAR, IVRS, SRAT, SLIT, SSDT, DSDT), a flags byte (bit 0: leave the
 * checksum wrong; bit 1: write a length field other than the body's, from the next two bytes;
 * for a FACP, bit 2: its 32-bit DSDT field (offset 40) and bit 3: its X_DSDT (offset 140) point
 * at the table after it, where the body reaches them), a 16-bit body length (big-endian, as
 * fuzz_u16 reads) and the body (the bytes after the 36-byte header, zero-padded when the input
 * runs out). The DSDT is listed in the XSDT too, where acpi.c ignores it. The harness
 * lays them out in a fake physical memory with a valid header each (unless told not to), an
 * XSDT and an RSDT listing them and a revision 2 RSDP, so the parsers see every hostile length,
 * count and offset instead of stopping at a checksum.
 *
 * Invariants: no crash or sanitizer report (reads stay inside fake memory, which ASan guards);
 * acpi_parse returns 0 or an error with a terminated message; every warning is terminated and
 * at most ACPI_MAX_WARNINGS kept; counts within their arrays; a PM timer port has room for its
 * 4 bytes, an SPCR port for its 8 registers; PCI roots within their array, each named and
 * acpi_pci_root_node answering for it as its first (segment, bus) twin says; parsing the same
 * memory twice gives the same answer (the parsers keep no state).
 */
#include <stdbool.h>
#include <string.h>

#include "acpi.h"
#include "tests/fuzz/fuzz.h"

#define FA_BASE 0x7FF00000ULL
#define FA_MEM_BYTES 0x10000
#define FA_MAX_TABLES 8
#define FA_ROOTS_OFF 0x40   /* RSDP at 0, XSDT here, RSDT after it */
#define FA_TABLES_OFF 0x200 /* tables from here on, 16-byte aligned */
#define FA_HDR 36

struct fa_mem {
    uint8_t *b;
    size_t n;
};

static const void *fa_map(const struct physmem *pm, uint64_t phys, size_t len)
{
    const struct fa_mem *m = pm->ctx;
    if (phys < FA_BASE || phys - FA_BASE > m->n || len > m->n - (phys - FA_BASE)) {
        return NULL;
    }
    return m->b + (phys - FA_BASE);
}

static void fa_put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void fa_put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static void fa_fix_sum(uint8_t *p, size_t n, size_t at)
{
    uint8_t s = 0;
    p[at] = 0;
    for (size_t i = 0; i < n; i++) {
        s = (uint8_t)(s + p[i]);
    }
    p[at] = (uint8_t)(0x100 - s);
}

static void fa_header(uint8_t *t, const char *sig, uint32_t len_field, size_t real_len,
                      bool bad_sum)
{
    memcpy(t, sig, 4);
    t[8] = 2;
    memcpy(t + 10, "FUZZ  ", 6);
    fa_put32(t + 4, len_field);
    fa_fix_sum(t, real_len, 9);
    if (bad_sum) {
        t[9] ^= 0x5A;
    }
}

/* fa_build: the tables the input describes, then the roots; returns how many tables. */
static unsigned fa_build(struct fuzz_in *in, uint8_t *mem)
{
    static const char *const sigs[] = { "APIC", "MCFG", "HPET", "FACP", "SPCR", "DMAR",
                                        "IVRS", "SRAT", "SLIT", "SSDT", "DSDT" };
    uint64_t where[FA_MAX_TABLES];
    size_t at = FA_TABLES_OFF;
    unsigned n = 0;

    while (in->n > 0 && n < FA_MAX_TABLES) {
        uint8_t kind = fuzz_u8(in), flags = fuzz_u8(in);
        size_t body = fuzz_u16(in) % 1024;
        uint32_t len_field = (uint32_t)(FA_HDR + body);
        if (flags & 2) {
            len_field = fuzz_u16(in);
        }
        if (at + FA_HDR + body > FA_MEM_BYTES) {
            break;
        }
        uint8_t *t = mem + at;
        size_t next = (at + FA_HDR + body + 15) & ~(size_t)15;
        for (size_t i = 0; i < body; i++) {
            t[FA_HDR + i] = fuzz_u8(in);
        }
        if (kind % (sizeof(sigs) / sizeof(sigs[0])) == 3) { /* FACP: DSDT = the next table */
            if ((flags & 4) && FA_HDR + body >= 44) {
                fa_put32(t + 40, (uint32_t)(FA_BASE + next));
            }
            if ((flags & 8) && FA_HDR + body >= 148) {
                fa_put64(t + 140, FA_BASE + next);
            }
        }
        fa_header(t, sigs[kind % (sizeof(sigs) / sizeof(sigs[0]))], len_field, FA_HDR + body,
                  flags & 1);
        where[n++] = FA_BASE + at;
        at = next;
    }
    uint8_t *x = mem + FA_ROOTS_OFF, *r = x + FA_HDR + 8 * FA_MAX_TABLES;
    for (unsigned i = 0; i < n; i++) {
        fa_put64(x + FA_HDR + 8 * i, where[i]);
        fa_put32(r + FA_HDR + 4 * i, (uint32_t)where[i]);
    }
    fa_header(x, "XSDT", FA_HDR + 8 * n, FA_HDR + 8 * n, false);
    fa_header(r, "RSDT", FA_HDR + 4 * n, FA_HDR + 4 * n, false);
    memcpy(mem, "RSD PTR ", 8);
    mem[15] = 2;
    fa_put32(mem + 16, (uint32_t)(FA_BASE + (size_t)(r - mem)));
    fa_fix_sum(mem, 20, 8);
    fa_put32(mem + 20, 36);
    fa_put64(mem + 24, FA_BASE + FA_ROOTS_OFF);
    fa_fix_sum(mem, 36, 32);
    return n;
}

static void fa_check(const struct acpi_info *info, int rc, const char *err, size_t errlen)
{
    FUZZ_CHECK(memchr(err, '\0', errlen) != NULL);
    FUZZ_CHECK(rc == 0 || err[0] != '\0');
    FUZZ_CHECK(info->nwarn <= ACPI_MAX_WARNINGS);
    for (unsigned i = 0; i < info->nwarn; i++) {
        FUZZ_CHECK(memchr(info->warn[i], '\0', ACPI_WARNING_BYTES) != NULL);
    }
    FUZZ_CHECK(info->ncpu <= WS_MAX_CPUS && info->nioapic <= WS_MAX_IOAPICS);
    FUZZ_CHECK(info->nmcfg <= WS_MAX_MCFG_SEGMENTS && info->niso <= ACPI_MAX_ISOS);
    FUZZ_CHECK(info->pm_tmr_port == 0 || info->pm_tmr_port <= 0xFFFC);
    FUZZ_CHECK(info->spcr_port == 0 || info->spcr_port <= 0xFFF8);
    FUZZ_CHECK(info->niommu <= ACPI_MAX_IOMMUS);
    FUZZ_CHECK(info->nnuma_cpu <= ACPI_MAX_NUMA_CPUS && info->nnuma_mem <= ACPI_MAX_NUMA_RANGES);
    FUZZ_CHECK(info->nslit <= ACPI_MAX_SLIT_NODES);
    for (unsigned i = 0; i < info->nslit; i++) { /* a kept SLIT is a consistent one */
        for (unsigned j = 0; j < info->nslit; j++) {
            FUZZ_CHECK((i == j) == (info->slit[i][j] == ACPI_SLIT_LOCAL));
            FUZZ_CHECK(info->slit[i][j] >= ACPI_SLIT_LOCAL);
        }
    }
    FUZZ_CHECK(info->npci_root <= ACPI_MAX_PCI_ROOTS && info->aml_tables <= FA_MAX_TABLES + 1);
    for (unsigned i = 0; i < info->npci_root; i++) {
        const struct aml_pci_root *r = &info->pci_root[i];
        uint32_t node = 0;
        FUZZ_CHECK(memchr(r->name, '\0', sizeof(r->name)) != NULL);
        if (r->bus_computed) {
            continue;
        }
        unsigned k = 0; /* the first root placed at the same (segment, bus) answers */
        while (info->pci_root[k].bus_computed || info->pci_root[k].segment != r->segment ||
               info->pci_root[k].bus != r->bus) {
            k++;
        }
        bool has = acpi_pci_root_node(info, r->segment, r->bus, &node);
        FUZZ_CHECK(has == info->pci_root[k].has_node);
        FUZZ_CHECK(!has || node == info->pci_root[k].node);
    }
    for (unsigned i = 0; i < info->nnuma_mem; i++) {
        FUZZ_CHECK(info->numa_mem[i].len != 0 &&
                   info->numa_mem[i].base <= UINT64_MAX - info->numa_mem[i].len);
    }
    for (unsigned i = 0; i < info->niommu; i++) {
        FUZZ_CHECK(info->iommu[i].kind == ACPI_IOMMU_VTD || info->iommu[i].kind == ACPI_IOMMU_AMD);
        for (unsigned k = 0; k < i; k++) { /* each unit once */
            FUZZ_CHECK(info->iommu[k].base != info->iommu[i].base ||
                       info->iommu[k].segment != info->iommu[i].segment);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    struct fa_mem m = { calloc(1, FA_MEM_BYTES), FA_MEM_BYTES };
    struct physmem pm = { fa_map, &m };
    static struct acpi_info a, b;
    char ea[128], eb[128];

    fa_build(&in, m.b);
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    int ra = acpi_parse(&pm, m.b, 36, &a, ea, sizeof(ea));
    fa_check(&a, ra, ea, sizeof(ea));
    int rb = acpi_parse(&pm, m.b, 36, &b, eb, sizeof(eb));
    FUZZ_CHECK(ra == rb && memcmp(&a, &b, sizeof(a)) == 0 && strcmp(ea, eb) == 0);
    free(m.b);
    return 0;
}
