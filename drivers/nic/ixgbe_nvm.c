/*
 * drivers/nic/ixgbe_nvm.c: the 82599's NVM (EEPROM) as the driver reads it, and the semaphores
 * the driver shares with the management firmware and the chip's other port. 82599 datasheet
 * (331520 rev 3.x): EERD §8.2.3.2.2, the NVM map and its checksum §6.2 and §6.3.4, SWSM and
 * SW_FW_SYNC §8.2.3.4 with the protocol of §10.5.
 */
#include <stdio.h>

#include "config.h"
#include "console.h"
#include "drivers/nic/ixgbe_int.h"
#include "drivers/nic/ixgbe_regs.h"
#include "drivers/nic/nic_hw.h"
#include "err.h"
#include "time.h"

#define IXGBE_SEMAPHORE_RETRY_US 5000 /* another owner holds it: look again this much later */

/* ---- NVM words ---------------------------------------------------------------------------- */

static unsigned ixgbe_nvm_words(struct nic_port *p)
{
    uint32_t size = (nic_rd(p, IXGBE_EEC) & IXGBE_EEC_SIZE) >> IXGBE_EEC_SIZE_SHIFT;
    return 1u << (size + IXGBE_EEPROM_WORD_SIZE_SHIFT);
}

int ixgbe_nvm_read(struct nic_port *p, unsigned word, uint16_t *out)
{
    if (word >= ixgbe_nvm_words(p) || word > IXGBE_EERD_MAX_ADDR) {
        return WS_ERR_RANGE;
    }
    nic_wr(p, IXGBE_EERD, word << IXGBE_EEPROM_RW_ADDR_SHIFT | IXGBE_EEPROM_RW_REG_START);
    uint32_t v;
    if (!nic_poll(p, IXGBE_EERD, IXGBE_EEPROM_RW_REG_DONE, IXGBE_EEPROM_RW_REG_DONE,
                  IXGBE_EERD_TIMEOUT_US, &v) || v == NIC_ALL_ONES) {
        return WS_ERR_TIMEDOUT;
    }
    *out = (uint16_t)(v >> IXGBE_EEPROM_RW_REG_DATA);
    return WS_OK;
}

/* ---- the checksum (§6.3.4) ---------------------------------------------------------------- */

/* ixgbe_nvm_section_sum: add the section pointer word `ptr_word` names (a length word, then
 * that many words) to *sum. An absent section (pointer or length 0 or 0xFFFF) adds nothing. */
static int ixgbe_nvm_section_sum(struct nic_port *p, unsigned ptr_word, uint16_t *sum)
{
    uint16_t ptr, len, w;
    int err = ixgbe_nvm_read(p, ptr_word, &ptr);
    if (err || ptr == 0 || ptr == 0xFFFF) {
        return err;
    }
    err = ixgbe_nvm_read(p, ptr, &len);
    if (err || len == 0 || len == 0xFFFF) {
        return err;
    }
    for (unsigned i = 1; i <= len && err == WS_OK; i++) {
        err = ixgbe_nvm_read(p, (unsigned)ptr + i, &w);
        *sum = (uint16_t)(*sum + w);
    }
    return err;
}

/* ixgbe_nvm_sum: words 0x00-0x3F and the sections of pointer words 0x03-0x0E (the firmware
 * pointer, 0x0F, is the firmware's: not covered). */
static int ixgbe_nvm_sum(struct nic_port *p, uint16_t *sum)
{
    uint16_t w;
    int err = WS_OK;
    *sum = 0;
    for (unsigned i = 0; i <= IXGBE_EEPROM_CHECKSUM && err == WS_OK; i++) {
        err = ixgbe_nvm_read(p, i, &w);
        *sum = (uint16_t)(*sum + w);
    }
    for (unsigned i = IXGBE_PCIE_ANALOG_PTR; i < IXGBE_FW_PTR && err == WS_OK; i++) {
        err = ixgbe_nvm_section_sum(p, i, sum);
    }
    return err;
}

