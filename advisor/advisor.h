/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The advisor: turns what a trace measured about a target (struct
 * adv_profile) and what calibration measured about this host (struct
 * adv_host) into findings ranked most severe first, each backed by the
 * numbers it rests on. A pure library: no I/O, no BPF, no mutable globals,
 * no allocation. The caller fills the inputs and renders the findings as
 * text or JSON.
 *
 *   struct adv_report *r = calloc(1, sizeof(*r));   // about 75 KiB
 *   if (r && advisor__run(&profile, &host, r) == 0)
 *           for (size_t i = 0; i < r->n; i++)
 *                   render(&r->findings[i]);
 *   free(r);
 *
 * Conventions: times are nanoseconds; a share is a fraction 0..1; a figure
 * the caller does not have is left 0 (and, for whole families, present is
 * false), never guessed. Strings are NUL-terminated in fixed arrays and may
 * be empty.
 */
#ifndef SPINSCOPE_ADVISOR_H
#define SPINSCOPE_ADVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace.h"	/* the counter lists, SS_HIST_SLOTS, SS_COMM_LEN */

#define ADV_NAME_LEN 160	/* symbol, frame, lock name */
#define ADV_REASON_LEN 160
#define ADV_MAX_NODES 64	/* NUMA nodes described */
#define ADV_MAX_HINTS 8		/* spin-wait hints calibrated */

/* ---- the target, as traced ---------------------------------------------- */

/* The advisor's own spelling of the tracer's counter lists (bpf/trace.h):
 * the same fields, as uint64_t. */
#define ADV_COUNTER_FIELD(name, kind, unit, json) uint64_t name;
#define ADV_COUNTER_ARRAY_FIELD(name, slots, kind, unit, json) uint64_t name[slots];
#define ADV_COUNTER_FIELDS(list) list(ADV_COUNTER_FIELD, ADV_COUNTER_ARRAY_FIELD)

/* Counters of one thread, or of the whole target (adv_profile.totals), as
 * listed in SS_THREAD_COUNTERS; runq_hist holds log2 ns slots. */
struct adv_counters {
	ADV_COUNTER_FIELDS(SS_THREAD_COUNTERS)
};

struct adv_thread {
	uint32_t tid;
	char comm[SS_COMM_LEN];
	struct adv_counters c;
};

/* A futex address the target waited on: its SS_FUTEX_COUNTERS and what the
 * tracer knows besides. waits counts every wait call; blocked those that
 * slept (woken, timed out, interrupted), returned_at_once those that found
 * the word changed (EAGAIN); wait_ns, wait_ns_max and hist (log2 ns, slot i
 * holds [2^i, 2^(i+1))) describe the blocked waits only. */
