#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What does tracing cost the traced program? Runs each benchmark workload
# (bench/pingpong.c, bench/yieldloop.c) alone and under each tracer, in
# interleaved rounds (the order of the set-ups rotates every round, so
# a slow patch of a shared machine does not hit one set-up only), and prints
# a markdown table of median throughputs and of the median of the per-round
# ratios to the baseline of the same round.
#
#   bench/overhead.sh [-r ROUNDS] [-w SECONDS] [-o DIR] [-l WORKLOADS] [-t TOOLS]
#                     [-s LABEL=PATH]...
#
#   -r  rounds (default 5, at least 5 for a table worth recording)
#   -w  measured window per run in seconds (default 2)
#   -o  folder for raw results and every tool's output (default: mktemp)
#   -l  workloads, comma-separated (default pingpong,pingpong-1cpu,yield,yield-pair;
#       also mutex4: four threads on one contended pthread mutex)
#   -t  set-ups, comma-separated (default baseline,spinscope,spinscope-light,bpftrace,strace,perf;
#       also spinscope-fentry, spinscope-tracepoint: spinscope with
#       --attach=fentry, --attach=tracepoint; spinscope-light: --light)
#   -s  another spinscope build as set-up LABEL (add LABEL to -t): A/B a change
#
# Environment: BENCH_BIN (built workloads, default build/bench), SPINSCOPE
# (default build/spinscope), BUSY_MAX (default 25: percent of the host's CPU
# time other processes may use, before a round starts and during each
# window, for the round to count). `make bench` builds and runs it.
#
# Every tracer attaches while the workload already runs; the measured window
# starts only once the tracer says it is attached (plus SETTLE seconds), and
# the tracer stays attached until the workload has exited. Raw results,
# with the share of the CPUs others used in each window, are kept in the
# output folder (results.tsv, load.tsv, each tool's output).
set -u

ROUNDS=5
WINDOW=2
OUTDIR=
WORKLOADS=pingpong,pingpong-1cpu,yield,yield-pair
TOOLS=baseline,spinscope,spinscope-light,bpftrace,strace,perf
BIN=${BENCH_BIN:-build/bench}
SPINSCOPE=${SPINSCOPE:-build/spinscope}
BUSY_MAX=${BUSY_MAX:-25}
SETTLE=0.5
HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "overhead.sh: $*" >&2; exit 1; }
usage() { sed -n '11,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

declare -A VARIANT=()
while getopts "r:w:o:l:t:s:h" opt; do
	case $opt in
	s) [[ $OPTARG == ?*=?* ]] || usage
	   VARIANT[${OPTARG%%=*}]=${OPTARG#*=} ;;
	r) ROUNDS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	l) WORKLOADS=$OPTARG ;;
	t) TOOLS=$OPTARG ;;
	*) usage ;;
	esac
done
case $ROUNDS in '' | *[!0-9]*) usage ;; esac
case $WINDOW in '' | *[!0-9.]*) usage ;; esac
IFS=, read -r -a WL_LIST <<<"$WORKLOADS"
IFS=, read -r -a TOOL_LIST <<<"$TOOLS"

[ "$(id -u)" = 0 ] || die "run as root: the tracers need it"
for b in pingpong yieldloop mutexloop; do
	[ -x "$BIN/$b" ] || die "$BIN/$b missing: run 'make bench' (or make bench-bins)"
done
for t in "${TOOL_LIST[@]}"; do
	case $t in
	baseline) ;;
	spinscope | spinscope-light | spinscope-fentry | spinscope-tracepoint)
		[ -x "$SPINSCOPE" ] || die "$SPINSCOPE missing: run make" ;;
	bpftrace | strace | perf)
		command -v "$t" >/dev/null || die "$t missing: apt-get install -y bpftrace strace linux-perf" ;;
	*) [ -n "${VARIANT[$t]:-}" ] || die "unknown set-up '$t'"
	   [ -x "${VARIANT[$t]}" ] || die "${VARIANT[$t]} missing" ;;
	esac
done
[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d /tmp/spinscope-bench.XXXXXX)
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
RESULTS=$OUTDIR/results.tsv
LOADLOG=$OUTDIR/load.tsv
printf 'round\tworkload\tsetup\trate\tothers_pct\tdetail\n' >"$RESULTS"
printf 'round\twhen\tloadavg\tbusy_pct\tsteal_pct\twaited_s\n' >"$LOADLOG"

