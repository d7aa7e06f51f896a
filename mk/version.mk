# The version (mk/version.sh: git describe, or SS_VERSION=... from a source
# copy such as the Debian build's) reaches the code through one generated
# header. It is rewritten only when the version changes, so a new commit
# recompiles the few files that print it, and nothing else.

SS_VERSION ?= $(shell ./mk/version.sh)
SS_VERSION_H := $(OUTPUT)/common/ss_version.h

.PHONY: ss-version-force
$(SS_VERSION_H): ss-version-force
	$(Q)mkdir -p $(dir $@)
	$(Q)printf '#define SS_VERSION "%s"\n' '$(SS_VERSION)' > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

# Generated before any compile, like the skeletons (the .d files then say
# which objects include it).
$(USER_OBJS) $(TEST_HELPER_OBJS) $(UNIT_BINS) $(INTEG_BINS): | $(SS_VERSION_H)
