# tagtrace: kernel series, QEMU rig and eBPF tool for x86 pointer tagging.
# `make help` lists the targets (README.md has the same table); README.md
# and doc/ say how long each takes.

.DELETE_ON_ERROR:
.SUFFIXES:
SHELL := /bin/bash

BUILD   := build
VMBIN   := $(BUILD)/vm
KTREE   := $(BUILD)/linux
KHDR    := $(KTREE)/usr-headers/include
CC      := gcc
CFLAGS  := -O2 -g -Wall -Wextra -Werror
STEP    := scripts/step.sh
# One id per top-level make run: scripts/timings.sh groups step times by it.
# Expanded once (:=), and inherited by sub-makes through the environment.
ifndef TT_RUN
TT_RUN := $(shell date +%s.%N)
endif
export TT_RUN

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: qemu-arm64 kernel-mainline kernel-distro kernel-arm64 kernel-arm64-upstream record-mte-ctrl rig-arm64 modules-rig modules-upstream guest-builds kernels tagtrace vmlinux.h unit install check-tool demo-cpus soak all help deps kernel kernel-upstream kernel-notrace kernel-debug kernel-baseline series-check series check-debug qemu qemu-series rig check check-rig \
	check-emulation check-kernel bench demo clean distclean

## all              the default target: the same as `make rig`
all: rig

## help             this list: every target, one line each (README.md has the same table)
help:
	@sed -n 's/^## //p' Makefile

## deps             install every Debian package the project needs (apt)
deps:
	$(Q)t=$$(date +%s); scripts/deps.sh && \
		scripts/timings.sh record deps $$(($$(date +%s) - t))

## kernel           the guest kernel: linux-source-6.12 with kernel/series/ (build/linux)
kernel: deps
	$(Q)$(STEP) kernel "guest kernel: linux-source-6.12 + kernel/series/ on tinyconfig" \
		"8 min cold, 1 min cached" $(BUILD)/logs/kernel.log -- scripts/kernel.sh tagged

## kernel-upstream  the same kernel without the series (build/linux-upstream)
kernel-upstream: deps
	$(Q)$(STEP) kernel-upstream "guest kernel without the series, for comparisons" \
		"8 min cold, 1 min cached" $(BUILD)/logs/kernel-upstream.log -- scripts/kernel.sh upstream

## kernel-mainline  series 1-4 alone, as mainline would have them (build/linux-mainline)
kernel-mainline: deps
	$(Q)$(STEP) kernel-mainline "guest kernel with the series meant for mainline (1-4) only" \
		"8 min cold, 1 min cached" $(BUILD)/logs/kernel-mainline.log -- scripts/kernel.sh mainline

## kernel-notrace   the series without its tracepoint patches (benchmark baseline)
kernel-notrace: deps
	$(Q)$(STEP) kernel-notrace "guest kernel without the tracepoint patches, for benchmarks" \
		"8 min cold, 1 min cached" $(BUILD)/logs/kernel-notrace.log -- scripts/kernel.sh notrace

## kernel-baseline  upstream 6.12 with the guest config, mitigations on (lass-bench)
kernel-baseline: deps
	$(Q)$(STEP) kernel-baseline "upstream kernel with the guest's config, for lass-bench" \
		"20 min cold, 1 min cached" $(BUILD)/logs/kernel-baseline.log -- scripts/kernel.sh baseline

## kernel-debug     the series with KASAN, PROVE_LOCKING, DEBUG_VM (build/linux-debug)
kernel-debug: deps
	$(Q)$(STEP) kernel-debug "guest kernel with KASAN, lockdep and DEBUG_VM" \
		"30 min cold, 2 min cached" $(BUILD)/logs/kernel-debug.log -- scripts/kernel.sh debug

# What `make check` boots: the kernels one after the other (each reuses the
# others' ccache objects wherever the series changes nothing: the series,
# upstream, series 1-4 alone, arm64), and QEMU for x86_64 and aarch64
# beside them, where it fills the kernels' single-threaded phases
# (unpacking, linking, BTF). `make demo` builds only the first kernel and
# the x86_64 QEMU.
## guest-builds     what `make check` builds first: `make kernels` beside `make qemu-arm64`
guest-builds: deps
	$(Q)$(MAKE) --no-print-directory -j2 kernels qemu-arm64