wl_cmd() {
	case $1 in
	pingpong) echo "$BIN/pingpong" ;;
	pingpong-1cpu) echo "$BIN/pingpong --same-cpu" ;;
	yield) echo "$BIN/yieldloop" ;;
	yield-pair) echo "$BIN/yieldloop --pair" ;;
	mutex4) echo "$BIN/mutexloop" ;;
	*) die "unknown workload '$1'" ;;
	esac
}
for w in "${WL_LIST[@]}"; do wl_cmd "$w" >/dev/null; done

# bpftrace and perf find tracepoints through tracefs, which this kind of
# host may not have mounted: mount it in a private mount namespace that
# vanishes with the tool, leaving the host's mount table alone.
in_tracefs() {
	# exec: the caller backgrounds this, and signals must reach the tool.
	exec unshare -m sh -c 'mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs nodev /sys/kernel/tracing || exit 1; exec "$@"' sh "$@"
}

# Live and not a zombie (an exited child stays in /proc until reaped).
alive() {
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# Waits up to $3 seconds for a line matching $1 in file $2.
wait_line() {
	local i n
	n=$(awk -v s="$3" 'BEGIN{print int(s * 20)}')
	for ((i = 0; i < n; i++)); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# perf trace says nothing when attached: wait until it has opened its
# events (raw_syscalls enter and exit, one of each per thread).
wait_perf() {
	local pid=$1 threads=$2 i
	for ((i = 0; i < 200; i++)); do
		local n
		n=$(find "/proc/$pid/fd" -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l)
		[ "$n" -ge $((2 * threads)) ] && return 0
		sleep 0.05
	done
	return 1
}

# Stops a tracer: most leave by themselves when the target exits; the rest
# get SIGINT (they then print their summary), and SIGKILL as a last resort.
stop_tool() {
	local pid=$1 i
	for ((i = 0; i < 40; i++)); do alive "$pid" || break; sleep 0.05; done
	alive "$pid" && kill -INT "$pid" 2>/dev/null
	for ((i = 0; i < 200; i++)); do alive "$pid" || break; sleep 0.05; done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# Whether the tool's output shows it saw the workload's system calls.
tool_saw_events() {
	local tool=$1 out=$2
	# A variant build may be meant to record nothing (an A/B of the bare
	# attach cost): it only has to have produced its report.
	if [ -n "${VARIANT[$tool]:-}" ]; then
		grep -q '"totals"' "$out"
		return
	fi
	case $tool in
	baseline) return 0 ;;
	spinscope | spinscope-fentry | spinscope-tracepoint)
		grep -Eq '"(futex_wake|sched_yield)": *[1-9]' "$out" ;;
	# --light sees no yield that finds nothing to switch to: its report.
	spinscope-light) grep -q '"totals"' "$out" ;;
	bpftrace) grep -Eq '^@(futex_wakes|thread_yields)\[' "$out" ;;
	strace | perf) grep -Eq ' (futex|sched_yield)( |$)' "$out" ;;
	esac
}

