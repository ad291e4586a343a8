# mk/boot-media.mk: the deployment media (docs/deploy.md); included by the top-level Makefile,
# whose $(ISO) rule builds the image itself.
#   make iso         build/wirespeed.iso: GRUB for BIOS and UEFI on one hybrid image that boots
#                    as a CD-ROM and as a USB stick; checks both boot images are really in it
#   make usb         the same image, and how to write it safely (tools/write-usb); with
#                    USB_DEV=/dev/sdX it runs tools/write-usb, which checks and asks first
#   make pxe         build/pxe/: a TFTP root: GRUB netboot for BIOS PXE (core.0) and UEFI PXE
#                    (core.efi), the same grub.cfg and image as the ISO, and an iPXE script
#   make media-test  what tests/system/test_media.py boots: the above plus a deliberately broken
#                    image (build/broken/wirespeed-broken.iso) and the platform ISOs below

PXE_ROOT := $(BUILD)/pxe
BROKEN := $(BUILD)/broken
MEDIA_GRUB_CFG := $(BUILD)/media/grub.cfg
USB_DEV ?=

.PHONY: iso usb pxe media-test

# grub-mkrescue silently leaves a platform out when its GRUB files (grub-pc-bin,
# grub-efi-amd64-bin) or mtools (for the EFI system partition image) are missing. Check what the
# firmware will look for: both El Torito boot images (CD-ROM), GRUB's MBR boot code (BIOS, USB
# stick) and the EFI system partition in the GPT (UEFI, USB stick).
iso: $(ISO)
	@xorriso -indev $(ISO) -report_el_torito plain -report_system_area plain 2>/dev/null \
		> $(BUILD)/iso-boot.txt
	@grep -q '^El Torito boot img : *[0-9]* *BIOS' $(BUILD)/iso-boot.txt && \
	 grep -q '^El Torito boot img : *[0-9]* *UEFI' $(BUILD)/iso-boot.txt && \
	 grep -q '^System area summary: MBR.*grub2-mbr' $(BUILD)/iso-boot.txt && \
	 grep -q '^GPT partname local : *[0-9]* *EFI boot partition' $(BUILD)/iso-boot.txt || \
		{ cat $(BUILD)/iso-boot.txt; echo "error: $(ISO) lacks a BIOS or UEFI boot path" \
		  "(grub-pc-bin, grub-efi-amd64-bin, mtools: tools/setup installs them)"; exit 1; }
	@echo "iso: $(ISO): El Torito BIOS + UEFI (CD-ROM), GRUB MBR + EFI partition (USB stick)"

usb: iso
ifeq ($(USB_DEV),)
	@echo "usb: $(ISO) is the USB image too. Write it to the whole stick (not a partition):"
	@echo "       tools/write-usb $(ISO) /dev/sdX     (or: make usb USB_DEV=/dev/sdX)"
	@echo "     it refuses mounted disks, partitions and the disk holding this system, and asks."
else
	tools/write-usb $(ISO) $(USB_DEV)
endif

# The menu with version, config name and console filled in, as the ISO rule does for its copy.
$(MEDIA_GRUB_CFG): boot/grub.cfg kernel/version.h $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(GRUB_CFG_SUBST) $< > $@

# GRUB's netboot tree: boot/grub/i386-pc/core.0 for BIOS PXE ROMs, boot/grub/x86_64-efi/core.efi
# for UEFI PXE; both read boot/grub/grub.cfg from the TFTP server, which loads
# boot/wirespeed.elf with multiboot2 exactly as from the ISO. wirespeed.ipxe is for sites that
# already boot iPXE (BIOS only: iPXE loads Multiboot 1 images, so there is no ACPI tag; the
# appliance then finds ACPI by the BIOS-area scan). Rebuilt whole, so nothing stale survives.
$(PXE_ROOT)/.stamp: $(ELF) $(MEDIA_GRUB_CFG)
	@rm -rf $(PXE_ROOT) && mkdir -p $(PXE_ROOT)/boot/grub
	grub-mknetdir --net-directory=$(PXE_ROOT) --subdir=boot/grub --locales= --themes= \
		--fonts= > $(BUILD)/grub-mknetdir.log 2>&1 || { cat $(BUILD)/grub-mknetdir.log; exit 1; }
	@test -f $(PXE_ROOT)/boot/grub/i386-pc/core.0 && \
	 test -f $(PXE_ROOT)/boot/grub/x86_64-efi/core.efi || \
		{ cat $(BUILD)/grub-mknetdir.log; echo "error: grub-mknetdir made no core.0/core.efi"; \
		  exit 1; }
	cp $(MEDIA_GRUB_CFG) $(PXE_ROOT)/boot/grub/grub.cfg
	cp $(ELF) $(PXE_ROOT)/boot/wirespeed.elf
	printf '#!ipxe\n%s\nkernel boot/wirespeed.elf\nboot\n' \
		'echo wirespeed: loading boot/wirespeed.elf over TFTP' > $(PXE_ROOT)/wirespeed.ipxe
	@touch $@

