/*
 * drivers/nic/ixgbe_int.h: what the 82599 driver's own files share, and nobody else: ixgbe.c
 * (bring-up, link, housekeeping), ixgbe_nvm.c (NVM words, the NVM checksum, the SW/FW
 * semaphores), ixgbe_sfp.c (the SFP+ cage: I2C, module identification, laser, init sequence).
 */
#ifndef WS_IXGBE_INT_H
#define WS_IXGBE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/nic/nic.h"

/* ---- ixgbe_nvm.c -------------------------------------------------------------------------- */

/* ixgbe_nvm_read: NVM word `word` through EERD (§8.2.3.2.2) into *out; 0 or WS_ERR_TIMEDOUT /
 * WS_ERR_RANGE (beyond the NVM's size, EEC.EE_SIZE). */
int ixgbe_nvm_read(struct nic_port *p, unsigned word, uint16_t *out);
/* ixgbe_nvm_check: the NVM checksum (§6.3.4). Bad or unreadable: a console line, then 0 if
 * nic.bad_nvm = keep, else WS_ERR_CHECKSUM (the port is skipped, as Linux's probe does). */
int ixgbe_nvm_check(struct nic_port *p);

/* ixgbe_swfw_take / ixgbe_swfw_give: a SW_FW_SYNC resource (IXGBE_GSSR_*), shared with the
 * management firmware and the chip's other port, held around each use (§10.5). take returns
 * false after IXGBE_SEMAPHORE_TIMEOUT_US without it. */
bool ixgbe_swfw_take(struct nic_port *p, uint32_t mask);
void ixgbe_swfw_give(struct nic_port *p, uint32_t mask);
/* ixgbe_lan_id: which of the chip's two ports p is (STATUS.LAN_ID): 0 or 1. */
unsigned ixgbe_lan_id(struct nic_port *p);

/* ---- ixgbe_sfp.c -------------------------------------------------------------------------- */

/* ixgbe_sfp_setup: identify the module in p's cage, report it, and prepare the link for it:
 * laser on (or off for a refused module), the NVM's init sequence for its type into CORECTL,
 * and the link mode its speed needs in *autoc (applied by the caller's AUTOC write). An empty
 * cage or a refused module leaves *autoc alone. Core 0 / boot core. */
void ixgbe_sfp_setup(struct nic_port *p, uint32_t *autoc);
/* ixgbe_sfp_poll: housekeeping (every 100 ms): a module pulled or pushed since the last look
 * is reported and counted; a new one that has settled is set up and its link restarted. */
void ixgbe_sfp_poll(struct nic_port *p);

/* ---- ixgbe.c ------------------------------------------------------------------------------ */

/* ixgbe_autoc_write: AUTOC with Restart_AN (apply the mode, restart the link), unless the
 * management firmware vetoes link resets (MMNGC.MNG_VETO): then nothing is written. */
void ixgbe_autoc_write(struct nic_port *p, uint32_t autoc);

#endif