WL_PID=
TOOL_PID=
cleanup() {
	[ -n "$WL_PID" ] && kill -KILL "$WL_PID" 2>/dev/null
	[ -n "$TOOL_PID" ] && kill -INT "$TOOL_PID" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# One measured run: sets RES to "RATE DETAIL", or to "fail REASON", and
# OTHERS to the share of the CPUs others used during the window.
run_one() {
	local round=$1 wl=$2 tool=$3
	local tag=$OUTDIR/r$round-$wl-$tool
	local wout=$tag.out werr=$tag.err tout=$tag.tool.out terr=$tag.tool.err
	local ready=1 line rate threads h0 h1 k0 k1 c0 c1 w0
	OTHERS=0

	# shellcheck disable=SC2046
	$(wl_cmd "$wl") -w "$WINDOW" >"$wout" 2>"$werr" &
	WL_PID=$!
	if ! wait_line '^ready' "$wout" 5; then
		stop_tool "$WL_PID"
		WL_PID=
		RES="fail workload did not start: $(head -c 200 "$werr")"
		return
	fi
	threads=$(find "/proc/$WL_PID/task" -mindepth 1 -maxdepth 1 | wc -l)
	case $tool in
	baseline) ;;
	spinscope | spinscope-* | "${VARIANT[$tool]+$tool}")
		local mode=()
		case $tool in
		spinscope-light) mode=(--light) ;;
		spinscope-fentry) mode=(--attach=fentry) ;;
		spinscope-tracepoint) mode=(--attach=tracepoint) ;;
		esac
		"${VARIANT[$tool]:-$SPINSCOPE}" -p "$WL_PID" -d 0 --json "${mode[@]}" >"$tout" 2>"$terr" &
		TOOL_PID=$!
		# spinscope says "spinscope: tracing ..."; a stand-in variant
		# (bench/syscall_mech.c) its own name.
		wait_line ': tracing' "$terr" 10 || ready=0 ;;
	bpftrace)
		in_tracefs bpftrace "$HERE/equivalent.bt" "$WL_PID" >"$tout" 2>"$terr" &
		TOOL_PID=$!
		wait_line '^attached' "$tout" 60 || ready=0 ;;
	strace)
		strace -f -c -p "$WL_PID" -o "$tout" 2>"$terr" &
		TOOL_PID=$!
		# "attached with N threads" once it holds them all.
		if [ "$threads" -gt 1 ]; then
			wait_line "attached with $threads threads" "$terr" 10 || ready=0
		else
			wait_line "attached" "$terr" 10 || ready=0
		fi ;;
	perf)
		in_tracefs perf trace -s -p "$WL_PID" -o "$tout" 2>"$terr" &
		TOOL_PID=$!
		wait_perf "$TOOL_PID" "$threads" || ready=0 ;;
	esac
	if [ "$ready" = 0 ]; then
		kill -KILL "$WL_PID" 2>/dev/null
		wait "$WL_PID" 2>/dev/null
		stop_tool "$TOOL_PID"
		WL_PID=''
		TOOL_PID=''
		RES="fail $tool did not attach: $(tail -c 200 "$terr" | tr '\n' ' ')"
		return
	fi
	# The same pause for every set-up, the baseline included.
	sleep "$SETTLE"
	# Ours over the window: the workload's and the tracer's CPU time,
	# whether they are reaped by then (child_ticks) or not (proc_ticks).
	w0=$(proc_ticks "$WL_PID")
	k0=$(proc_ticks "$TOOL_PID")
	c0=$(child_ticks)
	h0=$(host_ticks)
	kill -USR1 "$WL_PID"
	wait "$WL_PID"
	h1=$(host_ticks)
	k1=$(proc_ticks "$TOOL_PID")
	c1=$(child_ticks)
	OTHERS=$(others_pct "$h0" "$h1" $((c1 - c0 + k1 - k0 - w0)))
	WL_PID=
	if [ -n "$TOOL_PID" ]; then
		stop_tool "$TOOL_PID"
		TOOL_PID=
	fi
	line=$(grep ' rate=' "$wout")
	rate=$(sed -n 's/.* rate=\([0-9]*\).*/\1/p' <<<"$line")
	if [ -z "$rate" ]; then
		RES="fail no result: $(head -c 200 "$werr")"
	elif ! tool_saw_events "$tool" "$tout"; then
		RES="fail $tool output shows no event: see $tout"
	else
		RES="$rate ${line#* rate=* }"
	fi
}

# CPU time used over one second while we run nothing: others' load.
# Prints "busy_pct steal_pct".
idle_sample() {
	local a b
	a=$(head -1 /proc/stat)
	sleep 1
	b=$(head -1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		n = split(a, x); split(b, y)
		for (i = 2; i <= n; i++) { d[i] = y[i] - x[i]; tot += d[i] }
		idle = d[5] + d[6]	# idle + iowait
		if (tot <= 0) tot = 1
		printf "%.0f %.0f\n", 100 * (tot - idle) / tot, 100 * d[9] / tot
	}'
}

# "BUSY TOTAL": CPU time, in clock ticks, the host spent busy and in all.
host_ticks() {
	awk 'NR == 1 {
		for (i = 2; i <= NF; i++) tot += $i
		printf "%d %d\n", tot - $5 - $6, tot
	}' /proc/stat
}

# CPU time, in clock ticks, a live (or exited, not yet reaped) process has
# used; 0 when there is no such process.
proc_ticks() {
	[ -n "$1" ] && awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}

# CPU time, in clock ticks, of this script's reaped children. Bash reaps a
# child as soon as it exits: its time then moves from proc_ticks to here.
child_ticks() {
	awk '{print $16 + $17}' "/proc/$$/stat"
}

# Percentage of the host's CPU time others used between two host_ticks,
# given the ticks that were ours.
others_pct() {
	awk -v a="$1" -v b="$2" -v ours="$3" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		tot = y[2] - x[2]; if (tot <= 0) tot = 1
		o = (y[1] - x[1]) - ours; if (o < 0) o = 0
		printf "%.0f\n", 100 * o / tot
	}'
}

# Waits (up to a minute) for the machine to quieten before a round.
wait_quiet() {
	local round=$1 waited=0 busy steal
	while :; do
		read -r busy steal < <(idle_sample)
		[ "$busy" -le "$BUSY_MAX" ] || [ "$waited" -ge 60 ] && break
		echo "  round $round: others use ${busy}% of the CPUs; waiting" >&2
		sleep 5
		waited=$((waited + 6))
	done
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$(date +%T)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$busy" "$steal" "$waited" >>"$LOADLOG"
	echo "  round $round: load $(cut -d' ' -f1-3 /proc/loadavg), others ${busy}% busy, steal ${steal}%" >&2
}

