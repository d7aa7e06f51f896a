// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 28: each futex word classified by what the kernel measured (who
 * woke it, how many each wake woke, whether the woken waited again at
 * once, how its waits ended), never by its function names, and the
 * findings of each class: a lock (whatever it is called, or with no name
 * at all), a condition variable's herd, a barrier's slow member, a holder
 * asleep under its lock, threads that take turns (the GIL).
 */
#include "advisor_fixture.h"
#include "advisor/metrics.h"

/* Holders of a word: n threads, the first making share of the wakes that
 * found waiters, each woken count fanout times its wakes; also_waits:
 * whether they wait on the word too. Needs a static array per word. */
struct holders {
	struct adv_holder h[8];
	struct adv_release_site site;
};

static void wake_by(struct adv_futex *fu, struct holders *hs, int n, uint64_t wakes, double top_share,
		    double fanout, bool also_waits)
{
	memset(hs, 0, sizeof(*hs));
	for (int i = 0; i < n; i++) {
		hs->h[i].tid = 5000 + (uint32_t)i;
		snprintf(hs->h[i].comm, sizeof(hs->h[i].comm), "t%d", i);
		hs->h[i].releases = (uint64_t)((i == 0 ? top_share : (1 - top_share) / (n - 1 ? n - 1 : 1)) *
					       (double)wakes);
		hs->h[i].also_waits = also_waits;
	}
	hs->site.wakes = wakes;
	hs->site.woken = (uint64_t)(fanout * (double)wakes);
	hs->site.threads = (uint32_t)n;
	snprintf(hs->site.name, sizeof(hs->site.name), "%s", fu->name);
	fu->holders = hs->h;
	fu->nholders = (size_t)n;
	fu->release_sites = &hs->site;
	fu->nrelease_sites = 1;
	fu->wake_pattern = true;
	fu->wakes = wakes;
	fu->woken = hs->site.woken;
	fu->outcome[SS_FUTEX_WOKEN] = fu->blocked;
}

static enum adv_word_use use_of(const struct adv_futex *fu)
{
	char why[ADV_VALUE_LEN];
	enum adv_word_use u = adv_futex_use(fu, why, sizeof(why));

	printf("  use %d: %s\n", u, why);
	return u;
}

/* The same convoy named as glibc's mutex, as nothing at all (a stripped
 * program's home-made lock) and as a condition variable: one verdict. */
static void test_names_do_not_decide(void **state)
{
	const char *names[] = { "update_total in app (via pthread_mutex_lock in libc)", NULL,
				"worker in app (via pthread_cond_wait in libc)" };
	const char *verdict = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct fx *fx = fx_new(5, 2);
		struct adv_futex *fu = fx_lock(fx, names[i], 4, 500, 200000, 0.4);
		struct holders hs;
		const struct adv_finding *f;

		wake_by(fu, &hs, 4, fu->blocked, 0.3, 1.0, true);
		if (!names[i]) {
			fu->name[0] = 0;
			fu->user_named = false;
		} else if (strstr(names[i], "cond_wait")) {
			snprintf(fu->runtime_frames, sizeof(fu->runtime_frames),
				 "__futex_abstimed_wait_common <- ___pthread_cond_wait");
		}
		assert_int_equal(use_of(fu), ADV_WORD_LOCK);
		fx_host(fx);
		f = fx_run_get(fx, "futex-contention");
		fx_print(f);
		assert_non_null(f);
		if (verdict)
			assert_string_equal(fx_evidence(f, "verdict"), verdict);
		else
			verdict = strdup(fx_evidence(f, "verdict"));
		fx_free(fx);
	}
	free((void *)verdict);
}

/* Woken by another thread that never waits on it: an event, idle, even
 * when its frames say mutex. */
static void test_other_wakers_make_an_event(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, "worker in app (via pthread_mutex_lock in libc)", 4, 50, 20e6, 0.9);
	struct holders hs;

	wake_by(fu, &hs, 1, fu->blocked, 1.0, 1.0, false);
	assert_int_equal(use_of(fu), ADV_WORD_EVENT);
	fx_host(fx);
	assert_null(fx_run_get(fx, "futex-contention"));
	assert_true(fx_worst(&fx->r) < ADV_WARNING);
	fx_free(fx);
}

