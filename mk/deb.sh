#!/bin/bash
# `make deb`: spinscope_VERSION_ARCH.deb in $OUTPUT/deb, built by
# dpkg-buildpackage (debian/) from a copy of the tree as git sees it,
# uncommitted changes included, and checked by lintian (no error, and no
# warning that debian/spinscope.lintian-overrides does not explain).
#
# Cheap when nothing changed: the copy lives on in $OUTPUT/deb/src with
# the files' own times and its build folder, so make rebuilds only what
# changed; and when the tree's content and version are those of the last
# package, nothing runs at all.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUTPUT:-build}/deb
src=$out/src/spinscope
version=${SS_VERSION:-$(mk/version.sh)}
mkdir -p "$src"

list=$(mktemp)
trap 'rm -f "$list" "$list.copy"' EXIT
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done >"$list"
key=$({ echo "$version"; tar -c --null -T "$list" --sort=name --mtime=@0 \
	--owner=0 --group=0 --numeric-owner | sha256sum; } | sha256sum | cut -d' ' -f1)
deb=$(ls "$out"/spinscope_*.deb 2>/dev/null | head -1 || true)
if [ -n "$deb" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	echo "deb: $deb is up to date"
	exit 0
fi

# The copy: remove what the tree no longer has, then copy (times kept).
tr '\0' '\n' <"$list" | sort >"$list.copy"
(cd "$src" && find . -path ./build -prune -o -path ./debian/spinscope -prune \
	-o -path ./debian/.debhelper -prune -o -type f -printf '%P\n') | sort |
	comm -13 "$list.copy" - | { grep -vE '^(debian/(files|.*substvars|debhelper-build-stamp)|spinscope)$' || true; } |
	(cd "$src" && xargs -r -d '\n' rm -f --)
tar -c --null -T "$list" | tar -x -C "$src"
# The changelog's first entry: git's version, the last commit's date (the
# package's files carry it: SOURCE_DATE_EPOCH).
date=$(date -R -d "@$(git log -1 --format=%ct)")
sed -i -e "1s/^spinscope ([^)]*)/spinscope ($version)/" \
	-e "0,/^ -- /s/^\( -- .*>  \).*/\1$date/" "$src/debian/changelog"

rm -f "$out"/spinscope_*.deb "$out/key"
(cd "$src" && dpkg-buildpackage -b -nc -us -uc -j2) >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
}
mv "$out"/src/spinscope_*.deb "$out"/
rm -f "$out"/src/spinscope_*.{buildinfo,changes}
deb=$(ls "$out"/spinscope_*.deb)
# lintian: errors and warnings fail, each override says why in its file.
lintian --fail-on error,warning --tag-display-limit 0 "$deb" || {
	echo "deb: lintian found errors or warnings in $deb" >&2
	exit 1
}
echo "$key" >"$out/key"
echo "deb: $deb ($(dpkg-deb -f "$deb" Installed-Size) KiB installed; Depends: $(dpkg-deb -f "$deb" Depends))"
