# `make install`: the binary (its BPF objects are embedded), the man pages
# and the bash completion, and nothing else, under $(DESTDIR)$(PREFIX).
# tests/pkg/test_install.sh checks the list; debian/rules installs with it.
# `make uninstall` removes the same files.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

DEB_DEPS += bash-completion

INSTALL_FILES = $(DESTDIR)$(BINDIR)/spinscope \
	$(foreach p,$(notdir $(MAN_PAGES)),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(p)) \
	$(DESTDIR)$(BASHCOMPDIR)/spinscope

.PHONY: install uninstall
install: spinscope $(MAN_PAGES)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(OUTPUT)/spinscope $(DESTDIR)$(BINDIR)/spinscope
	$(Q)for p in $(MAN_PAGES); do \
		n=$${p##*/}; \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${n##*.}/$$n || exit 1; \
	done
	$(Q)install -D -m 0644 completion/spinscope.bash $(DESTDIR)$(BASHCOMPDIR)/spinscope

uninstall:
	$(Q)rm -f $(INSTALL_FILES)