## kernels          every kernel `make check` boots: series, upstream, mainline, arm64, distro
kernels: kernel
	$(Q)$(MAKE) --no-print-directory kernel-upstream
	$(Q)$(MAKE) --no-print-directory kernel-mainline
	$(Q)$(MAKE) --no-print-directory kernel-arm64
	$(Q)$(MAKE) --no-print-directory kernel-distro

## kernel-distro    Debian's own linux-image-6.12 and an initramfs for it (tests/vm/run --distro)
kernel-distro: deps $(VMBIN)/initrd-init
	$(Q)$(STEP) kernel-distro "Debian's kernel of LINUX_SOURCE_VERSION, its 9p modules in an initramfs" \
		"15 s cold, a 107 MB download; 4 s cached" $(BUILD)/logs/kernel-distro.log -- scripts/distro-kernel.sh $(VMBIN)/initrd-init

## kernel-arm64     the series cross-built for the arm64 rig (build/linux-arm64)
kernel-arm64: deps
	$(Q)$(STEP) kernel-arm64 "arm64 guest kernel: kernel/series/ for QEMU's virt machine" \
		"8 min cold, 1 min cached" $(BUILD)/logs/kernel-arm64.log -- scripts/kernel.sh arm64

## kernel-arm64-upstream  upstream 6.12 with the arm64 config, to re-record arm64-mte-ctrl.upstream
kernel-arm64-upstream: deps
	$(Q)$(STEP) kernel-arm64-upstream "arm64 guest kernel without the series, for recordings" \
		"8 min cold, 1 min cached" $(BUILD)/logs/kernel-arm64-upstream.log -- scripts/kernel.sh arm64-upstream

## series-check     build the series one patch at a time: x86_64, i386, arm64, checkpatch, kselftests
series-check: kernel kernel-upstream
	$(Q)scripts/series-check.sh

## series           each series as mails + one mbox in build/series/, proved by git am (SIGNOFF="Name <mail>")
series: kernel-upstream
	$(Q)SIGNOFF="$(SIGNOFF)" scripts/series.sh

## check-debug      the kernel tests on the debug kernel; fails on any splat
check-debug: rig tagtrace kernel-debug
	$(Q)prove --exec '' --merge --directives -v tests/kernel/debug-suite.sh

## qemu             QEMU 7.2 + tests/vm/qemu/*.patch: LAM, UAI and LASS emulation (x86_64)
qemu: deps
	$(Q)$(STEP) qemu "QEMU 7.2 from Debian's source + LAM/UAI/LASS emulation" \
		"6 min cold, 1 min cached" $(BUILD)/logs/qemu.log -- scripts/qemu.sh x86_64

## qemu-arm64       the same source's qemu-system-aarch64, for the arm64 rig
qemu-arm64: qemu
	$(Q)$(STEP) qemu-arm64 "qemu-system-aarch64 from the same patched source, for the arm64 rig" \
		"6 min cold, 1 min cached" $(BUILD)/logs/qemu-arm64.log -- scripts/qemu.sh aarch64

## qemu-series      tests/vm/qemu/ as a git-am-able mbox in build/series/qemu/ (SIGNOFF="Name <mail>")
qemu-series: qemu
	$(Q)SIGNOFF="$(SIGNOFF)" scripts/qemu-series.sh

