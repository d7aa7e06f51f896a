#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What does tracing one process cost the OTHER processes of the host? An
# unrelated getppid(2) loop (bench/getppid_loop.c) runs alone, and while
# spinscope traces a different, sleeping pid in each mode: default (auto:
# the syscall tracepoints; docs/REFERENCE.md says why not fentry), tracepoint
# (--attach=tracepoint: every syscall of the host takes the slow path),
# fentry (--attach=fentry: only futex and sched_yield calls pay) and light
# (--light: scheduler tracepoints only). Interleaved rounds (the order
# rotates each round), per-round ratios to the same round's baseline,
# medians and ranges; the load average before and after. The loop's rate is
# per second of its own CPU time (see getppid_loop.c), so a busy host
# lengthens a run rather than lowering its rate.
#
#   bench/light_host_cost.sh [-r ROUNDS] [-w SECONDS] [-m "MODE ..."]
#
# MODEs: baseline default tracepoint fentry light (default: "baseline
# default light"), or LABEL=PATH: the program PATH (another build, or a
# stand-in such as bench/syscall_mech.c behind a wrapper) in spinscope's
# place, with no mode option. Environment: SPINSCOPE (default build/spinscope), LOOP
# (default build/bench/getppid_loop). `make bench-light` builds and runs
# it here, `make bench-kernel-cost` inside the kernel matrix's 6.1 guest
# (POSIX sh: the guest has busybox only). Root.
set -u

ROUNDS=7
WINDOW=2
MODES="baseline default light"
SPINSCOPE=${SPINSCOPE:-build/spinscope}
LOOP=${LOOP:-build/bench/getppid_loop}
while getopts "r:w:m:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	m) MODES=$OPTARG ;;
	*) sed -n '16,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -x "$SPINSCOPE" ] && [ -x "$LOOP" ] || { echo "light_host_cost.sh: build first (make bench-light)" >&2; exit 1; }
case " $MODES " in *" baseline "*) ;; *) MODES="baseline $MODES" ;; esac

TMP=$(mktemp -d)
sleep 100000 & SLEEPER=$!
TRACER=
cleanup() { kill "$SLEEPER" 2>/dev/null; [ -n "$TRACER" ] && kill "$TRACER" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

# One measurement: the loop's calls per second under set-up $1.
run_one() {
	mode=$1
	TRACER=
	if [ "$mode" != baseline ]; then
		bin=$SPINSCOPE
		case $mode in
		default) extra= ;;
		light) extra=--light ;;
		*=*) extra= bin=${mode#*=} ;;
		*) extra=--attach=$mode ;;
		esac
		: > "$TMP/err"
		# $extra unquoted: empty for the default mode.
		"$bin" -p "$SLEEPER" -d 0 --no-calibrate $extra > /dev/null 2> "$TMP/err" &
		TRACER=$!
		for _ in $(seq 200); do
			grep -q "tracing" "$TMP/err" && break
			sleep 0.05
		done
		grep -q "tracing" "$TMP/err" || { echo "$bin $extra did not attach: $(cat "$TMP/err")" >&2; exit 1; }
	fi
	rate=$("$LOOP" "$WINDOW" | sed 's/calls_per_s=//')
	if [ -n "$TRACER" ]; then
		kill -INT "$TRACER"; wait "$TRACER" 2>/dev/null; TRACER=
	fi
	echo "$rate" > "$TMP/rate.${mode%%=*}"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f-%.3f", lo, hi}'; }

set -- $MODES
n=$#
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	# Rotate the order by r.
	k=0
	while [ "$k" -lt "$n" ]; do
		i=$(( (r + k) % n + 1 ))
		eval "m=\${$i}"
		run_one "$m"
		k=$((k + 1))
	done
	line="round $r:"
	base=$(cat "$TMP/rate.baseline")
	for m in $MODES; do
		m=${m%%=*}
		line="$line $m $(cat "$TMP/rate.$m")"
		awk -v a="$(cat "$TMP/rate.$m")" -v b="$base" 'BEGIN{print a/b}' >> "$TMP/ratio.$m"
	done
	echo "$line calls/s" >&2
	echo "$base" >> "$TMP/baseline"
	r=$((r + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| set-up (tracing another, sleeping pid) | getppid loop / alone, median | range | rounds |"
echo "|---|---|---|---|"
for m in $MODES; do
	path=
	case $m in *=*) path=${m#*=} m=${m%%=*} ;; esac
	case $m in
	baseline) echo "| alone | 1.000 ($(median < "$TMP/baseline") calls/s) | - | $ROUNDS |"; continue ;;
	default) label="spinscope (default: --attach=auto)" ;;
	tracepoint) label="spinscope --attach=tracepoint (syscall tracepoints)" ;;
	fentry) label="spinscope --attach=fentry" ;;
	light) label="spinscope --light" ;;
	*) label="spinscope $m" ;;
	esac
	[ -n "$path" ] && label="$m ($path)"
	echo "| $label | $(median < "$TMP/ratio.$m") | $(range < "$TMP/ratio.$m") | $ROUNDS |"
done
