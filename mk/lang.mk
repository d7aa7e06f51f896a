# Workloads in the languages whose runtimes the advice words in their own
# terms (advisor/runtime.h): Rust std::sync, C++ std::mutex and
# std::shared_mutex, Go's sync.Mutex, CPython threads on the GIL (a script,
# tests/workloads/lang/gil_threads.py) and Java (mk/advice.mk builds
# tests/workloads/java/, SyncStorm among them). `make lang-workloads`
# builds them with Debian's toolchains; they are not in `make workloads`,
# so that a build without rustc and Go still tests the rest.
LANG_DEB_DEPS := rustc golang-go g++ python3
LANG_WL := $(OUTPUT)/workloads/lang
LANG_WORKLOADS := $(LANG_WL)/mutex_rs $(LANG_WL)/mutex_cxx $(LANG_WL)/go_mutex

lang-deps:
	$(Q)./mk/deps.sh check $(LANG_DEB_DEPS)

# Frame pointers everywhere they can be asked for: the tests name functions.
$(LANG_WL)/mutex_rs: tests/workloads/lang/mutex_rs.rs mk/lang.mk | lang-deps
	$(call msg,RUSTC,$@)
	$(Q)mkdir -p $(@D) && rustc -O -g -C force-frame-pointers=yes $< -o $@

$(LANG_WL)/mutex_cxx: tests/workloads/lang/mutex_cxx.cc mk/lang.mk | lang-deps
	$(call msg,CXX-WL,$@)
	$(Q)mkdir -p $(@D) && g++ -std=gnu++17 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
	  -pthread $< -o $@

# Go's caches stay in the build folder, not in $HOME.
$(LANG_WL)/go_mutex: tests/workloads/lang/go_mutex/main.go mk/lang.mk | lang-deps
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D) && GOCACHE=$(abspath $(OUTPUT))/gocache GOPATH=$(abspath $(OUTPUT))/gopath \
	  GO111MODULE=off go build -o $(abspath $@) ./$(<D)

lang-workloads: $(LANG_WORKLOADS) $(JAVA_WORKLOADS)
.PHONY: lang-workloads lang-deps
