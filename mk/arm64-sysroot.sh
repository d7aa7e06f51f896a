#!/bin/bash
# Unpacks Debian bookworm's :arm64 libraries and their -dev packages into a
# sysroot for the cross build of the full spinscope (mk/arm64.mk), without
# installing anything: mk/debfetch.sh downloads them through a private apt
# configuration, dpkg -x unpacks them. Absolute symlinks (libz.so ->
# /lib/aarch64-linux-gnu/...) are made relative so they resolve inside it.
#
# Usage: mk/arm64-sysroot.sh SYSROOT APT-DIR PKG...
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 SYSROOT APT-DIR PKG..." >&2; exit 2; }
sysroot=$1 aptdir=$2
shift 2
debs=$("$(dirname "$0")/debfetch.sh" "$aptdir" "${ARM64_SUITE:-bookworm}" arm64 "$@")
rm -rf "$sysroot.tmp"
mkdir -p "$sysroot.tmp"
for deb in $debs; do
	dpkg-deb -x "$deb" "$sysroot.tmp"
done
root=$(realpath "$sysroot.tmp")
find "$root" -type l -lname '/*' | while read -r link; do
	target=$(readlink "$link")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
done
rm -rf "$sysroot"
mv "$sysroot.tmp" "$sysroot"
echo "$debs" | xargs -n1 basename > "$sysroot/.packages"
