/*
 * kernel/ksyms.h: the firmware's own symbol table, for backtraces. The build links the image
 * twice: the second link embeds a table generated from the first one's `nm` (tools/gen-ksyms).
 */
#ifndef WS_KSYMS_H
#define WS_KSYMS_H

#include <stdint.h>

/* ksyms_lookup: name of the function containing addr and the offset into it; NULL if unknown. */
const char *ksyms_lookup(uintptr_t addr, uintptr_t *offset);

#endif
