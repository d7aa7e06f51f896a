# `make install`: the binary (its BPF objects are embedded), the man pages,
# the bash completion, the host agent's systemd unit and its Prometheus
# rules (packaging/), and nothing else, under $(DESTDIR)$(PREFIX).
# SYSTEMDUNITDIR: debian/rules sets /lib/systemd/system (Debian 12's place).
# tests/pkg/test_install.sh checks the list; debian/rules installs with it.
# `make uninstall` removes the same files.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DATADIR ?= $(PREFIX)/share/spinscope

DEB_DEPS += bash-completion

INSTALL_FILES = $(DESTDIR)$(BINDIR)/spinscope \
	$(foreach p,$(notdir $(MAN_PAGES)),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(p)) \
	$(DESTDIR)$(BASHCOMPDIR)/spinscope \
	$(DESTDIR)$(SYSTEMDUNITDIR)/spinscope-top.service \
	$(DESTDIR)$(DATADIR)/spinscope-top.rules.yml

.PHONY: install uninstall
install: spinscope $(MAN_PAGES)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(OUTPUT)/spinscope $(DESTDIR)$(BINDIR)/spinscope
	$(Q)for p in $(MAN_PAGES); do \
		n=$${p##*/}; \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${n##*.}/$$n || exit 1; \
	done
	$(Q)install -D -m 0644 completion/spinscope.bash $(DESTDIR)$(BASHCOMPDIR)/spinscope
	$(Q)sed 's|/usr/bin/spinscope|$(BINDIR)/spinscope|' packaging/spinscope-top.service > $(OUTPUT)/spinscope-top.service
	$(Q)install -D -m 0644 $(OUTPUT)/spinscope-top.service $(DESTDIR)$(SYSTEMDUNITDIR)/spinscope-top.service
	$(Q)install -D -m 0644 packaging/spinscope-top.rules.yml $(DESTDIR)$(DATADIR)/spinscope-top.rules.yml

uninstall:
	$(Q)rm -f $(INSTALL_FILES)
