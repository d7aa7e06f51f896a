# Symbolization: test binaries built from one source in many variants
# and the resolution benchmark (`make bench-syms`). The ELF loader's
# fuzz target is in mk/fuzz.mk.

DEB_DEPS += binutils libstdc++-12-dev g++

# C++ and Rust names are demangled with libiberty (libiberty-dev, in the
# Makefile's DEB_BUILD_DEPS; user/syms/demangle.c).
LIBS += -liberty

comma := ,
SYMS_FIX_SRC := tests/fixtures/syms_fixture.c
SYMS_FIX := $(OUTPUT)/fixtures
SYMS_FIX_CC := $(CC) -std=gnu11 -g -Wall -Wextra -Werror
# Test debug root, so that tests never write to /usr/lib/debug.
SYMS_DEBUG_ROOT := $(SYMS_FIX)/debugroot

SYMS_FIXTURES := $(addprefix $(SYMS_FIX)/,syms_fp_pie syms_nopie syms_nofp syms_dynsym \
	syms_debuglink syms_debuglink_nobid syms_buildid syms_shlib libsyms_fixture.so \
	syms_ibt libsyms_fixture_ver.so syms_cxx syms_arm64)
# What objdump (binutils, not our reader) says each PLT stub is, for the
# tests to compare with: "ADDR <name@plt>:" lines.
SYMS_PLT_FIXTURES := syms_nopie syms_fp_pie syms_ibt libsyms_fixture.so syms_cxx syms_arm64
SYMS_FIXTURES += $(patsubst %,$(SYMS_FIX)/%.plt,$(SYMS_PLT_FIXTURES))

ifeq ($(shell uname -m),aarch64)
SYMS_ARM64_CC ?= $(CC)
SYMS_ARM64_OBJDUMP ?= objdump
else
SYMS_ARM64_CC ?= aarch64-linux-gnu-gcc
SYMS_ARM64_OBJDUMP ?= aarch64-linux-gnu-objdump
endif
SYMS_CXX ?= g++
DEB_DEPS += gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu

# name, compiler flags: an unstripped build of the fixture
define syms_fixture
$(SYMS_FIX)/$(1): $(SYMS_FIX_SRC) mk/syms.mk | check-deps
	$$(call msg,CC-FIX,$$@)
	$(Q)mkdir -p $$(dir $$@)
	$(Q)$(SYMS_FIX_CC) $(2) -DSYMS_FIXTURE_VARIANT='"$(patsubst %.full,%,$(1))"' $$< -o $$@
endef

$(eval $(call syms_fixture,syms_fp_pie,-O1 -fno-omit-frame-pointer -fPIE -pie))
$(eval $(call syms_fixture,syms_nopie,-O1 -fno-omit-frame-pointer -fno-pie -no-pie))
$(eval $(call syms_fixture,syms_nofp,-O2 -fomit-frame-pointer -fPIE -pie))
$(eval $(call syms_fixture,syms_dynsym.full,-O1 -fno-omit-frame-pointer -fPIE -pie -rdynamic))
$(eval $(call syms_fixture,syms_debuglink.full,-O1 -fno-omit-frame-pointer -fPIE -pie -Wl$(comma)--build-id))
$(eval $(call syms_fixture,syms_debuglink_nobid.full,-O1 -fno-omit-frame-pointer -fPIE -pie -Wl$(comma)--build-id=none))
$(eval $(call syms_fixture,syms_buildid.full,-O1 -fno-omit-frame-pointer -fPIE -pie -Wl$(comma)--build-id))
$(eval $(call syms_fixture,libsyms_fixture.so,-O1 -fno-omit-frame-pointer -fPIC -shared -DSYMS_FIXTURE_LIB))
# x86 IBT: calls go through .plt.sec, .plt holds the lazy-binding stubs
# (on AArch64 the flag means BTI and the layout stays that of .plt).
$(eval $(call syms_fixture,syms_ibt,-O1 -fno-omit-frame-pointer -fPIE -pie $(if $(filter x86,$(ARCH)),-fcf-protection=full -Wl$(comma)-z$(comma)ibtplt,-mbranch-protection=standard)))
# Symbol versions, as glibc has: names in .symtab carry "@SYMS_1"/"@@SYMS_2".
$(eval $(call syms_fixture,libsyms_fixture_ver.so,-O1 -fPIC -shared -DSYMS_FIXTURE_LIB -DSYMS_FIXTURE_VERSIONED -Wl$(comma)--version-script=tests/fixtures/syms_fixture.ver))
$(SYMS_FIX)/libsyms_fixture_ver.so: tests/fixtures/syms_fixture.ver

