# spinscope build. `make` builds ./spinscope; `make test`, `make demo`,
# `make asan`, `make deps`. Quiet unless V=1.
#
# Conventions, so that adding a file needs no Makefile edit:
#   bpf/<x>.bpf.c         -> $(OUTPUT)/<x>.skel.h (bpftool gen skeleton)
#   user/<folder>/*.c advisor/*.c -> linked into spinscope (user/cli/main.c
#                           has main()); the folders are USER_DIRS, see
#                           docs/ARCHITECTURE.md for what each owns
#   tests/unit/<folder>/test_*.c -> cmocka binaries linked with everything but main
#   tests/integration/test_*.c -> the same, run against real BPF as root
#   tests/workloads/*.c   -> small programs with known behaviour
#   mk/*.mk               -> extra targets and packages per topic

# ARCH=arm64 on another host cross-builds into its own folder (mk/arm64.mk).
ifeq ($(ARCH),arm64)
ifneq ($(shell uname -m),aarch64)
OUTPUT ?= build/aarch64
endif
endif
OUTPUT ?= build
CLANG ?= clang
CC ?= gcc
BPFTOOL ?= bpftool
V ?= 0

# --- architecture: map uname -m (or ARCH=) to the BPF target name ----------
ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(filter x86 arm64,$(ARCH)),)
$(error unsupported architecture '$(ARCH)': spinscope supports x86 (x86_64) and arm64 (aarch64))
endif
VMLINUX_DIR := vmlinux/$(ARCH)

# --- dependencies: Debian package names, installed by `make deps` ----------
DEB_BUILD_DEPS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
	libzstd-dev libjson-c-dev libcmocka-dev libnuma-dev libcapstone-dev pkg-config \
	libiberty-dev
DEB_TEST_DEPS := util-linux procps zstd
DEB_DEPS := $(DEB_BUILD_DEPS) $(DEB_TEST_DEPS)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

SAN ?= 0
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation
CFLAGS_BASE := -std=gnu11 -O2 -g -fno-omit-frame-pointer $(WARN) \
	-D_GNU_SOURCE -I$(OUTPUT) -Iuser -Ibpf -I.
ifeq ($(SAN),1)
CFLAGS_BASE += -fsanitize=address,undefined -fno-sanitize-recover=undefined -O1
LDFLAGS += -fsanitize=address,undefined
endif
# Kernel-only types (u32, ...) are an error in user space: user/common/poison.h.
CFLAGS_BASE += -include user/common/poison.h
CFLAGS ?=
# Extra clang flags for the BPF objects (benchmarks: bench/progcost_ab.sh).
BPF_CFLAGS ?=
ALL_CFLAGS := $(CFLAGS_BASE) $(CFLAGS)
LIBS := -lbpf -lelf -lz -lzstd -ljson-c -lnuma -lcapstone -lpthread -lm

