#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What does `spinscope top` watching the whole host cost the OTHER
# processes, and itself? Two bystanders, each run alone and while
# `spinscope top -b` watches the host (output to /dev/null): a getppid(2)
# loop (bench/getppid_loop.c: syscalls, which top must not slow at all: it
# has no syscall tracepoint) and a pipe ping-pong between two threads
# (bench/pipe_pingpong.c: context switches, each of which runs top's
# sched_switch and sched_waking programs). Both report their rate per
# second of their own CPU time, so the host's load lengthens a run rather
# than lowering its rate, while top's programs, which run in the
# bystander's context, lower it. Interleaved rounds (the order alternates
# each round), per-round ratios to the same round's run alone, medians and
# ranges; top's own CPU (share of one CPU over its run) beside the quiet
# bystander and beside the ping-pong, and its peak RSS; the load average
# before and after.
#
# -f FLOOR adds a third run per round: FLOOR is a spinscope built with
# the scheduler programs returning at once (`make OUTPUT=build/floor
# BPF_CFLAGS=-DSS_TOP_DISPATCH_ONLY=1 spinscope`), so its ratio is what
# the tracepoints' dispatch alone costs the bystander on this host: the
# floor under top's own work.
#
#   bench/top_host_cost.sh [-r ROUNDS] [-w SECONDS] [-i INTERVAL] [-f FLOOR]
#
# Environment: SPINSCOPE (default build/spinscope), LOOP (default
# build/bench/getppid_loop), PINGPONG (default build/bench/pipe_pingpong).
# `make bench-top` builds and runs it. Root.
set -u

ROUNDS=7
WINDOW=2
INTERVAL=2
FLOOR=
SPINSCOPE=${SPINSCOPE:-build/spinscope}
LOOP=${LOOP:-build/bench/getppid_loop}
PINGPONG=${PINGPONG:-build/bench/pipe_pingpong}
while getopts "r:w:i:f:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	i) INTERVAL=$OPTARG ;;
	f) FLOOR=$OPTARG ;;
	*) sed -n '25,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
for b in "$SPINSCOPE" "$LOOP" "$PINGPONG" ${FLOOR:+"$FLOOR"}; do
	[ -x "$b" ] || { echo "top_host_cost.sh: build first (make bench-top)" >&2; exit 1; }
done

TMP=$(mktemp -d)
TOP=
cleanup() { [ -n "$TOP" ] && kill "$TOP" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

# CPU ticks (utime + stime) of pid $1.
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

# start_top BINARY: BINARY's top watches the host, its output to /dev/null.
start_top() {
	: > "$TMP/err"
	"$1" top -b -i "$INTERVAL" > /dev/null 2> "$TMP/err" &
	TOP=$!
	for _ in $(seq 300); do
		grep -q "tracing" "$TMP/err" && break
		sleep 0.05
	done
	grep -q "tracing" "$TMP/err" || { echo "spinscope top did not attach: $(cat "$TMP/err")" >&2; exit 1; }
	TOP_T0=$(ticks "$TOP")
	TOP_W0=$(date +%s.%N)
}

# Stops top; appends its CPU share over the run to file $1, its peak RSS to rss.
stop_top() {
	t1=$(ticks "$TOP")
	w1=$(date +%s.%N)
	grep VmHWM "/proc/$TOP/status" | awk '{ print $2 }' >> "$TMP/rss"
	awk -v a="$TOP_T0" -v b="$t1" -v w0="$TOP_W0" -v w1="$w1" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { print (b - a) / hz / (w1 - w0) }' >> "$1"
	kill -INT "$TOP"; wait "$TOP" 2>/dev/null; TOP=
}

# run BYSTANDER MODE: the bystander's rate alone, while top watches, or
# while the dispatch-only build (floor) does.
run() {
	case $2 in
	top) start_top "$SPINSCOPE" ;;
	floor) start_top "$FLOOR" ;;
	esac
	case $1 in
	getppid) rate=$("$LOOP" "$WINDOW" | sed 's/calls_per_s=//') ;;
	pipe) line=$("$PINGPONG" "$WINDOW"); rate=$(echo "$line" | sed 's/round_trips_per_s=\([0-9]*\).*/\1/')
	      echo "$line" | sed 's/.*switches_per_s=//' >> "$TMP/switches" ;;
	esac
	case $2 in
	top) stop_top "$TMP/selfcpu.$1" ;;
	floor) stop_top /dev/null ;;
	esac
	echo "$rate" > "$TMP/rate.$1.$2"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f-%.3f", lo, hi}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for b in getppid pipe; do
		# The order rotates each round, so no mode always runs first.
		modes="alone top${FLOOR:+ floor}"
		set -- $modes
		n=$#
		i=0
		while [ "$i" -lt "$n" ]; do
			set -- $modes
			shift $(((r + i) % n))
			run $b "$1"
			i=$((i + 1))
		done
		a=$(cat "$TMP/rate.$b.alone") t=$(cat "$TMP/rate.$b.top")
		echo "$a" >> "$TMP/alone.$b"
		awk -v a="$a" -v t="$t" 'BEGIN { print t / a }' >> "$TMP/ratio.$b"
		if [ -n "$FLOOR" ]; then
			f=$(cat "$TMP/rate.$b.floor")
			awk -v a="$a" -v f="$f" 'BEGIN { print f / a }' >> "$TMP/floor.$b"
			echo "round $r: $b alone $a, with top $t, with the dispatch-only build $f" >&2
		else
			echo "round $r: $b alone $a, with top $t" >&2
		fi
	done
	r=$((r + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| bystander | alone (per CPU-second, median) | with top / alone, median | range | rounds |"
echo "|---|---|---|---|---|"
echo "| getppid loop | $(median < "$TMP/alone.getppid") calls | $(median < "$TMP/ratio.getppid") | $(range < "$TMP/ratio.getppid") | $ROUNDS |"
echo "| pipe ping-pong | $(median < "$TMP/alone.pipe") round trips | $(median < "$TMP/ratio.pipe") | $(range < "$TMP/ratio.pipe") | $ROUNDS |"
if [ -n "$FLOOR" ]; then
	echo
	echo "| bystander | dispatch-only build / alone, median | range |"
	echo "|---|---|---|"
	echo "| getppid loop | $(median < "$TMP/floor.getppid") | $(range < "$TMP/floor.getppid") |"
	echo "| pipe ping-pong | $(median < "$TMP/floor.pipe") | $(range < "$TMP/floor.pipe") |"
fi
echo
echo "spinscope top -i $INTERVAL's own CPU (share of one CPU), median (range): beside the getppid loop $(median < "$TMP/selfcpu.getppid") ($(range < "$TMP/selfcpu.getppid")), beside the ping-pong $(median < "$TMP/selfcpu.pipe") ($(range < "$TMP/selfcpu.pipe")) at a median $(median < "$TMP/switches") switches/s of the ping-pong; peak RSS $(sort -n "$TMP/rss" | tail -1) KiB"
