// SPDX-License-Identifier: GPL-2.0
/* runtime.c: which code is the runtime's, and each runtime's words for its
 * locks and their fixes (runtime.h). */
#include <stdio.h>
#include <string.h>
#include "runtime.h"

/* Basename prefixes. "libc." and "libc-" but not "libcurl". CPython's
 * interpreter is its runtime whether linked in (python3.11) or not. */
static const char *const runtime_prefixes[] = {
	"libc.", "libc-", "libpthread", "libstdc++", "libc++", "libgcc_s", "libm.", "libdl.",
	"librt.", "ld-linux", "ld64.so", "ld.so", "libjvm.", "libjava.", "libjli.", "[vdso]",
	"libpython", "python2", "python3",
};

/* Function-name prefixes of language runtimes linked into the user's
 * own executable: Rust's std, core, alloc (and the lock crates that
 * implement locks for it), Go's runtime and standard sync packages, C++
 * templates instantiated in the user's code, the JDK's classes. */
static const char *const runtime_functions[] = {
	"std::", "<std::", "core::", "<core::", "alloc::", "<alloc::", "__rust", "rust_begin_unwind",
	"parking_lot::", "<parking_lot::", "parking_lot_core::", "lock_api::", "<lock_api::",
	"runtime.", "sync.", "sync/", "internal/", "__gnu_cxx::",
};
/* The JDK's classes, in JIT names with or without a return type. */
static const char *const jdk_classes[] = { "java.", "jdk.", "sun." };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *basename_of(const char *module)
{
	const char *slash = strrchr(module, '/');

	return slash ? slash + 1 : module;
}

static bool has_prefix_in(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(s, list[i], strlen(list[i])))
			return true;
	return false;
}

bool adv_is_runtime_module(const char *module)
{
	if (!module || !*module)
		return false;
	return has_prefix_in(basename_of(module), runtime_prefixes, ARRAY_LEN(runtime_prefixes));
}

bool adv_is_runtime_function(const char *function)
{
	const char *space, *paren;

	if (!function || !*function)
		return false;
	if (has_prefix_in(function, runtime_functions, ARRAY_LEN(runtime_functions)) ||
	    has_prefix_in(function, jdk_classes, ARRAY_LEN(jdk_classes)))
		return true;
	/* a JIT name with its return type: "void java.lang.Object.wait(long)" */
	space = strchr(function, ' ');
	paren = strchr(function, '(');
	return space && (!paren || space < paren) &&
	       has_prefix_in(space + 1, jdk_classes, ARRAY_LEN(jdk_classes));
}

/* "module" of a symbol "func (module)" or a frame "func+0x12 (module)":
 * the text in the last parentheses that close the string. */
static bool last_parens(const char *s, char *buf, size_t size)
{
	const char *open = s ? strrchr(s, '(') : NULL;
	size_t n;

	if (!open)
		return false;
	n = strcspn(open + 1, ")");
	snprintf(buf, size, "%.*s", (int)n, open + 1);
	return true;
}

bool adv_is_runtime_symbol(const char *symbol)
{
	char module[128];

	return last_parens(symbol, module, sizeof(module)) && adv_is_runtime_module(module);
}

/* A JVM stub in JIT code ("_complete_monitor_locking_Java",
 * "Interpreter", "StubRoutines::call_stub"): a perf map names Java
 * methods "Class.method(args)", stubs by neither a '.' nor a '('. */
static bool jvm_stub(const char *fn, const char *module)
{
	return !strcmp(module, "[jit]") && !strchr(fn, '(') && !strchr(fn, '.');
}

bool adv_is_runtime_frame(const char *frame)
{
	const char *plus = frame ? strstr(frame, "+0x") : NULL;
	char fn[ADV_NAME_LEN], module[64];

	if (adv_is_runtime_symbol(frame))
		return true;
	if (!frame)
		return false;
	snprintf(fn, sizeof(fn), "%.*s", plus ? (int)(plus - frame) : (int)strcspn(frame, " "), frame);
	if (last_parens(frame, module, sizeof(module)) && jvm_stub(fn, module))
		return true;
	return adv_is_runtime_function(fn);
}

