/*
 * drivers/pci/iommu.c: IOMMUs the firmware may have left on. The NICs DMA to physical addresses
 * and program no IOMMU, so every remapping unit ACPI names (DMAR for Intel VT-d, IVRS for AMD-Vi)
 * gets DMA translation and interrupt remapping turned off before any port is probed; with
 * either left on, descriptor and packet DMA would fault or go nowhere, silently. What was found
 * and done is said on the console, one line per unit.
 *
 * VT-d (Intel VT-d 3.x section 10.4): GSTS (0x1C) shows what is on; GCMD (0x18) sets it, each
 * write carrying every persistent enable (TE, QIE, IRE, CFI) the software wants, so the new
 * command is GSTS's persistent bits less TE and IRE, then GSTS is polled until both read 0.
 * AMD-Vi (AMD IOMMU 3.x section 3.4): the 64-bit control register (0x18) bit 0, IommuEn, turns
 * the whole unit (translation and interrupt remapping) on or off.
 */
#include <stdbool.h>
#include <stdint.h>

#include "acpi.h"
#include "console.h"
#include "init.h"
#include "mmio.h"
#include "time.h"
#include "vm.h"
#include "x86.h"

#define VTD_REG_BYTES 0x1000
#define VTD_GCMD 0x18
#define VTD_GSTS 0x1C
#define VTD_GSTS_TES (1U << 31)  /* translation enabled */
#define VTD_GSTS_QIES (1U << 26) /* queued invalidation enabled */
#define VTD_GSTS_IRES (1U << 25) /* interrupt remapping enabled */
#define VTD_GSTS_CFIS (1U << 23) /* compatibility-format interrupts allowed */
#define VTD_GSTS_PERSISTENT (VTD_GSTS_TES | VTD_GSTS_QIES | VTD_GSTS_IRES | VTD_GSTS_CFIS)
#define VTD_DISABLE_TIMEOUT_US 100000
#define AMD_REG_BYTES 0x4000
#define AMD_CONTROL 0x18
#define AMD_CONTROL_IOMMU_EN 0x1ULL

static int iommu_vtd_off(const struct acpi_iommu *u)
{
    uintptr_t r = (uintptr_t)u->base;
    uint32_t sts = mmio_read32(r + VTD_GSTS);
    if (sts == 0xFFFFFFFFU) {
        kprintf("iommu: VT-d unit at 0x%llx reads all-ones; not touched\n",
                (unsigned long long)u->base);
        return -1;
    }
    if (!(sts & (VTD_GSTS_TES | VTD_GSTS_IRES))) {
        kprintf("iommu: VT-d unit at 0x%llx (segment %u): translation and interrupt remapping "
                "off; left off\n", (unsigned long long)u->base, u->segment);
        return 0;
    }
    mmio_write32(r + VTD_GCMD, sts & VTD_GSTS_PERSISTENT & ~(VTD_GSTS_TES | VTD_GSTS_IRES));
    uint64_t deadline = time_deadline_us(VTD_DISABLE_TIMEOUT_US);
    while ((sts = mmio_read32(r + VTD_GSTS)) & (VTD_GSTS_TES | VTD_GSTS_IRES)) {
        if (time_after(deadline)) {
            kprintf("iommu: VT-d unit at 0x%llx: still on 100 ms after the disable (GSTS "
                    "0x%08x): DMA may fail; turn VT-d off in the firmware's setup\n",
                    (unsigned long long)u->base, sts);
            return -1;
        }
        cpu_relax();
    }
    kprintf("iommu: VT-d unit at 0x%llx (segment %u): the firmware left translation or "
            "interrupt remapping on; turned off\n", (unsigned long long)u->base, u->segment);
    return 0;
}

static int iommu_amd_off(const struct acpi_iommu *u)
{
    uintptr_t r = (uintptr_t)u->base;
    uint64_t ctl = mmio_read64(r + AMD_CONTROL);
    if (ctl == ~0ULL) {
        kprintf("iommu: AMD-Vi unit at 0x%llx reads all-ones; not touched\n",
                (unsigned long long)u->base);
        return -1;
    }
    if (!(ctl & AMD_CONTROL_IOMMU_EN)) {
        kprintf("iommu: AMD-Vi unit at 0x%llx (segment %u): off; left off\n",
                (unsigned long long)u->base, u->segment);
        return 0;
    }
    mmio_write64(r + AMD_CONTROL, ctl & ~AMD_CONTROL_IOMMU_EN);
    kprintf("iommu: AMD-Vi unit at 0x%llx (segment %u): the firmware left it on; turned off\n",
            (unsigned long long)u->base, u->segment);
    return 0;
}

static int iommu_init_step(struct init_ctx *ctx)
{
    const struct acpi_info *acpi = ctx->acpi;
    for (unsigned i = 0; i < acpi->niommu; i++) {
        const struct acpi_iommu *u = &acpi->iommu[i];
        bool vtd = u->kind == ACPI_IOMMU_VTD;
        if (u->base == 0 || vm_map_mmio(u->base, vtd ? VTD_REG_BYTES : AMD_REG_BYTES) != 0) {
            kprintf("iommu: unit at 0x%llx cannot be mapped; not touched\n",
                    (unsigned long long)u->base);
            continue;
        }
        (void)(vtd ? iommu_vtd_off(u) : iommu_amd_off(u));
    }
    if (acpi->iommu_dropped) {
        kprintf("iommu: %u more units than the %d kept were not looked at\n",
                acpi->iommu_dropped, ACPI_MAX_IOMMUS);
    }
    return 0;
}
/* Before the NICs' probe (INIT_DRIVERS), after PCI enumeration. */
WS_INIT(iommu, INIT_BUS + 10, false, iommu_init_step);
