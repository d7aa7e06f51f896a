#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What capturing each sample's registers (the data addresses behind the
# false-sharing advice) costs the traced program: bench/storeloop.c traced
# by spinscope --event cpu-clock at the default rate, with the registers
# (the default) and with --no-data-addresses, and untraced. The set-ups
# run in interleaved rounds, their order rotating each round; each run's
# window starts once spinscope says it is attached. Prints the medians of
# the rates and the median of the per-round ratios regs/noregs.
# With -p, the kernel's BPF statistics are on during the traced runs
# (sysctl kernel.bpf_stats_enabled, restored afterwards; every BPF program
# of the host then pays two clock reads a run) and the sampling program's
# ns per run is printed too, with and without registers.
#
#   bench/regs_ab.sh [-r ROUNDS] [-w SECONDS] [-p]
#
# Environment: BENCH_BIN (default build/bench), SPINSCOPE (default
# build/spinscope).
set -u

ROUNDS=7
WINDOW=3
PROGCOST=0
BIN=${BENCH_BIN:-build/bench}
SS=${SPINSCOPE:-build/spinscope}

while getopts "r:w:ph" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	p) PROGCOST=1 ;;
	*) sed -n '17,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

TMP=$(mktemp -d /tmp/spinscope-regs.XXXXXX)
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
trap 'rm -rf "$TMP"; sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"' EXIT
[ "$PROGCOST" = 1 ] && sysctl -qw kernel.bpf_stats_enabled=1

# ns per run of the sampling program that spinscope $1 loaded (its BPF
# program fds name their ids in /proc/PID/fdinfo).
sample_ns() {
	local id
	for id in $(awk '/^prog_id:/ {print $2}' /proc/"$1"/fdinfo/* 2>/dev/null | sort -rnu); do
		bpftool -j prog show id "$id" | python3 -c '
import json, sys
p = json.load(sys.stdin)
if p.get("name", "").startswith("ss_sample") and p.get("run_cnt"):
    print("%.1f" % (p["run_time_ns"] / p["run_cnt"]))'
	done | head -1
}

# Waits up to $3 s for a line matching $1 in file $2.
wait_line() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# One run of set-up $1: prints the workload's rate.
run() {
	local setup=$1 wout=$TMP/w.out terr=$TMP/t.err pid tpid="" rate
	: >"$wout"
	: >"$terr"
	"$BIN/storeloop" -w "$WINDOW" >"$wout" 2>&1 &
	local wpid=$!
	wait_line '^ready' "$wout" 10 || { echo "no ready from storeloop" >&2; return 1; }
	pid=$(sed -n 's/^ready pid=\([0-9]*\).*/\1/p' "$wout")
	if [ "$setup" != baseline ]; then
		local extra=""
		[ "$setup" = noregs ] && extra=--no-data-addresses
		"$SS" -p "$pid" --event cpu-clock --no-calibrate -d $((WINDOW + 30)) $extra \
			>/dev/null 2>"$terr" &
		tpid=$!
		wait_line ': tracing' "$terr" 30 || { echo "spinscope did not attach" >&2; return 1; }
	fi
	kill -USR1 "$pid"
	# spinscope ends with its target: its program's figures are read
	# within the window (half way: the sampler, loaded last, has the highest id).
	if [ -n "$tpid" ] && [ "$PROGCOST" = 1 ]; then
		sleep "$(awk -v w="$WINDOW" 'BEGIN {print w * 0.5}')"
		sample_ns "$tpid" >>"$TMP/ns_$setup"
	fi
	wait "$wpid"
	[ -n "$tpid" ] && { kill -INT "$tpid" 2>/dev/null; wait "$tpid"; }
	rate=$(sed -n 's/.*rate=\([0-9]*\).*/\1/p' "$wout")
	[ -n "$rate" ] || { echo "no rate: $(cat "$wout")" >&2; return 1; }
	echo "$rate"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

setups=(regs noregs baseline)
for ((r = 0; r < ROUNDS; r++)); do
	line="round $((r + 1)):"
	for ((k = 0; k < 3; k++)); do
		s=${setups[$(((r + k) % 3))]}
		v=$(run "$s") || exit 1
		echo "$v" >>"$TMP/$s"
		eval "round_$s=$v"
		line="$line $s $v"
	done
	awk -v a="$round_regs" -v b="$round_noregs" 'BEGIN {print a / b}' >>"$TMP/ratio"
	echo "$line adds/s" >&2
done
echo "storeloop adds/s, median of $ROUNDS rounds, ${WINDOW} s windows:"
echo "  with registers (default) $(median <"$TMP/regs")"
echo "  --no-data-addresses      $(median <"$TMP/noregs")"
echo "  untraced                 $(median <"$TMP/baseline")"
echo "  regs/noregs, median of the per-round ratios: $(median <"$TMP/ratio")"
if [ "$PROGCOST" = 1 ]; then
	echo "sampling program ns/run (BPF statistics on), median: with registers" \
		"$(median <"$TMP/ns_regs"), --no-data-addresses $(median <"$TMP/ns_noregs")"
fi
