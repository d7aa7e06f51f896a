#!/bin/bash
# "Functions under ~80 lines" (STYLE.md, issue 8), checked: no function
# defined in a .c file of user/ or advisor/ has a body of more than
# MAX_BODY_LINES lines. The body is what lies between the function's opening
# brace, alone on its line at column 0 (the house style), and the next
# closing brace at column 0. Prints TAP, as the cmocka tests do, for
# tests/run.sh. Run from the repository root (make test does).
set -u
MAX_BODY_LINES=80

# One line per function: "FILE:LINE: NAME BODY_LINES". The name is the first
# identifier before a "(" on the signature line, __attribute__ aside.
lengths() {
	awk '
	/^\{[[:space:]]*$/ { if (!infn) { infn = 1; start = FNR; name = sig } ; next }
	/^\}/ { if (infn) { print FILENAME ":" start ": " name " " FNR - start - 1; infn = 0 } ; next }
	!infn && /^[A-Za-z_].*\(/ {
		s = $0; sig = "?"
		while (match(s, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/)) {
			id = substr(s, RSTART, RLENGTH); sub(/[[:space:]]*\($/, "", id)
			s = substr(s, RSTART + RLENGTH)
			if (id != "__attribute__") { sig = id; break }
		}
	}' "$@"
}

mapfile -d '' files < <(find user advisor -name '*.c' -print0 | sort -z)
all=$(lengths "${files[@]}")
long=$(awk -v max="$MAX_BODY_LINES" '$3 > max' <<<"$all")
n=$(grep -c . <<<"$all")

# A check that found no function at all would pass whatever the code is.
if [ "$n" -lt 100 ]; then
	echo "not ok 1 - the length check finds the functions"
	echo "# only $n functions found in ${#files[@]} files: the brace rule above no longer matches the code"
	echo "1..1"
	exit 1
fi
echo "ok 1 - the length check finds the functions ($n)"
if [ -z "$long" ]; then
	echo "ok 2 - no function in user/ or advisor/ over $MAX_BODY_LINES lines"
	echo "1..2"
	exit 0
fi
echo "not ok 2 - no function in user/ or advisor/ over $MAX_BODY_LINES lines"
sed "s/\$/ lines: split it/; s/^/# /" <<<"$long"
echo "1..2"
exit 1
