#!/bin/bash
# `make test-deb`, as root: the package installs with apt-get on a fresh
# Debian 12 minbase root and runs there. The root is made once by
# debootstrap (tests/pkg/debroot.sh, cached in $OUTPUT/debroot) and each
# run works on a throwaway overlay of it, so the cache stays fresh. With
# /proc, /sys and /sys/kernel/btf bound in, inside the root:
#   apt-get install ./spinscope_*.deb    pulls only runtime libraries, the
#                                        ones docs/PACKAGE.md lists
#   spinscope --version                  the package's version
#   spinscope calibrate --quick          saves /var/lib/spinscope, mode 0600
#   spinscope -p PID                     traces a lock-bound workload there
# Prints TAP (tests/run.sh reads it) and the packages pulled, with sizes.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh
if [ "$(id -u)" != 0 ]; then
	skip "the package's chroot test needs root (debootstrap, mount, chroot)"
	exit 0
fi
deb=$(ls "$OUTPUT"/deb/spinscope_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { tap FAIL "a package to test" "no $OUTPUT/deb/spinscope_*.deb: run make deb"; echo "1..$n"; exit 1; }
# The same package passed here before (mk/deb.sh's key: the tree's content
# and version): nothing to do, unless DEB_TEST_FORCE=1.
key=$(cat "$OUTPUT/deb/key" 2>/dev/null)
if [ -n "$key" ] && [ "$key" = "$(cat "$OUTPUT/deb/tested" 2>/dev/null)" ] && [ "${DEB_TEST_FORCE:-0}" != 1 ]; then
	tap OK "${deb##*/} passed this test before (same tree, same version): not run again"
	echo "1..$n"
	exit 0
fi
cache=$OUTPUT/debroot
base=$(tests/pkg/debroot.sh "$cache") || { tap FAIL "debootstrap a Debian 12 root"; echo "1..$n"; exit 1; }
tap OK "a Debian 12 minbase root ($base)"

# The throwaway root: an overlay on the cached one (a copy where overlayfs
# is not available). mktemp -d: a private, unpredictable folder.
run=$(mktemp -d "$cache/run.XXXXXX")
root=$run/root
mounts=()
cleanup() {
	local i
	[ -n "${wl:-}" ] && kill "$wl" 2>/dev/null
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -R "${mounts[i]}" 2>/dev/null || umount -lR "${mounts[i]}"
	done
	rm -rf --one-file-system "$run"
}
trap cleanup EXIT
mkdir -p "$root" "$run/upper" "$run/work"
if mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$root" 2>/dev/null; then
	mounts+=("$root")
else
	cp -a "$base/." "$root/"
fi
bind() {	# bind SRC DEST-IN-ROOT
	mkdir -p "$root$2"
	mount --rbind "$1" "$root$2" && mount --make-rslave "$root$2" && mounts+=("$root$2")
}
mkdir -p "$cache/apt-archives/partial"
bind /proc /proc && bind /sys /sys && bind /dev /dev &&
	bind "$cache/apt-archives" /var/cache/apt/archives || {
	tap FAIL "bind /proc, /sys and /dev into the root"
	echo "1..$n"
	exit 1
}
[ -e /sys/kernel/btf/vmlinux ] && ! [ -s "$root/sys/kernel/btf/vmlinux" ] &&
	bind /sys/kernel/btf /sys/kernel/btf
[ -s "$root/sys/kernel/btf/vmlinux" ] && tap OK "/sys/kernel/btf/vmlinux is there inside" ||
	tap FAIL "/sys/kernel/btf/vmlinux is there inside"
cat /etc/resolv.conf >"$root/etc/resolv.conf" 2>/dev/null
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
apt=(apt-get -q -y -o APT::Sandbox::User=root -o Dpkg::Use-Pty=0)

pkgs() { in_root dpkg-query -W -f '${Package} ${Installed-Size}\n' | sort; }
before=$(pkgs)
cp "$deb" "$root/tmp/"
name=${deb##*/}
out=$(in_root "${apt[@]}" install "./tmp/$name" 2>&1 ||
	{ in_root "${apt[@]}" update >/dev/null 2>&1 && in_root "${apt[@]}" install "./tmp/$name" 2>&1; })
if [ $? -eq 0 ]; then
	tap OK "apt-get install ./$name"
else
	tap FAIL "apt-get install ./$name" "$(tail -15 <<<"$out")"
	echo "1..$n"
	exit 1
fi
pulled=$(comm -13 <(echo "$before") <(pkgs) | grep -v '^spinscope ')
echo "# pulled in (package, installed KiB):"
sed 's/^/#   /' <<<"$pulled"
dev=$(grep -E -- '-dev |^(clang|llvm|gcc|bpftool)' <<<"$pulled")
[ -z "$dev" ] && tap OK "no -dev or build package pulled in" || tap FAIL "no -dev or build package pulled in" "$dev"
# docs/PACKAGE.md's table names exactly the packages pulled.
listed=$(sed -nE 's/^\| `([a-z0-9.+-]+)` \|.*/\1/p' docs/PACKAGE.md | sort -u)
diff=$(sets_differ "apt-get install" "$(cut -d' ' -f1 <<<"$pulled")" "docs/PACKAGE.md" "$listed")
[ -z "$diff" ] && tap OK "docs/PACKAGE.md lists the packages pulled" ||
	tap FAIL "docs/PACKAGE.md lists the packages pulled" "$diff"

version=$(dpkg-deb -f "$deb" Version)
v=$(in_root spinscope --version 2>&1)
[ "$(head -1 <<<"$v")" = "spinscope $version" ] && tap OK "spinscope --version: $(head -1 <<<"$v")" ||
	tap FAIL "spinscope --version says spinscope $version" "$v"
grep -q "libbpf" <<<"$v" && tap OK "--version names libbpf: $(grep -o 'libbpf [^;]*' <<<"$v")" ||
	tap FAIL "--version names libbpf" "$v"

out=$(in_root timeout 300 spinscope calibrate --quick 2>&1)
rc=$?
saved=$root/var/lib/spinscope/calibration.json
[ $rc -eq 0 ] && [ -s "$saved" ] && tap OK "spinscope calibrate --quick saves $(stat -c '%a' "$saved") ${saved#"$root"}" ||
	tap FAIL "spinscope calibrate --quick" "exit $rc" "$(tail -10 <<<"$out")"
[ "$(stat -c '%a %U' "$saved" 2>/dev/null)" = "600 root" ] && tap OK "the calibration is mode 0600, root's" ||
	tap FAIL "the calibration is mode 0600, root's" "$(stat -c '%a %U' "$saved" 2>&1)"

# A process of the root's own: the lock-bound workload, run 60 s (go at
# once), traced 3 s; its 4 threads wait on one mutex all the time.
install -m 0755 "$OUTPUT/workloads/hot_lock" "$root/usr/local/bin/hot_lock"
in_root /usr/local/bin/hot_lock 4 1 20 60 </dev/null >"$run/wl.out" 2>&1 &
for _ in $(seq 600); do
	wl=$(sed -n 's/^ready pid=\([0-9]*\).*/\1/p' "$run/wl.out")
	[ -n "$wl" ] && break
	sleep 0.05
done
if [ -z "$wl" ]; then
	tap FAIL "the workload starts in the root" "$(cat "$run/wl.out")"
else
	kill -USR1 "$wl"
	in_root timeout 120 spinscope -p "$wl" -d 3 --json --no-calibrate >"$run/trace.json" 2>"$run/trace.err"
	rc=$?
	read -r waits comm < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["totals"]["futex_wait"], d["target"]["comm"])' "$run/trace.json" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "${waits:-0}" -gt 0 ] && [ "${comm:-}" = hot_lock ]; then
		tap OK "spinscope -p $wl (hot_lock, in the root): exit 0, $waits futex waits"
	else
		tap FAIL "spinscope -p $wl (hot_lock, in the root)" "exit $rc, futex waits '${waits:-}', comm '${comm:-}'" \
			"$(tail -5 "$run/trace.err")"
	fi
fi
echo "1..$n"
[ "$failed" -eq 0 ] || exit 1
[ -z "$key" ] || echo "$key" >"$OUTPUT/deb/tested"
