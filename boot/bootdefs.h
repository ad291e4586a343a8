/* boot/bootdefs.h: constants shared by the assembly entry paths (SDM Vol. 3A chapters 2 and 4). */
#ifndef WS_BOOTDEFS_H
#define WS_BOOTDEFS_H

#define BOOT_CS64 0x08
#define BOOT_DS 0x10
#define BOOT_CS32 0x18

#define PTE_P 0x001
#define PTE_W 0x002
#define PTE_PWT 0x008
#define PTE_PCD 0x010
#define PTE_PS 0x080

#define CR0_PE 0x00000001
#define CR0_MP 0x00000002
#define CR0_EM 0x00000004
#define CR0_NE 0x00000020
#define CR0_PG 0x80000000
#define CR4_PAE 0x00000020
#define CR4_OSFXSR 0x00000200
#define CR4_OSXMMEXCPT 0x00000400

#define MSR_EFER 0xC0000080
#define EFER_LME 0x00000100

/* AP trampoline: copied below 1 MiB, where a SIPI vector can point (SDM 3A 8.4.4.1). */
#define AP_TRAMPOLINE_PHYS 0x8000

#endif