pxe: $(PXE_ROOT)/.stamp
	@echo "pxe: TFTP root $(PXE_ROOT)/ (docs/deploy.md has the dnsmasq setup); boot file names:"
	@echo "       BIOS PXE  boot/grub/i386-pc/core.0"
	@echo "       UEFI PXE  boot/grub/x86_64-efi/core.efi"
	@echo "       iPXE      wirespeed.ipxe"

# A deliberately broken image for tests/system/test_media.py: the real ELF with the magic of its
# Multiboot 2 header (0xE85250D6, within the first 32 KiB: Multiboot 2.0 section 3.1.1) zeroed,
# on an ISO of its own. GRUB's multiboot2 must refuse it with a message, not hang or reset.
$(BROKEN)/wirespeed-broken.iso: $(ELF) $(MEDIA_GRUB_CFG)
	@rm -rf $(BROKEN) && mkdir -p $(BROKEN)/iso/boot/grub
	cp $(ELF) $(BROKEN)/iso/boot/wirespeed.elf
	off=$$(LC_ALL=C grep -obUaP '\xd6\x50\x52\xe8' $(ELF) | head -1 | cut -d: -f1) && \
		test -n "$$off" && test "$$off" -lt 32768 && \
		printf '\0\0\0\0' | dd of=$(BROKEN)/iso/boot/wirespeed.elf bs=1 seek=$$off \
			conv=notrunc status=none
	cp $(MEDIA_GRUB_CFG) $(BROKEN)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BROKEN)/iso > $(BROKEN)/grub-mkrescue.log 2>&1 || \
		{ cat $(BROKEN)/grub-mkrescue.log; exit 1; }

# Platform ISOs for tests/system/test_platforms.py: the real image on an ISO whose GRUB, after
# loading it and before booting it, does what some servers' firmware does
# (tests/system/grub/NAME.cfg, inserted into the media menu's Multiboot 2 entry):
#   x2apic    the boot core's local APIC handed over in x2APIC mode
#   segments  an MCFG with two PCI segment groups: segment 0 is buses 0-127 and segment 1 buses
#             128-255 of QEMU's one ECAM window (0xB0000000, where SeaBIOS puts q35's), so a
#             pxb-pcie root bus numbered 128 is segment 1's
#   iommu-on  VT-d translation and interrupt remapping, or AMD-Vi, left on
#   spcr      an SPCR naming COM2 as the firmware's console (a BMC's Serial-over-LAN)
# ACPI tables GRUB loads are written by tools/mk-acpi-table into the ISO's /boot.
PLATFORM_ISOS := x2apic segments iommu-on spcr
PLATFORM_ISO_FILES := $(foreach p,$(PLATFORM_ISOS),$(BUILD)/$(p)/wirespeed-$(p).iso)
$(BUILD)/segments/mcfg.aml: tools/mk-acpi-table
	@mkdir -p $(dir $@)
	tools/mk-acpi-table mcfg $@ 0xB0000000:0:0:127 0xB0000000:1:128:255
$(BUILD)/spcr/spcr.aml: tools/mk-acpi-table
	@mkdir -p $(dir $@)
	tools/mk-acpi-table spcr $@ 0x2f8 115200

define PLATFORM_ISO_RULE
$(BUILD)/$(1)/wirespeed-$(1).iso: tests/system/grub/$(1).cfg $(ELF) $(MEDIA_GRUB_CFG)
	@rm -rf $(BUILD)/$(1)/iso && mkdir -p $(BUILD)/$(1)/iso/boot/grub
	cp $(ELF) $(BUILD)/$(1)/iso/boot/wirespeed.elf
	sed '/^    if multiboot2 \/boot\/wirespeed.elf; then$$$$/r tests/system/grub/$(1).cfg' \
		$(MEDIA_GRUB_CFG) > $(BUILD)/$(1)/iso/boot/grub/grub.cfg
	grep -qF "$$$$(tail -1 tests/system/grub/$(1).cfg)" $(BUILD)/$(1)/iso/boot/grub/grub.cfg
	for t in $(BUILD)/$(1)/*.aml; do [ ! -f $$$$t ] || cp $$$$t $(BUILD)/$(1)/iso/boot/; done
	grub-mkrescue -o $$@ $(BUILD)/$(1)/iso > $(BUILD)/$(1)/grub-mkrescue.log 2>&1 || \
		{ cat $(BUILD)/$(1)/grub-mkrescue.log; exit 1; }
endef
$(foreach p,$(PLATFORM_ISOS),$(eval $(call PLATFORM_ISO_RULE,$(p))))
$(BUILD)/segments/wirespeed-segments.iso: $(BUILD)/segments/mcfg.aml
$(BUILD)/spcr/wirespeed-spcr.iso: $(BUILD)/spcr/spcr.aml

media-test: iso pxe $(BROKEN)/wirespeed-broken.iso $(PLATFORM_ISO_FILES)
