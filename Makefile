# wirespeed: one non-recursive Makefile. `make` builds build/wirespeed.elf and build/wirespeed.iso
# for CONFIG (default config/default.conf); `make run` boots it in QEMU; `make test` runs every
# test. Before any of that, phase 0 (below) installs what is missing and fetches the sources.

CONFIG ?= config/default.conf
BUILD ?= build
NEWLIB_DIR ?= build/newlib
SMP ?= 4
MEM ?= 256M
NIC ?= igb

PYTHON := /usr/bin/python3
HOSTCC := gcc
CC := gcc
LD := ld
OBJDUMP := objdump
NM := nm

GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
	git diff --quiet HEAD 2>/dev/null || echo -dirty)
NEWLIB_INC := $(NEWLIB_DIR)/x86_64-elf/include
NEWLIB_LIB := $(NEWLIB_DIR)/x86_64-elf/lib
NEWLIB_STAMP := $(NEWLIB_DIR)/.stamp
CJSON_DIR := build/src/cjson-1.7.15
GCC_INC := $(shell $(CC) -print-file-name=include)
LIBGCC := $(shell $(CC) -print-libgcc-file-name)

GEN := $(BUILD)/gen
OBJ := $(BUILD)/obj
ELF := $(BUILD)/wirespeed.elf
ISO := $(BUILD)/wirespeed.iso
GENCONFIG := build/host/genconfig

WARN := -Wall -Wextra -Werror
KCFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-common -mno-red-zone -mcmodel=small \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-asynchronous-unwind-tables -nostdinc -isystem $(NEWLIB_INC) -isystem $(GCC_INC) \
	-I. -Ikernel -I$(GEN) -MMD -MP
KASFLAGS := -I. -Ikernel -I$(GEN) -MMD -MP
KLDFLAGS := --no-warn-rwx-segments -nostdlib -static -z max-page-size=0x1000 -z noexecstack -T linker/kernel.ld

# IPv6: addresses and wire formats, the FIB, the router checks, ND and echo, next hops, our
# addresses' duplicate detection, router advertisements.
NET6_SRCS := net/inet6.c net/fib6.c net/route6.c net/local6.c net/nexthop6.c net/dad6.c net/ra6.c \
	net/nd_relay.c
# The firmware's sources, listed explicitly (boot order lives in kernel/main.c).
KERNEL_SRCS := \
	boot/multiboot.S boot/entry.S boot/trampoline.S \
	kernel/main.c kernel/cpu.c kernel/isr.S kernel/trap.c kernel/panic.c kernel/ksyms.c \
	kernel/smp.c kernel/lapic.c kernel/time.c kernel/vm.c kernel/spinlock.c \
	kernel/bootinfo.c kernel/memmap.c kernel/acpi.c kernel/aml.c kernel/err.c \
	kernel/console.c kernel/console_line.c kernel/commands.c kernel/libc_glue.c kernel/uart.c \
	kernel/irq.c kernel/dma.c kernel/loop.c kernel/init.c kernel/pkb.c \
	drivers/pci/pci.c drivers/pci/msix.c drivers/pci/iommu.c \
	drivers/nic/nic.c drivers/nic/nic_tx.c drivers/nic/nic_test.c drivers/nic/intel_ring.c \
	drivers/nic/nic_hw.c drivers/nic/igb.c drivers/nic/ixgbe.c drivers/nic/ixgbe_nvm.c drivers/nic/ixgbe_sfp.c drivers/nic/rss.c \
	net/inet.c net/neigh.c net/local.c net/iface.c net/fib.c net/route.c net/nexthop.c \
	$(NET6_SRCS) net/handoff.c \
	apps/fwd/fwd.c apps/stats/stats.c apps/stats/fmt.c apps/stats/json.c \
	apps/sink/sink.c apps/sink/basic.c apps/sink/sink_stats.c \
	apps/sink/iperf3.c apps/sink/iperf3_data.c apps/sink/iperf3_proto.c \
	apps/sink/netperf.c apps/sink/netperf_proto.c \
	net/lwip-port/sink_netif.c net/gro.c net/lwip-port/isn.c net/lwip-port/sys_arch.c net/lwip-port/tcp_hooks.c net/lwip-port/siphash.c

