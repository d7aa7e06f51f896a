// SPDX-License-Identifier: GPL-2.0
/*
 * advisor/runtime.c: which frames are a runtime's, and each runtime's
 * words for a lock and its fixes. The frames are those spinscope printed
 * for tests/workloads/lang/ (Rust std::sync, C++ std::mutex, CPython
 * threads, Go sync.Mutex) on Debian 12, as the bridge
 * (report/advice.c) joins them: runtime functions innermost first.
 */
#include <string.h>
#include "testlib.h"
#include "advisor/runtime.h"

static void test_runtime_frames_by_function(void **state)
{
	/* Rust's std linked into the user's executable is not the user's code */
	assert_true(adv_is_runtime_frame("<std::sys::sync::mutex::futex::Mutex>::lock_contended+0xb5 (mutex_rs)"));
	assert_true(adv_is_runtime_frame("std::sys::backtrace::__rust_begin_short_backtrace+0x27 (mutex_rs)"));
	assert_true(adv_is_runtime_frame("core::ops::function::FnOnce::call_once{{vtable.shim}}+0x5d (mutex_rs)"));
	assert_false(adv_is_runtime_frame("mutex_rs::bump_shared+0xc3 (mutex_rs)"));
	/* Go's runtime and sync package */
	assert_true(adv_is_runtime_frame("runtime.notesleep+0x86 (go_mutex)"));
	assert_true(adv_is_runtime_frame("sync.(*Mutex).lockSlow+0x1a (go_mutex)"));
	assert_false(adv_is_runtime_frame("main.bumpShared+0x2b (go_mutex)"));
	/* the CPython interpreter, linked in or not */
	assert_true(adv_is_runtime_frame("take_gil+0xbe (libpython3.11.so.1.0)"));
	assert_true(adv_is_runtime_frame("_PyEval_EvalFrameDefault+0x226c (python3.11)"));
	/* C++ templates instantiated in the user's binary; the user's lambda is not */
	assert_true(adv_is_runtime_frame(
		"std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#1}> > >::_M_run()+0x54 (mutex_cxx)"));
	assert_false(adv_is_runtime_frame("worker_section()+0x1b (mutex_cxx)"));
	/* the JDK's classes in JIT code, with or without a return type */
	assert_true(adv_is_runtime_frame("void java.util.concurrent.locks.ReentrantLock.lock()+0x20 ([jit])"));
	assert_true(adv_is_runtime_frame("jdk.internal.misc.Unsafe.park(boolean, long)+0x9 ([jit])"));
	assert_false(adv_is_runtime_frame("void SyncStorm.lambda$main$0(long)+0x44 ([jit])"));
	/* the JVM's stubs in JIT code */
	assert_true(adv_is_runtime_frame("_complete_monitor_locking_Java+0x27 ([jit])"));
	assert_true(adv_is_runtime_frame("Interpreter+0x1a0 ([jit])"));
	/* by module, as before */
	assert_true(adv_is_runtime_frame("pthread_mutex_lock+0x111 (libc.so.6)"));
	assert_false(adv_is_runtime_frame("[unknown]"));
	assert_false(adv_is_runtime_frame(NULL));
	assert_false(adv_is_runtime_module("libcurl.so.4"));
}

static void test_runtime_ids(void **state)
{
	for (int rt = ADV_RT_UNKNOWN; rt <= ADV_RT_JVM; rt++)
		assert_int_equal(adv_runtime_from_id(adv_runtime_id((enum adv_runtime)rt)), rt);
	assert_int_equal(adv_runtime_from_id("cobol"), ADV_RT_UNKNOWN);
	assert_int_equal(adv_runtime_from_id(NULL), ADV_RT_UNKNOWN);
	assert_string_equal(adv_runtime_name(ADV_RT_CPYTHON), "CPython");
	assert_string_equal(adv_runtime_id((enum adv_runtime)99), "unknown");
}