# C++: mangled names (tests/fixtures/syms_fixture_cxx.cc).
$(SYMS_FIX)/syms_cxx: tests/fixtures/syms_fixture_cxx.cc mk/syms.mk
	$(call msg,CXX-FIX,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(SYMS_CXX) -std=gnu++17 -g -O1 -fno-omit-frame-pointer -fPIE -pie -Wall -Wextra -Werror \
	  -Wno-pmf-conversions $< -o $@

# AArch64 PLT stubs decode differently: the same source, cross-built,
# read as a file only.
$(SYMS_FIX)/syms_arm64: $(SYMS_FIX_SRC) mk/syms.mk
	$(call msg,CC-FIX,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(SYMS_ARM64_CC) -std=gnu11 -g -Wall -Wextra -Werror -O1 -fno-omit-frame-pointer -fPIE -pie \
	  -DSYMS_FIXTURE_VARIANT='"syms_arm64"' $< -o $@

SYMS_OBJDUMP = objdump
$(SYMS_FIX)/syms_arm64.plt: SYMS_OBJDUMP = $(SYMS_ARM64_OBJDUMP)
$(SYMS_FIX)/%.plt: $(SYMS_FIX)/%
	$(call msg,OBJDUMP,$@)
	$(Q)$(SYMS_OBJDUMP) -d $< | grep '@plt>:$$' > $@.tmp && mv $@.tmp $@


# Exports only: stripped of .symtab, names left in .dynsym.
$(SYMS_FIX)/syms_dynsym: $(SYMS_FIX)/syms_dynsym.full
	$(call msg,STRIP,$@)
	$(Q)strip --strip-all -o $@ $<

# Stripped, debug file next to it, found through .gnu_debuglink (checked
# by build-id, or by the link's CRC when the binary has no build-id).
$(SYMS_FIX)/syms_debuglink $(SYMS_FIX)/syms_debuglink_nobid: $(SYMS_FIX)/%: $(SYMS_FIX)/%.full
	$(call msg,DEBUGLNK,$@)
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)strip --strip-all -o $@.tmp $<
	$(Q)cd $(dir $@) && objcopy --add-gnu-debuglink=$(notdir $@).debug $(notdir $@).tmp $(notdir $@)
	$(Q)rm -f $@.tmp

# Stripped, debug file only in the test debug root under its build-id.
$(SYMS_FIX)/syms_buildid: $(SYMS_FIX)/syms_buildid.full
	$(call msg,BUILD-ID,$@)
	$(Q)id=$$(readelf -n $< | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'); \
	  [ -n "$$id" ] || { echo "no build-id in $<" >&2; exit 1; }; \
	  rm -rf $(SYMS_DEBUG_ROOT); d=$(SYMS_DEBUG_ROOT)/.build-id/$$(echo $$id | cut -c1-2); mkdir -p $$d; \
	  objcopy --only-keep-debug $< $$d/$$(echo $$id | cut -c3-).debug
	$(Q)strip --strip-all -o $@ $<

# A PIE calling into a shared object, found next to it via $ORIGIN.
$(SYMS_FIX)/syms_shlib: $(SYMS_FIX_SRC) $(SYMS_FIX)/libsyms_fixture.so
	$(call msg,CC-FIX,$@)
	$(Q)$(SYMS_FIX_CC) -O1 -fno-omit-frame-pointer -fPIE -pie -DSYMS_FIXTURE_USE_LIB \
	  -DSYMS_FIXTURE_VARIANT='"syms_shlib"' $< \
	  -L$(SYMS_FIX) -lsyms_fixture -Wl,-rpath,'$$ORIGIN' -o $@

syms-fixtures: $(SYMS_FIXTURES)
.PHONY: syms-fixtures bench-syms

# The symbolization tests run the fixtures.
$(patsubst tests/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/syms/test_syms_*.c tests/integration/test_syms_*.c)): $(SYMS_FIXTURES)

# --- benchmark ---------------------------------------------------------------
$(OUTPUT)/bench/syms_resolve: bench/syms_resolve.c $(LIB_OBJS)
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(LDFLAGS) $(LIBS) -ldl -o $@

# The JIT case starts `java bench/syms_idle.java` (a JVM with a perf map).
bench-syms: $(OUTPUT)/bench/syms_resolve
	$(Q)./mk/deps.sh check default-jre-headless
	$(Q)$(OUTPUT)/bench/syms_resolve
