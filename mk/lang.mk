# Workloads in the languages whose runtimes the advice words in their own
# terms (advisor/runtime.h): Rust std::sync, C++ std::mutex and
# std::shared_mutex, Go's sync.Mutex, CPython threads on the GIL (a script,
# tests/workloads/lang/gil_threads.py) and Java (mk/advice.mk builds
# tests/workloads/java/, SyncStorm among them), built with Debian's
# toolchains by `make lang-workloads` and before the end-to-end test that
# traces them (tests/integration/test_lang_e2e.c).
LANG_DEB_DEPS := rustc golang-go g++ python3
DEB_DEPS += $(LANG_DEB_DEPS)
LANG_WL := $(OUTPUT)/workloads/lang
LANG_WORKLOADS := $(LANG_WL)/mutex_rs $(LANG_WL)/mutex_cxx $(LANG_WL)/go_mutex $(LANG_WL)/tail_unlock

# Frame pointers everywhere they can be asked for: the tests name functions.
$(LANG_WL)/mutex_rs: tests/workloads/lang/mutex_rs.rs mk/lang.mk | check-deps
	$(call msg,RUSTC,$@)
	$(Q)mkdir -p $(@D) && rustc -O -g -C force-frame-pointers=yes $< -o $@

$(LANG_WL)/mutex_cxx: tests/workloads/lang/mutex_cxx.cc mk/lang.mk | check-deps
	$(call msg,CXX-WL,$@)
	$(Q)mkdir -p $(@D) && g++ -std=gnu++17 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
	  -pthread $< -o $@

# gcc -O2 turns the unlock that ends acc_long_section() into a tail call.
$(LANG_WL)/tail_unlock: tests/workloads/lang/tail_unlock.c mk/lang.mk | check-deps
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(@D) && $(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread $< -o $@

# Go's caches stay in the build folder, not in $HOME.
$(LANG_WL)/go_mutex: tests/workloads/lang/go_mutex/main.go mk/lang.mk | check-deps
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D) && GOCACHE=$(abspath $(OUTPUT))/gocache GOPATH=$(abspath $(OUTPUT))/gopath \
	  GO111MODULE=off go build -o $(abspath $@) ./$(<D)

lang-workloads: $(LANG_WORKLOADS) $(JAVA_WORKLOADS)
$(OUTPUT)/tests/integration/test_lang_e2e: | $(LANG_WORKLOADS) $(JAVA_WORKLOADS)
# (the runtime detection's unit test reads the Rust and Go builds too)
$(OUTPUT)/tests/unit/syms/test_syms_runtime: | $(LANG_WORKLOADS)
.PHONY: lang-workloads