struct adv_futex {
	uint64_t uaddr;
	ADV_COUNTER_FIELDS(SS_FUTEX_COUNTERS)
	uint32_t waiters;		/* distinct threads that waited on it */
	/* Its one waiter's tid when waiters is 1 (a thread's own parking
	 * word: advisor/parking.h), else 0. */
	uint32_t sole_waiter;
	/* How the word is used, when the tracer recorded it (wake_pattern):
	 * holder_wakes, wakes made by a thread whose previous futex wait was
	 * on this word (a lock is released by the thread that waited to take
	 * it; a condition variable is signalled by another thread), and
	 * bitset_waits, waits made with FUTEX_WAIT_BITSET (glibc's
	 * condition variables, semaphores, joins and reader locks; its
	 * mutexes use FUTEX_WAIT). */
	bool wake_pattern;
	/* Who woke it (holders, below, for every word whose wakes found
	 * waiters): the advisor classifies each word by them (metrics.c,
	 * adv_futex_use), names are only for the wording. */
	/* The waiters' frames inside the runtime (libc, libstdc++, ld.so,
	 * libjvm), innermost first: "__futex_abstimed_wait_common <-
	 * ___pthread_cond_wait"; what the word is used as. */
	char runtime_frames[ADV_NAME_LEN];
	/* The lock as findings name it: the first frame in code the user owns,
	 * "worker in app (via pthread_mutex_lock in libc)", or the runtime
	 * frame alone when the stack did not reach the user's code
	 * (user_named false); "" when unresolved. */
	char name[ADV_NAME_LEN];
	bool user_named;
	/* Its sole waiter's samples (0 without sampling): all of them, and
	 * those on a CPU at the place it parks from (a stack placed as this
	 * word's waits are: the same frame of the user's code in the same
	 * runtime call, or where a walk that never reached the user's code
	 * stopped; user/report/advice_acquire.c). Those take the lock
	 * without parking: the spin of an
	 * adaptive lock before it parks (HotSpot's monitors, glibc's
	 * adaptive mutexes, Go's sync.Mutex), measured where it runs, not
	 * known by the spinning function's name. */
	uint64_t waiter_samples, acquire_samples;
	/* Where and by whom its wakes that found waiters were made: for a
	 * lock, where the threads that held it released it while others
	 * waited (most time held while contended first) and the threads
	 * that released it, most releases first; for other words the
	 * threads that signalled it. */
	const struct adv_release_site *release_sites;
	size_t nrelease_sites;
	const struct adv_holder *holders;
	size_t nholders;
};

/* A release site of a lock: the stack of wake calls that found waiters
 * (the unlock of a contended lock), named as waiter stacks are, with its
 * SS_RELEASE_COUNTERS (bpf/trace.h): wakes, woken, and the held-while-
 * contended lower bounds of the holds it ended (held_contended of them,
 * held_contended_hist in log2 ns). A lower bound of the hold while others
 * waited, not the hold's total time. */
struct adv_release_site {
	/* "flush_queue in app (via pthread_mutex_unlock in libc)" */
	char name[ADV_NAME_LEN];
	/* The frame that released it: "flush_queue+0x84 (app)"; "" when the
	 * stack never left the runtime (user_named false). */
	char frame[ADV_NAME_LEN];
	bool user_named;
	uint32_t threads;		/* distinct threads that released here */
	ADV_COUNTER_FIELDS(SS_RELEASE_COUNTERS)
};

/* A thread that released a lock while others waited. */
struct adv_holder {
	uint32_t tid;
	char comm[SS_COMM_LEN];
	uint64_t releases;		/* its wakes that found waiters */
	bool also_waits;		/* it waited on the lock too */
};

/* A sched_yield call site. */
struct adv_yield_site {
	char frame[ADV_NAME_LEN];	/* "spin_then_yield in demo (via sched_yield in libc)" */
	bool user_named;		/* frame is code the user owns */
	uint64_t count;
};

/* One symbol of the sampled profile. */
struct adv_sample_sym {
	char symbol[ADV_NAME_LEN];	/* "bump_counter (demo)" */
	uint64_t count;
	/* The caller knows (from its own analysis) that this code writes data
	 * other threads write too; the advisor does not try to infer it. */
	bool writes_shared;
	bool runtime;			/* in libc, libstdc++, ld.so or libjvm */
};

/* A loop of sampled code that executes a spin-wait hint: where most of a
 * spinning thread's samples land when it spins without syscalls. */
struct adv_spin_loop {
	char symbol[ADV_NAME_LEN];	/* "spin_lock (app)" */
	char hint[16];			/* "pause", "isb", "sb", "yield", "wfe" */
	uint64_t samples;		/* samples in the loop */
	bool runtime;			/* the loop is in the runtime, not the user's code */
};

/* What the whole host's CPUs did during the trace (/proc/stat). */
struct adv_host_load {
	bool measured;
	uint32_t cpus;			/* online CPUs of the host */
	double busy_cpus;		/* CPUs' worth of busy time, all processes */
	double busy_other_cpus;		/* of that, not the target's */
};

