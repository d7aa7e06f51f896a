#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A thread-per-request server under spinscope (issue 30 item 5): the
# server (bench/thread_server.c) starts RATE threads a second for SECONDS
# seconds, each making K sched_yield calls, and says how many threads and
# yields it made; spinscope -p traces the whole run. Prints what the
# server did against what spinscope counted (they must be equal), the
# drops, the exited threads' groups, spinscope's CPU time and peak RSS,
# and the server's own time with and without the trace.
#
#   bench/thread_churn.sh [-r RATE] [-s SECONDS] [-k K] [-x "SPINSCOPE ARGS"]
#
# As root, from the repository root (make bench-threads builds and runs it).
set -euo pipefail
RATE=5000 SECONDS_=60 K=3 EXTRA=""
while getopts "r:s:k:x:h" opt; do
	case $opt in
	r) RATE=$OPTARG ;;
	s) SECONDS_=$OPTARG ;;
	k) K=$OPTARG ;;
	x) EXTRA=$OPTARG ;;
	*) sed -n '12,12p' "$0" | sed 's/^# //' >&2; exit 2 ;;
	esac
done
SPINSCOPE=${SPINSCOPE:-build/spinscope}
SERVER=${SERVER:-build/bench/thread_server}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Waits until file $1 has a line matching $2.
wait_line() {
	until grep -q "$2" "$1" 2>/dev/null; do sleep 0.05; done
}

# One run: traced (1) or not (0). Leaves the server's "done" line in
# $dir/out, spinscope's report in $dir/report.json and its times in $dir/time.
run() {
	rm -f "$dir/in" "$dir/out" "$dir/err" "$dir/report.json" "$dir/time"
	mkfifo "$dir/in"
	"$SERVER" "$RATE" "$SECONDS_" "$K" <"$dir/in" >"$dir/out" & srv=$!
	exec 3>"$dir/in"
	wait_line "$dir/out" '^ready'
	if [ "$1" = 1 ]; then
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$SPINSCOPE" -p "$srv" -d 0 --json \
			--no-calibrate $EXTRA >"$dir/report.json" 2>"$dir/err" & ss=$!
		wait_line "$dir/err" 'tracing'
	fi
	echo go >&3
	wait_line "$dir/out" '^done'
	if [ "$1" = 1 ]; then
		kill -INT "$(pgrep -P "$ss")"	# spinscope, not time(1), which ignores SIGINT
		wait "$ss"
	fi
	exec 3>&-
	wait "$srv"
}

field() { sed -n "s/.*[ ]$1=\([0-9.]*\).*/\1/p" "$dir/out"; }

echo "server: $RATE threads/s for $SECONDS_ s, $K yields each; spinscope $EXTRA"
run 0
echo "untraced: $(grep '^done' "$dir/out")"
run 1
echo "traced:   $(grep '^done' "$dir/out")"
read -r wall user sys rss <"$dir/time"
python3 - "$dir/report.json" "$(field threads)" "$(field yields)" "$user" "$sys" "$rss" "$wall" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
threads, yields = int(sys.argv[2]), int(sys.argv[3])
user, sys_, rss, wall = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
t = doc["totals"]
groups = doc.get("exited_threads", [])
print(f"spinscope: yields {t['sched_yield']} of {yields} ({'exact' if t['sched_yield'] == yields else 'NOT exact'}), "
      f"threads {t['threads']} ({sum(g['threads'] for g in groups)} exited in {len(groups)} group(s), "
      f"{len(doc['threads'])} alive) of {threads} + main")
print("  dropped:", {k: v for k, v in doc["dropped"].items() if v} or "nothing")
print(f"  spinscope: {user + sys_:.2f} s CPU ({user:.2f} user, {sys_:.2f} sys) over {wall:.1f} s, "
      f"peak RSS {rss / 1024:.1f} MiB")
PY
