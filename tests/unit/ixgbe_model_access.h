/*
 * tests/unit/ixgbe_model_access.h: register access and time for the unit tests that drive the
 * 82599 model by hand (test_ixgbe_model_sfp.c, test_ixgbe_model_fc.c). Each test's fixture is
 * any struct with `struct ixgbe_model *m` and `uint64_t now`; rd/wr/adv take a pointer to it.
 */
#ifndef WS_TESTS_IXGBE_MODEL_ACCESS_H
#define WS_TESTS_IXGBE_MODEL_ACCESS_H

#include "tests/model/ixgbe_model.h"

#define rd(f, off) ixgbe_model_read((f)->m, IXGBE_MODEL_BAR_REGS, (off))
#define wr(f, off, v) ixgbe_model_write((f)->m, IXGBE_MODEL_BAR_REGS, (off), (v))
/* adv: time passes by ns on the fixture's clock. */
#define adv(f, ns) ixgbe_model_advance((f)->m, (f)->now += (ns))

#endif
