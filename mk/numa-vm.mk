# The numa calibration family on a real two-node NUMA machine (issue 3):
# `make test-numa-vm` boots Debian's kernel in a QEMU guest (TCG, no KVM
# needed) with two NUMA nodes and runs test_calib_numa there, where mbind,
# move_pages, the placement checks and the timing of every case run for
# real (on a one-node host the family only skips). About 20 s; not part of
# `make test` because it fetches Debian's kernel package (apt-get download,
# ~70 MB) into $(OUTPUT)/vm the first time. Needs qemu-system-x86.

.PHONY: test-numa-vm
test-numa-vm: $(OUTPUT)/tests/unit/calib/test_calib_numa
	$(Q)OUTPUT=$(OUTPUT) ./tests/vm/numa-vm.sh $(OUTPUT)
