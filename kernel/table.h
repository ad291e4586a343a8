/*
 * kernel/table.h: link-time tables, the way a floor below runs code from the floors above without
 * naming it (iPXE's __table, LK's LK_INIT_HOOK and STATIC_COMMAND). An entry is a const object
 * placed in a section named after its table; the linker gathers every object's entries into one
 * array and defines __start_<table> and __stop_<table> around it. GNU ld does that for any
 * output section whose name is a C identifier: linker/kernel.ld names the image's tables, and a
 * host test's default link does it by itself, so the same source builds for both.
 *
 * Entries are in link order; a table whose order matters carries its own key and is sorted by
 * its walker at boot. Sanitizers leave globals in C-identifier sections unpadded (GCC and clang
 * both skip them), so the array stays dense there too.
 */
#ifndef WS_TABLE_H
#define WS_TABLE_H

/* WS_TABLE_ENTRY(table): attributes for one entry of `table`; the entry is a static const. */
#define WS_TABLE_ENTRY(table) __attribute__((used, section(#table), aligned(sizeof(void *))))

/* WS_TABLE_DECLARE(type, table): the array's bounds, for the one file that walks it. */
#define WS_TABLE_DECLARE(type, table)                                                          \
    extern const type __start_##table[] __attribute__((weak));                                \
    extern const type __stop_##table[] __attribute__((weak))

#define WS_TABLE_BEGIN(table) (__start_##table)
#define WS_TABLE_END(table) (__stop_##table)
/* WS_TABLE_COUNT: entries in the table (0 when nothing registered: the weak bounds are NULL). */
#define WS_TABLE_COUNT(table) ((unsigned)(__stop_##table - __start_##table))

#endif
