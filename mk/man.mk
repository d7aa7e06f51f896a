# Man pages (issue 34): one scdoc source per command, man/<page>.<section>.scd
# -> $(OUTPUT)/man/<page>.<section>. scdoc 1.11 writes paragraph macros
# where none start a paragraph; mk/man-tidy.awk removes them so that
# `mandoc -T lint` has nothing to say (tests/pkg/test_man.sh checks it, and
# that each page lists exactly the options its command's --help lists).

DEB_DEPS += scdoc mandoc

MAN_SRCS := $(wildcard man/*.scd)
MAN_PAGES := $(patsubst man/%.scd,$(OUTPUT)/man/%,$(MAN_SRCS))
# The page's date: the last commit's, not today's, so that a rebuild of the
# same source is the same file (dpkg-buildpackage sets it from the changelog).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)

.PHONY: man
all: man
man: $(MAN_PAGES)

$(OUTPUT)/man/%: man/%.scd mk/man-tidy.awk | check-deps
	$(call msg,SCDOC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) scdoc < $< | awk -f mk/man-tidy.awk > $@

# The man-page test reads the built pages.
test unit: $(MAN_PAGES)