## rig              the guest init and guest test programs (needs `make kernel`)
rig: $(VMBIN)/tagtrace-init $(VMBIN)/tagged-deref $(VMBIN)/emul-paths $(VMBIN)/lam \
	$(VMBIN)/tagged_addr_test $(VMBIN)/tags_test $(VMBIN)/tagged_workload \
	$(VMBIN)/untag_paths $(VMBIN)/tagged_fuzz \
	$(VMBIN)/tp_btf_count $(VMBIN)/tp_btf_count.bpf.o $(VMBIN)/tagged_bench \
	$(VMBIN)/uaccess_bench $(VMBIN)/tagalloc $(VMBIN)/storm $(VMBIN)/until $(VMBIN)/tagloop \
	$(VMBIN)/ptrace_query $(VMBIN)/nobpf $(VMBIN)/batches $(VMBIN)/hwasan_prog \
	$(VMBIN)/stackgp $(VMBIN)/gpbits \
	$(VMBIN)/forktags \
	$(VMBIN)/floor $(VMBIN)/floor.bpf.o $(VMBIN)/lass.elf $(VMBIN)/lass_user \
	$(VMBIN)/ua_write $(VMBIN)/sigfp_tagged $(VMBIN)/far32 $(VMBIN)/fsgsbase $(VMBIN)/clflush \
	$(VMBIN)/mmap47 $(VMBIN)/geometry_nowrite $(VMBIN)/noncanon \
	$(VMBIN)/lam_online $(VMBIN)/s3_tagged $(VMBIN)/u48 $(VMBIN)/pmlen \
	$(VMBIN)/codepage $(VMBIN)/switch_order $(VMBIN)/lass_cpu

# ---- the arm64 rig (tests/vm/run --arch arm64): static arm64 programs -------
VMA64   := $(BUILD)/vm-arm64
A64TREE := $(BUILD)/linux-arm64
A64HDR  := $(A64TREE)/usr-headers/include
A64CC   := aarch64-linux-gnu-gcc
MTEDIR  := $(A64TREE)/tools/testing/selftests/arm64/mte

## rig-arm64        the arm64 guest's init and test programs (needs `make kernel-arm64`)
rig-arm64: $(VMA64)/tagtrace-init $(VMA64)/arm64_uabi $(VMA64)/tags_test \
	$(VMA64)/check_prctl $(VMA64)/pmlen $(VMA64)/check_tags_inclusion \
	$(VMA64)/check_mmap_options $(VMA64)/check_buffer_fill \
	$(VMA64)/check_child_memory $(VMA64)/mte_ctrl_table

$(VMA64)/tagtrace-init: tests/vm/init.c
	@mkdir -p $(@D)
	$(Q)$(A64CC) $(CFLAGS) -static -o $@ $<

$(VMA64)/arm64_uabi: tests/kernel/arm64_uabi.c tests/lib/tap-check.h $(A64HDR)/linux/prctl.h
	@mkdir -p $(@D)
	$(Q)$(A64CC) $(CFLAGS) -static -isystem $(A64HDR) -o $@ $<

$(VMA64)/pmlen: tests/kernel/pmlen.c tests/lib/tap-check.h $(A64HDR)/linux/prctl.h
	@mkdir -p $(@D)
	$(Q)$(A64CC) $(CFLAGS) -static -isystem $(A64HDR) -o $@ $<

$(VMA64)/mte_ctrl_table: tests/kernel/mte_ctrl_table.c $(A64HDR)/linux/prctl.h
	@mkdir -p $(@D)
	$(Q)$(A64CC) $(CFLAGS) -march=armv8.5-a+memtag -static -isystem $(A64HDR) -o $@ $<

# MTE's prctl answers on upstream 6.12, which test-arm64.sh compares the
# series' with. Re-record only when the base kernel changes.
## record-mte-ctrl  boot upstream 6.12 for arm64 and rewrite tests/kernel/arm64-mte-ctrl.upstream
record-mte-ctrl: kernel-arm64-upstream $(VMA64)/tagtrace-init $(VMA64)/mte_ctrl_table
	$(Q)tests/vm/run --arch arm64 --kernel $(BUILD)/linux-arm64-upstream/arch/arm64/boot/Image \
		-- $(VMA64)/mte_ctrl_table > $(BUILD)/arm64-mte-ctrl.upstream
	$(Q)mv $(BUILD)/arm64-mte-ctrl.upstream tests/kernel/arm64-mte-ctrl.upstream

$(VMA64)/tags_test: $(A64TREE)/tools/testing/selftests/mm/tags/tags_test.c
	@mkdir -p $(@D)
	$(Q)$(A64CC) -O2 -g -Wall -static -isystem $(A64HDR) -o $@ $<

