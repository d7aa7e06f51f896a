#!/bin/bash
# The man pages ($OUTPUT/man, built from man/*.scd): every command of
# `spinscope --help` has one, mandoc -T lint has nothing to say about it,
# its OPTIONS list exactly the options its command's --help lists (read
# from the program now, so a new option fails here by name), spinscope(8)
# lists every exit code --help lists, and the pages have the sections
# issue 34 asks for. Prints TAP for tests/run.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh
mandir=$OUTPUT/man

# page_opts PAGE: the options the OPTIONS section's entries name (scdoc
# renders an entry as a term line, then .RS for its text).
page_opts() {
	awk '/^\.SH / { on = ($0 ~ /^\.SH "?OPTIONS"?$/); next }
	     on && /^\\fB-/ { term = $0; next }
	     on && /^\.RS/ && term != "" {
		while (match(term, /\\fB--?[A-Za-z0-9][A-Za-z0-9-]*/)) {
			print substr(term, RSTART + 3, RLENGTH - 3)
			term = substr(term, RSTART + RLENGTH)
		}
	     }
	     { term = "" }' "$1" | sort -u
}

page_for() {	# the page of command $1 ("" is the trace command)
	ls "$mandir"/spinscope${1:+-$1}.[0-9] 2>/dev/null | head -1
}

for cmd in "" $(help_commands); do
	name="spinscope${cmd:+ $cmd}"
	page=$(page_for "$cmd")
	if [ -z "$page" ]; then
		tap FAIL "$name has a man page" "no $mandir/spinscope${cmd:+-$cmd}.N: add man/spinscope${cmd:+-$cmd}.N.scd"
		continue
	fi
	tap OK "$name has a man page (${page##*/})"
	lint=$(mandoc -T lint "$page" 2>&1)
	[ -z "$lint" ] && tap OK "${page##*/}: mandoc -T lint clean" ||
		tap FAIL "${page##*/}: mandoc -T lint clean" "$lint"
	help=$(help_opts "$cmd")
	man=$(page_opts "$page")
	if [ -z "$help" ] || [ -z "$man" ]; then
		tap FAIL "${page##*/}: options found" "--help: $(echo $help)" "page: $(echo $man)"
		continue
	fi
	diff=$(sets_differ "'$name --help'" "$help" "${page##*/}" "$man")
	[ -z "$diff" ] && tap OK "${page##*/} lists exactly the options of '$name --help'" ||
		tap FAIL "${page##*/} lists exactly the options of '$name --help'" "$diff"
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO"; do
		grep -qx "\.SH \"\?$sec\"\?" "$page" ||
			tap FAIL "${page##*/} has a $sec section"
	done
done

page=$mandir/spinscope.8
for sec in FILES ENVIRONMENT "SUPPORTED KERNELS" SIGNALS; do
	grep -qx "\.SH \"\?$sec\"\?" "$page" && tap OK "spinscope.8 has $sec" ||
		tap FAIL "spinscope.8 has $sec"
done

# Exit codes: "  N  meaning" under "Exit codes:" in --help; each is an
# entry of the page's EXIT STATUS.
codes=$("$SPINSCOPE" --help | awk '/^Exit codes:/ { on = 1; next } on && /^$/ { exit }
	on && /^  [0-9]/ { print $1 }')
page_codes=$(awk '/^\.SH / { on = ($0 ~ /EXIT STATUS/); next }
	on && /^\\fB[0-9]+\\fR$/ { gsub(/[^0-9]/, ""); print }' "$page")
diff=$(sets_differ "'spinscope --help'" "$codes" "spinscope.8 EXIT STATUS" "$page_codes")
[ -n "$codes" ] && [ -z "$diff" ] && tap OK "spinscope.8 EXIT STATUS has the exit codes of --help ($(echo $codes))" ||
	tap FAIL "spinscope.8 EXIT STATUS has the exit codes of --help" "$diff"

# The environment variables the code reads are in some page.
vars=$(grep -rhoE 'getenv\("[A-Z_]+"\)' user advisor | sed -E 's/getenv\("(.*)"\)/\1/' | sort -u)
for v in $vars; do
	grep -qF "${v//_/\\_}" "$page" || grep -qF "$v" "$page" ||
		tap FAIL "spinscope.8 ENVIRONMENT names $v (read by the code)"
done
tap OK "the environment variables the code reads are named: $(echo $vars)"
echo "1..$n"
[ "$failed" -eq 0 ]