void adv_module_short(const char *module, char *buf, size_t size)
{
	const char *base = module ? basename_of(module) : "";
	const char *so = strstr(base, ".so");

	if (adv_is_runtime_module(base) && so && so > base)
		snprintf(buf, size, "%.*s", (int)(so - base), base);
	else
		snprintf(buf, size, "%s", base);
}

static const struct {
	const char *name, *id;
} runtimes[] = {
	[ADV_RT_UNKNOWN] = { "", "unknown" },
	[ADV_RT_C] = { "C", "c" },
	[ADV_RT_CXX] = { "C++", "c++" },
	[ADV_RT_RUST] = { "Rust", "rust" },
	[ADV_RT_GO] = { "Go", "go" },
	[ADV_RT_CPYTHON] = { "CPython", "cpython" },
	[ADV_RT_JVM] = { "JVM", "jvm" },
};

const char *adv_runtime_name(enum adv_runtime rt)
{
	return (unsigned)rt < ARRAY_LEN(runtimes) ? runtimes[rt].name : "";
}

const char *adv_runtime_id(enum adv_runtime rt)
{
	return (unsigned)rt < ARRAY_LEN(runtimes) ? runtimes[rt].id : "unknown";
}

enum adv_runtime adv_runtime_from_id(const char *id)
{
	for (size_t i = 0; id && i < ARRAY_LEN(runtimes); i++)
		if (!strcmp(id, runtimes[i].id))
			return (enum adv_runtime)i;
	return ADV_RT_UNKNOWN;
}

/* ---- each runtime's words for its locks ----------------------------------- */

#define RT(x) (1u << (x))
#define RT_ANY (~0u)

static const char FIX_RUST_MUTEX[] =
	"Hold the guard for less: compute outside the lock and drop(guard) before slow work; "
	"shard the state (one Mutex per shard, or per-thread data merged at the end); use atomics "
	"(AtomicU64::fetch_add) for counters; parking_lot::Mutex spins briefly before parking, "
	"which suits short sections.";
static const char FIX_RUST_RWLOCK[] =
	"Writers of a std::sync::RwLock block every reader: write less often or in batches, keep the "
	"write guard's scope short, shard the data, or publish immutable snapshots (an Arc swapped "
	"under a brief lock, or the arc-swap crate) that readers clone without waiting; "
	"parking_lot::RwLock is fairer to writers.";
static const char FIX_RUST_CONDVAR[] =
	"Wake with notify_one where one waiter can proceed (notify_all wakes every waiter to fight "
	"for the Mutex), keep the Mutex's section short, or hand work over a channel "
	"(std::sync::mpsc, crossbeam-channel).";
static const char FIX_CXX_MUTEX[] =
	"Keep the std::lock_guard / std::unique_lock scope short (compute before taking it, unlock "
	"before slow work); shard the data (one std::mutex per shard, or per-thread data merged at "
	"the end); std::atomic for counters.";
static const char FIX_CXX_SHARED[] =
	"std::shared_mutex writers (std::unique_lock) block every reader (std::shared_lock): write "
	"less often or in batches, shorten the writers' section, or publish immutable snapshots "
	"(std::atomic<std::shared_ptr<T>>, C++20) that readers load without the lock.";
static const char FIX_CXX_CONDVAR[] =
	"notify_one instead of notify_all where one waiter can proceed, a std::condition_variable "
	"per consumer, and a short std::unique_lock section around the predicate.";
static const char FIX_C_MUTEX[] =
	"Shorten the section between pthread_mutex_lock and pthread_mutex_unlock (compute before "
	"taking it, no I/O inside), split the lock by data (one per shard), or use atomics for "
	"counters.";
static const char FIX_C_RWLOCK[] =
	"pthread rwlock writers block every reader: write less often or in batches, shorten the "
	"write section, or publish immutable snapshots that readers use without the lock (RCU).";
static const char FIX_C_CONDVAR[] =
	"pthread_cond_signal instead of pthread_cond_broadcast where one waiter can proceed, a "
	"condition variable per consumer, and a short section under its mutex.";
static const char FIX_GIL[] =
	"Threads of one CPython process run Python code one at a time under the GIL: run CPU-bound "
	"work in processes (multiprocessing, concurrent.futures.ProcessPoolExecutor); release the "
	"GIL around long native work in C extensions (Py_BEGIN_ALLOW_THREADS, Cython's nogil); or "
	"use a free-threaded build (python3.13t, PEP 703) where the libraries support it.";
