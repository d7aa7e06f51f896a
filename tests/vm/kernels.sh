#!/bin/bash
# The kernel matrix (`make test-kernels`): boots each guest of
# tests/vm/kernels.list under QEMU (TCG: no KVM is used or needed) with
# Debian's own kernel and a busybox initramfs holding spinscope, its shared
# libraries, the workloads and the integration test binaries, runs the
# listed checks inside (tests/vm/guest-init.sh), and prints one line per
# guest and a closing "kernels: N passed, N failed".
#
# Usage: tests/vm/kernels.sh [NAME...]     (default: every guest of the list)
# Environment: OUTPUT (x86-64 build, default build), ARM64_OUTPUT (the
# `make ARCH=arm64` build, default $OUTPUT/aarch64, needed for arm64
# guests), KERNELS_LIST, KERNEL_VM_TIMEOUT (seconds per guest, default 420:
# a guest takes 20 to 90 s on a loaded 2-CPU host; a hung one costs 7
# minutes, so even a matrix of hung guests ends inside CI's 90).
# Downloads (kernel packages, busybox for arm64) are cached under
# $OUTPUT/apt by mk/debfetch.sh; guests' consoles are kept in $OUTPUT/vm.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
ARM64_OUTPUT=${ARM64_OUTPUT:-$OUTPUT/aarch64}
LIST=${KERNELS_LIST:-tests/vm/kernels.list}
VM=$OUTPUT/vm
APT=$OUTPUT/apt
SYSROOT=${ARM64_SYSROOT:-$ARM64_OUTPUT/sysroot}
TIMEOUT=${KERNEL_VM_TIMEOUT:-420}
die() { echo "kernels: $*" >&2; exit 2; }
mkdir -p "$VM"

# --- the guest's root: busybox, /init, the build under /k, its libraries ---

# Libraries a binary needs (DT_NEEDED, recursively), found in the dirs given.
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
interp() { readelf -l "$1" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)\]$/\1/p'; }
find_lib() {	# name dirs...
	local name=$1 d
	shift
	for d in "$@"; do [ -e "$d/$name" ] && { echo "$d/$name"; return 0; }; done
	return 1
}
copy_libs() {	# root "libdirs" binaries...
	local root=$1 dirs=$2 todo lib path i
	shift 2
	mkdir -p "$root/lib/guest"
	todo=$(for b in "$@"; do needed "$b"; done | sort -u)
	while [ -n "$todo" ]; do
		local next=""
		for lib in $todo; do
			[ -e "$root/lib/guest/$lib" ] && continue
			# shellcheck disable=SC2086
			path=$(find_lib "$lib" $dirs) || die "library $lib (needed by the guest's binaries) not found in: $dirs"
			cp -L "$path" "$root/lib/guest/$lib"
			next="$next $(needed "$path")"
		done
		todo=$(echo "$next" | tr ' ' '\n' | sort -u)
	done
	i=$(interp "$1")
	mkdir -p "$root$(dirname "$i")"
	# shellcheck disable=SC2086
	cp -L "$(find_lib "$(basename "$i")" $dirs)" "$root$i"
}

