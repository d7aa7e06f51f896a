# `make deb`: the Debian package (mk/deb.sh, debian/), lintian-clean.
# `make test-deb`: installs it with apt-get on a fresh Debian 12 root made
# by debootstrap (cached in $(OUTPUT)/debroot) and runs it there as root
# (tests/pkg/deb_chroot.sh). Both skip what has not changed.

DEB_DEPS += debhelper dpkg-dev lintian debootstrap python3

.PHONY: deb test-deb
deb: check-deps
	$(Q)OUTPUT=$(OUTPUT) ./mk/deb.sh

test-deb: deb $(OUTPUT)/workloads/hot_lock
	$(Q)OUTPUT=$(OUTPUT) ./tests/pkg/deb_chroot.sh
