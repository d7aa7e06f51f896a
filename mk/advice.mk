# The advice's end-to-end cases (tests/integration/test_advice_cases.c)
# trace sysbench's mutex benchmark, a real program on glibc's own mutex.
DEB_DEPS += sysbench

# ... and two Java programs, on Debian's default JDK.
DEB_DEPS += default-jdk-headless
JAVA_WORKLOADS := $(patsubst tests/workloads/java/%.java,$(OUTPUT)/workloads/java/%.class,\
	$(wildcard tests/workloads/java/*.java))
$(OUTPUT)/workloads/java/%.class: tests/workloads/java/%.java
	$(call msg,JAVAC,$@)
	$(Q)mkdir -p $(@D) && javac -d $(@D) $<
workloads: $(JAVA_WORKLOADS)

# The any-runtime cases: the convoy program again with a home-made futex
# lock and no symbols at all, so that only what the kernel measured can
# call it a lock (tests/integration/test_wait_shapes.c).
$(OUTPUT)/workloads/convoy_lock_home: tests/workloads/convoy_lock.c Makefile | check-deps
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread -DHOME_LOCK $< -o $@ && strip --strip-all $@
workloads: $(OUTPUT)/workloads/convoy_lock_home

# ... and CPython's GIL, on Debian's python3: the script is the workload.
DEB_DEPS += python3
$(OUTPUT)/workloads/gil_threads: tests/workloads/gil_threads.py
	$(call msg,PY-WL,$@)
	$(Q)mkdir -p $(dir $@) && install -m 0755 $< $@
workloads: $(OUTPUT)/workloads/gil_threads
