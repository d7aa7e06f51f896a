# User-stack unwinding through code without frame pointers: the .eh_frame
# reader (user/syms/cfi_table.c) uses elfutils libdw; the unit test's
# fixture library is built without frame pointers, with unwind tables.

DEB_DEPS += libdw-dev
LIBS += -ldw

UNWIND_FIX_DIR := $(OUTPUT)/fixtures
UNWIND_FIX_FLAGS := -std=gnu11 -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -fPIC -shared \
	-Wall -Wextra -Werror
UNWIND_FIXTURES := $(addprefix $(UNWIND_FIX_DIR)/,libunwind_fixture.so libunwind_fixture_nohdr.so \
	libunwind_fixture_arm64.so)

# name, compiler, extra flags
define unwind_fixture
$(UNWIND_FIX_DIR)/$(1): tests/fixtures/unwind_fixture.c mk/unwind.mk
	$$(call msg,CC-FIX,$$@)
	$(Q)mkdir -p $$(dir $$@)
	$(Q)$(2) $(UNWIND_FIX_FLAGS) $(3) $$< -o $$@
endef

$(eval $(call unwind_fixture,libunwind_fixture.so,$(CC),))
# No .eh_frame_hdr: the builder needs its table of functions.
$(eval $(call unwind_fixture,libunwind_fixture_nohdr.so,$(CC),-Wl$(comma)--no-eh-frame-hdr))
# AArch64: the return address stays in x30 in leaf code.
$(eval $(call unwind_fixture,libunwind_fixture_arm64.so,$(SYMS_ARM64_CC),))

$(OUTPUT)/tests/unit/syms/test_cfi_table: $(UNWIND_FIXTURES)

# Built as a user would build it (-O2 with frame pointers), calling the
# system's glibc, which has none.
$(OUTPUT)/workloads/frameless_callers: tests/workloads/frameless_callers.c $(wildcard tests/workloads/*.h)
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread $< -o $@
