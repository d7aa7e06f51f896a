#!/bin/bash
# README cannot rot: every `spinscope` command in its fenced blocks (a line
# "# spinscope ..." or "$ spinscope ...") runs here, in README's order and
# in one folder (so `report` and `diff` read what the commands before them
# recorded), against tests/workloads/hot_lock, the workload README shows.
# A command exits 0 and writes the files it names. Two edits only: `-p N`
# gets this run's workload, and `-d` is cut to at most 3 s. README stays at
# most 300 lines. As root (BPF); the calibration commands write a tmpfs
# over /var/lib/spinscope in a mount namespace of this test's own, so the
# host's saved calibration is read but never changed. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh
readme=${README:-README.md}
can_run=0
[ "$(id -u)" = 0 ] && [ -s /sys/kernel/btf/vmlinux ] && can_run=1
if [ $can_run = 1 ] && [ -z "${SS_README_NS:-}" ]; then
	mkdir -p /var/lib/spinscope
	exec unshare -m --propagation private env SS_README_NS=1 "$0" "$@"
fi
lines=$(wc -l <"$readme")
[ "$lines" -le 300 ] && tap OK "$readme is $lines lines (at most 300)" ||
	tap FAIL "$readme is at most 300 lines" "it has $lines"

cmds=$(awk '/^```/ { fenced = !fenced; next }
	    fenced && /^[#$] spinscope( |$)/ { print substr($0, 3) }' "$readme")
[ -n "$cmds" ] && tap OK "$readme shows $(wc -l <<<"$cmds") spinscope commands" ||
	tap FAIL "$readme shows spinscope commands in fenced blocks"
if [ $can_run = 0 ]; then
	skip "README's commands need root and a kernel with BTF"
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit
fi

saved=$(mktemp)
cp /var/lib/spinscope/calibration.json "$saved" 2>/dev/null
mount -t tmpfs -o mode=0755 spinscope-readme /var/lib/spinscope || {
	tap FAIL "a private /var/lib/spinscope"
	echo "1..$n"
	exit 1
}
[ -s "$saved" ] && install -m 0600 "$saved" /var/lib/spinscope/calibration.json
rm -f "$saved"

if [ ! -x "$OUTPUT/workloads/hot_lock" ]; then
	skip "$OUTPUT/workloads/hot_lock is not built (make workloads; make test builds it)"
	echo "1..$n"
	exit 0
fi
dir=$(mktemp -d)
wl=
trap '[ -n "$wl" ] && kill $wl 2>/dev/null; rm -rf "$dir"' EXIT
mkdir "$dir/bin"
ln -s "$(realpath "$SPINSCOPE")" "$dir/bin/spinscope"
workload=$(realpath "$OUTPUT/workloads/hot_lock")

start_workload() {	# sets wl: 4 threads on one mutex for 100 s, started
	[ -n "$wl" ] && kill "$wl" 2>/dev/null
	"$workload" 4 1 20 100 </dev/null >"$dir/wl.out" 2>&1 &
	wl=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$dir/wl.out" && break
		sleep 0.05
	done
	kill -USR1 "$wl"
}

while IFS= read -r cmd; do
	run=$cmd
	if [[ $run =~ -p\ [0-9]+ ]]; then
		start_workload
		run=$(sed -E "s/-p [0-9]+/-p $wl/" <<<"$run")
	fi
	run=$(sed -E 's/-d ([4-9]|[1-9][0-9]+)( |$)/-d 3\2/' <<<"$run")
	out=$(cd "$dir" && PATH=$dir/bin:$PATH timeout 300 bash -c "$run" 2>&1 </dev/null)
	rc=$?
	missing=
	for f in $(grep -oE -- '(-o|--output|--pprof|--html|--folded|--metrics-file) [^ ]+' <<<"$run" | cut -d' ' -f2); do
		[ -s "$dir/$f" ] || missing="$missing $f"
	done
	if [ $rc -eq 0 ] && [ -z "$missing" ]; then
		tap OK "$cmd"
	else
		tap FAIL "$cmd" "ran: $run" "exit $rc${missing:+, not written:$missing}" \
			"$(tail -5 <<<"$out")"
	fi
done <<<"$cmds"
echo "1..$n"
[ "$failed" -eq 0 ]