BPF_SRCS := $(wildcard bpf/*.bpf.c)
# trace.bpf.c and light.bpf.c are built a second time without kfunc calls
# (SS_KFUNCS=0), for kernels before 6.2 or without their own BTF
# (bpf/task_regs.bpf.h).
BPF_NAMES := $(patsubst bpf/%.bpf.c,%,$(BPF_SRCS)) trace_nokfunc light_nokfunc top_nokfunc
SKELS := $(patsubst %,$(OUTPUT)/%.skel.h,$(BPF_NAMES))
BPF_OBJS := $(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(BPF_NAMES))

# One folder per concern; user/calib/plain holds the arm64 plain driver
# (its own main(), built by mk/calib.mk).
USER_DIRS := cli trace model syms calib calib/kern report common top
USER_SRCS := $(foreach d,$(USER_DIRS),$(wildcard user/$(d)/*.c)) $(wildcard advisor/*.c)
USER_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(USER_SRCS))
LIB_OBJS := $(filter-out $(OUTPUT)/obj/user/cli/main.o,$(USER_OBJS))

UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))
INTEG_SRCS := $(wildcard tests/integration/test_*.c)
INTEG_BINS := $(patsubst tests/integration/%.c,$(OUTPUT)/tests/integration/%,$(INTEG_SRCS))
TEST_HELPER_SRCS := $(wildcard tests/lib/*.c)
TEST_HELPER_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(TEST_HELPER_SRCS))
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOAD_BINS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(WORKLOAD_SRCS))
# Checks that are scripts, not binaries (TAP on stdout, like cmocka's):
# the layout rules, and the man pages, completion and install (tests/pkg).
LAYOUT_TESTS := $(wildcard tests/layout/test_*.sh tests/pkg/test_*.sh)

# Each compile writes the headers it read into a .d file next to its
# output (-MMD; -MP adds a rule per header so that a removed header does not
# stop the build), and make reads those back: an object is rebuilt when a
# header it includes changes, and only then. A changed Makefile (flags)
# rebuilds everything.
DEPFLAGS = -MMD -MP -MF $@.d -MT $@

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: spinscope all deps test unit integration demo asan asan-unit asan-inputs clean workloads check-deps test-loaded

all: check-deps spinscope

# Fails early, with the exact command, when a -dev package is missing (as
# root it installs them). Every compile below has it as an order-only
# prerequisite: under -j no compiler starts before the packages are there,
# and a finished check never makes anything rebuild.
# DEPS_CHECK=0: a build whose packages something else provides (the Debian
# build: Build-Depends in debian/control) checks nothing.
DEPS_CHECK ?= 1
check-deps:
	$(Q)[ "$(DEPS_CHECK)" = 0 ] || ./mk/deps.sh check $(DEB_DEPS)

deps:
	$(Q)./mk/deps.sh install $(DEB_DEPS)

$(OUTPUT) $(OUTPUT)/bpf:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c Makefile | $(OUTPUT)/bpf check-deps
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX_DIR) -Ibpf -Wall -Werror \
		$(BPF_CFLAGS) -MMD -MP -MF $@.d -MT $@ -c $< -o $@.tmp.o
	$(Q)$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

# The builds without kfuncs of the objects that call them (task_regs.bpf.h):
# user space loads them on kernels whose own BTF lacks bpf_rdonly_cast.
$(OUTPUT)/bpf/%_nokfunc.bpf.o: bpf/%.bpf.c Makefile | $(OUTPUT)/bpf check-deps
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX_DIR) -Ibpf -Wall -Werror \
		-DSS_KFUNCS=0 $(BPF_CFLAGS) -MMD -MP -MF $@.d -MT $@ -c $< -o $@.tmp.o
	$(Q)$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

# The skeletons are generated headers: they must exist before the first
# compile (order-only); after that the .d files say who includes them.
$(OUTPUT)/obj/%.o: %.c Makefile | $(SKELS) check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/lib -c $< -o $@

$(OUTPUT)/spinscope: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $^ $(LDFLAGS) $(LIBS) -o $@

# ./spinscope points at the normal build; sanitizer builds stay in their folder.
spinscope: $(OUTPUT)/spinscope
	$(Q)[ "$(OUTPUT)" != "build" ] || ln -sf build/spinscope spinscope

$(OUTPUT)/tests/%: tests/%.c $(LIB_OBJS) $(TEST_HELPER_OBJS) Makefile | check-deps
	$(call msg,CC-TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/lib $< $(LIB_OBJS) $(TEST_HELPER_OBJS) $(LDFLAGS) $(LIBS) -lcmocka -o $@

# Workloads keep frame pointers and symbols: tests name their functions.
$(OUTPUT)/workloads/%: tests/workloads/%.c Makefile | check-deps
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread $(DEPFLAGS) $< -o $@ -lm

workloads: $(WORKLOAD_BINS)

test: check-deps spinscope $(UNIT_BINS) $(INTEG_BINS) workloads
	$(Q)OUTPUT=$(OUTPUT) ./tests/run.sh $(LAYOUT_TESTS) $(UNIT_BINS) $(INTEG_BINS)

# The layout and package scripts among them run spinscope (--help, the
# man pages) and README's commands against hot_lock: built here too, so
# that `make asan-unit` on a fresh clone skips nothing (CI=true fails a skip).
unit: check-deps spinscope $(OUTPUT)/workloads/hot_lock $(UNIT_BINS)
	$(Q)OUTPUT=$(OUTPUT) ./tests/run.sh $(LAYOUT_TESTS) $(UNIT_BINS)

# The tests must hold on a loaded machine: `make test` twice in a row with
# two CPU burners beside it (issue 8). It runs `make test` itself, so that
# what mk/*.mk add to `test` (the AArch64 binary the qemu test runs) is
# there too; the prerequisites are built first, before the burners start.
# The burners are this recipe's own children and end with it.
test-loaded: check-deps spinscope $(UNIT_BINS) $(INTEG_BINS) workloads
	$(Q)yes >/dev/null & b1=$$!; yes >/dev/null & b2=$$!; \
	trap 'kill $$b1 $$b2 2>/dev/null' EXIT INT TERM; \
	for run in 1 2; do \
		echo "test-loaded: run $$run of 2, beside two CPU burners; $$(uptime)"; \
		$(MAKE) --no-print-directory test || exit 1; \
	done

integration: check-deps spinscope $(INTEG_BINS) workloads
	$(Q)OUTPUT=$(OUTPUT) ./tests/run.sh $(INTEG_BINS)

demo: check-deps spinscope
	$(Q)$(OUTPUT)/spinscope demo

# Same tests, built with AddressSanitizer, UBSan and LeakSanitizer into
# their own folder: about 30 minutes here with the build, run by .ci/run.
asan:
	$(Q)$(MAKE) --no-print-directory OUTPUT=build-asan SAN=1 test

# The unit tests alone under the sanitizers: a few minutes, for a quick
# check while working (CI runs the whole `make asan`).
asan-unit:
	$(Q)$(MAKE) --no-print-directory OUTPUT=build-asan SAN=1 unit

# The integration tests that feed spinscope what a hostile target, a
# neighbour or a broken file would (names with control bytes, recordings
# of wrong types and sizes, bad arguments), under the sanitizers too:
# about 4 minutes, for a quick check while working (docs/RELIABILITY.md).
ASAN_INPUT_TESTS := test_hostile test_recording_e2e test_top_recording test_trace_errors
asan-inputs:
	$(Q)$(MAKE) --no-print-directory OUTPUT=build-asan SAN=1 integration \
		INTEG_BINS="$(addprefix build-asan/tests/integration/,$(ASAN_INPUT_TESTS))"

clean:
	$(Q)rm -rf build build-asan spinscope

-include $(patsubst %.o,%.o.d,$(USER_OBJS) $(TEST_HELPER_OBJS) $(BPF_OBJS)) \
	$(patsubst %,%.d,$(UNIT_BINS) $(INTEG_BINS) $(WORKLOAD_BINS))

# Topic makefiles (mk/<topic>.mk) add targets and DEB_DEPS without editing
# this file; included last so they never change the default goal.
-include $(wildcard mk/*.mk)