static void test_rust_std_sync(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- <std::sys::sync::mutex::futex::Mutex>::lock_contended",
			      "mutex_rs::bump_shared in mutex_rs (via <std::sys::sync::mutex::futex::Mutex>::lock_contended in mutex_rs)",
			      &w);
	assert_string_equal(w.lock, "std::sync::Mutex in mutex_rs::bump_shared");
	assert_string_equal(w.function, "mutex_rs::bump_shared");
	assert_non_null(strstr(w.fix, "shard"));
	assert_non_null(strstr(w.fix, "parking_lot"));
	assert_non_null(strstr(w.fix, "drop(guard)"));
	assert_false(w.runtime_internal);

	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- <std::sys::sync::rwlock::futex::RwLock>::read_contended",
			      "mutex_rs::read_shared in mutex_rs (via x in mutex_rs)", &w);
	assert_string_equal(w.lock, "std::sync::RwLock (readers) in mutex_rs::read_shared");
	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- <std::sys::sync::rwlock::futex::RwLock>::write_contended",
			      "mutex_rs::write_shared+0x40 (mutex_rs)", &w);
	assert_string_equal(w.lock, "std::sync::RwLock (writers) in mutex_rs::write_shared");
	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- <std::sys::sync::condvar::futex::Condvar>::wait",
			      "mutex_rs::take_item in mutex_rs (via y in mutex_rs)", &w);
	assert_string_equal(w.lock, "std::sync::Condvar in mutex_rs::take_item");
	assert_non_null(strstr(w.fix, "notify_one"));
	/* call_once of a thread's closure is no Once */
	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- core::ops::function::FnOnce::call_once", NULL, &w);
	assert_string_equal(w.kind, "");
	assert_string_equal(w.lock, "a lock");
}

static void test_cxx_std_mutex(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_CXX, "__lll_lock_wait <- pthread_mutex_lock",
			      "worker_section() in mutex_cxx (via pthread_mutex_lock in libc)", &w);
	assert_string_equal(w.lock, "std::mutex in worker_section()");
	assert_non_null(strstr(w.fix, "std::lock_guard"));
	adv_runtime_word_lock(ADV_RT_CXX, "__futex_abstimed_wait_common <- __pthread_rwlock_wrlock_full64 <- pthread_rwlock_wrlock",
			      "writer_section() in mutex_cxx (via pthread_rwlock_wrlock in libc)", &w);
	assert_string_equal(w.lock, "std::shared_mutex (writers) in writer_section()");
	assert_non_null(strstr(w.fix, "std::shared_lock"));
	/* a condition variable's wait re-taking its mutex is the mutex */
	adv_runtime_word_lock(ADV_RT_CXX, "__lll_lock_wait <- __pthread_mutex_cond_lock <- pthread_cond_wait <- std::condition_variable::wait(std::unique_lock<std::mutex>&)",
			      "consume() in app (via x in libc)", &w);
	assert_string_equal(w.kind, "the std::mutex of a std::condition_variable");
	/* a C function of a process that maps libstdc++ (a C++ library it
	 * links, or ASan's runtime) takes a pthread mutex, not a std::mutex */
	adv_runtime_word_lock(ADV_RT_CXX, "__lll_lock_wait <- pthread_mutex_lock",
			      "demo_locked_update in spinscope (via pthread_mutex_lock in libc)", &w);
	assert_string_equal(w.lock, "a pthread mutex in demo_locked_update");
	assert_int_equal(w.runtime, ADV_RT_C);
	assert_null(strstr(w.fix, "std::"));
	adv_runtime_word_lock(ADV_RT_CXX, "__lll_lock_wait <- pthread_mutex_lock",
			      "Queue::push in app (via pthread_mutex_lock in libc)", &w);
	assert_string_equal(w.lock, "std::mutex in Queue::push");
	assert_int_equal(w.runtime, ADV_RT_CXX);
	/* the same frames in C */
	adv_runtime_word_lock(ADV_RT_C, "__lll_lock_wait <- pthread_mutex_lock", "worker in app (via pthread_mutex_lock in libc)", &w);
	assert_string_equal(w.lock, "a pthread mutex in worker");
	assert_null(strstr(w.fix, "std::"));
}