# build_initrd ARCH BUILD BUSYBOX LIBDIRS -> $VM/initrd-ARCH.gz
build_initrd() {
	local arch=$1 build=$2 busybox=$3 dirs=$4 root=$VM/root-$1 b bins=() wl=()
	# What guest-init.sh runs (mk/kernels.mk's GUEST_BINS builds them).
	for b in spinscope tests/integration/test_trace_counts tests/integration/test_trace_lifecycle \
		 tests/integration/test_attach tests/integration/test_unwind_e2e \
		 tests/integration/test_map_alloc tests/integration/test_false_sharing \
		 tests/integration/test_top; do
		[ -x "$build/$b" ] || die "$build/$b missing: run make test-kernels (it builds it)"
		bins+=("$build/$b")
	done
	[ -x "$build/tests/unit/calib/test_calib_numa" ] && bins+=("$build/tests/unit/calib/test_calib_numa")
	# The hostcost check's benchmark (make bench-kernel-cost), when built.
	[ -x "$build/bench/getppid_loop" ] && bins+=("$build/bench/getppid_loop")
	rm -rf "$root"
	mkdir -p "$root"/{bin,proc,sys,dev,tmp,k/workloads}
	cp "$busybox" "$root/bin/busybox"
	cp tests/vm/guest-init.sh "$root/init"
	for b in "${bins[@]}"; do
		mkdir -p "$root/k/$(dirname "${b#"$build"/}")"
		cp "$b" "$root/k/${b#"$build"/}"
	done
	# The workload programs (not the Java classes beside them: no JVM here).
	for b in "$build"/workloads/*; do [ -f "$b" ] && [ -x "$b" ] && wl+=("$b"); done
	cp "${wl[@]}" "$root/k/workloads/"
	[ -x "$build/bench/getppid_loop" ] && cp bench/light_host_cost.sh "$root/k/bench/"
	copy_libs "$root" "$dirs" "${bins[@]}" "${wl[@]}"
	chmod +x "$root/init" "$root/bin/busybox"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$VM/initrd-$arch.gz"
}

# The kernel image inside a Debian linux-image package, extracted once.
kernel_of() {	# suite arch package -> path of vmlinuz
	local deb dir
	deb=$(mk/debfetch.sh "$APT" "$1" "$2" "$3") || return 1
	dir=$VM/kernels/$(basename "$deb" .deb)
	if [ ! -s "$dir/vmlinuz" ]; then
		mkdir -p "$dir"
		dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/vmlinuz-*' > "$dir/vmlinuz.tmp" &&
			[ -s "$dir/vmlinuz.tmp" ] || { echo "kernels: no /boot/vmlinuz-* in $deb" >&2; return 1; }
		mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	fi
	echo "$dir/vmlinuz"
}

# --- one guest --------------------------------------------------------------

# Sets QEMU to the command line that boots kernel $4 on this architecture.
qemu_cmd() {	# arch cpu checks kernel
	local append="quiet panic=-1 kmatrix.checks=$3"
	case $1 in
	amd64)
		# One host thread for both vCPUs: with a thread each (MTTCG),
		# Debian 13's 6.12 died in 3 of 4 boots on an idle host with
		# "Oops: int3" at a tracepoint's static branch in
		# syscall_trace_enter or syscall_exit_to_user_mode_prepare, a
		# site the kernel live-patches (int3, then the new bytes) when
		# a syscall tracepoint is switched on or off: a vCPU ran the
		# int3 after the patch was done, which real CPUs cannot (the
		# kernel serializes them), and the same checks never fail on
		# this host's own 6.18 under KVM. With one thread, 4 of 4.
		QEMU=(qemu-system-x86_64 -accel tcg,thread=single -cpu "$2" -smp 2)
		case $3 in
		*numa*)
			# Two nodes of one CPU and 384 MiB each, distance 21 (as a
			# two-socket host).
			QEMU+=(-m 768M -object memory-backend-ram,id=m0,size=384M
			       -object memory-backend-ram,id=m1,size=384M
			       -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1
			       -numa dist,src=0,dst=1,val=21)
			append="$append transparent_hugepage=madvise" ;;
		*) QEMU+=(-m 1G) ;;
		esac
		QEMU+=(-kernel "$4" -initrd "$VM/initrd-amd64.gz" -append "console=ttyS0 $append") ;;
	arm64)
		# pauth-impdef: QEMU's own pointer-auth hash, far cheaper under TCG
		# than the architected QARMA (the guest cannot tell).
		local cpu=$2
		[ "$cpu" = max ] && cpu=max,pauth-impdef=on
		# One host thread here too: with MTTCG a whole trace now and
		# then saw none of its sched_yield calls (0 of 3000 counted, no
		# drop, the threads seen by the scheduler programs: 1 in 120
		# checks on -cpu max, and new_threads on cortex-a72 in CI), as
		# if the vCPUs kept running the syscall tracepoint's static
		# branch from before the kernel patched it on; the same checks
		# pass on one thread (docs/REFERENCE.md, Supported kernels).
		QEMU=(qemu-system-aarch64 -M virt -accel tcg,thread=single -cpu "$cpu" -smp 2 -m 1G
		      -kernel "$4" -initrd "$VM/initrd-arm64.gz" -append "console=ttyAMA0 $append") ;;
	esac
	QEMU+=(-nographic -no-reboot -monitor none -serial stdio)
}

passed=0 failed=0
run_guest() {	# name suite arch package cpu checks
	local name=$1 suite=$2 arch=$3 pkg=$4 cpu=$5 checks=$6 kernel log t0 t total
	local ok=0 nchecks n_ok summary why running fetch
	nchecks=$(echo "$checks" | tr , '\n' | wc -l)
	log=$VM/$name.console
	t0=$(date +%s)
	if ! kernel=$(kernel_of "$suite" "$arch" "$pkg" 2>"$log.err" </dev/null); then
		failed=$((failed + 1))
		printf 'FAIL  %-16s %-26s fetch: %s\n' "$name" "$suite/$arch $pkg" "$(tail -1 "$log.err")"
		return
	fi
	# The download (first run only) apart from the guest's own seconds.
	fetch=$(($(date +%s) - t0))
	t0=$(date +%s)
	qemu_cmd "$arch" "$cpu" "$checks" "$kernel"
	timeout "$TIMEOUT" "${QEMU[@]}" </dev/null >"$log.raw" 2>&1
	t=$?
	total=$(($(date +%s) - t0))
	# The firmware's terminal escapes and the serial line's CRs off.
	sed -e 's/\x1b[^a-zA-Z]*[a-zA-Z]//g' -e 's/\r$//' "$log.raw" > "$log"
	local guest
	guest=$(grep -o -m1 'kmatrix: guest .*' "$log" | cut -d' ' -f3-4)
	n_ok=$(grep -c '^kmatrix: check [a-z0-9_]* ok ' "$log")
	summary=$(grep '^kmatrix: check ' "$log" | awk '{printf "%s%s=%s(%s)", (NR > 1 ? " " : ""), $3, $4, $5}')
	why=""
	if [ "$n_ok" = "$nchecks" ] && grep -q '^kmatrix: done$' "$log"; then
		ok=1
	elif [ -z "$guest" ]; then
		why="the guest did not start its checks (qemu exit $t; see $log)"
	elif ! grep -q '^kmatrix: done$' "$log"; then
		running=$(echo "$checks" | cut -d, -f$(($(grep -c '^kmatrix: check ' "$log") + 1)))
		why="the guest stopped in check $running (qemu exit $t after ${total}s$([ $t = 124 ] && echo ': timeout'); see $log)"
	fi
	if [ $ok = 1 ]; then
		passed=$((passed + 1))
		printf 'PASS  %-16s %-26s %d/%d  %4ds  %s\n' "$name" "${guest:-?}" "$n_ok" "$nchecks" "$total" "$summary"
	else
		failed=$((failed + 1))
		printf 'FAIL  %-16s %-26s %d/%d  %4ds  %s\n' "$name" "${guest:-?}" "$n_ok" "$nchecks" "$total" "$summary"
		if [ -n "$why" ]; then
			echo "      $why"
			grep '^kmatrix-beat: [0-9]' "$log" | tail -n 2 | sed 's/^/      /'
		fi
		grep '^kmatrix: check .* FAIL ' "$log" | cut -d' ' -f3,6- | cut -c1-220 | sed 's/^/      /'
		# The failed checks' own output (the guest keeps its last 40
		# lines): CI keeps this summary, not $log.
		grep '^kmatrix-log: ' "$log" | grep -v '^kmatrix-log: *$' | tail -n 24 |
			cut -c14-400 | sed 's/^/      | /'
	fi
	[ "$fetch" -le 1 ] || echo "      fetched its kernel in ${fetch}s (cached in $APT for later runs)"
	grep '^kmatrix-hint: ' "$log" | awk '{$1 = ""; print "      hint" $0}'
	grep -E '^kmatrix-(attach|bench): ' "$log" | awk '{$1 = ""; print "     " $0}'
}

# --- the matrix ---------------------------------------------------------------
entries=$(grep -Ev '^[[:space:]]*(#|$)' "$LIST")
if [ $# -gt 0 ]; then
	pat=$(printf '%s|' "$@")
	entries=$(awk -v re="^(${pat%|})\$" '$1 ~ re' <<<"$entries")
	[ -n "$entries" ] || die "no guest named $* in $LIST"
fi
arches=$(awk '{print $3}' <<<"$entries" | sort -u)

command -v cpio >/dev/null || die "cpio missing: apt-get install cpio"
for arch in $arches; do
	case $arch in
	amd64)
		command -v qemu-system-x86_64 >/dev/null ||
			die "qemu-system-x86_64 missing: apt-get install --no-install-recommends qemu-system-x86"
		[ -x /bin/busybox ] || die "/bin/busybox missing: apt-get install busybox-static"
		build_initrd amd64 "$OUTPUT" /bin/busybox "/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu" ;;
	arm64)
		command -v qemu-system-aarch64 >/dev/null ||
			die "qemu-system-aarch64 missing: apt-get install --no-install-recommends qemu-system-arm"
		bbdeb=$(mk/debfetch.sh "$APT" bookworm arm64 busybox-static) || die "cannot fetch busybox-static:arm64"
		dpkg-deb --fsys-tarfile "$bbdeb" | tar -xO ./bin/busybox > "$VM/busybox-arm64"
		build_initrd arm64 "$ARM64_OUTPUT" "$VM/busybox-arm64" \
			"$SYSROOT/usr/lib/aarch64-linux-gnu $SYSROOT/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib" ;;
	*) die "unknown architecture $arch in $LIST" ;;
	esac
done

start=$(date +%s)
while read -r name suite arch pkg cpu checks; do
	# KMATRIX_CHECKS: other checks than the list's (make bench-kernel-cost).
	run_guest "$name" "$suite" "$arch" "$pkg" "$cpu" "${KMATRIX_CHECKS:-$checks}"
done <<<"$entries"
echo "kernels: $passed passed, $failed failed ($(($(date +%s) - start)) s in all)"
[ "$failed" -eq 0 ]
