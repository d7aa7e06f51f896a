# The advice's end-to-end cases (tests/integration/test_advice_cases.c)
# trace sysbench's mutex benchmark, a real program on glibc's own mutex.
DEB_DEPS += sysbench

# ... and two Java programs, on Debian's default JDK.
DEB_DEPS += default-jdk-headless
JAVA_WORKLOADS := $(patsubst tests/workloads/java/%.java,$(OUTPUT)/workloads/java/%.class,\
	$(wildcard tests/workloads/java/*.java))
$(OUTPUT)/workloads/java/%.class: tests/workloads/java/%.java
	$(call msg,JAVAC,$@)
	$(Q)mkdir -p $(@D) && javac --add-exports java.base/jdk.internal.vm.annotation=ALL-UNNAMED -d $(@D) $<
workloads: $(JAVA_WORKLOADS)
