# Overhead benchmark (bench/, docs/BENCHMARKS.md): `make bench`.
# bench/calibrate_repeat.sh summarises its runs with python3.
DEB_DEPS += python3
# Not part of `make test`: it measures timings, which tests never assert.
BENCH_DEPS := bpftrace strace linux-perf
BENCH_BINS := $(OUTPUT)/bench/pingpong $(OUTPUT)/bench/yieldloop $(OUTPUT)/bench/mutexloop \
	$(OUTPUT)/bench/storeloop

# Optimised like a real program; frame pointers so that the tracers' user
# stacks (spinscope's and bpftrace's) can be walked.
$(BENCH_BINS): $(OUTPUT)/bench/%: bench/%.c bench/window.c bench/window.h | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread \
		$< bench/window.c -o $@

bench-bins: $(BENCH_BINS)

# BENCH_ARGS passes options to overhead.sh, e.g. BENCH_ARGS="-r 7 -l pingpong".
BENCH_ARGS ?=
bench: check-deps spinscope $(BENCH_BINS)
	$(Q)./mk/deps.sh check $(BENCH_DEPS)
	$(Q)BENCH_BIN=$(OUTPUT)/bench SPINSCOPE=$(OUTPUT)/spinscope ./bench/overhead.sh $(BENCH_ARGS)

# What tracing one process costs the others' syscalls: default vs --light.
$(OUTPUT)/bench/getppid_loop: bench/getppid_loop.c | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror $< -o $@

bench-light: spinscope $(OUTPUT)/bench/getppid_loop
	$(Q)SPINSCOPE=$(OUTPUT)/spinscope LOOP=$(OUTPUT)/bench/getppid_loop ./bench/light_host_cost.sh $(BENCH_ARGS)

# What `spinscope top` watching the host costs a getppid loop and a pipe
# ping-pong of other processes, and its own CPU and RSS (issue 32).
$(OUTPUT)/bench/pipe_pingpong: bench/pipe_pingpong.c | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -pthread $< -o $@

$(OUTPUT)/bench/many_procs: bench/many_procs.c | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -pthread $< -o $@

# Its memory with 1000 processes and 20000 threads on the host.
bench-top-rss: spinscope $(OUTPUT)/bench/many_procs
	$(Q)SPINSCOPE=$(OUTPUT)/spinscope MANY=$(OUTPUT)/bench/many_procs ./bench/top_rss.sh $(BENCH_ARGS)

bench-top: spinscope $(OUTPUT)/bench/getppid_loop $(OUTPUT)/bench/pipe_pingpong
	$(Q)SPINSCOPE=$(OUTPUT)/spinscope LOOP=$(OUTPUT)/bench/getppid_loop \
		PINGPONG=$(OUTPUT)/bench/pipe_pingpong ./bench/top_host_cost.sh $(BENCH_ARGS)

# What attaching costs: attach time for 10 and 1000 threads, peak RSS and
# BPF map memory (bench/attach_cost.sh).
$(OUTPUT)/bench/threads_idle: bench/threads_idle.c | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -pthread $< -o $@

bench-attach: spinscope $(OUTPUT)/bench/threads_idle
	$(Q)SPINSCOPE=$(OUTPUT)/spinscope TARGET=$(OUTPUT)/bench/threads_idle ./bench/attach_cost.sh $(BENCH_ARGS)

# Whether the distance between two CPUs changes under a run, and a
# contended lock's throughput with it (issue 10, docs/BENCHMARKS.md).
# It runs calibrate's own kernels (user/calib/kern), json-free C.
CPU_DISTANCE_SRCS := bench/cpu_distance.c user/calib/kern/calib_host_kern.c \
	user/calib/kern/calib_swlock.c user/calib/kern/calib_util.c user/calib/kern/calib_stat.c \
	user/common/cpulist.c
$(OUTPUT)/bench/cpu_distance: $(CPU_DISTANCE_SRCS) $(wildcard user/calib/kern/*.h) | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -Iuser -pthread \
		$(CPU_DISTANCE_SRCS) -lm -o $@

bench-cpu-distance: $(OUTPUT)/bench/cpu_distance
	$(Q)$(OUTPUT)/bench/cpu_distance $(BENCH_ARGS)

# The syscall attach mechanism alone: do-nothing futex programs on the
# per-syscall tracepoints or on raw sys_enter/sys_exit (bench/syscall_mech.c),
# a stand-in for spinscope in overhead.sh and light_host_cost.sh.
$(OUTPUT)/bench/syscall_mech.bpf.o: bench/syscall_mech.bpf.c | check-deps
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX_DIR) -Wall -Werror \
		-c $< -o $@.tmp.o
	$(Q)$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(OUTPUT)/bench/syscall_mech.skel.h: $(OUTPUT)/bench/syscall_mech.bpf.o
	$(Q)$(BPFTOOL) gen skeleton $< name syscall_mech > $@

$(OUTPUT)/bench/syscall_mech: bench/syscall_mech.c $(OUTPUT)/bench/syscall_mech.skel.h | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I$(OUTPUT)/bench $< -lbpf -lelf -lz -o $@

.PHONY: bench bench-bins bench-light bench-top bench-top-rss bench-attach bench-cpu-distance bench-threads

# The same, inside the kernel matrix's 6.1 guest (tests/vm), where fentry
# works: default, --attach=tracepoint, --attach=fentry and --light side by
# side, the table printed with the guest's line.
bench-kernel-cost: $(OUTPUT)/bench/getppid_loop
	$(Q)KMATRIX_CHECKS=hostcost $(MAKE) --no-print-directory test-kernels KERNELS="bookworm-6.1"

.PHONY: bench-kernel-cost

# A thread-per-request server traced whole: 5,000 threads a second for
# 60 s, each making 3 yields (bench/thread_churn.sh; issue 30 item 5).
$(OUTPUT)/bench/thread_server: bench/thread_server.c | check-deps
	$(call msg,CC-BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread $< -o $@

bench-threads: spinscope $(OUTPUT)/bench/thread_server
	$(Q)SPINSCOPE=$(OUTPUT)/spinscope SERVER=$(OUTPUT)/bench/thread_server ./bench/thread_churn.sh $(BENCH_ARGS)
