/* net/lwip-port/arch/cc.h: what lwIP needs from the compiler and platform (lwIP's sys_arch.txt):
 * newlib's headers, little-endian x86_64, diagnostics to the console, a failed assertion
 * is a panic with lwIP's message and location. */
#ifndef WS_LWIP_ARCH_CC_H
#define WS_LWIP_ARCH_CC_H

#include <stdint.h>
#include <stdlib.h>

/* glibc's <stdlib.h> already defines it (the host tests build this port too). */
#ifndef BYTE_ORDER
#define BYTE_ORDER LITTLE_ENDIAN
#endif
#define LWIP_NO_INTTYPES_H 0
#define lwip_htons(x) ((uint16_t)__builtin_bswap16(x))
#define lwip_htonl(x) ((uint32_t)__builtin_bswap32(x))

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
uint32_t sink_rand(void);

#define LWIP_PLATFORM_DIAG(x) \
    do {                      \
        kprintf x;            \
    } while (0)
#define LWIP_PLATFORM_ASSERT(x) panic("lwIP assertion \"%s\" failed at %s:%d", x, __FILE__, __LINE__)
#define LWIP_RAND() sink_rand()

#endif
