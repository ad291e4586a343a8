/* kernel/ksyms.c: address-to-name lookup over the table tools/gen-ksyms emits (sorted). */
#include <stddef.h>

#include "ksyms.h"

struct ksym {
    uint64_t addr;
    uint64_t name_offset; /* into ksyms_names */
};

/* Defined by the generated build/ksyms.S (empty in the first link pass). */
extern const struct ksym ksyms_table[];
extern const uint64_t ksyms_count;
extern const char ksyms_names[];
extern const char __text_end[];

const char *ksyms_lookup(uintptr_t addr, uintptr_t *offset)
{
    size_t lo = 0, hi = ksyms_count;

    if (hi == 0 || addr < ksyms_table[0].addr || addr >= (uintptr_t)__text_end) {
        return NULL;
    }
    /* Binary search for the last symbol at or below addr. */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ksyms_table[mid].addr <= addr) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    *offset = addr - ksyms_table[lo].addr;
    return &ksyms_names[ksyms_table[lo].name_offset];
}
