# Shared by the tests/pkg scripts: TAP output for tests/run.sh, and the
# options a command's --help lists, read from the program at test time so
# that an option added to the program shows up in every check by its name.
# Sourced from the repository root; $SPINSCOPE is the binary under test.

OUTPUT=${OUTPUT:-build}
SPINSCOPE=${SPINSCOPE:-$OUTPUT/spinscope}
. tests/lib/tap.sh

# The commands `spinscope --help` lists under "Commands:", one per line.
help_commands() {
	"$SPINSCOPE" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
		on && /^  [a-z]/ { print $1 }'
}

# help_opts [CMD]: the options `spinscope [CMD] --help` lists, one per
# line, sorted: the leading options of its option lines (an option at most
# 8 columns in: deeper lines continue a description), the options on its
# own usage lines, and -h/--help when the command accepts them.
help_opts() {
	local cmd=${1:-} help
	help=$("$SPINSCOPE" ${cmd:+"$cmd"} --help 2>&1) || return 1
	{
		awk -v cmd="$cmd" '
		function opts(text) {
			while (match(text, /(^|[[ |])--?[A-Za-z][A-Za-z0-9-]*/)) {
				o = substr(text, RSTART, RLENGTH)
				sub(/^[[ |]/, "", o)
				print o
				text = substr(text, RSTART + RLENGTH)
			}
		}
		NR == 1 || (inusage && /^ +(spinscope|\[)/) {
			if (NR == 1 && !/^[Uu]sage: /) { inusage = 0; next }
			inusage = 1
			if (match($0, /spinscope [^ ]+/)) {
				w = substr($0, RSTART + 10, RLENGTH - 10)
				cur = (w ~ /^-/) ? "" : w
				rest = substr($0, RSTART + RLENGTH)
				if (cur == "") rest = w rest
			} else
				rest = $0
			if (cur == cmd) opts(rest)
			next
		}
		{ inusage = 0 }
		match($0, /^ *-/) && RLENGTH <= 9 {
			for (i = 1; i <= NF && $i ~ /^-/; i++) {
				o = $i
				sub(/[,=].*$/, "", o)
				print o
			}
		}' <<<"$help"
		"$SPINSCOPE" ${cmd:+"$cmd"} --help >/dev/null 2>&1 && echo --help
		"$SPINSCOPE" ${cmd:+"$cmd"} -h 2>/dev/null | cmp -s - <(echo "$help") && echo -h
	} | sort -u
}

# The values an option's error message offers ("use one of a, b, c",
# "takes a, b or c", "choose from a, b"), sorted, one per line.
error_values() {
	"$SPINSCOPE" "$@" 2>&1 >/dev/null | head -1 |
		sed -nE 's/.*(use one of|takes|choose from) (.*)/\2/p' |
		sed -E 's/, not .*//; s/ or /, /g' | tr -d ' ' | tr ',' '\n' | sort -u
}

# sets_differ NAME_A A NAME_B B: prints what one list has that the other
# lacks, e.g. "--foo: in --help, not in the man page".
sets_differ() {
	local na=$1 a=$2 nb=$3 b=$4
	comm -23 <(sort -u <<<"$a") <(sort -u <<<"$b") | awk -v t=": in $na, not in $nb" 'NF { print $0 t }'
	comm -13 <(sort -u <<<"$a") <(sort -u <<<"$b") | awk -v t=": in $nb, not in $na" 'NF { print $0 t }'
}