struct adv_samples {
	bool available;			/* false: no PMU, or sampling failed */
	char reason[ADV_REASON_LEN];	/* why not, when !available */
	char event[32];			/* "cache-misses", "cpu-clock", ... */
	uint64_t total;
	const struct adv_sample_sym *top;	/* sorted by count, may be NULL */
	size_t ntop;
};

/* Where the target's memory lives and where its threads run. */
struct adv_numa {
	uint32_t nodes;			/* NUMA nodes of the host; 0 or 1: one */
	uint64_t pages[ADV_MAX_NODES];	/* target pages per node (numa_maps N<n>=) */
	/* How much the threads ran on each node's CPUs: distinct CPUs used, or
	 * threads seen there; only the proportions are used. */
	uint64_t cpus_used[ADV_MAX_NODES];
};

/* A hot spot that executes full fences or seq_cst atomics. */
struct adv_fence_spot {
	char symbol[ADV_NAME_LEN];
	double share;			/* of the target's on-CPU samples, 0..1 */
	bool runtime;			/* in the runtime: not the user's to change */
};

/* What the target's code is written in or runs on, from its mappings and
 * its executable's symbols (syms/runtime_detect.h): findings word locks
 * and fixes in its terms (advisor/runtime.h). */
enum adv_runtime {
	ADV_RT_UNKNOWN = 0,		/* not detected (a recording from before) */
	ADV_RT_C,			/* native code with neither of the below */
	ADV_RT_CXX,			/* libstdc++ or libc++ mapped */
	ADV_RT_RUST,			/* Rust's std in the executable or mapped */
	ADV_RT_GO,			/* a Go build-id note or Go's runtime symbols */
	ADV_RT_CPYTHON,			/* libpython or an executable with CPython's eval loop */
	ADV_RT_JVM,			/* libjvm mapped */
};

/* Where a sampled data address lies (as user/syms/data_addr.h says). */
enum adv_data_region {
	ADV_DATA_UNKNOWN = 0,
	ADV_DATA_GLOBAL,		/* a named object of a mapped file */
	ADV_DATA_FILE,			/* a mapped file, no symbol covers it */
	ADV_DATA_HEAP,			/* the heap or an anonymous mapping */
	ADV_DATA_STACK,			/* a thread's stack */
};

/* What sampled instructions did to memory: one thread's loads or stores of
 * size bytes at addr, by one instruction, and the samples that showed it
 * (the instruction at a sample's IP, or the one that retired just before). */
struct adv_data_access {
	uint64_t addr;
	uint32_t tid;
	uint32_t size;
	bool store;			/* a store or read-modify-write */
	enum adv_data_region region;
	uint64_t samples;
	char data[ADV_NAME_LEN];	/* "counters+8 (app)", "a heap block" */
	char func[ADV_NAME_LEN];	/* "bump_counter (app)" */
	char insn[48];			/* "lock xadd qword ptr [rdi], rax" */
	/* Written by the runtime's code (libc, libstdc++, ld.so, libjvm): a
	 * lock word or the allocator's, not the user's data to move. */
	bool runtime;
};

/* The data addresses of the samples (registers captured with cpu-clock;
 * no PMU needed). */
struct adv_data_addrs {
	bool captured;			/* registers came with the samples */
	uint64_t samples;		/* register samples examined */
	uint64_t skipped;		/* bad input counted and skipped (see the report) */
	uint64_t lost;			/* register samples lost (ring full, too many) */
	/* The language of the code that writes the data, for the fix:
	 * "c", "c++", "rust", "java". */
	char lang[8];
	const struct adv_data_access *accesses;	/* any order */
	size_t naccesses;
};

struct adv_target {
	int32_t pid;
	char comm[SS_COMM_LEN];
	bool is_jvm;			/* recommendations then cite JVM flags */
	uint32_t nthreads;		/* threads seen during the trace */
	enum adv_runtime runtime;	/* the language runtime, for wording (ADV_RT_JVM iff is_jvm) */
	/* CPython: the Python functions its threads ran, as polled from its
	 * frames during the trace (syms/pyframes.h: "crunch (gil_threads.py):
	 * 4 threads, 99% of the polls"), or why they were not read
	 * ("CPython 3.12: ..."); "" when not tried. */
	char python_functions[ADV_NAME_LEN];
	bool python_read;		/* python_functions names functions */
};