int ixgbe_nvm_check(struct nic_port *p)
{
    uint16_t sum;
    int err = ixgbe_nvm_sum(p, &sum);
    if (err == WS_OK && sum == IXGBE_EEPROM_SUM) {
        return WS_OK;
    }
    const char *what = CONFIG_NIC_BAD_NVM_KEEP ? "kept anyway (nic.bad_nvm = keep)"
                                               : "port skipped (nic.bad_nvm = keep brings it up)";
    if (err == WS_OK) {
        kprintf("%s: NVM checksum wrong: words 0x00-0x3F and their sections sum to 0x%04x, not "
                "0x%04x; %s\n", p->name, sum, IXGBE_EEPROM_SUM, what);
    } else {
        kprintf("%s: NVM checksum not readable (%s: a section runs past the NVM's %u words, or "
                "EERD never completed); %s\n", p->name, err == WS_ERR_RANGE ? "range" : "EERD",
                ixgbe_nvm_words(p), what);
    }
    return CONFIG_NIC_BAD_NVM_KEEP ? WS_OK : WS_ERR_CHECKSUM;
}

/* ---- SW/FW semaphores (§10.5) ------------------------------------------------------------- */

/* ixgbe_swsm_take: SWSM.SMBI (a read that finds it clear has taken it), then SWSM.SWESMBI
 * (written, and ours if it reads back set): together they let us touch SW_FW_SYNC. */
static bool ixgbe_swsm_take(struct nic_port *p, uint64_t deadline)
{
    while ((nic_rd(p, IXGBE_SWSM) & IXGBE_SWSM_SMBI) != 0) {
        if (time_after(deadline)) {
            return false;
        }
    }
    nic_wr(p, IXGBE_SWSM, IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI);
    while ((nic_rd(p, IXGBE_SWSM) & IXGBE_SWSM_SWESMBI) == 0) {
        if (time_after(deadline)) {
            nic_wr(p, IXGBE_SWSM, 0);
            return false;
        }
        nic_wr(p, IXGBE_SWSM, IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI);
    }
    return true;
}

static void ixgbe_swsm_give(struct nic_port *p)
{
    nic_wr(p, IXGBE_SWSM, 0);
}

bool ixgbe_swfw_take(struct nic_port *p, uint32_t mask)
{
    uint64_t deadline = time_deadline_us(IXGBE_SEMAPHORE_TIMEOUT_US);
    while (ixgbe_swsm_take(p, deadline)) {
        uint32_t gssr = nic_rd(p, IXGBE_GSSR);
        if ((gssr & (mask | mask << IXGBE_GSSR_FW_SHIFT)) == 0) {
            nic_wr(p, IXGBE_GSSR, gssr | mask);
            ixgbe_swsm_give(p);
            return true;
        }
        ixgbe_swsm_give(p); /* someone else holds it: let them finish */
        if (time_after(deadline)) {
            break;
        }
        time_delay_us(IXGBE_SEMAPHORE_RETRY_US);
    }
    kprintf("%s: SW/FW semaphore 0x%x not free within %u ms (GSSR 0x%08x, SWSM 0x%08x)\n",
            p->name, mask, IXGBE_SEMAPHORE_TIMEOUT_US / 1000, nic_rd(p, IXGBE_GSSR),
            nic_rd(p, IXGBE_SWSM));
    return false;
}

void ixgbe_swfw_give(struct nic_port *p, uint32_t mask)
{
    uint64_t deadline = time_deadline_us(IXGBE_SEMAPHORE_TIMEOUT_US);
    bool locked = ixgbe_swsm_take(p, deadline);
    nic_clear(p, IXGBE_GSSR, mask); /* ours to clear even if SWSM is stuck */
    if (locked) {
        ixgbe_swsm_give(p);
    }
}

unsigned ixgbe_lan_id(struct nic_port *p)
{
    return (nic_rd(p, IXGBE_STATUS) & IXGBE_STATUS_LAN_ID) >> IXGBE_STATUS_LAN_ID_SHIFT;
}
