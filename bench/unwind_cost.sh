#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a user stack costs in BPF, unwound through libc's .eh_frame rows
# against the kernel's frame-pointer walk (bpf_get_stackid): the yield
# workload (bench/yieldloop.c, its sched_yield through libc's frameless
# syscall()) traced with a stack taken at every call (--stack-interval 0),
# yield_enter's ns per run from the kernel's BPF statistics (progcost.sh).
# Three set-ups, interleaved ROUNDS times, medians printed:
#   unwind  the default: CFI through libc, then frame pointers
#   fp      SPINSCOPE_UNWIND=off: bpf_get_stackid
#   none    --stack-interval 1000: (almost) no stack, the program's rest
#
#   bench/unwind_cost.sh [-r ROUNDS] [-w SECONDS]
set -u

ROUNDS=5
WINDOW=2
HERE=$(dirname "$0")

while getopts "r:w:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	*) sed -n '15,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

# ns per run of yield_enter, from one progcost.sh run (up to three tries:
# a run can lose a program fd to a race in progcost.sh's snapshot).
yield_ns() {
	local ns try
	for try in 1 2 3; do
		ns=$("$HERE/progcost.sh" -w "$WINDOW" "$@" yield 2>/dev/null |
			awk -F'|' '$2 ~ /yield_enter/ {gsub(/ /, "", $4); print $4}')
		[ -n "$ns" ] && { echo "$ns"; return 0; }
	done
	echo "unwind_cost.sh: no figure from progcost.sh $*" >&2
	return 1
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

TMP=$(mktemp -d /tmp/spinscope-unwind.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
for ((r = 1; r <= ROUNDS; r++)); do
	yield_ns -x "--stack-interval 0" >>"$TMP/unwind"
	SPINSCOPE_UNWIND=off yield_ns -x "--stack-interval 0" >>"$TMP/fp"
	yield_ns -x "--stack-interval 1000" >>"$TMP/none"
	echo "round $r: unwind $(tail -1 "$TMP/unwind") fp $(tail -1 "$TMP/fp") none $(tail -1 "$TMP/none") ns/run" >&2
done
u=$(median <"$TMP/unwind"); f=$(median <"$TMP/fp"); n=$(median <"$TMP/none")
echo "yield_enter ns/run, median of $ROUNDS: unwind $u, fp $f, none $n"
echo "per stack: unwind $(awk -v a="$u" -v b="$n" 'BEGIN {print a - b}') ns, fp $(awk -v a="$f" -v b="$n" 'BEGIN {print a - b}') ns"