struct adv_profile {
	uint64_t duration_ns;		/* length of the trace; must be > 0 */
	uint32_t ncpus;			/* CPUs the target may run on */
	struct adv_target target;
	struct adv_counters totals;
	const struct adv_thread *threads;	/* may be NULL: totals are used */
	size_t nthreads;
	const struct adv_futex *futexes;	/* any order */
	size_t nfutexes;
	const struct adv_yield_site *yield_sites;	/* any order */
	size_t nyield_sites;
	struct adv_samples samples;
	struct adv_numa numa;
	const struct adv_fence_spot *fences;	/* may be empty */
	size_t nfences;
	const struct adv_spin_loop *spin_loops;	/* most samples first, may be empty */
	size_t nspin_loops;
	struct adv_host_load host_load;
	/* Time with k of the target's threads on a CPU at once (struct
	 * ss_concurrency), the last slot k or more; all 0: not measured. */
	uint64_t running_ns[SS_CONC_SLOTS];
	struct adv_data_addrs data;
};

/* ---- this host, as calibrated ------------------------------------------- */

struct adv_host_false_sharing {
	bool present;
	double ratio_2t;		/* unpadded (8 B apart) / padded ns, 2 threads */
	uint32_t interference_bytes;	/* measured destructive interference size */
	uint32_t cache_line_bytes;	/* what sysfs reports */
	bool concurrent;		/* the threads really ran at once */
};

struct adv_hint {
	char name[16];			/* "pause", "isb", "sb", "yield", "nop", ... */
	double ns;			/* per hint, minimum over samples */
	bool available;			/* this CPU has it */
};

struct adv_host_spin_hint {
	bool present;
	char arch[16];			/* "x86_64", "aarch64" */
	struct adv_hint hints[ADV_MAX_HINTS];
	size_t nhints;
};

/* Best lock strategy of the spin-threshold sweep at one contention level:
 * the preferred member of the sweep's good region (every configuration
 * within noise of the fastest, struct adv_region), so that it does not
 * change from run to run with which one happened to win. */
struct adv_best {
	char strategy[32];		/* "spin_then_park", "spin_then_yield", ... */
	uint32_t n;			/* spins before yielding/parking: 0, 1 ... 255 */
	double throughput;		/* acquisitions per second, this strategy */
	double mutex_throughput;	/* same, plain pthread_mutex */
};

/* The good region behind an adv_best. */
struct adv_region {
	uint32_t n_min, n_max;		/* spin counts of best's strategy in it */
	uint32_t size;			/* configurations in it; 0: no region stored */
	double spread;			/* slowest member vs the fastest, 0..1 */
	bool separated;			/* false: the sweep could not tell them apart */
	bool full;			/* swept by calibrate --full */
};

/* One configuration of the spin-threshold sweep. */
struct adv_lock_config {
	char strategy[24];		/* "spin_then_park", "spin_then_yield", ... */
	uint32_t n;			/* spins (0 for strategies without) */
};

#define ADV_MAX_REGION_MEMBERS 64
#define ADV_MAX_SWEPT 32

/* One distance between the CPUs that a contention level's runs met. On a
 * VM the hypervisor moves the vCPUs between cores that share a cache (a
 * cache line's round trip of tens of ns) and cores that do not (hundreds),
 * and the best lock strategy can differ between the two; calibrate gives
 * each state its own good region where every configuration ran at least
 * twice in it. best.strategy is "" (region.size 0) where too few did;
 * best.mutex_throughput is always 0: no per-state yardstick is stored. */
