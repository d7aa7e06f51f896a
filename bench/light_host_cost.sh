#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What does tracing one process cost the OTHER processes of the host? An
# unrelated getppid(2) loop (bench/getppid_loop.c) runs alone, while
# spinscope traces a different, sleeping pid in its default mode (syscall
# tracepoints: every syscall of the host takes the slow path), and while it
# traces it with --light (scheduler tracepoints only). Interleaved rounds
# (the order rotates each round), per-round ratios to the same round's
# baseline, medians and ranges; the load average before and after. The
# loop's rate is per second of its own CPU time (see getppid_loop.c), so a
# busy host lengthens a run rather than lowering its rate.
#
#   bench/light_host_cost.sh [-r ROUNDS] [-w SECONDS]
#
# Environment: SPINSCOPE (default build/spinscope), LOOP (default
# build/bench/getppid_loop). `make bench-light` builds and runs it. Root.
set -u

ROUNDS=7
WINDOW=2
SPINSCOPE=${SPINSCOPE:-build/spinscope}
LOOP=${LOOP:-build/bench/getppid_loop}
while getopts "r:w:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	*) sed -n '15,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[[ -x $SPINSCOPE && -x $LOOP ]] || { echo "light_host_cost.sh: build first (make bench-light)" >&2; exit 1; }

TMP=$(mktemp -d)
sleep 100000 & SLEEPER=$!
cleanup() { kill "$SLEEPER" 2>/dev/null; [[ -n ${TRACER:-} ]] && kill "$TRACER" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

# One measurement: the loop's calls per second under set-up $1.
run_one() {
	local mode=$1 rate
	TRACER=
	if [[ $mode != baseline ]]; then
		local extra=()
		[[ $mode == light ]] && extra=(--light)
		: > "$TMP/err"
		"$SPINSCOPE" -p "$SLEEPER" -d 0 --no-calibrate "${extra[@]}" > /dev/null 2> "$TMP/err" &
		TRACER=$!
		for _ in $(seq 200); do
			grep -q "tracing" "$TMP/err" && break
			sleep 0.05
		done
		grep -q "tracing" "$TMP/err" || { echo "spinscope did not attach: $(cat "$TMP/err")" >&2; exit 1; }
	fi
	rate=$("$LOOP" "$WINDOW" | sed 's/calls_per_s=//')
	if [[ -n $TRACER ]]; then
		kill -INT "$TRACER"; wait "$TRACER" 2>/dev/null; TRACER=
	fi
	echo "$rate"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f-%.3f", lo, hi}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
modes=(baseline default light)
for ((r = 0; r < ROUNDS; r++)); do
	declare -A rate=()
	for ((k = 0; k < 3; k++)); do
		m=${modes[(r + k) % 3]}
		rate[$m]=$(run_one "$m")
	done
	echo "round $r: baseline ${rate[baseline]} default ${rate[default]} light ${rate[light]} calls/s" >&2
	echo "${rate[baseline]}" >> "$TMP/baseline"
	awk -v a="${rate[default]}" -v b="${rate[baseline]}" 'BEGIN{print a/b}' >> "$TMP/default"
	awk -v a="${rate[light]}" -v b="${rate[baseline]}" 'BEGIN{print a/b}' >> "$TMP/light"
	unset rate
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| set-up (tracing another, sleeping pid) | getppid loop / alone, median | range | rounds |"
echo "|---|---|---|---|"
echo "| alone | 1.000 ($(median < "$TMP/baseline") calls/s) | - | $ROUNDS |"
echo "| spinscope (default: syscall tracepoints) | $(median < "$TMP/default") | $(range < "$TMP/default") | $ROUNDS |"
echo "| spinscope --light | $(median < "$TMP/light") | $(range < "$TMP/light") | $ROUNDS |"
