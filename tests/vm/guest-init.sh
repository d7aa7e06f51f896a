#!/bin/busybox sh
# /init of the kernel matrix's guests (tests/vm/kernels.sh): mounts what
# spinscope needs, runs the checks named by kmatrix.checks= on the kernel
# command line and prints one line per check for the host to read:
#   kmatrix: check NAME ok SECONDS
#   kmatrix: check NAME FAIL SECONDS why
# followed by the check's output as "kmatrix-log:" lines, then
# "kmatrix: done" and a poweroff. The built tree is at /k (OUTPUT=/k).
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mkdir -p /tmp /var/lib
export PATH=/bin LD_LIBRARY_PATH=/lib/guest OUTPUT=/k CI=true CMOCKA_MESSAGE_OUTPUT=TAP HOME=/tmp
# No stdin: a test that reads it must not wait on the console.
exec </dev/null

checks=$(sed -n 's/.*kmatrix\.checks=\([a-z0-9_,]*\).*/\1/p' /proc/cmdline)
# What the kernel had warned of before the checks (kernel_quiet compares).
kernel_warnings() { dmesg | grep -cE 'WARNING: CPU|BUG: |Oops'; }
warnings0=$(kernel_warnings)
echo
echo "kmatrix: guest $(uname -r) $(uname -m) cpus=$(nproc) checks=$checks"

# report NAME START RC OUTPUT-FILE WHY
report() {
	t=$(($(date +%s) - $2))
	if [ "$3" = 0 ]; then
		echo "kmatrix: check $1 ok ${t}s"
	else
		echo "kmatrix: check $1 FAIL ${t}s $5"
		tail -n 40 "$4" | sed 's/^/kmatrix-log: /'
	fi
}

# The processes and the kernel's blocked tasks (sysrq w), for a check that
# hangs.
dump_state() {
	ps -o pid,stat,time,args | sed 's/^/kmatrix-beat: /'
	echo w >/proc/sysrq-trigger
	dmesg | tail -n 80 | sed 's/^/kmatrix-beat: /'
}

# One cmocka test of a test binary: it must print its own "ok" line (a skip
# or a filter that matched nothing is a failure).
cmocka_check() {	# name binary test
	s=$(date +%s)
	TEST_FILTER=$3 timeout 120 "/k/tests/$2" >/tmp/out 2>&1 &
	pid=$!
	# 10 s before the limit kills a hung check, what it hangs in.
	(sleep 110 && kill -0 $pid 2>/dev/null && dump_state) &
	watcher=$!
	wait $pid
	rc=$?
	kill $watcher 2>/dev/null
	grep -q "^ok [0-9]* - $3\$" /tmp/out || { [ $rc = 0 ] && rc=1; }
	# cmocka's message (ERROR: ...) says why, else the failed assertion
	# and where it is (the two "# " lines after "not ok").
	why=$(grep -m1 '^ERROR: ' /tmp/out | cut -c8-300)
	[ -n "$why" ] || why=$(grep -A2 '^not ok' /tmp/out | grep '^# ' | head -2 |
		sed 's/^# //' | tr '\n' ' ' | cut -c1-300)
	report "$1" "$s" "$rc" /tmp/out "${why:-exit status $rc}"
}