/* Timed waits that mostly time out, woken by others now and then. */
static void test_timeouts_make_an_event(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, NULL, 4, 100, 10e6, 0.9);
	struct holders hs;

	wake_by(fu, &hs, 1, fu->blocked / 10, 1.0, 1.0, false);
	fu->outcome[SS_FUTEX_WOKEN] = fu->blocked / 10;
	fu->outcome[SS_FUTEX_TIMEDOUT] = fu->blocked - fu->blocked / 10;
	assert_int_equal(use_of(fu), ADV_WORD_EVENT);
	fx_free(fx);
}

/* 8 consumers woken 3 at a time, 80% waiting again at once: a herd,
 * warned, its fix a signal per item; with the woken going on to work, no
 * herd. */
static void test_broadcast_herd(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, "herd_consumer in app (via pthread_cond_wait in libc)", 8,
				       8000, 100e3, 0.3);
	struct holders hs;
	const struct adv_finding *f;

	wake_by(fu, &hs, 1, fu->blocked / 3, 1.0, 3.0, false);
	fu->reblocked = (uint64_t)(0.8 * (double)fu->blocked);
	assert_int_equal(use_of(fu), ADV_WORD_HERD);
	fx_host(fx);
	f = fx_run_get(fx, "wake-herd");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_non_null(strstr(f->recommendation, "signal instead of broadcast"));
	assert_null(fx_get(fx, "futex-contention"));
	fu->reblocked = fu->blocked / 10;
	assert_int_not_equal(use_of(fu), ADV_WORD_HERD);
	assert_null(fx_run_get(fx, "wake-herd"));
	fx_free(fx);
}

/* 4 members, each round's last one waking the 3 others; thread t0 is last
 * in 90% of the rounds and the others wait 60% of their time. */
static void test_barrier_names_its_slow_member(void **state)
{
	struct fx *fx = fx_new(5, 4);
	struct adv_futex *fu = fx_lock(fx, "worker in app (via pthread_barrier_wait in libc)", 4,
				       3000, 1e6, 0.6);
	struct holders hs;
	const struct adv_finding *f;

	wake_by(fu, &hs, 4, fu->blocked / 3, 0.9, 3.0, true);
	/* Short rounds: the woken wait again soon; still a barrier. */
	fu->reblocked = fu->blocked / 2;
	assert_int_equal(use_of(fu), ADV_WORD_BARRIER);
	fx_host(fx);
	f = fx_run_get(fx, "barrier-imbalance");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_non_null(strstr(f->title, "thread 5000 (t0)"));
	assert_null(fx_get(fx, "futex-contention"));
	assert_null(fx_get(fx, "serialization"));
	/* Balanced rounds: nobody named. */
	wake_by(fu, &hs, 4, fu->blocked / 3, 0.25, 3.0, true);
	f = fx_run_get(fx, "barrier-imbalance");
	assert_non_null(f);
	assert_null(strstr(f->title, "thread 5000"));
	fx_free(fx);
}

/* A contended lock whose holders slept under it half the trace. */
static void test_blocking_under_a_lock(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, "append_record in app (via pthread_mutex_lock in libc)", 4,
				       300, 5e6, 0.7);
	struct holders hs;
	const struct adv_finding *f;

	wake_by(fu, &hs, 4, fu->blocked, 0.3, 1.0, true);
	hs.site.user_named = true;
	snprintf(hs.site.name, sizeof(hs.site.name), "append_record in app");
	hs.site.held_blocked_ns = (uint64_t)(0.5 * fx->dur_ns);
	fx_host(fx);
	f = fx_run_get(fx, "blocking-under-lock");
	fx_print(f);
	assert_non_null(f);
	assert_non_null(strstr(f->title, "50% of the trace"));
	assert_non_null(strstr(f->recommendation, "append_record in app"));
	/* Holders that compute under it: nothing said. */
	hs.site.held_blocked_ns = (uint64_t)(0.01 * fx->dur_ns);
	assert_null(fx_run_get(fx, "blocking-under-lock"));
	fx_free(fx);
}

/* Four threads with work, never two on a CPU at once, waiting half their
 * time on a word they hand to each other with timed waits (CPython's GIL:
 * its frames are the interpreter's, no symbol). */
