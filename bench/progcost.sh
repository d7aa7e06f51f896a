#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where does spinscope's overhead go? Traces one benchmark workload with
# the kernel's BPF run-time statistics on (sysctl kernel.bpf_stats_enabled,
# restored afterwards) and prints, for each of spinscope's BPF programs, how
# often it ran during the measured window and how long one run took.
#
#   bench/progcost.sh [-w SECONDS] [-s SPINSCOPE] [-x SPINSCOPE_ARGS] WORKLOAD
#
# WORKLOAD is one of pingpong, pingpong-1cpu, yield, yield-pair, mutex4
# (see overhead.sh). The statistics add two clock reads to every BPF program run
# on the host while on, so the throughput printed here is not the one to
# quote: overhead.sh measures that with the statistics off.
#
# run_time_ns covers the programs' own instructions and helper calls only:
# not the cost of entering them, nor the slower system-call path every
# thread takes while any syscall tracepoint is enabled.
set -u

WINDOW=2
EXTRA=
BIN=${BENCH_BIN:-build/bench}
SPINSCOPE=${SPINSCOPE:-build/spinscope}

die() { echo "progcost.sh: $*" >&2; exit 1; }
usage() { sed -n '9,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "w:s:x:h" opt; do
	case $opt in
	w) WINDOW=$OPTARG ;;
	s) SPINSCOPE=$OPTARG ;;
	x) EXTRA=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || usage
case $1 in
pingpong) CMD=("$BIN/pingpong") ;;
pingpong-1cpu) CMD=("$BIN/pingpong" --same-cpu) ;;
yield) CMD=("$BIN/yieldloop") ;;
yield-pair) CMD=("$BIN/yieldloop" --pair) ;;
mutex4) CMD=("$BIN/mutexloop") ;;
*) usage ;;
esac
[ "$(id -u)" = 0 ] || die "run as root"
[ -x "${CMD[0]}" ] || die "${CMD[0]} missing: run make bench-bins"
[ -x "$SPINSCOPE" ] || die "$SPINSCOPE missing: run make"
command -v bpftool >/dev/null || die "bpftool missing: apt-get install -y bpftool"

TMP=$(mktemp -d /tmp/spinscope-progcost.XXXXXX)
OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled) || die "no kernel.bpf_stats_enabled"
WL_PID=
SS_PID=
STATS_PID=
cleanup() {
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS"
	[ -n "$STATS_PID" ] && kill -TERM "$STATS_PID" 2>/dev/null
	[ -n "$WL_PID" ] && kill -KILL "$WL_PID" 2>/dev/null
	[ -n "$SS_PID" ] && kill -INT "$SS_PID" 2>/dev/null
	wait
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# The ids of the BPF programs spinscope holds open (found through its file
# descriptors, so nobody else's programs count), read once: on a loaded
# host a readlink per descriptor took long enough that the workload ended
# (and spinscope with it) before a second pass was done.
prog_ids() {
	local fd ids=
	for fd in /proc/"$SS_PID"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-prog" ] || continue
		ids+=" $(awk '$1 == "prog_id:" {print $2}' "/proc/$SS_PID/fdinfo/${fd##*/}")"
	done
	echo "$ids"
}

# "id name run_time_ns run_cnt" for each of those programs: one bpftool
# call for all of them, so the two snapshots are quick and close to the
# clock readings that time them.
snapshot() {
	local ids=$1
	bpftool prog show | awk -v ids="$ids" '
		BEGIN { n = split(ids, l, " "); for (i = 1; i <= n; i++) want[l[i] ":"] = 1 }
		$1 ~ /^[0-9]+:$/ && ($1 in want) {
			t = 0; c = 0; nm = ""
			for (i = 2; i < NF; i++) {
				if ($i == "name") nm = $(i + 1)
				if ($i == "run_time_ns") t = $(i + 1)
				if ($i == "run_cnt") c = $(i + 1)
			}
			sub(/:$/, "", $1); print $1, nm, t + 0, c + 0
		}' | sort -n
}

sysctl -q -w kernel.bpf_stats_enabled=1 || die "cannot enable kernel.bpf_stats_enabled"
# The sysctl is one switch for the host: another run's restore turns it off
# under this one. A BPF_ENABLE_STATS descriptor (Linux 5.8) holds the
# statistics on for as long as it is open, whatever the sysctl says.
python3 -c '
import ctypes, os, signal, sys
nr = {"x86_64": 321, "aarch64": 280}.get(os.uname().machine)
attr = (ctypes.c_uint32 * 2)(0, 0)	# BPF_STATS_RUN_TIME
fd = ctypes.CDLL(None, use_errno=True).syscall(nr, 32, attr, 4) if nr else -1	# BPF_ENABLE_STATS
print("held" if fd >= 0 else "not held", flush=True)
signal.pause()' >"$TMP/stats.out" 2>&1 &
STATS_PID=$!
wait_line '^held' "$TMP/stats.out" || die "statistics holder did not start: $(cat "$TMP/stats.out")"
"${CMD[@]}" -w "$WINDOW" >"$TMP/wl.out" 2>&1 &
WL_PID=$!
wait_line '^ready' "$TMP/wl.out" || die "workload did not start: $(cat "$TMP/wl.out")"
# shellcheck disable=SC2086 # EXTRA is a list of options
"$SPINSCOPE" -p "$WL_PID" -d 0 --json $EXTRA >"$TMP/ss.out" 2>"$TMP/ss.err" &
SS_PID=$!
wait_line 'spinscope: tracing' "$TMP/ss.err" || die "spinscope did not attach: $(cat "$TMP/ss.err")"
IDS=$(prog_ids)
sleep 0.5
t0=$(date +%s%N)
snapshot "$IDS" >"$TMP/before"
kill -USR1 "$WL_PID"
# Second snapshot a little before the window closes: the workload exits
# then, and spinscope with it.
sleep "$(awk -v w="$WINDOW" 'BEGIN {print w - 0.3}')"
snapshot "$IDS" >"$TMP/after"
t1=$(date +%s%N)
wait "$WL_PID"
WL_PID=
wait "$SS_PID"
SS_PID=
line=$(grep ' rate=' "$TMP/wl.out") || die "no result from the workload"
rate=$(sed -n 's/.* rate=\([0-9]*\).*/\1/p' <<<"$line")

echo "$1 under $SPINSCOPE with BPF statistics on: $line"
join "$TMP/before" "$TMP/after" | awk -v dt="$(((t1 - t0) / 1000))" -v rate="$rate" '
BEGIN {
	printf "| program | runs/s | ns/run | ns per workload op | CPU |\n"
	printf "|---|---|---|---|---|\n"
}
{
	runs = $7 - $4; ns = $6 - $3	# id name ns runs name ns runs
	if (runs == 0) next
	us = dt
	printf "| %s | %.0f | %.0f | %.0f | %.1f%% |\n", $2, runs * 1e6 / us, ns / runs,
		ns * 1e6 / us / rate, 100 * ns / 1000 / us
	tr += runs; tn += ns
}
END {
	if (tr) printf "| all | %.0f | %.0f | %.0f | %.1f%% |\n", tr * 1e6 / dt, tn / tr,
		tn * 1e6 / dt / rate, 100 * tn / 1000 / dt
}'