struct adv_distance_state {
	double round_trip_ns;		/* median cache-line round trip between the CPUs */
	double share;			/* of the level's runs, 0..1 */
	/* Measured by an earlier calibration run (its UTC time), kept in
	 * the store beside this run's verdict (calib_merge.h): share is
	 * then within that run; "" when measured by the same run. */
	char carried_from[32];
	struct adv_best best;		/* the preferred member of its region */
	struct adv_region region;
	/* Every configuration of its region (files from before
	 * member_configs: none, and two states are compared by their
	 * preferred strategy's spin range alone). */
	struct adv_lock_config members[ADV_MAX_REGION_MEMBERS];
	size_t nmembers;
	/* The spin counts the sweep tried, ascending (spins_swept; 0: not
	 * in the file, and no range of shared counts is claimed). */
	uint32_t swept[ADV_MAX_SWEPT];
	size_t nswept;
};

#define ADV_MAX_STATES 2		/* near and far */

/* A level's states, nearest first; n is 0 when the level met one distance,
 * the file predates the states, or they failed validation. */
struct adv_distance_states {
	struct adv_distance_state s[ADV_MAX_STATES];
	size_t n;
};

struct adv_host_spin_threshold {
	bool present;
	struct adv_best light;		/* one thread per CPU */
	struct adv_best heavy;		/* many threads per CPU */
	struct adv_region light_region, heavy_region;
	struct adv_distance_states light_states, heavy_states;
	/* Per-state figures that failed validation are dropped (the level's
	 * own region still stands, as for a file without them); the first
	 * one's field and value, "" when none. */
	char states_rejected[ADV_REASON_LEN];
};

struct adv_host_costs {
	bool present;
	double futex_handoff_same_ns;	/* wake to running, same CPU */
	double futex_handoff_cross_ns;	/* across CPUs */
	double yield_alone_ns;		/* sched_yield, nothing else runnable */
	double yield_peer_ns;		/* with a runnable peer on the CPU */
	double cacheline_rtt_ns;	/* core-to-core CAS round trip (median) */
	double trace_event_ns;		/* spinscope's cost per traced event; 0: not measured */
	double futex_call_ns;		/* an untraced futex call that finds nothing to do */
};

struct adv_host_numa {
	bool present;
	uint32_t nodes;
	double local_ns, remote_ns, interleaved_ns;	/* dependent-load latency */
	double local_gbs, remote_gbs, interleaved_gbs;	/* bandwidth, GB/s */
};

struct adv_host_memory_order {
	bool present;
	double relaxed_store_ns, release_store_ns, seq_cst_store_ns;
	double store_fence_ns;		/* store + full fence */
	double cas_seq_cst_ns, cas_release_ns;
};

struct adv_host {
	bool present;			/* a stored calibration was found */
	bool matches;			/* ... and its fingerprint matches this host */
	/* present && !matches: why (another host's, or unreadable) */
	char mismatch_reason[ADV_REASON_LEN];
	bool unreadable;		/* present but not valid JSON, too large, ... */
	/* Families (enum adv_family bits, hostcal.h) whose stored figures
	 * failed validation (NaN, negative, out of physical bounds): not
	 * present, and the first one's field and value in rejected_reason. */
	unsigned rejected;
	char rejected_reason[ADV_REASON_LEN];
	struct adv_host_false_sharing false_sharing;
	struct adv_host_spin_hint spin_hint;
	struct adv_host_spin_threshold spin_threshold;
	struct adv_host_costs host_costs;
	struct adv_host_numa numa;
	struct adv_host_memory_order memory_order;
};

/* ---- findings ------------------------------------------------------------ */

enum adv_severity { ADV_INFO = 0, ADV_WARNING = 1, ADV_CRITICAL = 2 };
enum adv_source { ADV_SRC_TARGET = 0, ADV_SRC_HOST = 1 };