static struct fx *gil(double parallel)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, "python3.11+0xf94ed (via pthread_cond_timedwait in libc)", 4,
				       200, 5e6, 0.55);
	static struct holders hs;

	wake_by(fu, &hs, 4, fu->blocked / 5, 0.3, 1.0, true);
	fu->outcome[SS_FUTEX_WOKEN] = fu->blocked / 5;
	fu->outcome[SS_FUTEX_TIMEDOUT] = fu->blocked - fu->blocked / 5;
	for (size_t i = 0; i < fx->p.nthreads; i++) {
		fx->threads[i].c.oncpu_ns = (uint64_t)(0.25 * fx->dur_ns);
		fx->threads[i].c.futex_wait_ns = (uint64_t)(0.55 * fx->dur_ns);
	}
	fx->p.running_ns[1] = (uint64_t)((1 - parallel) * fx->dur_ns);
	fx->p.running_ns[2] = (uint64_t)(parallel * fx->dur_ns);
	return fx;
}

static void test_gil_serializes(void **state)
{
	struct fx *fx = gil(0.02);
	const struct adv_finding *f;

	fx_host(fx);
	f = fx_run_get(fx, "serialization");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_non_null(strstr(f->title, "GIL"));
	assert_non_null(strstr(f->recommendation, "ProcessPoolExecutor"));
	/* CPython's frames not read: said, with the way to read them */
	assert_true(fx_says(f, "py-spy dump"));
	fx_free(fx);

	/* read: the Python function its threads ran is named, and evidenced */
	fx = gil(0.02);
	fx->p.target.runtime = ADV_RT_CPYTHON;
	fx->p.target.python_read = true;
	snprintf(fx->p.target.python_functions, sizeof(fx->p.target.python_functions),
		 "crunch (gil.py): 4 threads, 97%% of the polls");
	fx_host(fx);
	f = fx_run_get(fx, "serialization");
	assert_true(fx_says(f, "the GIL (CPython), running crunch (gil.py)"));
	assert_string_equal(fx_evidence(f, "Python functions") ?: "", "crunch (gil.py): 4 threads, 97% of the polls");
	assert_string_equal(f->where, "the GIL (CPython), running crunch (gil.py)");
	/* another version: said why */
	fx->p.target.python_read = false;
	snprintf(fx->p.target.python_functions, sizeof(fx->p.target.python_functions),
		 "CPython 3.12: spinscope reads the frames of CPython 3.11 only");
	f = fx_run_get(fx, "serialization");
	assert_true(fx_says(f, "not named: CPython 3.12"));
	assert_false(fx_says(f, "running"));
	fx_free(fx);

	/* The same threads often on CPUs together: they do not take turns. */
	fx = gil(0.6);
	fx_host(fx);
	assert_null(fx_run_get(fx, "serialization"));
	fx_free(fx);

	/* Consumers waiting for another thread's items (it signals, they
	 * never wake it): they wait for it, they do not take turns. */
	fx = gil(0.02);
	for (size_t i = 0; i < fx->futexes[0].nholders; i++)
		((struct adv_holder *)fx->futexes[0].holders)[i].also_waits = false;
	fx_host(fx);
	assert_null(fx_run_get(fx, "serialization"));
	fx_free(fx);

	/* Not measured (an older recording): nothing claimed. */
	fx = gil(0.02);
	memset(fx->p.running_ns, 0, sizeof(fx->p.running_ns));
	fx_host(fx);
	assert_null(fx_run_get(fx, "serialization"));
	fx_free(fx);
}

/* An idle pool (threads asleep on their condition) never serializes. */
static void test_idle_pool_does_not_serialize(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, NULL, 4, 20, 100e6, 0.95);
	struct holders hs;

	wake_by(fu, &hs, 1, fu->blocked, 1.0, 1.0, false);
	for (size_t i = 0; i < fx->p.nthreads; i++)
		fx->threads[i].c.oncpu_ns = (uint64_t)(0.01 * fx->dur_ns);
	fx->p.running_ns[0] = (uint64_t)(0.95 * fx->dur_ns);
	fx->p.running_ns[1] = (uint64_t)(0.05 * fx->dur_ns);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "serialization"));
	assert_true(fx_worst(&fx->r) < ADV_WARNING);
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_do_not_decide),
		cmocka_unit_test(test_other_wakers_make_an_event),
		cmocka_unit_test(test_timeouts_make_an_event),
		cmocka_unit_test(test_broadcast_herd),
		cmocka_unit_test(test_barrier_names_its_slow_member),
		cmocka_unit_test(test_blocking_under_a_lock),
		cmocka_unit_test(test_gil_serializes),
		cmocka_unit_test(test_idle_pool_does_not_serialize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
