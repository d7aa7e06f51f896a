#!/bin/bash
# The Debian 12 minbase root the package test installs into, made once by
# debootstrap and kept under build/ (CI keeps build/ between runs), so the
# next run reuses it. Usage: debroot.sh DIR (prints DIR/root when ready).
# A root from an interrupted debootstrap is never used: it is made in
# DIR/root.tmp and renamed only when complete.
set -euo pipefail
dir=${1:?usage: debroot.sh DIR}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$dir"
if [ ! -x "$dir/root/usr/bin/apt-get" ]; then
	rm -rf "$dir/root.tmp"
	echo "debroot: debootstrap --variant=minbase bookworm from $mirror (cached in $dir)" >&2
	debootstrap --variant=minbase bookworm "$dir/root.tmp" "$mirror" >"$dir/debootstrap.log" 2>&1 || {
		tail -20 "$dir/debootstrap.log" >&2
		exit 1
	}
	# Package lists now, so that each run need not fetch them (a run whose
	# install fails on stale lists updates them in its own overlay).
	cat /etc/resolv.conf >"$dir/root.tmp/etc/resolv.conf" 2>/dev/null
	chroot "$dir/root.tmp" apt-get -q -o APT::Sandbox::User=root update >>"$dir/debootstrap.log" 2>&1 || {
		tail -5 "$dir/debootstrap.log" >&2
		exit 1
	}
	mv "$dir/root.tmp" "$dir/root"
fi
echo "$dir/root"