# lwIP 2.1.3 (fetched in phase 0 by tools/fetch-sources, never committed): the IPv4, TCP and UDP core only.
LWIP_DIR := build/src/lwip-2.1.3/src
LWIP_SRCS := $(addprefix $(LWIP_DIR)/core/,init.c def.c inet_chksum.c ip.c mem.c memp.c netif.c \
	pbuf.c stats.c tcp.c tcp_in.c tcp_out.c timeouts.c udp.c) \
	$(addprefix $(LWIP_DIR)/core/ipv4/,icmp.c ip4.c ip4_addr.c ip4_frag.c) \
	$(addprefix $(LWIP_DIR)/core/ipv6/,icmp6.c inet6.c ip6.c ip6_addr.c ip6_frag.c nd6.c mld6.c)
LWIP_INC := -Inet/lwip-port -I$(LWIP_DIR)/include
# Third-party code keeps its own style: our warnings, but not as errors.
LWIP_CFLAGS := $(filter-out -Werror -Wextra,$(KCFLAGS)) $(LWIP_INC)
KERNEL_OBJS := $(patsubst %,$(OBJ)/%.o,$(basename $(KERNEL_SRCS))) \
	$(patsubst $(LWIP_DIR)/%.c,$(OBJ)/lwip/%.o,$(LWIP_SRCS)) $(OBJ)/cjson/cJSON.o
KCFLAGS += $(LWIP_INC) -I$(CJSON_DIR)

.PHONY: all setup sources run run-iso test unit hostsim test-model fuzz fuzz-smoke test-system \
	bench clean distclean qemu-82599 check-readme check-layers
all: $(ELF) $(ISO)

# --- phase 0: installed tools and fetched sources, before any rule is planned ----------------
# GNU make reads every rule and looks at the tree before it runs a recipe, so object rules whose
# sources only tools/fetch-sources creates (lwIP, cJSON) failed on a fresh clone ("No rule to
# make target"), and with -j the fetch raced the compiles. GNU make remakes an included makefile
# first, alone, and then restarts itself: build/.deps.mk's recipe runs tools/setup and
# tools/fetch-sources (each quiet and quick when all is there) before anything else, on the first
# try, serial or parallel. Sub-makes inherit WS_DEPS_READY and skip it. Goals that need nothing
# installed skip it too.
PHASE0_FREE_GOALS := clean distclean check-readme
ifeq ($(WS_DEPS_READY),)
ifneq ($(filter-out $(PHASE0_FREE_GOALS),$(or $(MAKECMDGOALS),all)),)
include build/.deps.mk
endif
endif
build/.deps.mk: FORCE
	@tools/setup
	@tools/fetch-sources build/src
	@printf 'export WS_DEPS_READY := 1\n' > $@.tmp && \
		{ cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }

# Kept as names a user may type: phase 0 has done both by the time any goal runs.
setup sources:
	@:

# --- host tools and generated config --------------------------------------------------------
CONF_SRCS := config/confparse.c config/confkeys.c config/confvalue.c config/confemit.c
$(GENCONFIG): config/genconfig.c $(CONF_SRCS) config/confparse.h config/confpriv.h kernel/err.h \
		kernel/param.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 $(WARN) -Iconfig -Ikernel config/genconfig.c $(CONF_SRCS) -o $@

# Regenerate when the config file, its path, or the generator changes.
$(GEN)/config.path: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@

$(GEN)/config.h: $(CONFIG) $(GEN)/config.path $(GENCONFIG)
	$(GENCONFIG) $(CONFIG) $@

# The git revision shown in the banner; rewritten only when it changes, so only the files that
# include it are rebuilt after a commit.
$(GEN)/gitrev.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define WS_GIT_REV "$(GIT_REV)"' | cmp -s - $@ || \
		echo '#define WS_GIT_REV "$(GIT_REV)"' > $@

# --- newlib (fetched from Debian's newlib-source, built once) --------------------------------
$(NEWLIB_STAMP): tools/build-newlib
	tools/build-newlib $(NEWLIB_DIR)