static const char FIX_PY_LOCK[] =
	"Hold the threading.Lock for less (compute outside `with lock:`), shard the shared state, or "
	"pass work through a queue.Queue; CPU-bound threads still share one GIL: processes "
	"(multiprocessing, ProcessPoolExecutor) or python3.13t run them in parallel.";
static const char FIX_JVM_MONITOR[] =
	"Shorten the synchronized block (compute outside it), split the monitor (lock striping), or "
	"use java.util.concurrent: LongAdder or AtomicLong for counters, ConcurrentHashMap, "
	"ReentrantLock. JFR names the monitor (java -XX:StartFlightRecording:filename=rec.jfr, then "
	"jfr print --events jdk.JavaMonitorEnter rec.jfr).";
static const char FIX_JVM_JUC[] =
	"Threads park in java.util.concurrent (LockSupport.park): shorten the section under the "
	"ReentrantLock, split it by data, or use lock-free classes (LongAdder, ConcurrentHashMap); "
	"JFR's jdk.ThreadPark events name the lock.";
static const char FIX_GO[] =
	"Shorten the section under the sync.Mutex or shard the state (a Mutex per shard, per-goroutine "
	"data merged at the end, sync/atomic for counters). Go's own profiles time the goroutines' "
	"waits: call runtime.SetMutexProfileFraction(5) and runtime.SetBlockProfileRate(10000) at "
	"start, then go tool pprof http://HOST/debug/pprof/mutex (and /block; net/http/pprof), or "
	"go test -mutexprofile.";
static const char FIX_GENERIC[] =
	"Shorten the section the lock guards, split the lock by data, or use atomics for counters.";

/* A herd on a reader-writer lock is not a broadcast to replace: */
static const char HERD_RWLOCK[] =
	"A reader-writer lock's unlock wakes every waiter: readers woken while a writer takes it "
	"again at once only wait again. Write less often or in batches, so that readers get their "
	"turn together, or let readers read a snapshot without the lock.";

static const char NOTE_GO_SCHED[] =
	"Futex waits in the Go runtime are its scheduler's threads sleeping while there is no "
	"goroutine for them to run, not the program's locks.";
static const char NOTE_GO_PARKED[] =
	"Go parks the goroutines that wait; their threads sleep in its scheduler, which is what the "
	"kernel sees: the goroutines wait longer than these threads.";
static const char NOTE_GIL[] =
	"not read (spinscope reads CPython 3.11's frames while it traces): py-spy dump --pid PID "
	"names them.";

struct lock_kind {
	unsigned runtimes;		/* RT() bits it applies to */
	const char *needles[4];		/* substrings of one runtime frame's function */
	const char *kind;
	const char *fix;
	const char *note;
	bool internal;
	/* What to do about a thundering herd on it, when not the broadcast
	 * advice of the wake-herd rule (NULL). */
	const char *herd;
};

/* Matched against each runtime frame, innermost first: the first frame
 * that a row names decides (a condition variable's wait re-locking its
 * mutex is the mutex), the rows of the target's own runtime before the
 * C library's (CPython's take_gil waits in pthread_cond_timedwait: the
 * GIL). Within a frame, rows in order. */
