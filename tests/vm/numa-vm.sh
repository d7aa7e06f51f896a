#!/bin/bash
# Runs the numa calibration tests on a real two-node NUMA machine: a QEMU
# guest (TCG, so no KVM needed) with two NUMA nodes of one CPU and 384 MiB
# each, distance 21, booting Debian's kernel with a busybox initramfs that
# holds build/tests/unit/calib/test_calib_numa and the libraries it links. On a
# one-node host the family only skips; here mbind, move_pages, the
# placement checks and the timing of every planned case run for real.
#
# Usage: tests/vm/numa-vm.sh [OUTPUT]   (OUTPUT defaults to build)
# Needs qemu-system-x86 and, fetched with `apt-get download` into
# $OUTPUT/vm when missing, Debian's kernel image and busybox-static.
set -euo pipefail
OUTPUT=${1:-${OUTPUT:-build}}
VM=$OUTPUT/vm
TEST=$OUTPUT/tests/unit/calib/test_calib_numa
KPKG=${NUMA_VM_KERNEL_PKG:-linux-image-amd64}

die() { echo "numa-vm: $*" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing: apt-get install --no-install-recommends qemu-system-x86"
[ -x "$TEST" ] || die "$TEST missing: make $TEST first"
mkdir -p "$VM"

# Debian's kernel and busybox, unpacked from their packages (not installed).
fetch() {	# package, file inside it, destination
	[ -e "$3" ] && return 0
	local deb
	deb=$(ls "$VM"/"$1"_*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		(cd "$VM" && apt-get download "$1" >/dev/null 2>&1) ||
			die "cannot download $1 with apt-get download"
		deb=$(ls "$VM"/"$1"_*.deb | head -1)
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$2" > "$3.tmp" || die "no $2 in $deb"
	mv "$3.tmp" "$3"
}
if [ ! -e "$VM/vmlinuz" ]; then
	# linux-image-amd64 is a metapackage: follow it to the real image.
	real=$(apt-cache depends "$KPKG" 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	[ -n "$real" ] || real=$KPKG
	fetch "$real" "./boot/vmlinuz-${real#linux-image-}" "$VM/vmlinuz"
fi
fetch busybox-static ./bin/busybox "$VM/busybox"
chmod +x "$VM/busybox"

# The initramfs: busybox, the test, its loader and libraries.
root=$VM/root
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp "$VM/busybox" "$root/bin/busybox"
cp "$TEST" "$root/test_calib_numa"
for lib in $(ldd "$TEST" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
echo "numa-vm: nodes online: $(cat /sys/devices/system/node/online)"
CMOCKA_MESSAGE_OUTPUT=TAP /test_calib_numa
echo "numa-vm: rc=$?"
poweroff -f
INIT
chmod +x "$root/init"
bb=$(realpath "$VM/busybox")
(cd "$root" && find . | "$bb" cpio -o -H newc 2>/dev/null | gzip -1) > "$VM/initrd.gz"

log=$VM/console.log
timeout "${NUMA_VM_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 768M \
	-object memory-backend-ram,id=m0,size=384M -object memory-backend-ram,id=m1,size=384M \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-numa dist,src=0,dst=1,val=21 \
	-kernel "$VM/vmlinuz" -initrd "$VM/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 transparent_hugepage=madvise" \
	-nographic -no-reboot -monitor none -serial stdio </dev/null >"$log" 2>&1 || true
# The firmware's terminal escapes and the serial line's CRs off.
sed -e 's/\x1b[^a-zA-Z]*[a-zA-Z]//g' -e 's/\r$//' "$log" > "$log.txt"
grep -E '^(numa-vm:|ok |not ok |# )' "$log.txt" || true
grep -q '^numa-vm: nodes online: 0-1$' "$log.txt" ||
	die "the guest did not come up with two nodes (see $log)"
grep -q '^numa-vm: rc=0$' "$log.txt" || die "test_calib_numa failed in the two-node guest (see $log)"
echo "numa-vm: test_calib_numa passed on two NUMA nodes"
