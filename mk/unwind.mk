# User-stack unwinding through code without frame pointers: the .eh_frame
# reader (user/syms/cfi_table.c) uses elfutils libdw; the unit test's
# fixture library is built without frame pointers, with unwind tables.

DEB_DEPS += libdw-dev
LIBS += -ldw

UNWIND_FIX := $(OUTPUT)/fixtures/libunwind_fixture.so

$(UNWIND_FIX): tests/fixtures/unwind_fixture.c mk/unwind.mk
	$(call msg,CC-FIX,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -fPIC -shared \
	  -Wall -Wextra -Werror $< -o $@

$(OUTPUT)/tests/unit/syms/test_cfi_table: $(UNWIND_FIX)

# Built as a user would build it (-O2 with frame pointers), calling the
# system's glibc, which has none.
$(OUTPUT)/workloads/frameless_callers: tests/workloads/frameless_callers.c $(wildcard tests/workloads/*.h)
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread $< -o $@