static const struct lock_kind kinds[] = {
	/* runtime.futexsleep serves both: the frame above it says which */
	{ RT(ADV_RT_GO), { "runtime.notesleep", "runtime.notetsleep", "runtime.stopm", "runtime.mPark" },
	  "the Go scheduler's idle threads", FIX_GO, NOTE_GO_SCHED, true, NULL },
	{ RT(ADV_RT_GO), { "runtime.lock2", "runtime.lockWithRank", "runtime.lock(" },
	  "a lock inside the Go runtime", FIX_GO, NOTE_GO_SCHED, true, NULL },
	{ RT(ADV_RT_GO), { "sync.(*RWMutex)", "runtime_SemacquireRWMutex" }, "sync.RWMutex", FIX_GO, NOTE_GO_PARKED, false, NULL },
	{ RT(ADV_RT_GO), { "sync.(*Mutex)", "runtime_SemacquireMutex" }, "sync.Mutex", FIX_GO, NOTE_GO_PARKED, false, NULL },
	{ RT(ADV_RT_CPYTHON), { "take_gil", "drop_gil" }, "the GIL", FIX_GIL, NOTE_GIL, false, NULL },
	{ RT(ADV_RT_CPYTHON), { "PyThread_acquire_lock", "acquire_timed" }, "a threading.Lock",
	  FIX_PY_LOCK, NOTE_GIL, false, NULL },
	{ RT(ADV_RT_RUST), { "RwLock>::write", "write_contended" }, "std::sync::RwLock (writers)",
	  FIX_RUST_RWLOCK, "", false, HERD_RWLOCK },
	{ RT(ADV_RT_RUST), { "RwLock>::read", "read_contended" }, "std::sync::RwLock (readers)",
	  FIX_RUST_RWLOCK, "", false, HERD_RWLOCK },
	{ RT(ADV_RT_RUST), { "rwlock::", "RwLock" }, "std::sync::RwLock", FIX_RUST_RWLOCK, "", false, HERD_RWLOCK },
	{ RT(ADV_RT_RUST), { "Condvar>::", "condvar::", "futex::Condvar" }, "std::sync::Condvar", FIX_RUST_CONDVAR, "", false, NULL },
	/* Rust before 1.70 (Debian 12's 1.63): std::sys::unix::locks::futex::Mutex */
	{ RT(ADV_RT_RUST), { "futex::Mutex", "Mutex::lock_contended" }, "std::sync::Mutex",
	  FIX_RUST_MUTEX, "", false, NULL },
	{ RT(ADV_RT_RUST), { "Mutex>::lock", "Mutex>::unlock", "mutex::", "MutexGuard" }, "std::sync::Mutex",
	  FIX_RUST_MUTEX, "", false, NULL },
	{ RT(ADV_RT_RUST), { "parking_lot" }, "a parking_lot lock", FIX_RUST_MUTEX, "", false, NULL },
	{ RT(ADV_RT_RUST), { "sync::once", "Once>::call", "OnceLock", "LazyLock" }, "std::sync::Once (OnceLock, LazyLock)", FIX_GENERIC, "", false, NULL },
	{ RT(ADV_RT_JVM), { "ObjectMonitor::wait", "JVM_MonitorWait" }, "Object.wait() on a monitor",
	  FIX_JVM_MONITOR, "", false, NULL },
	{ RT(ADV_RT_JVM), { "ObjectMonitor::", "ObjectSynchronizer::", "complete_monitor_locking" },
	  "a synchronized monitor", FIX_JVM_MONITOR, "", false, NULL },
	{ RT(ADV_RT_JVM), { "Unsafe_Park", "Parker::park" },
	  "a java.util.concurrent lock (LockSupport.park)", FIX_JVM_JUC, "", false, NULL },
	{ RT(ADV_RT_CXX), { "rwlock_wrlock", "rwlock_timedwrlock", "rwlock_clockwrlock" },
	  "std::shared_mutex (writers)", FIX_CXX_SHARED, "", false, HERD_RWLOCK },
	{ RT(ADV_RT_CXX), { "rwlock_rdlock", "rwlock_timedrdlock", "rwlock_clockrdlock", "rwlock_unlock" },
	  "std::shared_mutex", FIX_CXX_SHARED, "", false, HERD_RWLOCK },
	{ RT(ADV_RT_CXX), { "mutex_cond_lock" }, "the std::mutex of a std::condition_variable",
	  FIX_CXX_CONDVAR, "", false, NULL },
	{ RT(ADV_RT_CXX), { "pthread_cond_", "condition_variable" }, "std::condition_variable",
	  FIX_CXX_CONDVAR, "", false, NULL },
	{ RT(ADV_RT_CXX), { "pthread_mutex_lock", "pthread_mutex_unlock", "mutex_timedlock", "std::mutex" },
	  "std::mutex", FIX_CXX_MUTEX, "", false, NULL },
	{ RT_ANY, { "rwlock_wrlock", "rwlock_timedwrlock", "rwlock_clockwrlock" },
	  "a pthread rwlock (writers)", FIX_C_RWLOCK, "", false, HERD_RWLOCK },
	{ RT_ANY, { "rwlock_rdlock", "rwlock_timedrdlock", "rwlock_clockrdlock", "rwlock_unlock" },
	  "a pthread rwlock", FIX_C_RWLOCK, "", false, HERD_RWLOCK },
	{ RT_ANY, { "mutex_cond_lock" }, "the mutex of a pthread condition variable", FIX_C_CONDVAR, "", false, NULL },
	{ RT_ANY, { "pthread_cond_" }, "a pthread condition variable", FIX_C_CONDVAR, "", false, NULL },
	{ RT_ANY, { "pthread_mutex_lock", "pthread_mutex_unlock", "mutex_timedlock", "mutex_clocklock" },
	  "a pthread mutex", FIX_C_MUTEX, "", false, NULL },
	{ RT_ANY, { "pthread_barrier_wait" }, "a pthread barrier", FIX_GENERIC, "", false, NULL },
	{ RT_ANY, { "sem_wait", "sem_timedwait", "sem_clockwait" }, "a semaphore", FIX_GENERIC, "", false, NULL },
	{ RT_ANY, { "pthread_join", "pthread_clockjoin", "pthread_timedjoin" }, "a thread join",
	  FIX_GENERIC, "", false, NULL },
};

