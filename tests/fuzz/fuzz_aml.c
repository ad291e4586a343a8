/*
 * tests/fuzz/fuzz_aml.c: libFuzzer harness for kernel/aml.c: the PCI root bridge scan
 * (aml_find_pci_roots) and the PkgLength decoder (aml_pkg_length) on raw AML, the bytes of a
 * DSDT or SSDT after its 36-byte header, as firmware that lies would write them.
 *
 * The input is the definition block itself, scanned from an exactly-sized heap copy so ASan
 * reports a read one byte past it.
 *
 * Invariants: no crash or sanitizer report; with room for all, every root found is kept (n ==
 * returned count, nothing dropped) and there are at most len / 2 (each needs its 0x5B 0x82);
 * with a small max into an array already holding a root, the earlier entry and everything past
 * max stay untouched, n <= max, the returned count is the same and equals kept + dropped, and
 * the kept roots are the first ones of the full scan; names are empty or a NameSeg, NUL-ended;
 * node_computed and has_node never both, bus and node 0 unless _BBN / _PXM was seen; scanning
 * again gives the same roots; a prefix of the block yields a subsequence of the block's roots
 * (a Device is kept only when all of it is there); aml_pkg_length at every offset equals a
 * decoder written here from ACPI 6.5 §20.2.4.
 */
#include <stdbool.h>
#include <string.h>

#include "aml.h"
#include "tests/fuzz/fuzz.h"

#define FZ_SMALL_MAX 3

/* §20.2.4 apart from aml.c: bits 7:6 count the bytes that follow; with none, bits 5:0 are the
 * length; with some, bits 5:4 are 0, bits 3:0 the low nibble and each byte 8 more bits. The
 * length counts the PkgLength itself, so it is at least the bytes it takes. */
FUZZ_UNTRACED static size_t fz_pkg_length(const uint8_t *p, size_t avail, uint32_t *len)
{
    if (avail == 0) {
        return 0;
    }
    size_t bytes = 1 + (p[0] >> 6);
    if (bytes > avail) {
        return 0;
    }
    if (bytes == 1) {
        *len = p[0] & 0x3Fu;
    } else if (p[0] & 0x30) {
        return 0;
    } else {
        *len = p[0] & 0x0Fu;
        for (size_t i = 1; i < bytes; i++) {
            *len += (uint32_t)p[i] << (4 + 8 * (i - 1));
        }
    }
    return *len >= bytes ? bytes : 0;
}

FUZZ_UNTRACED static bool fz_name_ok(const char *nm)
{
    size_t n = strnlen(nm, 5);
    if (n == 0) {
        return true;
    }
    if (n != 4 || !((nm[0] >= 'A' && nm[0] <= 'Z') || nm[0] == '_')) {
        return false;
    }
    for (unsigned i = 1; i < 4; i++) {
        char c = nm[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
            return false;
        }
    }
    return true;
}

/* Field by field (padding is not part of a root). */
FUZZ_UNTRACED static bool fz_same(const struct aml_pci_root *a, const struct aml_pci_root *b)
{
    return strcmp(a->name, b->name) == 0 && a->segment == b->segment && a->bus == b->bus &&
           a->has_bus == b->has_bus && a->has_node == b->has_node &&
           a->node_computed == b->node_computed && a->bus_computed == b->bus_computed &&
           a->node == b->node;
}

FUZZ_UNTRACED static void fz_check_root(const struct aml_pci_root *r)
{
    FUZZ_CHECK(memchr(r->name, '\0', sizeof(r->name)) != NULL && fz_name_ok(r->name));
    FUZZ_CHECK(!(r->has_node && r->node_computed));
    FUZZ_CHECK(r->has_node || r->node_computed || r->node == 0);
    FUZZ_CHECK(r->has_bus || r->bus_computed || r->bus == 0);
}

/* True if sub[0..nsub) appears in order in all[0..nall). */
FUZZ_UNTRACED static bool fz_subsequence(const struct aml_pci_root *sub, unsigned nsub,
                                         const struct aml_pci_root *all, unsigned nall)
{
    unsigned j = 0;
    for (unsigned i = 0; i < nall && j < nsub; i++) {
        if (fz_same(&sub[j], &all[i])) {
            j++;
        }
    }
    return j == nsub;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *aml = fuzz_alloc_copy(data, size, size);
    unsigned cap = (unsigned)(size / 2 + 1);
    struct aml_pci_root *all = calloc(cap, sizeof(*all)), *again = calloc(cap, sizeof(*all));
    struct aml_pci_root small[FZ_SMALL_MAX + 1], poison;
    unsigned n = 0, dropped = 0;

    FUZZ_CHECK(all != NULL && again != NULL);

    /* room for all */
    unsigned found = aml_find_pci_roots(aml, size, all, cap, &n, &dropped);
    FUZZ_CHECK(found <= size / 2 && n == found && dropped == 0);
    for (unsigned i = 0; i < n; i++) {
        fz_check_root(&all[i]);
    }

    /* the same bytes again: the same roots */
    unsigned n2 = 0, dropped2 = 0;
    FUZZ_CHECK(aml_find_pci_roots(aml, size, again, cap, &n2, &dropped2) == found);
    FUZZ_CHECK(n2 == n && dropped2 == 0);
    for (unsigned i = 0; i < n; i++) {
        FUZZ_CHECK(fz_same(&all[i], &again[i]));
    }

    /* a small array that already holds one root: appended after it, the rest counted */
    memset(small, 0x5A, sizeof(small));
    memset(&poison, 0x5A, sizeof(poison));
    unsigned ns = 1, ds = 5;
    FUZZ_CHECK(aml_find_pci_roots(aml, size, small, FZ_SMALL_MAX, &ns, &ds) == found);
    FUZZ_CHECK(ns <= FZ_SMALL_MAX && (ns - 1) + (ds - 5) == found);
    FUZZ_CHECK(ns - 1 == (found < FZ_SMALL_MAX - 1 ? found : FZ_SMALL_MAX - 1));
    FUZZ_CHECK(memcmp(&small[0], &poison, sizeof(poison)) == 0);
    FUZZ_CHECK(memcmp(&small[FZ_SMALL_MAX], &poison, sizeof(poison)) == 0);
    for (unsigned i = 1; i < ns; i++) {
        FUZZ_CHECK(fz_same(&small[i], &all[i - 1]));
    }

    /* a prefix (the last input byte picks its length): a subsequence of the roots */
    if (size > 1) {
        size_t plen = (size_t)data[size - 1] * (size - 1) / 255;
        uint8_t *pre = fuzz_alloc_copy(data, plen, plen);
        unsigned np = 0, dp = 0;
        unsigned fp = aml_find_pci_roots(pre, plen, again, cap, &np, &dp);
        FUZZ_CHECK(fp == np && dp == 0 && fp <= found);
        FUZZ_CHECK(fz_subsequence(again, np, all, n));
        free(pre);
    }

    /* PkgLength at every offset, against the decoder above */
    for (size_t i = 0; i < size; i++) {
        uint32_t got = 0, want = 0;
        size_t used = aml_pkg_length(aml + i, size - i, &got);
        size_t ref = fz_pkg_length(aml + i, size - i, &want);
        FUZZ_CHECK(used == ref && used <= 4);
        FUZZ_CHECK(used == 0 || (got == want && got >= used && got < (1u << 28)));
    }
    free(all);
    free(again);
    free(aml);
    return 0;
}