# calibrate --quick, saved where the traces' advice reads it (run first: a
# trace without it calibrates at report time, longer than the tests wait
# under TCG), then the spin-hint rows this CPU must have: on AArch64
# ISB, YIELD and WFE measured, and SB measured exactly when the kernel
# reports FEAT_SB ("sb" in /proc/cpuinfo, HWCAP_SB); on x86-64 PAUSE.
hint_measured() { grep -Eq "^  $1 +[0-9.]+ " /tmp/cal; }
calibrate_check() {
	s=$(date +%s)
	timeout 240 /k/spinscope calibrate --quick >/tmp/cal 2>&1
	rc=$?
	why="exit status $rc"
	if [ $rc = 0 ]; then
		case $(uname -m) in
		aarch64)
			for h in isb yield wfe; do
				hint_measured $h || { rc=1 why="$h not measured"; }
			done
			if grep -q '^Features.* sb\( \|$\)' /proc/cpuinfo; then
				hint_measured sb || { rc=1 why="CPU has FEAT_SB but sb not measured"; }
			else
				grep -Eq '^  sb +unavailable +\(no HWCAP_SB' /tmp/cal ||
					{ rc=1 why="CPU lacks FEAT_SB but sb not reported unavailable"; }
			fi
			;;
		x86_64) hint_measured pause || { rc=1 why="pause not measured"; } ;;
		esac
	fi
	report calibrate "$s" "$rc" /tmp/cal "$why"
	grep -E '^  (isb|sb|yield|wfe|wfet|pause) ' /tmp/cal | sed 's/^/kmatrix-hint: /'
}

# What tracing another process costs a getppid loop, per mechanism (make
# bench-kernel-cost; a benchmark: its table is printed, never judged).
hostcost_check() {
	s=$(date +%s)
	SPINSCOPE=/k/spinscope LOOP=/k/bench/getppid_loop timeout 400 sh /k/bench/light_host_cost.sh \
		-r 15 -w 1 -m "baseline tracepoint fentry light" >/tmp/out 2>&1
	rc=$?
	report hostcost "$s" "$rc" /tmp/out "exit status $rc"
	grep -E '^(\||load|round)' /tmp/out | sed 's/^/kmatrix-bench: /'
}

# A heartbeat, so that a slow guest can be told from a hung one: every 60 s
# the check running and the guest's uptime; from the third beat of one
# check, the processes and the kernel's blocked tasks (sysrq w), once.
echo none >/tmp/current
(
	beats=0 last=""
	while sleep 60; do
		cur=$(cat /tmp/current)
		[ "$cur" = "$last" ] && beats=$((beats + 1)) || beats=1
		last=$cur
		echo "kmatrix-beat: $(cut -d' ' -f1 /proc/uptime)s in $cur"
		[ "$beats" = 3 ] && dump_state
	done
) &

# test_calib_numa on the two nodes; when it fails, the family's own reasons
# (the "why" of each case) and whether the kernel balances NUMA memory.
numa_check() {
	s=$(date +%s)
	nodes=$(cat /sys/devices/system/node/online)
	timeout 180 /k/tests/unit/calib/test_calib_numa >/tmp/out 2>&1
	rc=$?
	[ "$nodes" = 0-1 ] || rc=1
	if [ $rc != 0 ]; then
		echo "numa_balancing=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null)" >>/tmp/out
		for n in /sys/devices/system/node/node*/meminfo; do
			grep -E 'MemFree|AnonHugePages' "$n" | tr -s ' ' >>/tmp/out
		done
		grep -E '^(numa_|pgmigrate|thp_)' /proc/vmstat | tr '\n' ' ' >>/tmp/out
		echo >>/tmp/out
		# Each case that failed: its kind, CPU, nodes and why.
		timeout 120 /k/spinscope calibrate --quick --only numa --json >/tmp/numa.json 2>&1
		tr -d '\n ' </tmp/numa.json | grep -o '{"kind[^{]*{[^}]*}[^{]*"why":"[^"]*"' >>/tmp/out
	fi
	report numa "$s" "$rc" /tmp/out "nodes online '$nodes', exit status $rc"
}