/* Which rows a pass matches: the target's runtime's own or the C
 * library's, and of those all or only the program's locks (internal
 * false). */
struct kind_pass {
	bool own, program_only;
};

static const struct lock_kind *kind_of_frame(enum adv_runtime rt, struct kind_pass pass,
					     const char *fn, size_t len)
{
	char f[ADV_NAME_LEN];

	snprintf(f, sizeof(f), "%.*s", (int)len, fn);
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++) {
		if (!(kinds[i].runtimes & RT(rt)) || (kinds[i].runtimes == RT_ANY) == pass.own ||
		    (pass.program_only && kinds[i].internal))
			continue;
		for (size_t k = 0; k < 4 && kinds[i].needles[k]; k++)
			if (strstr(f, kinds[i].needles[k]))
				return &kinds[i];
	}
	return NULL;
}

static const struct lock_kind *kind_in_frames(enum adv_runtime rt, struct kind_pass pass,
					      const char *frames)
{
	const char *p = frames;

	while (p && *p) {
		const char *sep = strstr(p, " <- ");
		size_t len = sep ? (size_t)(sep - p) : strlen(p);
		const struct lock_kind *k = kind_of_frame(rt, pass, p, len);

		if (k)
			return k;
		p = sep ? sep + 4 : NULL;
	}
	return NULL;
}

static const struct lock_kind *kind_of_frames(enum adv_runtime rt, const char *frames)
{
	const struct lock_kind *k = NULL;

	/* Go: a goroutine that blocks on a sync.Mutex parks, and its thread,
	 * left with nothing to run, sleeps in the scheduler (runtime.stopm,
	 * notesleep) beneath the lock's frames: the lock is why it sleeps. */
	if (rt == ADV_RT_GO)
		k = kind_in_frames(rt, (struct kind_pass){ .own = true, .program_only = true }, frames);
	if (!k)
		k = kind_in_frames(rt, (struct kind_pass){ .own = true }, frames);
	if (!k)
		k = kind_in_frames(rt, (struct kind_pass){ .own = false }, frames);
	/* Go: any wait that stays inside its runtime is the runtime's own */
	if (!k && rt == ADV_RT_GO && frames && !strncmp(frames, "runtime.", 8))
		k = &kinds[0];
	return k;
}

/* The user's function from "worker in app (via ...)", "worker+0x2b (app)"
 * or "worker": "worker". A JIT name "void SyncStorm.lambda$main$0(long)"
 * loses its return type and parameters. Made printable: it is the
 * target's. */
static void user_function(enum adv_runtime rt, const char *user, char *buf, size_t size)
{
	const char *via = strstr(user, " (via "), *plus = strstr(user, "+0x"), *in, *last = NULL;
	size_t len = via ? (size_t)(via - user) : strlen(user);
	char *space, *paren;

	if (plus && (size_t)(plus - user) < len)
		len = (size_t)(plus - user);
	/* " in MODULE" closes the words of a stack name: the last one */
	for (in = strstr(user, " in "); in && (size_t)(in - user) < len; in = strstr(in + 1, " in "))
		last = in;
	if (last)
		len = (size_t)(last - user);
	snprintf(buf, size, "%.*s", (int)len, user);
	paren = strchr(buf, '(');
	space = strchr(buf, ' ');
	if (rt == ADV_RT_JVM && paren) {
		*paren = '\0';
		if (space && space < paren)
			memmove(buf, space + 1, strlen(space + 1) + 1);
	}
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
}

