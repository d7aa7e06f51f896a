#!/bin/sh
# spinscope's version, from git: a tag v1.2.3 is "1.2.3"; commits after it
# are "1.2.3+git5.gabc1234"; before the first tag the base below stands for
# the tag ("0.1.0+git487.gee355b4"). Uncommitted changes add ".dirty".
# Debian takes the result as is (native package: no hyphen). Outside a git
# checkout (a source copy) the caller passes SS_VERSION instead.
base=0.1.0
cd "$(dirname "$0")/.." || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "$base"
	exit 0
fi
hash=$(git rev-parse --short=7 HEAD) || exit 1
if d=$(git describe --tags --match 'v[0-9]*' --long 2>/dev/null); then
	# v1.2.3-5-gabc1234
	n=${d%-g*}; n=${n##*-}
	tag=${d%-*-g*}; base=${tag#v}
else
	n=$(git rev-list --count HEAD)
fi
v=$base
[ "$n" = 0 ] || v="$base+git$n.g$hash"
git diff --quiet HEAD -- 2>/dev/null || v="$v.dirty"
echo "$v"
