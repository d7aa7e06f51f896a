# The full spinscope for AArch64 (tracer, advisor, calibrate, its tests and
# workloads), cross-built on another host by `make ARCH=arm64` into
# build/aarch64 (the Makefile's OUTPUT for a cross build): Debian's
# gcc-aarch64-linux-gnu, and a sysroot of bookworm's :arm64 libraries and
# -dev packages that the dependency step (check-deps, deps) unpacks under
# the build folder (mk/arm64-sysroot.sh: apt-get download through a private
# apt configuration and dpkg -x; nothing is installed). The BPF objects are
# the same clang -target bpf build with the arm64 vmlinux headers. On an
# AArch64 host ARCH=arm64 is the native build and none of this applies.

# libmicrohttpd's own libraries: GnuTLS and what it links.
ARM64_GNUTLS_PKGS := libgnutls30 libgmp10 libhogweed6 libnettle8 libidn2-0 \
	libunistring2 libp11-kit0 libtasn1-6 libffi8
ARM64_LIB_PKGS := libbpf-dev libbpf1 libelf-dev libelf1 zlib1g-dev zlib1g libiberty-dev \
	libzstd-dev libzstd1 libjson-c-dev libjson-c5 libnuma-dev libnuma1 \
	libcmocka-dev libcmocka0 libprotobuf-c-dev libprotobuf-c1 \
	libmicrohttpd-dev libmicrohttpd12 libssl-dev libssl3 $(ARM64_GNUTLS_PKGS) \
	libdw-dev libdw1 liblzma5 libbz2-1.0 libcapstone-dev libcapstone4 \
	libncurses-dev libncursesw6 libncurses6 libtinfo6
# Where mk/debfetch.sh keeps its private apt state and downloads.
DEBFETCH_DIR ?= $(OUTPUT)/apt

ifeq ($(ARCH),arm64)
ifneq ($(shell uname -m),aarch64)
ARM64_SYSROOT ?= $(OUTPUT)/sysroot
ARM64_TRIPLET := aarch64-linux-gnu
# The cross compiler and its libc come with mk/calib.mk's DEB_DEPS (with
# its C++ runtime); the demangler (mk/syms.mk) links libiberty, from
# ARM64_LIB_PKGS.
DEB_DEPS += debian-archive-keyring libstdc++-12-dev-arm64-cross
# The sysroot's headers go with the compiler itself, so that rules with
# their own flags (mk/exports.mk's generated code) find them too; its
# multiarch folder holds what differs by architecture (openssl's
# opensslconf.h).
ifeq ($(origin CC),default)
CC := $(ARM64_TRIPLET)-gcc -isystem $(ARM64_SYSROOT)/usr/include \
	-isystem $(ARM64_SYSROOT)/usr/include/$(ARM64_TRIPLET)
endif
ARM64_LIBDIRS := $(ARM64_SYSROOT)/usr/lib/$(ARM64_TRIPLET) $(ARM64_SYSROOT)/lib/$(ARM64_TRIPLET)
LDFLAGS += $(foreach d,$(ARM64_LIBDIRS),-L$(d) -Wl,-rpath-link,$(d))

$(ARM64_SYSROOT)/.packages: mk/arm64.mk mk/arm64-sysroot.sh mk/debfetch.sh
	$(call msg,SYSROOT,$(ARM64_SYSROOT))
	$(Q)./mk/arm64-sysroot.sh $(ARM64_SYSROOT) $(DEBFETCH_DIR) $(ARM64_LIB_PKGS)

# The dependency step unpacks it; nothing compiles before it is there.
check-deps deps: $(ARM64_SYSROOT)/.packages
$(USER_OBJS) $(TEST_HELPER_OBJS): | $(ARM64_SYSROOT)/.packages
endif
endif