bool adv_sampled_java_method(const struct adv_samples *s, char *buf, size_t size, double *share)
{
	char module[16];

	for (size_t i = 0; s->available && s->top && s->total && i < s->ntop; i++) {
		const char *sym = s->top[i].symbol;

		/* A method of the program's (a perf map names it "ret
		 * Class.method(args)"), not a stub, not the JDK's */
		if (!last_parens(sym, module, sizeof(module)) || strcmp(module, "[jit]") ||
		    !strchr(sym, '(') || strchr(sym, '(') == strrchr(sym, '(') || adv_is_runtime_function(sym))
			continue;
		user_function(ADV_RT_JVM, sym, buf, size);
		*share = (double)s->top[i].count / (double)s->total;
		return buf[0] != 0;
	}
	return false;
}

/* The runtime's fix when the frames name no kind. */
static const char *generic_fix(enum adv_runtime rt)
{
	switch (rt) {
	case ADV_RT_RUST:	return FIX_RUST_MUTEX;
	case ADV_RT_CXX:	return FIX_CXX_MUTEX;
	case ADV_RT_GO:		return FIX_GO;
	case ADV_RT_CPYTHON:	return FIX_PY_LOCK;
	case ADV_RT_JVM:	return FIX_JVM_MONITOR;
	default:		return FIX_GENERIC;
	}
}

/* A C++ name: demangled, it has a scope or a parameter list. */
static bool cxx_name(const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++)
		if (s[i] == '(' || (s[i] == ':' && i + 1 < len && s[i + 1] == ':'))
			return true;
	return false;
}

static bool frames_name_cxx(const char *frames)
{
	for (const char *p = frames; p && *p;) {
		const char *sep = strstr(p, " <- ");
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		if (cxx_name(p, len))
			return true;
		p = sep ? sep + 4 : NULL;
	}
	return false;
}

void adv_runtime_word_lock(enum adv_runtime rt, const char *runtime_frames,
			   const char *user, struct adv_lock_words *out)
{
	const struct lock_kind *k;

	if ((unsigned)rt > ADV_RT_JVM)
		rt = ADV_RT_UNKNOWN;
	memset(out, 0, sizeof(*out));
	if (user && *user)
		user_function(rt, user, out->function, sizeof(out->function));
	/* A process that maps libstdc++ (a C++ library it links, or the
	 * sanitizers' runtime) may still take this lock from C: where the
	 * function that takes it and every frame below are C names, the lock
	 * is a pthread one, not a std::mutex. */
	if (rt == ADV_RT_CXX && out->function[0] && !cxx_name(out->function, sizeof(out->function)) &&
	    !frames_name_cxx(runtime_frames))
		rt = ADV_RT_C;
	k = kind_of_frames(rt, runtime_frames);
	out->runtime = rt;
	out->fix = k ? k->fix : generic_fix(rt);
	out->note = k ? k->note : "";
	out->runtime_internal = k && k->internal;
	out->herd_fix = k ? k->herd : NULL;
	snprintf(out->kind, sizeof(out->kind), "%s", k ? k->kind : "");
	if (k && rt == ADV_RT_CPYTHON && !strcmp(k->kind, "the GIL"))
		snprintf(out->lock, sizeof(out->lock), "the GIL (CPython)");
	else if (out->function[0])
		snprintf(out->lock, sizeof(out->lock), "%s in %s", k ? k->kind : "a lock", out->function);
	else
		snprintf(out->lock, sizeof(out->lock), "%s", k ? k->kind : "a lock");
}

void adv_runtime_word_futex(const struct adv_profile *p, const struct adv_futex *f,
			    struct adv_lock_words *out)
{
	adv_runtime_word_lock(p->target.runtime, f->runtime_frames, f->user_named ? f->name : NULL, out);
}