# --- firmware --------------------------------------------------------------------------------
$(OBJ)/%.o: %.c $(GEN)/config.h $(GEN)/gitrev.h $(NEWLIB_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(KCFLAGS) -c $< -o $@

# Each tree's stamp (phase 0 guarantees it) changes whenever tools/fetch-sources unpacks it anew.
$(OBJ)/lwip/%.o: $(LWIP_DIR)/%.c build/src/.stamp-lwip $(GEN)/config.h $(NEWLIB_STAMP) \
		$(wildcard net/lwip-port/*.h net/lwip-port/arch/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      lwip/$*.c"
	@$(CC) $(LWIP_CFLAGS) -c $< -o $@

# cJSON 1.7.15 (Debian's source package): the iperf3 server's params and results JSON.
$(OBJ)/cjson/cJSON.o: $(CJSON_DIR)/cJSON.c build/src/.stamp-cjson $(NEWLIB_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      cjson/cJSON.c"
	@$(CC) $(LWIP_CFLAGS) -c $< -o $@

$(OBJ)/%.o: %.S $(GEN)/config.h
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(KASFLAGS) -c $< -o $@

# Two link passes: the second embeds the first one's text symbols for backtraces. .ksyms lies
# after all text, so the symbols cannot move; the check below makes sure of it.
$(BUILD)/ksyms0.S:
	@mkdir -p $(dir $@)
	tools/gen-ksyms - $@

$(BUILD)/wirespeed.pass1.elf: $(KERNEL_OBJS) $(OBJ)/ksyms0.o linker/kernel.ld
	$(LD) $(KLDFLAGS) -o $@ $(KERNEL_OBJS) $(OBJ)/ksyms0.o $(NEWLIB_LIB)/libm.a $(NEWLIB_LIB)/libc.a $(LIBGCC)

$(OBJ)/ksyms0.o: $(BUILD)/ksyms0.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(BUILD)/ksyms.S: $(BUILD)/wirespeed.pass1.elf tools/gen-ksyms
	tools/gen-ksyms $< $@

$(OBJ)/ksyms.o: $(BUILD)/ksyms.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(ELF): $(KERNEL_OBJS) $(OBJ)/ksyms.o linker/kernel.ld
	$(LD) $(KLDFLAGS) -o $@ $(KERNEL_OBJS) $(OBJ)/ksyms.o $(NEWLIB_LIB)/libm.a $(NEWLIB_LIB)/libc.a $(LIBGCC)
	@$(NM) -n $(BUILD)/wirespeed.pass1.elf | grep ' [tT] ' > $(BUILD)/pass1.syms
	@$(NM) -n $@ | grep ' [tT] ' | cmp -s - $(BUILD)/pass1.syms || \
		{ echo "error: text symbols moved between link passes"; rm -f $@; exit 1; }
	$(OBJDUMP) -dS $@ > $(BUILD)/wirespeed.asm
	$(NM) -n $@ > $(BUILD)/wirespeed.sym
	@size $@

# boot/grub.cfg with the version, the config's name and its console filled in (ISO, USB, PXE).
GRUB_CFG_SUBST = sed -e "s/@VERSION@/$$(sed -n 's/.*WS_VERSION "\(.*\)"/\1/p' kernel/version.h)/" \
	-e "s/@CONFIG@/$$(sed -n 's/.*CONFIG_NAME "\(.*\)"/\1/p' $(GEN)/config.h)/" \
	-e "s/@CONSOLE_PORT@/$$(sed -n 's/.*CONFIG_CONSOLE_PORT \(.*\)/\1/p' $(GEN)/config.h)/" \
	-e "s/@CONSOLE_BAUD@/$$(sed -n 's/.*CONFIG_CONSOLE_BAUD \(.*\)/\1/p' $(GEN)/config.h)/"

$(ISO): $(ELF) boot/grub.cfg $(GEN)/config.h
	@rm -rf $(BUILD)/iso && mkdir -p $(BUILD)/iso/boot/grub
	cp $(ELF) $(BUILD)/iso/boot/wirespeed.elf
	$(GRUB_CFG_SUBST) boot/grub.cfg > $(BUILD)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso 2> $(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# --- QEMU with the emulated 82599 (qemu-82599/README.md) ------------------------------------
# Debian's QEMU 10.0.2 source + the ixgbe-82599 device wrapping tests/model, built into
# build/qemu/bin/ only when the tarball, the patch, the device or the model changed.
qemu-82599:
	@tools/build-qemu build/qemu

# --- running ---------------------------------------------------------------------------------
# NIC=igb (QEMU's 82576, stock Debian QEMU) or NIC=82599 (the project's QEMU, built first).
run: all $(if $(filter 82599,$(NIC)),qemu-82599)
	tools/run-qemu --smp $(SMP) --mem $(MEM) --nic $(NIC) --kernel $(ELF)

run-iso: all $(if $(filter 82599,$(NIC)),qemu-82599)
	tools/run-qemu --smp $(SMP) --mem $(MEM) --nic $(NIC) --iso $(ISO)

# --- tests -----------------------------------------------------------------------------------
UNIT_CFLAGS := -std=gnu11 -g -O1 $(WARN) -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -I. -Ikernel -Iconfig
UNIT_TESTS := test_config test_console_line test_memmap test_bootinfo test_acpi test_rss \
	test_neigh test_net_local test_pkb test_intel_ring test_route test_vlan test_fib test_stats_fmt \
	test_ixgbe_model test_ixgbe_model_sfp test_ixgbe_model_fc test_iperf3_proto test_nic_txwd test_netperf_proto
test_config_SRCS := $(CONF_SRCS)
test_console_line_SRCS := kernel/console_line.c
test_memmap_SRCS := kernel/memmap.c kernel/err.c
test_bootinfo_SRCS := kernel/bootinfo.c kernel/memmap.c kernel/err.c
test_acpi_SRCS := kernel/acpi.c kernel/aml.c kernel/err.c
# the AML scan for PCI root bridges (_SEG, _BBN, _PXM) on hand-assembled definition blocks
UNIT_TESTS += test_aml
test_aml_SRCS := kernel/aml.c
test_rss_SRCS := drivers/nic/rss.c
test_neigh_SRCS := net/neigh.c
test_net_local_SRCS := net/local.c net/neigh.c net/inet.c
test_pkb_SRCS := kernel/pkb.c
test_route_SRCS := net/route.c net/inet.c
test_vlan_SRCS :=
test_fib_SRCS := net/fib.c
test_stats_fmt_SRCS := apps/stats/fmt.c apps/stats/json.c
test_iperf3_proto_SRCS := apps/sink/iperf3_proto.c $(CJSON_DIR)/cJSON.c
test_iperf3_proto_CFLAGS := -I$(CJSON_DIR)
test_netperf_proto_SRCS := apps/sink/netperf_proto.c
UNIT_TESTS += test_gro
test_gro_SRCS := net/gro.c
# IPv6: addresses and headers, the LPM table, forwarding checks and errors, the local answers,
# router advertisements (the message, the timing, and the sender against stubs of its floor).
UNIT_TESTS += test_inet6 test_fib6 test_route6 test_net_local6 test_ra6
test_inet6_SRCS := net/inet6.c net/inet.c
test_fib6_SRCS := net/fib6.c
test_route6_SRCS := net/route6.c net/route.c net/inet6.c net/inet.c
test_net_local6_SRCS := net/local6.c net/inet6.c net/inet.c net/neigh.c
test_ra6_SRCS := net/ra6.c net/inet6.c net/inet.c kernel/pkb.c
# the NIC layer's header wants a config (its largest MTU): default.conf's, as tests/hostsim's
test_ra6_CFLAGS := -iquote build/hostsim/router/gen
build/unit/test_ra6: build/hostsim/router/gen/config.h
IXGBE_MODEL_SRCS := tests/model/ixgbe_model.c tests/model/ixgbe_model_queue.c \
	tests/model/ixgbe_model_irq.c tests/model/ixgbe_model_rx.c tests/model/ixgbe_model_tx.c \
	tests/model/ixgbe_model_sfp.c tests/model/ixgbe_model_fc.c
test_ixgbe_model_SRCS := $(IXGBE_MODEL_SRCS)
test_ixgbe_model_sfp_SRCS := $(IXGBE_MODEL_SRCS)
test_ixgbe_model_fc_SRCS := $(IXGBE_MODEL_SRCS)
test_intel_ring_SRCS := drivers/nic/intel_ring.c kernel/pkb.c tests/fakes/fake_intel_nic.c tests/fakes/fake_tso.c

# --- the sink's glue and lwIP on the host: tests/unit/test_sink_glue.c (here), the benchmark
# (tests/bench/sink_bench.sh) and the fuzzer (tests/fuzz/fuzz_lwip.c) build the same files.
# lwIP is compiled once into an archive, with our warnings but not as errors (as for the image).
UNIT_TESTS += test_sink_glue
SINK_HOST_SRCS := net/handoff.c apps/sink/sink.c apps/sink/basic.c drivers/nic/nic_tx.c net/iface.c \
	net/inet.c net/inet6.c \
	net/lwip-port/sink_netif.c net/gro.c net/lwip-port/isn.c net/lwip-port/sys_arch.c net/lwip-port/tcp_hooks.c net/lwip-port/siphash.c kernel/pkb.c kernel/err.c \
	tests/fakes/fake_sink_platform.c tests/fakes/fake_tso.c tests/hostsim/sink_peer.c
LWIP_HOST_OBJS := $(patsubst $(LWIP_DIR)/%.c,build/unit/lwip/%.o,$(LWIP_SRCS))
test_sink_glue_SRCS := $(SINK_HOST_SRCS) build/unit/lwip/liblwip.a
# -iquote, not -I, for kernel/ (its time.h must not shadow <time.h>); config.h of the default
# config, as tests/hostsim builds it.
build/unit/test_sink_glue: UNIT_CFLAGS := $(filter-out -Ikernel,$(UNIT_CFLAGS)) -iquote kernel \
	-iquote build/hostsim/router/gen $(LWIP_INC)
build/unit/test_sink_glue: build/hostsim/router/gen/config.h $(wildcard net/lwip-port/*.h \
	net/lwip-port/arch/*.h tests/hostsim/sink_peer.h)
# The sources' stamp changes whenever tools/fetch-sources unpacks lwIP again.
$(LWIP_HOST_OBJS): build/unit/lwip/%.o: build/src/.stamp-lwip $(wildcard net/lwip-port/*.h \
		net/lwip-port/arch/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(filter-out -Werror -Ikernel,$(UNIT_CFLAGS)) $(LWIP_INC) -c $(LWIP_DIR)/$*.c -o $@
build/unit/lwip/liblwip.a: $(LWIP_HOST_OBJS)
	rm -f $@ && ar rcs $@ $^

define unit_rule
build/unit/$(1): tests/unit/$(1).c $$($(1)_SRCS) $$(wildcard kernel/*.h config/*.h net/*.h \
		drivers/nic/*.h tests/fakes/*.h tests/model/*.h apps/*/*.h)
	@mkdir -p build/unit
	$$(HOSTCC) $$(UNIT_CFLAGS) $$($(1)_CFLAGS) $$< $$($(1)_SRCS) -lcmocka -o $$@
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

unit: $(addprefix build/unit/,$(UNIT_TESTS))
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; build/unit/$$t; done

# The 82599 device model's tests; the driver-against-model tests join here.
test-model: build/unit/test_ixgbe_model build/unit/test_ixgbe_model_sfp \
		build/unit/test_ixgbe_model_fc build/hostsim/ixgbe_sim
	build/unit/test_ixgbe_model
	build/unit/test_ixgbe_model_sfp
	build/unit/test_ixgbe_model_fc
	build/hostsim/ixgbe_sim
	$(PYTHON) -m pytest -q tests/model

# Host simulation: the real forwarding, ring and protocol code against fake NICs, both modes,
# under ASan/UBSan (tests/hostsim/README.md). `make bench` runs it at 10 million frames.
HOSTSIM_FRAMES ?= 200000
HOSTSIM_SRCS := tests/hostsim/fwd_sim.c tests/hostsim/sim_frames.c tests/hostsim/sim_frames6.c \
	tests/hostsim/sim_books.c tests/hostsim/sim_platform.c tests/fakes/fake_intel_nic.c tests/fakes/fake_tso.c \
	apps/fwd/fwd.c net/handoff.c net/nexthop.c drivers/nic/nic.c drivers/nic/nic_tx.c net/iface.c \
	drivers/nic/intel_ring.c kernel/pkb.c \
	net/fib.c net/route.c net/local.c net/neigh.c net/inet.c kernel/err.c $(NET6_SRCS)
# -iquote, not -I, for kernel/: its time.h must not shadow the C library's <time.h>.
HOSTSIM_CFLAGS := -std=gnu11 -g -O1 $(WARN) -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -I. -iquote kernel

# The real 82599 driver, NIC layer and forwarding against two 82599 model ports (MMIO through
# the WS_HOST_MMIO seam of kernel/mmio.h).
IXGBE_SIM_SRCS := tests/hostsim/ixgbe_sim.c tests/hostsim/ixgbe_sim_init.c \
	tests/hostsim/ixgbe_sim_traffic.c tests/hostsim/ixgbe_sim_faults.c tests/hostsim/ixgbe_sim_sfp.c \
	tests/hostsim/ixgbe_platform.c \
	tests/hostsim/ixgbe_appliance.c tests/hostsim/sim_frames.c \
	drivers/nic/ixgbe.c drivers/nic/ixgbe_nvm.c drivers/nic/ixgbe_sfp.c drivers/nic/nic_hw.c drivers/nic/nic.c drivers/nic/nic_tx.c net/iface.c drivers/nic/intel_ring.c \
	drivers/pci/msix.c apps/fwd/fwd.c net/handoff.c net/nexthop.c kernel/pkb.c net/fib.c net/route.c net/local.c net/neigh.c \
	net/inet.c drivers/nic/rss.c $(NET6_SRCS) \
	kernel/err.c $(IXGBE_MODEL_SRCS)
IXGBE_SIM_CFLAGS := $(HOSTSIM_CFLAGS) -DWS_HOST_MMIO -Itests/hostsim/hostinc

build/hostsim/ixgbe_sim: build/hostsim/router/gen/config.h $(IXGBE_SIM_SRCS) $(wildcard \
		tests/hostsim/*.h tests/hostsim/hostinc/*.h tests/model/*.h apps/fwd/*.h kernel/*.h \
		net/*.h drivers/nic/*.h drivers/pci/*.h tests/fakes/*.h)
	$(HOSTCC) $(IXGBE_SIM_CFLAGS) -iquote $(dir $<) $(IXGBE_SIM_SRCS) -o $@

build/hostsim/router/gen/config.h: config/default.conf $(GENCONFIG)
	@mkdir -p $(dir $@)
	$(GENCONFIG) $< $@

build/hostsim/wire/gen/config.h: config/wire.conf $(GENCONFIG)
	@mkdir -p $(dir $@)
	$(GENCONFIG) $< $@

# router_vlan: the router's addresses on VLAN sub-interfaces instead of the ports (fwd_sim.h,
# SIM_VLAN): default.conf without the port addresses, with two `vlan` lines.
build/hostsim/router_vlan/router_vlan.conf: config/default.conf
	@mkdir -p $(dir $@)
	sed -e '/^port[01]\.address =/d' $< > $@
	printf 'vlan = port0.10 198.18.0.1/24\nvlan = port1.20 198.19.0.1/24\n' >> $@

build/hostsim/router_vlan/gen/config.h: build/hostsim/router_vlan/router_vlan.conf $(GENCONFIG)
	@mkdir -p $(dir $@)
	$(GENCONFIG) $< $@

build/hostsim/fwd_sim_router_vlan: HOSTSIM_CFLAGS += -DSIM_VLAN

# router6: the router's IPv6 path, config/default.conf as it is (fwd_sim.h, SIM_IPV6): the
# stream, the setup and the malformed frames are IPv6, next hops resolved by neighbour discovery.
build/hostsim/router6/gen/config.h: config/default.conf $(GENCONFIG)
	@mkdir -p $(dir $@)
	$(GENCONFIG) $< $@

build/hostsim/fwd_sim_router6: HOSTSIM_CFLAGS += -DSIM_IPV6

build/hostsim/fwd_sim_%: build/hostsim/%/gen/config.h $(HOSTSIM_SRCS) $(wildcard \
		tests/hostsim/*.h apps/fwd/*.h kernel/*.h net/*.h drivers/nic/*.h drivers/pci/*.h \
		tests/fakes/*.h)
	$(HOSTCC) $(HOSTSIM_CFLAGS) -iquote $(dir $<) $(HOSTSIM_SRCS) -o $@

hostsim: build/hostsim/fwd_sim_router build/hostsim/fwd_sim_wire build/hostsim/fwd_sim_router_vlan \
		build/hostsim/fwd_sim_router6
	build/hostsim/fwd_sim_router --quiet --frames $(HOSTSIM_FRAMES)
	build/hostsim/fwd_sim_router --quiet --sw-csum --frames $(HOSTSIM_FRAMES)
	build/hostsim/fwd_sim_router_vlan --quiet --frames $(HOSTSIM_FRAMES)
	build/hostsim/fwd_sim_router_vlan --quiet --nic-vlan --frames $(HOSTSIM_FRAMES)
	build/hostsim/fwd_sim_router6 --quiet --frames $(HOSTSIM_FRAMES)
	build/hostsim/fwd_sim_wire --quiet --frames $(HOSTSIM_FRAMES)

# System tests boot the default image and its variants: test (adds the `fault` and `pool`
# commands), busy (busy polling), wire (wire mode), reboot (test, with panic = reboot),
# slots (ports pinned to PCI functions), jumbo (MTU 9000) and ra (router advertisements), on
# igb and (tests marked BOTH_NICS, and the Linux referee) on the emulated 82599.
test-system:
	@[ "$$(id -u)" = 0 ] || { echo "test-system: the QEMU tests make taps and network namespaces and need root: run it as root or with sudo (make unit hostsim test-model need none)"; exit 1; }
	@tools/build-qemu build/qemu
	$(MAKE) --no-print-directory all media-test
	$(MAKE) --no-print-directory BUILD=build/test CONFIG=config/test.conf build/test/wirespeed.elf
	$(MAKE) --no-print-directory BUILD=build/busy CONFIG=config/busy.conf build/busy/wirespeed.elf
	$(MAKE) --no-print-directory BUILD=build/wire CONFIG=config/wire.conf build/wire/wirespeed.elf
	$(MAKE) --no-print-directory BUILD=build/reboot CONFIG=config/reboot.conf build/reboot/wirespeed.elf
	$(MAKE) --no-print-directory BUILD=build/slots CONFIG=config/slots.conf build/slots/wirespeed.elf
	$(MAKE) --no-print-directory BUILD=build/jumbo CONFIG=config/jumbo.conf build/jumbo/wirespeed.elf
	$(MAKE) --no-print-directory BUILD=build/ra CONFIG=config/ra.conf build/ra/wirespeed.elf
	$(PYTHON) -m pytest -q -rs tests/system

test: check-readme check-layers unit hostsim test-model fuzz-smoke test-system

# The floors (docs/architecture.md, "Layers"): from the built objects, no call goes up a floor.
check-layers: $(ELF)
	@tools/check-layers $(OBJ)

# README's two commands and its map against the tree (tests/docs/check_readme.py; .ci/run too).
check-readme:
	@$(PYTHON) tests/docs/check_readme.py

# libFuzzer harnesses for every parser of outside bytes (tests/fuzz/README.md): `make fuzz`
# runs each for FUZZ_SECONDS; `make test` replays the regression inputs and fuzzes each briefly.
FUZZ_SECONDS ?= 60
fuzz:
	tests/fuzz/run.sh $(FUZZ_SECONDS)

fuzz-smoke:
	tests/fuzz/run.sh 5

# Benchmarks print numbers; they never pass or fail on speed (tests/bench/README.md).
build/bench/udpgen: tests/bench/udpgen.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 $(WARN) $< -o $@

build/bench/handoff_bench: tests/bench/handoff_bench.c net/handoff.c net/handoff.h \
		kernel/spsc.h kernel/pkb.c kernel/pkb.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -g $(WARN) -I. -iquote kernel $(filter %.c,$^) kernel/err.c \
		-lpthread -o $@

bench: all build/bench/udpgen build/bench/handoff_bench
	$(MAKE) --no-print-directory BUILD=build/busy CONFIG=config/busy.conf build/busy/wirespeed.elf
	build/bench/handoff_bench
	$(PYTHON) tests/bench/sink_qemu.py
	$(PYTHON) tests/bench/rx_pps.py
	@tools/build-qemu build/qemu
	$(PYTHON) tests/bench/rx_pps.py --nics
	tests/bench/fib_bench.sh
	tests/bench/fib6_bench.sh
	tests/bench/fwd_bench.sh
	tests/bench/sink_bench.sh
	tests/bench/crr_bench.sh
	tests/bench/send_bench.sh

clean:
	rm -rf $(BUILD) build/test build/busy build/wire build/reboot build/slots build/jumbo build/ra build/unit build/host build/hostsim build/bench build/fuzz

distclean:
	rm -rf build

FORCE:

include mk/boot-media.mk

-include $(KERNEL_OBJS:.o=.d)
