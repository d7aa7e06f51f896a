#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A/B of two spinscope builds' per-event cost: bench/progcost.sh (the
# kernel's BPF run-time statistics) on the same workload, the two builds
# interleaved (A B, then B A, ...), and per program the median ns per run
# of each build, their range and the median of the per-pair ratios B/A.
#
#   bench/progcost_ab.sh [-r PAIRS] [-w SECONDS] [-x SPINSCOPE_ARGS] A B WORKLOAD
#
# A and B are spinscope binaries (copy a build aside before the change);
# WORKLOAD as progcost.sh's. The statistics' own two clock reads are in
# every ns/run alike, so differences are the change's. The row
# all_ns_per_op is every program's time per workload operation (a round
# trip, a lock acquisition): the BPF share of the tracing cost.
set -u

PAIRS=7
WINDOW=2
EXTRA=
HERE=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '9,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "r:w:x:h" opt; do
	case $opt in
	r) PAIRS=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	x) EXTRA=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 3 ] || usage
A=$1 B=$2 WL=$3
TMP=$(mktemp -d /tmp/spinscope-progcost-ab.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# "name ns_per_run" lines of one progcost.sh run of build $1 into file $2.
one() {
	"$HERE/progcost.sh" -w "$WINDOW" -s "$1" -x "$EXTRA" "$WL" 2>&1 |
		awk -F'|' 'NF > 5 && $2 !~ /program|---/ {
			gsub(/ /, "", $2); gsub(/ /, "", $4); gsub(/ /, "", $5); print $2, $4
			if ($2 == "all") print "all_ns_per_op", $5	# every program, per workload op
		}' > "$2"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for ((i = 0; i < PAIRS; i++)); do
	if ((i % 2)); then
		one "$B" "$TMP/b.$i"; one "$A" "$TMP/a.$i"
	else
		one "$A" "$TMP/a.$i"; one "$B" "$TMP/b.$i"
	fi
	join <(sort "$TMP/a.$i") <(sort "$TMP/b.$i") >> "$TMP/pairs"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| program | A ns/run, median (range) | B ns/run, median (range) | B/A, median of pairs | pairs |"
echo "|---|---|---|---|---|"
awk '{ n[$1]++; a[$1, n[$1]] = $2; b[$1, n[$1]] = $3; r[$1, n[$1]] = $3 / $2 }
function med(arr, k, m,    i, j, t, v) {
	for (i = 1; i <= m; i++) v[i] = arr[k, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	lo = v[1]; hi = v[m]
	return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
END {
	for (k in n) {
		m = n[k]
		ma = med(a, k, m); la = lo; ha = hi
		mb = med(b, k, m); lb = lo; hb = hi
		mr = med(r, k, m)
		printf "| %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.2f | %d |\n", k, ma, la, ha, mb, lb, hb, mr, m
	}
}' "$TMP/pairs" | sort