static void test_cpython_gil(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_CPYTHON,
			      "__futex_abstimed_wait_common <- pthread_cond_timedwait <- take_gil <- _PyEval_EvalFrameDefault <- _PyEval_Vector",
			      NULL, &w);
	assert_string_equal(w.lock, "the GIL (CPython)");
	assert_string_equal(w.kind, "the GIL");
	assert_non_null(strstr(w.fix, "ProcessPoolExecutor"));
	assert_non_null(strstr(w.fix, "multiprocessing"));
	assert_non_null(strstr(w.fix, "Py_BEGIN_ALLOW_THREADS"));
	assert_non_null(strstr(w.fix, "3.13t"));
	/* where the frames were not read, it says so and how to read them */
	assert_non_null(strstr(w.note, "py-spy dump"));
	/* the same wait in a C program is a condition variable */
	adv_runtime_word_lock(ADV_RT_C, "__futex_abstimed_wait_common <- pthread_cond_timedwait <- take_gil", NULL, &w);
	assert_string_equal(w.kind, "a pthread condition variable");
}

static void test_go_runtime_futexes(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_GO,
			      "runtime.futex.abi0 <- runtime.notesleep <- runtime.stopm <- runtime.findRunnable <- runtime.schedule",
			      NULL, &w);
	assert_true(w.runtime_internal);
	assert_string_equal(w.kind, "the Go scheduler's idle threads");
	assert_non_null(strstr(w.note, "not the program's locks"));
	assert_non_null(strstr(w.fix, "go tool pprof"));
	assert_non_null(strstr(w.fix, "runtime.SetMutexProfileFraction"));
	adv_runtime_word_lock(ADV_RT_GO, "runtime.futex.abi0 <- runtime.futexsleep <- runtime.lock2", NULL, &w);
	assert_true(w.runtime_internal);
	assert_string_equal(w.kind, "a lock inside the Go runtime");
	/* an unknown runtime wait stays the runtime's */
	adv_runtime_word_lock(ADV_RT_GO, "runtime.futex.abi0 <- runtime.somethingNew", NULL, &w);
	assert_true(w.runtime_internal);
}

static void test_jvm_words(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_JVM,
			      "__futex_abstimed_wait_common <- ___pthread_cond_wait <- PlatformMonitor::wait <- ObjectMonitor::EnterI <- ObjectMonitor::enter",
			      "void SyncStorm.lambda$main$0(long) in [jit] (via ObjectMonitor::enter in libjvm)", &w);
	assert_string_equal(w.lock, "a synchronized monitor in SyncStorm.lambda$main$0");
	assert_non_null(strstr(w.fix, "LongAdder"));
	adv_runtime_word_lock(ADV_RT_JVM, "__futex_abstimed_wait_common <- ___pthread_cond_wait <- Parker::park <- Unsafe_Park",
			      "void SyncStorm.lambda$main$1(long)+0x10 ([jit])", &w);
	assert_string_equal(w.lock, "a java.util.concurrent lock (LockSupport.park) in SyncStorm.lambda$main$1");
}

/* Names from the target are printed: control characters never pass. */
static void test_hostile_names(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_C, "pthread_mutex_lock", "evil\033[2J\n in app (via x in libc)", &w);
	assert_string_equal(w.function, "evil?[2J?");
	for (const char *c = w.lock; *c; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
	adv_runtime_word_lock((enum adv_runtime)77, NULL, "", &w);
	assert_string_equal(w.lock, "a lock");
	assert_non_null(w.fix);
	assert_non_null(w.note);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtime_frames_by_function),
		cmocka_unit_test(test_runtime_ids),
		cmocka_unit_test(test_rust_std_sync),
		cmocka_unit_test(test_cxx_std_mutex),
		cmocka_unit_test(test_cpython_gil),
		cmocka_unit_test(test_go_runtime_futexes),
		cmocka_unit_test(test_jvm_words),
		cmocka_unit_test(test_hostile_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
