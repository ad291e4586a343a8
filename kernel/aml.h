/*
 * kernel/aml.h: a bounded scanner (not an interpreter) for the one thing the appliance needs
 * from ACPI's namespace: which NUMA node each PCI root bridge hangs off (_PXM), so a port's
 * descriptor rings can live in its NIC's node. ACPI 6.5 §20 (AML encoding), §6.1.1 (_HID and
 * _CID), §6.2.14 (_PXM), §6.5.5 (_BBN), §6.5.6 (_SEG).
 */
#ifndef WS_AML_H
#define WS_AML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One PCI root bridge: a Device whose _HID or _CID is PNP0A03 (PCI) or PNP0A08 (PCI Express).
 * Each of _SEG, _BBN and _PXM is read only when it is a constant: Name(X, integer) or a method
 * whose whole body is Return(integer). Anything computed (an If, a field read) leaves it unknown
 * and the *_method flag says why.
 */
struct aml_pci_root {
    char name[5];     /* the Device's last NameSeg, e.g. "PC80" */
    uint16_t segment; /* _SEG, 0 when absent (§6.5.6) */
    uint8_t bus;      /* _BBN, 0 when absent (§6.5.5) */
    bool has_bus;     /* _BBN was found and constant */
    bool has_node;    /* _PXM was found and constant */
    bool node_computed; /* a _PXM exists but is not a constant: node unknown */
    bool bus_computed;  /* a _BBN or _SEG exists but is not a constant: root not placed */
    uint32_t node;    /* _PXM: the proximity domain, as SRAT numbers them */
};

/*
 * aml_find_pci_roots: scans an AML definition block's body (a DSDT or SSDT after its 36-byte
 * header) for PCI root bridges and appends them to out[*n..max); roots beyond max are counted
 * in *dropped. Never reads outside aml[0..len), and its work is bounded by a budget of a few
 * times len: in well-formed AML each byte is looked at once by the search for Devices and once
 * by the Device whose body directly holds it (nested Devices, Methods and If/Else/While blocks
 * are stepped over by their PkgLength); hostile AML whose Devices overlap stops when the
 * budget runs out, keeping what it found. Returns the number of roots found in this block,
 * kept or not. Any core, no state.
 */
unsigned aml_find_pci_roots(const uint8_t *aml, size_t len, struct aml_pci_root *out,
                            unsigned max, unsigned *n, unsigned *dropped);

/*
 * aml_pkg_length: decodes a PkgLength (§20.2.4) at p[0..avail): *len is the length it encodes
 * (which counts the PkgLength bytes themselves), the return value the number of bytes it takes,
 * or 0 if it is malformed or truncated.
 */
size_t aml_pkg_length(const uint8_t *p, size_t avail, uint32_t *len);

#endif
