#!/bin/bash
# `make install` into a DESTDIR, under a PREFIX of ours and under the
# default one: exactly the binary, one man page per man/*.scd source, the
# bash completion, the agent's unit and rules land there (the unit's
# ExecStart naming the installed binary), with their modes, and nothing else; the
# installed binary runs; `make uninstall` removes them all. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make=${MAKE:-make}	# DEPS_CHECK=0: make test has checked the packages already

# The list expected under PREFIX: built from the sources, not written here.
expected() {	# expected PREFIX
	echo "$1/bin/spinscope 755"
	for scd in man/*.scd; do
		page=$(basename "$scd" .scd)
		echo "$1/share/man/man${page##*.}/$page 644"
	done
	echo "$1/share/bash-completion/completions/spinscope 644"
	echo "$1/lib/systemd/system/spinscope-top.service 644"
	echo "$1/share/spinscope/spinscope-top.rules.yml 644"
}

installed() {	# installed ROOT: every file and link under ROOT with its mode
	(cd "$1" && find . ! -type d -printf '/%P %m\n') | sort
}

for prefix in /opt/spinscope-test /usr/local; do
	root=$dest/${prefix//\//_}
	args=(DESTDIR="$root")
	[ "$prefix" = /usr/local ] || args+=(PREFIX="$prefix")
	out=$($make --no-print-directory -s install OUTPUT="$OUTPUT" DEPS_CHECK=0 "${args[@]}" 2>&1)
	if [ $? -ne 0 ]; then
		tap FAIL "make install ${args[*]}" "$out"
		continue
	fi
	diff=$(sets_differ "expected" "$(expected "$prefix" | sort)" "installed" "$(installed "$root")")
	[ -z "$diff" ] && tap OK "make install ${args[*]}: exactly $(expected "$prefix" | wc -l) files, modes right" ||
		tap FAIL "make install ${args[*]}: the files and modes expected" "$diff"
	unit=$root$prefix/lib/systemd/system/spinscope-top.service
	grep -qx "ExecStart=$prefix/bin/spinscope top --metrics 127.0.0.1:9464" "$unit" 2>/dev/null &&
		tap OK "the unit runs $prefix/bin/spinscope" ||
		tap FAIL "the unit runs $prefix/bin/spinscope" "$(grep ExecStart "$unit" 2>&1)"
	v=$("$root$prefix/bin/spinscope" --version 2>&1 | head -1)
	[ "$v" = "$("$SPINSCOPE" --version | head -1)" ] && tap OK "the installed binary runs: $v" ||
		tap FAIL "the installed binary runs" "$v"
	# Installed man pages are the built ones, readable by man.
	for page in "$OUTPUT"/man/*; do
		cmp -s "$page" "$root$prefix/share/man/man${page##*.}/${page##*/}" ||
			tap FAIL "installed ${page##*/} is $page"
	done
	out=$($make --no-print-directory -s uninstall OUTPUT="$OUTPUT" DEPS_CHECK=0 "${args[@]}" 2>&1)
	left=$(installed "$root")
	[ -z "$left" ] && tap OK "make uninstall ${args[*]} removes them" ||
		tap FAIL "make uninstall ${args[*]} removes them" "$out" "$left"
done
echo "1..$n"
[ "$failed" -eq 0 ]