echo "overhead.sh: $ROUNDS rounds x ${#WL_LIST[@]} workloads x ${#TOOL_LIST[@]} set-ups," \
	"${WINDOW}s windows; raw results in $OUTDIR" >&2
start=$(date +%s)
n_tools=${#TOOL_LIST[@]}
for ((r = 1; r <= ROUNDS; r++)); do
	wait_quiet "$r"
	for wl in "${WL_LIST[@]}"; do
		for ((i = 0; i < n_tools; i++)); do
			tool=${TOOL_LIST[$(((i + r - 1) % n_tools))]}
			run_one "$r" "$wl" "$tool"
			others=$OTHERS
			res=$RES
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$wl" "$tool" "${res%% *}" "$others" \
				"${res#* }" >>"$RESULTS"
			[ "$others" -le "$BUSY_MAX" ] ||
				echo "  round $r $wl $tool: others took ${others}% of the CPUs during the window" >&2
			case $res in fail*) echo "  round $r $wl $tool: $res" >&2 ;; esac
		done
	done
done
echo "overhead.sh: done in $(($(date +%s) - start)) s" >&2

# The table: per workload and set-up, the median rate over the rounds and
# the median of per-round ratios to the same round's baseline. A round in
# which others took more than BUSY_MAX% of the CPUs during any window is left
# out, as long as three rounds remain.
awk -F'\t' -v order="$TOOLS" -v wls="$WORKLOADS" -v busy_max="$BUSY_MAX" '
function median(list,   n, v, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	if (n == 0) return ""
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function minmax(list,   n, v, i, lo, hi) {
	n = split(list, v, " "); lo = hi = v[1]
	for (i = 2; i <= n; i++) { if (v[i] + 0 < lo + 0) lo = v[i]; if (v[i] + 0 > hi + 0) hi = v[i] }
	return sprintf("%.2f-%.2f", lo, hi)
}
NR == FNR {
	if (FNR > 1) { rounds[$1] = 1; if ($5 + 0 > busy_max) noisy[$1] = 1 }
	next
}
FNR == 1 {
	for (r in rounds) { n_rounds++; if (!(r in noisy)) n_quiet++ }
	use_all = n_quiet < 3
	next
}
!use_all && ($1 in noisy) { next }
$4 ~ /^[0-9]+$/ { rate[$2, $3, $1] = $4; rates[$2, $3] = rates[$2, $3] " " $4; ok[$2, $3]++ }
$4 !~ /^[0-9]+$/ { failed[$2, $3]++ }
END {
	if (n_quiet == n_rounds)
		printf "All %d rounds quiet (others under %d%% of the CPUs in every window).\n\n", n_rounds, busy_max
	else if (use_all)
		printf "Only %d of %d rounds were quiet (others under %d%% of the CPUs in every window): all rounds used.\n\n", n_quiet, n_rounds, busy_max
	else
		printf "%d of %d rounds used; in the rest, other processes took over %d%% of the CPUs during at least one window.\n\n", n_quiet, n_rounds, busy_max
	nt = split(order, tools, ","); nw = split(wls, wl, ",")
	print "| workload | set-up | runs | median rate (/s) | median ratio to baseline | ratio range | loss |"
	print "|---|---|---|---|---|---|---|"
	for (w = 1; w <= nw; w++) for (t = 1; t <= nt; t++) {
		k = wl[w] SUBSEP tools[t]; ratios = ""
		for (key in rate) {
			split(key, p, SUBSEP)
			if (p[1] != wl[w] || p[2] != tools[t]) continue
			b = rate[wl[w], "baseline", p[3]]
			if (b > 0) ratios = ratios " " rate[key] / b
		}
		m = median(rates[k]); q = median(ratios)
		runs = ok[k] + 0; if (failed[k]) runs = runs " (" failed[k] " failed)"
		if (tools[t] == "baseline" || q == "")
			printf "| %s | %s | %s | %s | 1 | | |\n", wl[w], tools[t], runs, m == "" ? "-" : sprintf("%.0f", m)
		else
			printf "| %s | %s | %s | %.0f | %.3f | %s | %.1f%% |\n", wl[w], tools[t], runs, m, q, minmax(ratios), 100 * (1 - q)
	}
}' "$RESULTS" "$RESULTS" | tee "$OUTDIR/table.md"
