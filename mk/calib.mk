# Calibration kernels on AArch64 (issue 3): a static spinscope-calibrate,
# the false_sharing / spin_hint / memory_order kernels with a plain-text
# driver, that runs on any AArch64 Linux with no library installed.
# `make test` on x86-64 builds it and runs it under qemu-aarch64
# (tests/unit/calib/test_calib_arm64.c); `make ARCH=arm64` builds it next to
# the full cross-built spinscope (mk/arm64.mk) as an extra.

DEB_DEPS += gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user

HOST_MACHINE := $(shell uname -m)
ifeq ($(HOST_MACHINE),aarch64)
ARM64_CC ?= $(CC)
else
ARM64_CC ?= aarch64-linux-gnu-gcc
endif

# In a cross build's own folder (mk/arm64.mk) it sits next to spinscope.
ifeq ($(ARCH)-$(filter aarch64,$(HOST_MACHINE)),arm64-)
CALIB_ARM64_BIN := $(OUTPUT)/spinscope-calibrate
else
CALIB_ARM64_BIN := $(OUTPUT)/arm64/spinscope-calibrate
endif
K := user/calib/kern
CALIB_ARM64_SRCS := user/calib/plain/calibrate_main.c $(K)/calib_util.c $(K)/calib_stat.c \
	$(K)/calib_conditions.c \
	user/common/cpulist.c \
	$(K)/calib_hints.c $(K)/fingerprint.c $(K)/calib_false_sharing_kern.c \
	$(K)/calib_spin_hint_kern.c $(K)/calib_memory_order_kern.c
CALIB_ARM64_HDRS := $(wildcard $(K)/*.h) user/common/cpulist.h

# The other json-free kernels (spin_threshold's lock, host_costs', NUMA
# planning) are not in the plain driver yet: compile them for AArch64 too,
# so that their arch-specific code (ISB as the spin hint) keeps building.
CALIB_ARM64_CHECK := $(patsubst user/%.c,$(OUTPUT)/arm64/obj/%.o,\
	$(K)/calib_swlock.c $(K)/calib_host_kern.c $(K)/calib_numa_topo.c)

$(OUTPUT)/arm64/obj/%.o: user/%.c $(CALIB_ARM64_HDRS) mk/calib.mk
	$(call msg,CC-ARM64,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(ARM64_CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -Iuser -c $< -o $@

# No sanitizers: a static cross binary cannot carry their runtimes.
$(CALIB_ARM64_BIN): $(CALIB_ARM64_SRCS) $(CALIB_ARM64_HDRS) mk/calib.mk $(CALIB_ARM64_CHECK)
	$(call msg,CC-ARM64,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(ARM64_CC) -static -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -Iuser \
		$(CALIB_ARM64_SRCS) -pthread -lm -o $@

.PHONY: calib-arm64
calib-arm64: $(CALIB_ARM64_BIN)

# The qemu test needs the AArch64 binary next to the test binaries.
test unit: $(CALIB_ARM64_BIN)

# A cross build (ARCH=arm64, mk/arm64.mk) builds the static one too.
ifeq ($(ARCH),arm64)
all: calib-arm64
endif
