# The kernel matrix (issue 11): `make test-kernels` boots Debian's 5.10,
# 6.1, 6.1 PREEMPT_RT and 6.12 kernels and arm64 6.1 (-cpu max and
# cortex-a72) under QEMU TCG, plus the two-node NUMA guest, and runs the BPF
# integration checks inside each (tests/vm/kernels.sh, the list in
# tests/vm/kernels.list). Not part of `make test`: the first run downloads
# about 350 MB of kernel packages into $(OUTPUT)/apt (later runs are
# offline), and the matrix takes minutes. KERNELS="bookworm-6.1 ..." runs
# some guests only. The arm64 guests run the `make ARCH=arm64` build.

DEB_DEPS += qemu-system-x86 qemu-system-arm busybox-static cpio \
	debian-archive-keyring binutils

ARM64_OUTPUT ?= $(OUTPUT)/aarch64
KERNELS ?=

# What a guest runs, for the architecture being built.
GUEST_BINS := $(OUTPUT)/spinscope $(WORKLOAD_BINS) \
	$(OUTPUT)/tests/integration/test_trace_counts \
	$(OUTPUT)/tests/integration/test_trace_lifecycle \
	$(OUTPUT)/tests/integration/test_attach \
	$(OUTPUT)/tests/integration/test_unwind_e2e \
	$(OUTPUT)/tests/integration/test_map_alloc \
	$(OUTPUT)/tests/integration/test_false_sharing \
	$(OUTPUT)/tests/integration/test_top \
	$(OUTPUT)/tests/unit/calib/test_calib_numa

.PHONY: test-kernels test-kernels-fentry test-numa-vm guest-bins
guest-bins: check-deps $(GUEST_BINS)

# The arm64 guests are left out when the list asked for none.
KERNELS_NEED_ARM64 := $(if $(KERNELS),$(filter arm64%,$(KERNELS)),yes)

test-kernels: guest-bins
ifneq ($(KERNELS_NEED_ARM64),)
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 OUTPUT=$(ARM64_OUTPUT) \
		DEBFETCH_DIR=$(OUTPUT)/apt guest-bins
endif
	$(Q)OUTPUT=$(OUTPUT) ARM64_OUTPUT=$(ARM64_OUTPUT) ./tests/vm/kernels.sh $(KERNELS)

# The numa calibration family on a real two-node machine: the matrix's
# numa-6.1 guest alone (on a one-node host that family only skips).
test-numa-vm: guest-bins
	$(Q)OUTPUT=$(OUTPUT) ./tests/vm/kernels.sh numa-6.1

# The futex waits and the threads created after attach traced on
# --attach=fentry, FENTRY_REPEAT times each in one boot of each x86-64
# guest of FENTRY_KERNELS: auto keeps to the syscall
# tracepoints since fentry traces hung in these guests (user/trace/attach.c),
# and this is how that is chased (docs/REFERENCE.md, Supported kernels). The gate
# (test-kernels) runs each once; this repeats them, and is not a gate.
FENTRY_REPEAT ?= 8
FENTRY_KERNELS ?= bullseye-5.10 bookworm-6.1 trixie-6.12
test-kernels-fentry: guest-bins
	$(Q)KMATRIX_CHECKS=calibrate$$(printf ',fentry_futex,fentry_threads%.0s' $$(seq $(FENTRY_REPEAT))) \
		OUTPUT=$(OUTPUT) ./tests/vm/kernels.sh $(FENTRY_KERNELS)
