# bash completion for spinscope(8): commands, each command's options, the
# values of --event, --attach and calibrate --only, files where a file is
# asked for, and after -p the running processes with their names.
# tests/pkg/test_completion.sh checks these lists against the program's
# own --help and error messages, so a new option fails that test by name.

_spinscope_trace_opts='-p --pid -t --tid -d --duration -i --interval --json --brief
	-o --output -v --verbose --light --attach= --btf --event --folded
	--pprof --metrics --metrics-token-file --metrics-file --html --calibration --no-calibrate
	--no-jvm-map --no-data-addresses
	--stack-interval --max-threads --max-futexes --max-stacks -h --help
	-V --version'
_spinscope_demo_opts='-d --event --folded --json --brief -v --html -o --calibration
	--no-calibrate -h --help'
_spinscope_calibrate_opts='--quick --full --only --cpus --json -o --force
	--show --compare -h --help'
_spinscope_report_opts='--json --brief --folded --html --pprof --calibration
	--symbols -h --help'
_spinscope_diff_opts='--json -h --help'
_spinscope_top_opts='-b --batch -i --interval -d --duration -n --rows --json --sort
	--threads --sample -p --pid --metrics --top-n --metrics-token-file -o --output -v --verbose
	-h --help'
_spinscope_top_sort_keys='lock event yields spin cpu runq wakes pid'
_spinscope_events='cache-misses cache-references instructions cycles
	cpu-clock task-clock page-faults'
_spinscope_attach_modes='auto fentry tracepoint'
_spinscope_families='false_sharing spin_hint spin_threshold numa
	memory_order host_costs'

# Running processes whose pid starts with $1, kernel threads left out
# (spinscope cannot trace them). With several, each is shown as
# "PID (name)": bash then inserts only their common prefix, the digits;
# a single match is inserted as the bare pid.
_spinscope_pids()
{
	local cur=$1 d pid comm cmd
	local -a found=()
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[[ $pid == "$cur"* ]] || continue
		cmd=
		read -r -d '' cmd 2>/dev/null <"$d/cmdline"
		[[ -n $cmd ]] || continue	# a kernel thread, or gone
		read -r comm 2>/dev/null <"$d/comm" || continue
		found+=("$pid ($comm)")
	done
	if ((${#found[@]} == 1)); then
		COMPREPLY=("${found[0]%% *}")
	else
		COMPREPLY=("${found[@]}")
	fi
}

# Threads of the pid given with -p/--pid earlier on the line.
_spinscope_tids()
{
	local cur=$1 pid= i t
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-p | --pid) pid=${COMP_WORDS[i + 1]} ;;
		esac
	done
	[[ $pid =~ ^[0-9]+$ && -d /proc/$pid/task ]] || return
	for t in /proc/"$pid"/task/*; do
		t=${t##*/}
		[[ $t == "$cur"* ]] && COMPREPLY+=("$t")
	done
}

_spinscope()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd= opts i
	COMPREPLY=()

	# --attach=MODE: bash splits the word at '='.
	if [[ $cur == = ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cur=
	elif [[ $prev == = ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		demo | calibrate | report | diff | top) cmd=${COMP_WORDS[i]}; break ;;
		-*) ;;
		*) break ;;
		esac
	done

	case $prev in
	-p | --pid) _spinscope_pids "$cur"; return ;;
	-t | --tid) _spinscope_tids "$cur"; return ;;
	--event)
		COMPREPLY=($(compgen -W "$_spinscope_events" -- "$cur"))
		return ;;
	--attach)
		COMPREPLY=($(compgen -W "$_spinscope_attach_modes" -- "$cur"))
		return ;;
	--sort)
		COMPREPLY=($(compgen -W "$_spinscope_top_sort_keys" -- "$cur"))
		return ;;
	--only)
		# a comma-separated list: complete its last item
		local head=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$head" -W "$_spinscope_families" -- "${cur##*,}"))
		return ;;
	-o | --output | --folded | --pprof | --html | --metrics-file | --metrics-token-file | \
	--calibration | --btf | --compare)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--symbols)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	-d | --duration | -i | --interval | --metrics | --stack-interval | -n | --rows | \
	--max-threads | --max-futexes | --max-stacks | --cpus)
		return ;;
	esac

	case $cmd in
	'') opts=$_spinscope_trace_opts ;;
	demo) opts=$_spinscope_demo_opts ;;
	calibrate) opts=$_spinscope_calibrate_opts ;;
	report) opts=$_spinscope_report_opts ;;
	diff) opts=$_spinscope_diff_opts ;;
	top) opts=$_spinscope_top_opts ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		# --attach= takes its value after the '=': no space
		[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
	elif [[ -z $cmd && $COMP_CWORD == 1 ]]; then
		COMPREPLY=($(compgen -W "demo calibrate report diff top" -- "$cur"))
	elif [[ $cmd == report || $cmd == diff || " ${COMP_WORDS[*]} " == *" --compare "* ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _spinscope spinscope
