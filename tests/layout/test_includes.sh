#!/bin/bash
# The folder rule of docs/ARCHITECTURE.md, checked: every #include "..." in
# bpf/, user/ and advisor/ names a folder the including folder may include
# (the table under "## Which folder may include which"), each folder's
# README.md says the same as that table, and no source calls atoi().
# Prints TAP, as the cmocka tests do, for tests/run.sh. Run from the
# repository root (tests/run.sh's caller, make test, does).
set -u
doc=docs/ARCHITECTURE.md
. tests/lib/tap.sh

# "| `user/report` | ... | `model`, `syms` |" -> "user/report model syms"
rules=$(awk '/^## Which folder may include which/ { on = 1; next }
	     /^## / { on = 0 }
	     on && /^\| `/ {
		split($0, col, "|")
		gsub(/[` ]/, "", col[2]); gsub(/[`,]/, " ", col[4])
		print col[2], col[4]
	     }' "$doc")
if [ -z "$rules" ]; then
	tap FAIL "$doc has the include table" "no table rows under '## Which folder may include which'"
	echo "1..$n"
	exit 1
fi
tap OK "$doc has the include table"

allowed() {	# allowed FROM TO: 0 when FROM may include TO
	local from=$1 to=${2#user/} line
	[ "$from" = "$2" ] && return 0
	line=$(grep -m1 "^$from " <<<"$rules") || return 1
	grep -qE -- "(^| )$to( |\$)" <<<"${line#* }"
}

# Which folder an include names: "syms/syms.h" -> user/syms, "advisor/x.h"
# -> advisor, a bare name -> the including folder when the file is there,
# else bpf/ (-Ibpf), whose skeletons are generated into the build folder;
# protoc-c's NAME.pb-c.h (also generated there) is of the folder with NAME.proto.
folder_of() {	# folder_of INCLUDING_DIR NAME
	local dir=$1 name=$2
	case $name in
	*/*)	local d=${name%/*}
		if [ -d "user/$d" ]; then echo "user/$d"; else echo "$d"; fi ;;
	*)	if [ -e "$dir/$name" ]; then echo "$dir"
		elif [ -e "bpf/$name" ] || [[ $name == *.skel.h ]]; then echo bpf
		elif [[ $name == *.pb-c.h ]] && [ -e "$dir/${name%.pb-c.h}.proto" ]; then echo "$dir"
		elif [ "$name" = vmlinux.h ]; then echo vmlinux
		else echo "?"; fi ;;
	esac
}

bad=()
while IFS= read -r -d '' f; do
	dir=${f%/*}
	while IFS= read -r inc; do
		to=$(folder_of "$dir" "$inc")
		if [ "$to" = "?" ]; then
			bad+=("$f includes \"$inc\", which is in no folder of the rule")
		elif ! allowed "$dir" "$to"; then
			bad+=("$f includes \"$inc\": $dir may not include $to (see $doc)")
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(find bpf user advisor -name '*.[ch]' -print0 | sort -z)
if [ ${#bad[@]} -eq 0 ]; then
	tap OK "every include follows the folder rule"
else
	tap FAIL "every include follows the folder rule" "${bad[@]}"
fi

# Each folder's README.md repeats its row: "May include: `a`, `b`." (or
# "May include: nothing else.").
bad=()
while read -r folder deps; do
	readme=$folder/README.md
	if [ ! -f "$readme" ]; then
		bad+=("$readme is missing: say what $folder owns and may include")
		continue
	fi
	said=$(sed -n 's/^May include: //p' "$readme" | tr -d '`,.' | xargs)
	want=$(xargs <<<"$deps")
	[ "$said" = "nothing else" ] && said=
	[ "$want" = "nothing else" ] && want=
	[ "$said" = "$want" ] || bad+=("$readme says 'May include: $said', $doc says '$want'")
done <<<"$rules"
if [ ${#bad[@]} -eq 0 ]; then
	tap OK "every folder's README.md states its row of the rule"
else
	tap FAIL "every folder's README.md states its row of the rule" "${bad[@]}"
fi

# atoi() cannot report a bad number: ss_parse_int/strtol with an end check.
hits=$(grep -rnE '\batoi[[:space:]]*\(' --include='*.[ch]' bpf user advisor tests bench 2>/dev/null |
	grep -v '^tests/layout/')
if [ -z "$hits" ]; then
	tap OK "no atoi()"
else
	mapfile -t lines <<<"$hits"
	tap FAIL "no atoi()" "${lines[@]}"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