# arm64's own MTE selftests, as their Makefile builds them.
$(VMA64)/check_%: $(MTEDIR)/check_%.c $(MTEDIR)/mte_common_util.c $(MTEDIR)/mte_helper.S
	@mkdir -p $(@D)
	$(Q)$(A64CC) -O2 -g -Wall -std=gnu99 -pthread -static -march=armv8.5-a+memtag \
		-isystem $(A64HDR) -I$(MTEDIR) -I$(A64TREE)/tools/testing/selftests -o $@ $^

$(A64HDR)/linux/prctl.h $(A64TREE)/tools/testing/selftests/mm/tags/tags_test.c \
$(MTEDIR)/mte_common_util.c $(MTEDIR)/mte_helper.S \
$(patsubst %,$(MTEDIR)/check_%.c,prctl tags_inclusion mmap_options buffer_fill child_memory):
	@echo "missing $@: run 'make kernel-arm64' first" >&2; exit 1

# The test modules of tests/kernel/test-module.sh, built against the guest
# kernel (make kernel; it has CONFIG_MODULES) in a copy of their sources, as
# kbuild writes its objects beside them.
MODSRC := $(wildcard tests/kernel/modules/*)
MODKO  := $(VMBIN)/modules/ua_rbp.ko $(VMBIN)/modules/ua_rbp_nountag.ko $(VMBIN)/modules/ua_ds.ko \
	  $(VMBIN)/modules/lam_online.ko $(VMBIN)/modules/nmi_untag.ko \
	  $(VMBIN)/modules/u48_usemm.ko \
	  $(VMBIN)/modules/lam_nolass.ko $(VMBIN)/modules/switch_order.ko
# switch_order against upstream 6.12 (make kernel-upstream), which publishes
# loaded_mm before the untag mask: test-hotplug.sh's check fails there.
UPKO   := $(VMBIN)/modules-upstream/switch_order.ko
## modules-upstream the switch_order test module for upstream 6.12
modules-upstream: $(UPKO)
## modules-rig      the test modules of tests/kernel/modules/, for the guest kernel
modules-rig: $(MODKO)
$(MODKO) &: $(MODSRC) $(KTREE)/Module.symvers
	$(Q)rm -rf $(VMBIN)/modules && mkdir -p $(VMBIN)/modules && \
		cp $(MODSRC) $(VMBIN)/modules/ && \
		$(MAKE) --no-print-directory -s -C $(KTREE) \
			M=$(CURDIR)/$(VMBIN)/modules KCFLAGS=-Werror modules
$(UPKO): tests/kernel/modules/switch_order.c $(BUILD)/linux-upstream/Module.symvers
	$(Q)rm -rf $(@D) && mkdir -p $(@D) && \
		cp $< $(@D)/ && echo 'obj-m := switch_order.o' > $(@D)/Kbuild && \
		$(MAKE) --no-print-directory -s -C $(BUILD)/linux-upstream \
			M=$(CURDIR)/$(@D) KCFLAGS=-Werror modules

$(VMBIN)/tagtrace-init: tests/vm/init.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# /init of the distribution kernel's initramfs (make kernel-distro).
$(VMBIN)/initrd-init: tests/vm/initrd-init.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# The freestanding LASS test guest (tests/vm/run --bare): linked to run in the
# kernel half (-mcmodel=kernel), no libc, no SSE, no red zone under its traps.
$(VMBIN)/lass.elf: tests/vm/lass/boot.S tests/vm/lass/lass.c tests/vm/lass/lass.ld
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -ffreestanding -fno-pic -fno-pie -no-pie -mcmodel=kernel \
		-mno-red-zone -mgeneral-regs-only -fno-stack-protector \
		-fno-asynchronous-unwind-tables -nostdlib -static \
		-Wl,-T,tests/vm/lass/lass.ld -Wl,--build-id=none -Wl,-z,noexecstack \
		-Wl,--fatal-warnings -o $@ tests/vm/lass/boot.S tests/vm/lass/lass.c

$(VMBIN)/clflush: tests/vm/clflush.c tests/lib/in-child.h tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/codepage: tests/vm/codepage.c tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

$(VMBIN)/fsgsbase: tests/vm/fsgsbase.c tests/lib/in-child.h tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# A 32-bit process without libc (tests/vm/far32.c): far transfers in
# compatibility mode.
$(VMBIN)/far32: tests/vm/far32.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -m32 -ffreestanding -nostdlib -static -fno-pic -no-pie \
		-fno-stack-protector -Wl,-z,noexecstack -o $@ $<

$(VMBIN)/tagged-deref: tests/vm/tagged-deref.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/emul-paths: tests/vm/emul-paths.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# The tagged-address ABI tests: the series adds them as selftests/x86/tagged_addr.c.
$(VMBIN)/tagged_addr_test: $(KTREE)/tools/testing/selftests/x86/tagged_addr.c $(KHDR)/linux/prctl.h
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -Werror -pthread -isystem $(KHDR) -o $@ $<

# The kernel's own LAM selftest, from the same tree as the guest kernel.
$(VMBIN)/lam: $(KTREE)/tools/testing/selftests/x86/lam.c $(KHDR)/linux/prctl.h
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -std=gnu99 -pthread -Wall -isystem $(KHDR) -o $@ $< -lrt -ldl

$(VMBIN)/lass_user: tests/kernel/lass_user.c tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/lam_online: tests/kernel/lam_online.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/switch_order: tests/kernel/switch_order.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/ua_write: tests/kernel/ua_write.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/lass_cpu: tests/kernel/lass_cpu.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/sigfp_tagged: tests/kernel/sigfp_tagged.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/mmap47: tests/kernel/mmap47.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/u48: tests/kernel/u48.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/pmlen: tests/kernel/pmlen.c tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/geometry_nowrite: tests/kernel/geometry_nowrite.c tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# Static: it runs from /tmp across a suspend to RAM, after which the 9p root
# no longer answers (tests/kernel/s3_tagged.c).
$(VMBIN)/s3_tagged: tests/kernel/s3_tagged.c tests/lib/tagging.h tests/lib/tap-check.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

$(VMBIN)/noncanon: tests/kernel/noncanon.c tests/lib/tap-check.h tests/lib/uring-one.h \
		tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/tagged_workload: tests/kernel/tagged_workload.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/untag_paths: tests/kernel/untag_paths.c tests/lib/tagging.h tests/lib/uaccess_paths.h \
	tests/lib/uring-one.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/tagged_fuzz: tests/kernel/tagged_fuzz.c tests/lib/tagging.h tests/lib/tap-check.h \
	tests/lib/uaccess_paths.h tests/lib/uring-one.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

$(VMBIN)/tagalloc: tests/tool/tagalloc.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/tagloop: tests/tool/tagloop.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

$(VMBIN)/gpbits: tests/tool/gpbits.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/ptrace_query: tests/tool/ptrace_query.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# Frame pointers and no sibling calls: the user stack walks to main.
$(VMBIN)/stackgp: tests/tool/stackgp.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -o $@ $<

$(VMBIN)/nobpf: tests/tool/nobpf.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/forktags: tests/tool/forktags.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/batches: tests/tool/batches.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# LLVM's HWASan: the x86_64 runtime (libclang-rt-14-dev) enables tagging at
# start. Debian's binutils link its relocations only without relaxation.
$(VMBIN)/hwasan_prog: tests/tool/hwasan_prog.c
	@mkdir -p $(@D)
	$(Q)clang-14 -fsanitize=hwaddress -g -O1 -Wall -Werror -Wl,--no-relax -o $@ $<

$(VMBIN)/storm: tests/bench/storm.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/until: tests/bench/until.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/tagged_bench: tests/bench/tagged_bench.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(VMBIN)/uaccess_bench: tests/bench/uaccess_bench.c tests/lib/tagging.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# A minimal tp_btf user of the tagged_addr events (libbpf, no skeleton).
$(VMBIN)/tp_btf_count: tests/kernel/tp_btf_count.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lbpf

# The bench's floor: the cheapest tp_btf programs on the untag event.
$(VMBIN)/floor: tests/bench/floor.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lbpf

$(VMBIN)/%.bpf.o: tests/bench/%.bpf.c
	@mkdir -p $(@D)
	$(Q)clang -O2 -g -target bpf -Wall -Werror \
		-I/usr/include/$(shell $(CC) -dumpmachine) -c $< -o $@

$(VMBIN)/%.bpf.o: tests/kernel/%.bpf.c
	@mkdir -p $(@D)
	$(Q)clang -O2 -g -target bpf -Wall -Werror \
		-I/usr/include/$(shell $(CC) -dumpmachine) -c $< -o $@

# The series moves the arm64 tags test to selftests/mm/tags for every arch.
$(VMBIN)/tags_test: $(KTREE)/tools/testing/selftests/mm/tags/tags_test.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -isystem $(KHDR) -o $@ $<

$(KTREE)/tools/testing/selftests/x86/lam.c $(KHDR)/linux/prctl.h \
$(KTREE)/tools/testing/selftests/x86/tagged_addr.c \
$(KTREE)/tools/testing/selftests/mm/tags/tags_test.c:
	@echo "missing $@: run 'make kernel' first" >&2; exit 1

# ---- tagtrace: .bpf.c -> .bpf.o -> .skel.h -> binary -----------------------
TOOL     := $(BUILD)/tool
UNIT     := $(BUILD)/unit
ARCH_INC := /usr/include/$(shell $(CC) -dumpmachine)
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I vmlinux/x86 -I bpf -I $(ARCH_INC)
TOOL_SRCS := $(wildcard src/*.c)
TOOL_OBJS := $(patsubst src/%.c,$(TOOL)/%.o,$(TOOL_SRCS))
# The pieces that need no kernel: what tests/unit/ links against.
UNIT_SRCS := src/cli.c src/names.c src/json.c src/record.c src/usym.c src/tagging.c src/line.c src/ksyms.c \
	src/clock.c src/stop.c src/caps.c \
	src/table.c src/histfmt.c src/openmetrics.c src/btfnames.c src/sysnames.c \
	src/tagfmt.c src/out.c src/procset.c
PREFIX   ?= /usr/local

## tagtrace         the tagtrace binary (build/tool/tagtrace); needs only `make deps`
tagtrace: $(TOOL)/tagtrace

$(TOOL)/tagtrace.bpf.o: bpf/tagtrace.bpf.c bpf/tagtrace.h vmlinux/x86/vmlinux.h
	@mkdir -p $(@D)
	$(Q)clang $(BPF_CFLAGS) -c $< -o $@
	$(Q)llvm-strip -g $@

$(TOOL)/tagtrace.skel.h: $(TOOL)/tagtrace.bpf.o
	$(Q)bpftool gen skeleton $< name tagtrace_bpf > $@

$(TOOL)/%.o: src/%.c $(wildcard src/*.h) bpf/tagtrace.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -I $(TOOL) -c $< -o $@

# The skeleton embeds the BPF object: the objects that include it follow it.
$(TOOL)/session.o $(TOOL)/check.o: $(TOOL)/tagtrace.skel.h

# System call names: '[1] = "write",' for each __NR_ of the uapi header.
$(TOOL)/syscall_names.h: $(ARCH_INC)/asm/unistd_64.h
	@mkdir -p $(@D)
	$(Q)sed -n 's/^#define __NR_\([a-z0-9_]*\)[[:space:]]\+\([0-9]\+\)$$/[\2] = "\1",/p' $< > $@
	$(Q)test -s $@

$(TOOL)/sysnames.o: $(TOOL)/syscall_names.h

# Static: no dynamic loader at each start, and libbpf's own call of
# btf__load_vmlinux_btf() can be wrapped (src/btfshare.c).
$(TOOL)/tagtrace: $(TOOL_OBJS)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $^ -Wl,--wrap=btf__load_vmlinux_btf \
		-lbpf -lelf -lz -lm

## vmlinux.h        regenerate vmlinux/x86/vmlinux.h from the guest kernel's BTF
vmlinux.h: kernel
	$(Q)echo "/* make vmlinux.h: the BTF of build/linux/vmlinux (linux-source-6.12, kernel/series/ applied, kernel/config/), by bpftool btf dump. */" \
		> vmlinux/x86/vmlinux.h.tmp
	$(Q)bpftool btf dump file $(KTREE)/vmlinux format c >> vmlinux/x86/vmlinux.h.tmp
	$(Q)mv vmlinux/x86/vmlinux.h.tmp vmlinux/x86/vmlinux.h
	@echo "vmlinux/x86/vmlinux.h: $$(wc -l < vmlinux/x86/vmlinux.h) lines; commit it"

## unit             host unit tests of src/ under ASAN and UBSAN (tests/unit/)
unit: $(UNIT)/unit_tests
	$(Q)$(UNIT)/unit_tests

$(UNIT)/unit_tests: tests/unit/unit_tests.c tests/unit/tap.h $(UNIT_SRCS) $(wildcard src/*.h) \
		$(TOOL)/syscall_names.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -I src -I $(TOOL) -o $@ tests/unit/unit_tests.c $(UNIT_SRCS) \
		-lbpf -lelf -lm

## install          tagtrace and its man page into $(DESTDIR)$(PREFIX)
install: $(TOOL)/tagtrace
	install -D -m 0755 $(TOOL)/tagtrace $(DESTDIR)$(PREFIX)/sbin/tagtrace
	install -D -m 0644 doc/tagtrace.8 $(DESTDIR)$(PREFIX)/share/man/man8/tagtrace.8

## check            every test: host unit tests and guest tests (TAP, prove)
check: guest-builds
	$(Q)t=$$(date +%s); $(MAKE) --no-print-directory rig rig-arm64 modules-rig tagtrace $(UNIT)/unit_tests && \
		scripts/timings.sh record "rig, tagtrace, unit" $$(($$(date +%s) - t))
	$(Q)rm -rf $(BUILD)/logs/results
	$(Q)t=$$(date +%s); prove --exec tests/lib/record.sh --merge --timer --directives \
		$(UNIT)/unit_tests tests/bench/test-*.sh tests/vm/test-*.sh \
		tests/kernel/test-*.sh tests/tool/test-*.sh; rc=$$?; \
		scripts/timings.sh record "tests (prove)" $$(($$(date +%s) - t)); \
		scripts/timings.sh report; tests/lib/summary.sh; exit $$rc

## check-tool       only tagtrace's tests: host unit tests, then in the guest
check-tool: rig tagtrace modules-rig $(UNIT)/unit_tests
	$(Q)prove --exec '' --merge --directives -v $(UNIT)/unit_tests tests/tool/test-*.sh

## check-rig        only the rig's own tests (tests/vm/test-rig.sh)
check-rig: rig rig-arm64
	$(Q)prove --exec '' --merge --directives -v tests/vm/test-rig.sh

## check-emulation  only tests/vm/test-emulation.sh: LAM, UAI and LASS as the guest sees them
check-emulation: rig
	$(Q)prove --exec '' --merge --directives -v tests/vm/test-emulation.sh

## check-kernel     only the kernel series' tests (tests/kernel/test-*.sh)
check-kernel: rig rig-arm64 modules-rig
	$(Q)prove --exec '' --merge --directives -v tests/kernel/test-*.sh

## demo             boot a LAM guest: tagtrace watches a tagging allocator, then HWASan
demo: deps
	$(Q)$(MAKE) --no-print-directory -j2 kernel qemu
	$(Q)$(MAKE) --no-print-directory rig tagtrace
	$(Q)tests/vm/run --cpu lam -- tests/tool/demo-guest.sh

## demo-cpus        tagged pointers on LAM, LAM+LA57, UAI and no tagging
demo-cpus: deps kernel qemu
	$(Q)$(MAKE) --no-print-directory rig
	$(Q)tests/vm/demo.sh

## bench            benchmarks: tracepoint cost, tagging vs upstream, tagtrace vs bpftrace
bench: rig tagtrace kernel kernel-notrace kernel-baseline
	$(Q)tests/bench/trace-overhead.sh
	$(Q)tests/bench/lass-bench.sh
	$(Q)tests/bench/tool-bench.sh

## soak             10 minutes of storms under tagtrace top and trace: memory, drops, exit
soak: rig tagtrace
	$(Q)tests/bench/soak.sh

## clean            remove build/vm, build/tool, build/unit and build/logs (kernels, QEMU, build/vm-arm64 stay)
clean:
	rm -rf $(VMBIN) $(TOOL) $(UNIT) $(BUILD)/logs

## distclean        remove build/ entirely (ccache in /var/cache/tagtrace stays)
distclean:
	rm -rf $(BUILD)
