#!/bin/bash
# Drives completion/spinscope.bash as bash does (COMP_WORDS and COMP_CWORD
# set, _spinscope called, COMPREPLY read) and checks the candidates
# against the program itself: the commands and each command's options
# from its --help, the --event, --attach and --only values from the
# messages that reject a wrong one, and after -p a process started here,
# shown with its name. Prints TAP for tests/run.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh
. completion/spinscope.bash

complete -p spinscope 2>/dev/null | grep -q -- '-F _spinscope' &&
	tap OK "complete -p spinscope names _spinscope" ||
	tap FAIL "complete -p spinscope names _spinscope" "$(complete -p spinscope 2>&1)"

# candidates WORD...: COMPREPLY, one per line, for the line "WORD..." with
# the cursor on the last word.
candidates() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_spinscope spinscope "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}

same() {	# same DESC EXPECTED ACTUAL
	local diff
	diff=$(sets_differ "the program" "$2" "the completion" "$3")
	if [ -n "$2" ] && [ -z "$diff" ]; then
		tap OK "$1"
	else
		tap FAIL "$1" "${diff:-nothing expected: the program lists none}"
	fi
}

same "commands" "$(help_commands)" "$(candidates spinscope '')"
for cmd in "" $(help_commands); do
	got=$(candidates spinscope ${cmd:+"$cmd"} - | sed 's/=$//')
	same "options of 'spinscope${cmd:+ $cmd}'" "$(help_opts "$cmd")" "$got"
done
events=$(error_values -p 1 --event no-such-event)
same "--event values" "$events" "$(candidates spinscope -p 1 --event '')"
same "--event c" "$(grep '^c' <<<"$events")" "$(candidates spinscope --event c)"
modes=$(error_values -p 1 --attach=no-such-mode)
same "--attach MODE" "$modes" "$(candidates spinscope -p 1 --attach '')"
same "--attach=MODE" "$modes" "$(candidates spinscope -p 1 --attach = '')"
same "--attach=f" "$(grep '^f' <<<"$modes")" "$(candidates spinscope --attach = f)"
families=$(error_values calibrate --only no-such-family)
same "calibrate --only" "$families" "$(candidates spinscope calibrate --only '')"
same "calibrate --only numa,s (the list's last item)" \
	"$(grep '^s' <<<"$families" | sed 's/^/numa,/')" \
	"$(candidates spinscope calibrate --only numa,s)"

# -p: a process of ours, by its name; a single match is the bare pid.
sleep 300 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
# wait until the child has exec'd sleep (its comm changes from bash's)
for _ in $(seq 400); do
	[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
	sleep 0.05
done
all=$(candidates spinscope -p '')
grep -qx "$pid (sleep)" <<<"$all" && tap OK "-p lists pid $pid as '$pid (sleep)'" ||
	tap FAIL "-p lists pid $pid as '$pid (sleep)'" "$(grep "^$pid" <<<"$all")"
if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
	k=$(candidates spinscope -p 2 | grep -xE '2( \(kthreadd\))?')
	[ -z "$k" ] && tap OK "-p leaves kernel threads out (kthreadd)" ||
		tap FAIL "-p leaves kernel threads out" "listed: $k"
fi
one=$(candidates spinscope -p "$pid")
# another pid may start with ours; then the names show, else the bare pid
if [ "$(wc -l <<<"$one")" = 1 ]; then
	same "-p $pid: the bare pid" "$pid" "$one"
else
	grep -qx "$pid (sleep)" <<<"$one" && tap OK "-p $pid: listed among $(wc -l <<<"$one")" ||
		tap FAIL "-p $pid: listed" "$one"
fi
same "-t after -p \$\$: the shell's threads" "$(ls /proc/$$/task)" \
	"$(candidates spinscope -p $$ -t '')"

# Files where files are asked for.
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
touch "$dir/rec.json.zst" "$dir/other"
same "report FILE" "$dir/rec.json.zst" "$(candidates spinscope report "$dir/re")"
same "-o FILE" "$dir/rec.json.zst" "$(candidates spinscope -p 1 -o "$dir/re")"
same "diff BEFORE AFTER" "$dir/rec.json.zst" "$(candidates spinscope diff "$dir/rec.json.zst" "$dir/r")"
same "calibrate --compare A B" "$dir/rec.json.zst" \
	"$(candidates spinscope calibrate --compare "$dir/other" "$dir/r")"
echo "1..$n"
[ "$failed" -eq 0 ]
