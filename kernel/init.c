/* kernel/init.c: runs the boot steps registered with WS_INIT (see header), by level. */
#include "init.h"

#include "console.h"
#include "err.h"
#include "panic.h"

#define INIT_MAX_STEPS 32

WS_TABLE_DECLARE(struct init_step, ws_inits);

/* init_sorted: the table's entries by level; equal levels keep link order (insertion sort). */
static unsigned init_sorted(const struct init_step **out, unsigned max)
{
    unsigned n = 0;
    for (const struct init_step *s = WS_TABLE_BEGIN(ws_inits); s < WS_TABLE_END(ws_inits); s++) {
        if (n == max) {
            panic("init: more than %u boot steps registered (raise INIT_MAX_STEPS)", max);
        }
        unsigned i = n++;
        for (; i > 0 && out[i - 1]->level > s->level; i--) {
            out[i] = out[i - 1];
        }
        out[i] = s;
    }
    return n;
}

void init_run_all(struct init_ctx *ctx)
{
    const struct init_step *steps[INIT_MAX_STEPS];
    unsigned n = init_sorted(steps, INIT_MAX_STEPS);

    for (unsigned i = 0; i < n; i++) {
        int rc = steps[i]->run(ctx);
        if (rc != 0 && steps[i]->fatal) {
            panic("%s: cannot start (%s, see above)", steps[i]->name, err_name(rc));
        }
        if (rc != 0) {
            kprintf("%s: did not start (%s, see above); going on without it\n",
                    steps[i]->name, err_name(rc));
        }
    }
}
