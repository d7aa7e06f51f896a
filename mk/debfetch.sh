#!/bin/bash
# Downloads Debian packages of any suite and architecture through a PRIVATE
# apt configuration under DIR, without touching the system's sources, lists
# or cache (the kernel matrix needs bullseye's and trixie's kernels, the
# arm64 build needs bookworm's :arm64 -dev packages).
#
# Usage: mk/debfetch.sh DIR SUITE ARCH PKG...
#   Prints the path of each package's .deb, one a line, in the order given.
#   A PKG whose name ends in '^' is a metapackage followed to the first
#   package it depends on (linux-image-amd64^ -> linux-image-6.1.0-N-amd64).
#   Everything lives in DIR/SUITE-ARCH/: sources.list, lists/, cache/,
#   debs/. A .deb already there is not fetched again; the package lists are
#   fetched once, and again only when a package is not found in them.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 DIR SUITE ARCH PKG..." >&2; exit 2; }
dir=$1/$2-$3 suite=$2 arch=$3
shift 3
die() { echo "debfetch: $*" >&2; exit 1; }

mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
dir=$(realpath "$dir")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"
mirror=${DEBFETCH_MIRROR:-http://deb.debian.org/debian}
echo "deb [signed-by=$keyring] $mirror $suite main" > "$dir/sources.list"

apt_opts=(-q -o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
	-o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts=-
	-o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
	-o APT::Get::AllowUnauthenticated=false)

update_lists() {
	apt-get "${apt_opts[@]}" update >"$dir/update.log" 2>&1 ||
		die "apt-get update of $suite/$arch from $mirror failed (see $dir/update.log)"
}
ls "$dir/lists/"*_Packages* >/dev/null 2>&1 || update_lists

# The concrete package a metapackage stands for.
resolve() {
	local meta=$1 real
	real=$(apt-cache "${apt_opts[@]}" depends "$meta" 2>/dev/null |
		awk '/^ *Depends: / && $2 !~ /^</ {sub(/:.*/, "", $2); print $2; exit}')
	[ -n "$real" ] || return 1
	echo "$real"
}

for want in "$@"; do
	pkg=$want
	if [ "${want%^}" != "$want" ]; then
		# A cached resolution keeps runs offline once everything is fetched.
		if [ -s "$dir/debs/${want%^}.resolved" ]; then
			pkg=$(cat "$dir/debs/${want%^}.resolved")
		else
			pkg=$(resolve "${want%^}") || { update_lists; pkg=$(resolve "${want%^}"); } ||
				die "no package ${want%^} in $suite/$arch"
			echo "$pkg" > "$dir/debs/${want%^}.resolved"
		fi
	fi
	deb=$(ls "$dir/debs/${pkg}_"*"_$arch.deb" "$dir/debs/${pkg}_"*_all.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		(cd "$dir/debs" && apt-get "${apt_opts[@]}" download "$pkg" >>"$dir/download.log" 2>&1) ||
			{ update_lists; (cd "$dir/debs" && apt-get "${apt_opts[@]}" download "$pkg" >>"$dir/download.log" 2>&1); } ||
			die "apt-get download $pkg ($suite/$arch) failed (see $dir/download.log)"
		deb=$(ls "$dir/debs/${pkg}_"*.deb | head -1)
	fi
	echo "$deb"
done
