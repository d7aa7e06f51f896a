#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# spinscope top's memory with a crowded host: bench/many_procs.c makes P
# processes of T threads (1000 x 20 by default), each thread waking every
# second; `spinscope top -b` (and then with --threads) watches the host for
# SECONDS; its peak RSS (VmHWM) is read just before it is stopped, and a
# --json run says how many processes and threads it saw in one interval.
#
#   bench/top_rss.sh [-p P] [-t T] [-s SECONDS]
#
# Environment: SPINSCOPE (default build/spinscope), MANY (default
# build/bench/many_procs). `make bench-top-rss`. Root.
set -u

P=1000
T=20
SECS=20
SPINSCOPE=${SPINSCOPE:-build/spinscope}
MANY=${MANY:-build/bench/many_procs}
while getopts "p:t:s:h" opt; do
	case $opt in
	p) P=$OPTARG ;;
	t) T=$OPTARG ;;
	s) SECS=$OPTARG ;;
	*) sed -n '10,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
TMP=$(mktemp -d)
WL=
cleanup() { [ -n "$WL" ] && kill "$WL" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

"$MANY" "$P" "$T" > "$TMP/ready" &
WL=$!
for _ in $(seq 1200); do grep -q ready "$TMP/ready" && break; sleep 0.1; done
grep -q ready "$TMP/ready" || { echo "many_procs did not get ready" >&2; exit 1; }
echo "$(cat "$TMP/ready"); host: $(cut -d' ' -f4 /proc/loadavg) tasks, load $(cut -d' ' -f1-3 /proc/loadavg)"

for extra in "" --threads; do
	"$SPINSCOPE" top -b -i 2 $extra > /dev/null 2> "$TMP/err" &
	top=$!
	s=0
	while [ "$s" -lt "$SECS" ]; do
		sleep 1; s=$((s + 1))
		echo "  ${s}s: $(awk '/VmHWM|VmRSS/ { printf "%s %s KiB ", $1, $2 }' "/proc/$top/status")" >&2
	done
	hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$top/status")
	kill -INT "$top"; wait "$top"
	echo "spinscope top -b -i 2 $extra over $SECS s: peak RSS $hwm KiB"
done
"$SPINSCOPE" top --json -d 3 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
ps = d["processes"]
print("one 3 s interval: %d processes, %d threads active; drops %d" %
      (len(ps), sum(p["nthreads"] for p in ps), d["host"]["drops"]))'
