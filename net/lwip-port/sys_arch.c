/* net/lwip-port/sys_arch.c: the clock lwIP's timers run on (NO_SYS: sys_now is all it needs). */
#include "lwip/sys.h"
#include "time.h"

/* sys_now: milliseconds since boot, from the TSC; wraps after 49 days, which lwIP's timer
 * arithmetic allows. Sink core. */
u32_t sys_now(void)
{
    return (u32_t)(time_ns() / 1000000);
}
