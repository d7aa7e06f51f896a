#!/bin/bash
# `spinscope --version` (and -V): the version git gives (mk/version.sh, as
# the build took it), then what the build runs with: libbpf, the unwinder
# and the exports, each with the version of the library loaded. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh

v=$("$SPINSCOPE" --version 2>&1)
rc=$?
[ $rc -eq 0 ] && [ "$("$SPINSCOPE" -V 2>&1)" = "$v" ] && tap OK "--version and -V exit 0 and agree" ||
	tap FAIL "--version and -V exit 0 and agree" "exit $rc" "$v"
want=$(grep -o 'define SS_VERSION "[^"]*"' "$OUTPUT/common/ss_version.h" | cut -d'"' -f2)
[ "$(head -1 <<<"$v")" = "spinscope $want" ] && tap OK "first line: spinscope $want" ||
	tap FAIL "first line is spinscope $want (the build's version)" "$(head -1 <<<"$v")"
# A version Debian can take: digits first, no hyphen (a native package).
[[ $want =~ ^[0-9]+\.[0-9]+\.[0-9]+([+.][a-z0-9.]+)?$ ]] && tap OK "$want is a Debian native version" ||
	tap FAIL "$want is a Debian native version (digits first, no hyphen)"
# The build took mk/version.sh's answer (make test rebuilds first); a
# dirty tree may have changed since, so only a clean one is compared.
now=$(mk/version.sh)
if [[ $now == *.dirty ]]; then
	tap OK "mk/version.sh: $now (uncommitted changes: not compared)"
else
	[ "$now" = "$want" ] && tap OK "mk/version.sh gives the built version" ||
		tap FAIL "mk/version.sh gives the built version" "$now != $want: rebuild"
fi
for what in "libbpf [v0-9]" "unwinder: .*libdw [0-9]" "exports: pprof.*Prometheus.*HTML"; do
	grep -qE "$what" <<<"$v" && tap OK "names /$what/: $(grep -oE "$what[^;,]*" <<<"$v" | head -1)" ||
		tap FAIL "names /$what/" "$v"
done
echo "1..$n"
[ "$failed" -eq 0 ]