for c in $(echo "$checks" | tr , ' '); do
	echo "$c" >/tmp/current
	case $c in
	yields) cmocka_check yields integration/test_trace_counts test_yield_counts_exact ;;
	new_threads) cmocka_check new_threads integration/test_trace_counts \
		test_yield_threads_created_after_attach ;;
	# Many short-lived threads folded at their exit, totals exact; a slot
	# freed by one thread's exit not taken by its slot mate as a second
	# record (issue 30).
	churn) cmocka_check churn integration/test_trace_counts test_short_lived_threads_exact ;;
	slot_freed) cmocka_check slot_freed integration/test_trace_counts test_slot_mates_slot_freed ;;
	futex) cmocka_check futex integration/test_trace_counts test_futex_waits_exact ;;
	# futex_waitv (5.16) and futex2's futex_wait and futex_wake (6.7).
	futex2) cmocka_check futex2 integration/test_trace_counts test_futex2_calls_exact
		grep '^futex2: ' /tmp/out | sed 's/^/kmatrix-attach: /' ;;
	fentry_futex2) export TT_ATTACH=fentry
		cmocka_check fentry_futex2 integration/test_trace_counts test_futex2_calls_exact
		unset TT_ATTACH ;;
	target_exit) cmocka_check target_exit integration/test_trace_lifecycle \
		test_target_exit_ends_trace_json ;;
	# Two call sites on one word keep their own stacks, on the programs
	# this kernel loads and on the frame-pointer ones (the only ones
	# before 5.17), which read the user stack pointer off the kernel stack.
	call_sites) cmocka_check call_sites integration/test_unwind_e2e \
		test_each_call_site_keeps_its_own_stack ;;
	call_sites_fp) cmocka_check call_sites_fp integration/test_unwind_e2e \
		test_each_call_site_keeps_its_own_stack_fp ;;
	# The futex waits and the threads created after attach traced on
	# --attach=fentry (not auto's choice: traces on fentry hung in these
	# guests under multi-threaded TCG; make test-kernels-fentry repeats
	# them).
	fentry_futex) export TT_ATTACH=fentry
		cmocka_check fentry_futex integration/test_trace_counts test_futex_waits_exact
		unset TT_ATTACH ;;
	fentry_threads) export TT_ATTACH=fentry
		cmocka_check fentry_threads integration/test_trace_counts \
			test_yield_threads_created_after_attach
		unset TT_ATTACH ;;
	attach) cmocka_check attach integration/test_attach test_forced_fentry
		grep '^mechanism: ' /tmp/out | sed 's/^/kmatrix-attach: /' ;;
	light_kernel) cmocka_check light_kernel integration/test_attach test_light_or_exit_5
		grep '^mechanism: ' /tmp/out | sed 's/^/kmatrix-attach: /' ;;
	# spinscope top: exact blocked futex waits and waiters woken from
	# 5.15, one line and exit 5 before.
	top_kernel) cmocka_check top_kernel integration/test_top test_top_counts_or_exit_5
		grep '^mechanism: ' /tmp/out | sed 's/^/kmatrix-attach: /' ;;
	# The tracing programs' hash maps grow as used from 6.1 (not RT),
	# preallocated before (where the verifier would warn).
	# The samples' stores decoded on this architecture (capstone's
	# AArch64 decoder on the arm64 guests) and named: issue 33.
	data_addrs) cmocka_check data_addrs integration/test_false_sharing \
		test_stores_decoded_on_this_arch ;;
	maps) cmocka_check maps integration/test_map_alloc \
		test_hash_maps_grow_where_the_kernel_allows
		grep '^maps: [0-9]' /tmp/out | sed 's/^/kmatrix-attach: /' ;;
	# Run last: no check made the kernel warn (WARN_ON, BUG, Oops), as
	# a run-time allocated map in a tracing program does before 6.1.
	kernel_quiet) s=$(date +%s)
		dmesg | grep -E -A4 'WARNING: CPU|BUG: |Oops' >/tmp/out
		n=$(kernel_warnings)
		[ "$n" = "$warnings0" ]
		rc=$?
		report kernel_quiet "$s" $rc /tmp/out \
			"the kernel warned $((n - warnings0)) times during the checks, first: $(dmesg | grep -E 'WARNING: CPU|BUG: |Oops' | sed -n "$((warnings0 + 1))p" | cut -c1-160)" ;;
	calibrate) calibrate_check ;;
	hostcost) hostcost_check ;;
	numa) numa_check ;;
	*) echo "kmatrix: check $c FAIL 0s unknown check" ;;
	esac
done
echo "kmatrix: done"
poweroff -f