#define ADV_ID_LEN 32
#define ADV_TITLE_LEN 160
#define ADV_LABEL_LEN 48
#define ADV_VALUE_LEN 160
#define ADV_REC_LEN 1024
#define ADV_REC_MAX 300	/* the most a recommendation says: the figures are evidence */
#define ADV_MAX_EVIDENCE 16	/* no rule writes more */
#define ADV_MAX_FINDINGS 16	/* at most one finding per rule */

struct adv_evidence {
	char label[ADV_LABEL_LEN];	/* "futex handoff" */
	char value[ADV_VALUE_LEN];	/* "4.1 us (cross-CPU)": always with units */
	enum adv_source source;		/* measured on the target or on this host */
};

struct adv_finding {
	char id[ADV_ID_LEN];		/* stable: "spin-yield", "futex-contention", ... */
	enum adv_severity severity;
	char title[ADV_TITLE_LEN];
	struct adv_evidence evidence[ADV_MAX_EVIDENCE];
	size_t nevidence;
	char recommendation[ADV_REC_LEN];	/* led by the action, <= ADV_REC_MAX chars */
	double confidence;		/* 0..1 */
	/* The verdict line (advisor/verdict.c): what it is in a few words,
	 * where in the user's code, and its cost in time or CPUs; each may
	 * be "" (the title then stands for the finding). */
	char what[ADV_LABEL_LEN];	/* "lock contention" */
	char where[ADV_VALUE_LEN];	/* "update in app (via pthread_mutex_lock in libc)" */
	char cost[ADV_VALUE_LEN];	/* "3 threads lost 6.9 s waiting (49% of their time)" */
};

/* Which side of the spin-vs-park break-even the target's waits sit on. */
enum adv_side {
	ADV_SIDE_UNKNOWN = 0,		/* not enough figures to say */
	ADV_SIDE_SPIN,			/* waits shorter than a handoff: spin, then park */
	ADV_SIDE_PARK,			/* waits longer (or one CPU): park at once */
};

/* The spin-vs-park correlation: how long the target spins before it gives
 * up the CPU, what a futex handoff costs here, how long its waits last. */
struct adv_breakeven {
	bool spins;			/* the target has yield-spinning threads */
	double yields_per_switch;
	double yield_ns;		/* host cost of one yield used below */
	double spin_ns;			/* yields per switch x yield cost; 0: unknown */
	double burst_ns;		/* on-CPU time per switch: spin_ns's upper bound */
	double handoff_ns;		/* futex wake to running here; 0: unknown */
	double wait_median_ns;		/* hottest contended lock; 0: none */
	char hint[16];			/* cheapest fit spin hint here; "": unknown */
	double hint_ns;
	enum adv_side side;
	bool overspins;			/* spin_ns > handoff_ns */
	int32_t spin_n;			/* recommended most spins (2^k - 1); -1 unknown */
	char summary[480];		/* one sentence, e.g. "spin at most 0x1F ..." */
};

struct adv_report {
	size_t n;
	struct adv_finding findings[ADV_MAX_FINDINGS];	/* most severe first */
	struct adv_breakeven breakeven;
};

/* Runs every rule and ranks the findings: severity, then confidence.
 * Returns 0, or -EINVAL when an argument is NULL or duration_ns is 0. */
int advisor__run(const struct adv_profile *p, const struct adv_host *h,
		 struct adv_report *out);

/* The ids of the findings resting on a calibration family that
 * advisor__run(p, h) reports, in the rules' order, from each rule's first
 * test alone: no finding is built. What the host must measure is decided
 * from them before the advisor runs, so that it runs once, on what was
 * measured. Fills at most max; returns how many (0 when duration_ns is 0). */
size_t advisor__will_find(const struct adv_profile *p, const struct adv_host *h,
			  const char *ids[], size_t max);

/* "info", "warning", "critical" / "target", "host": the JSON spellings. */
const char *advisor__severity_name(enum adv_severity s);
const char *advisor__source_name(enum adv_source s);
/* The finding with this id, or NULL. */
const struct adv_finding *advisor__find(const struct adv_report *r, const char *id);

#endif
